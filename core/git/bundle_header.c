/* The bundle header parser: pure, no libgit2, no I/O (see bundle.h for the rules). */
#include "core/git/bundle.h"

#include "core/util/buf.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char SIG2[] = "# v2 git bundle\n";
static const char SIG3[] = "# v3 git bundle\n";
#define SIG_LEN 16

static int is_hex40(const uint8_t *p, size_t n)
{
    if (n < 40)
        return 0;
    for (size_t i = 0; i < 40; i++)
        if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
            return 0;
    return 1;
}

static int valid_ref_name(const uint8_t *p, size_t n)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (p[i] <= 0x20 || p[i] == 0x7f)
            return 0;
    return 1;
}

void e2b_bundle_header_free(e2b_bundle_header *h)
{
    if (!h)
        return;
    for (size_t i = 0; i < h->nrefs; i++)
        free(h->refs[i].name);
    free(h->refs);
    free(h->prereqs);
    memset(h, 0, sizeof *h);
}

static int add_prereq(e2b_bundle_header *h, const uint8_t *hex)
{
    if (e2b_array_grow((void **)&h->prereqs, &h->prereqs_cap, h->nprereqs + 1,
                       sizeof *h->prereqs) < 0)
        return -1;
    char(*n)[41] = h->prereqs;
    memcpy(n[h->nprereqs], hex, 40);
    n[h->nprereqs][40] = '\0';
    h->nprereqs++;
    return 0;
}

static int add_ref(e2b_bundle_header *h, const uint8_t *hex, const uint8_t *name, size_t nlen)
{
    if (e2b_array_grow((void **)&h->refs, &h->refs_cap, h->nrefs + 1, sizeof *h->refs) < 0)
        return -1;
    e2b_bundle_ref *n = h->refs;
    e2b_bundle_ref *r = &n[h->nrefs];
    if (!(r->name = malloc(nlen + 1)))
        return -1;
    memcpy(r->name, name, nlen);
    r->name[nlen] = '\0';
    memcpy(r->oid, hex, 40);
    r->oid[40] = '\0';
    h->nrefs++;
    return 0;
}

/* Sets *err (err may be NULL) to a new E2B_SUB_* error of the header; returns -1. */
static int header_error(e2b_error **err, e2b_error_sub sub, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int header_error(e2b_error **err, e2b_error_sub sub, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        *err = e2b_error_localv(sub, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* One header line (without its newline). Returns 0 or -1 with *err set. */
static int parse_line(e2b_bundle_header *h, const uint8_t *l, size_t n, size_t lineno, e2b_error **err)
{
    if (l[0] == '@') {
        if (h->version != 3)
            return header_error(err, E2B_SUB_BAD_BUNDLE, "bundle line %zu: capability in a v2 bundle",
                                lineno);
        static const char fmt_sha1[] = "@object-format=sha1";
        if (n == sizeof fmt_sha1 - 1 && memcmp(l, fmt_sha1, n) == 0)
            return 0;
        if (n >= 15 && memcmp(l, "@object-format=", 15) == 0)
            return header_error(err, E2B_SUB_BAD_BUNDLE,
                                "bundle uses an object format other than sha1 (SHA-256 "
                                "repositories are not supported)");
        if (n >= 8 && memcmp(l, "@filter=", 8) == 0)
            return header_error(err, E2B_SUB_BAD_BUNDLE,
                                "bundle is filtered (partial): objects would be missing");
        return header_error(err, E2B_SUB_BAD_BUNDLE, "bundle line %zu: unknown capability", lineno);
    }
    if (l[0] == '-') {
        if (!is_hex40(l + 1, n - 1) || (n > 41 && l[41] != ' '))
            return header_error(err, E2B_SUB_BAD_BUNDLE,
                                "bundle line %zu: malformed prerequisite", lineno);
        if (add_prereq(h, l + 1) < 0)
            return header_error(err, E2B_SUB_NOMEM, "out of memory");
        return 0;
    }
    if (!is_hex40(l, n) || n < 42 || l[40] != ' ' || !valid_ref_name(l + 41, n - 41))
        return header_error(err, E2B_SUB_BAD_BUNDLE, "bundle line %zu: malformed reference", lineno);
    if (add_ref(h, l, l + 41, n - 41) < 0)
        return header_error(err, E2B_SUB_NOMEM, "out of memory");
    return 0;
}

int e2b_bundle_header_parse(const uint8_t *buf, size_t len, e2b_bundle_header *out, e2b_error **err)
{
    memset(out, 0, sizeof *out);
    if (len == 0) /* buf may be NULL then: nothing to compare yet */
        return 0;
    size_t sl = len < SIG_LEN ? len : SIG_LEN;
    int v2 = memcmp(buf, SIG2, sl) == 0, v3 = memcmp(buf, SIG3, sl) == 0;
    if (!v2 && !v3) {
        return header_error(err, E2B_SUB_BAD_BUNDLE, "not a git bundle (v2 or v3 signature expected)");
    }
    if (len < SIG_LEN)
        return 0;
    e2b_bundle_header h = {.version = v3 ? 3 : 2};
    size_t pos = SIG_LEN, lineno = 1;
    for (;;) {
        lineno++;
        size_t avail = len - pos;
        if (avail > E2B_BUNDLE_HEADER_MAX - pos)
            avail = E2B_BUNDLE_HEADER_MAX - pos;
        const uint8_t *nl = memchr(buf + pos, '\n', avail);
        size_t n = nl ? (size_t)(nl - (buf + pos)) : avail;
        if (n > E2B_BUNDLE_LINE_MAX) {
            header_error(err, E2B_SUB_BAD_BUNDLE, "bundle line %zu is too long", lineno);
            goto bad;
        }
        if (memchr(buf + pos, '\0', n) || memchr(buf + pos, '\r', n)) {
            header_error(err, E2B_SUB_BAD_BUNDLE, "bundle line %zu holds a NUL or CR byte", lineno);
            goto bad;
        }
        if (!nl) {
            if (pos + avail >= E2B_BUNDLE_HEADER_MAX) {
                header_error(err, E2B_SUB_BAD_BUNDLE, "bundle header is larger than %u bytes",
                             E2B_BUNDLE_HEADER_MAX);
                goto bad;
            }
            e2b_bundle_header_free(&h);
            return 0;
        }
        if (n == 0)
            break;
        if (parse_line(&h, buf + pos, n, lineno, err) < 0)
            goto bad;
        pos += n + 1;
    }
    if (h.nrefs == 0) {
        header_error(err, E2B_SUB_BAD_BUNDLE, "bundle lists no references");
        goto bad;
    }
    h.header_len = pos + 1;
    *out = h;
    return 1;
bad:
    e2b_bundle_header_free(&h);
    return -1;
}
