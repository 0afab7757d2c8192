/* Parsing and writing the password file's lines; see file_format.h. */
#include "keystore/file_format.h"
#include "keystore/ks_internal.h"

#include <stdlib.h>
#include <string.h>

static const char HEADER[] = "# e2b-tui box passwords: keep this file private (mode 0600)\n";

/* '#' too: a line whose first field began with a raw '#' would read back as a comment and
 * the entry would vanish on the next load (found by tests/fuzz/fuzz_keystore_file). */
static bool needs_escape(unsigned char c)
{
    return c < 0x21 || c == 0x7f || c == '%' || c == '#';
}

static size_t encoded_len(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += needs_escape((unsigned char)*s) ? 3 : 1;
    return n;
}

static char *encode_into(char *o, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (needs_escape(c)) {
            *o++ = '%';
            *o++ = hex[c >> 4];
            *o++ = hex[c & 15];
        } else {
            *o++ = (char)c;
        }
    }
    return o;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* Decodes s[0..len) into a malloc'd string; NULL on a bad escape, an empty field or a NUL. */
static char *decode(const char *s, size_t len, bool *nomem)
{
    if (len == 0)
        return NULL;
    char *o = malloc(len + 1);
    if (!o) {
        *nomem = true;
        return NULL;
    }
    size_t j = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] != '%') {
            o[j++] = s[i];
            continue;
        }
        int hi = i + 2 < len ? hexval(s[i + 1]) : -1, lo = i + 2 < len ? hexval(s[i + 2]) : -1;
        if (i + 2 >= len || hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
            explicit_bzero(o, j);
            free(o);
            return NULL;
        }
        o[j++] = (char)(hi << 4 | lo);
        i += 2;
    }
    o[j] = '\0';
    return o;
}

void ksf_records_free(ksf_record *recs, size_t n)
{
    if (!recs)
        return;
    for (size_t i = 0; i < n; i++) {
        free(recs[i].box);
        free(recs[i].sid);
        keystore_password_free(recs[i].password);
    }
    free(recs);
}

ks_code ksf_parse(const char *buf, size_t len, const char *name, ksf_record **recs, size_t *n,
                  ks_error *err)
{
    *recs = NULL;
    *n = 0;
    size_t cap = 0, lineno = 0;
    const char *p = buf, *end = buf + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;
        lineno++;
        if (eol == p || *p == '#') {
            p = nl ? nl + 1 : end;
            continue;
        }
        const char *t1 = memchr(p, '\t', (size_t)(eol - p));
        const char *t2 = t1 ? memchr(t1 + 1, '\t', (size_t)(eol - t1 - 1)) : NULL;
        if (!t1 || !t2 || memchr(t2 + 1, '\t', (size_t)(eol - t2 - 1)) ||
            memchr(p, '\0', (size_t)(eol - p))) {
            ksf_records_free(*recs, *n);
            *recs = NULL;
            *n = 0;
            return ks_fail(err, KS_ERR_CORRUPT,
                           "%s line %zu is not \"box<TAB>sandbox<TAB>password\": fix or remove "
                           "that line",
                           name, lineno);
        }
        bool nomem = false;
        ksf_record r = {decode(p, (size_t)(t1 - p), &nomem),
                        decode(t1 + 1, (size_t)(t2 - t1 - 1), &nomem),
                        decode(t2 + 1, (size_t)(eol - t2 - 1), &nomem)};
        bool grown = true;
        if (r.box && r.sid && r.password && *n == cap) {
            size_t ncap = cap ? cap * 2 : 8;
            ksf_record *g = realloc(*recs, ncap * sizeof *g);
            if (g) {
                *recs = g;
                cap = ncap;
            } else {
                grown = false;
            }
        }
        if (!r.box || !r.sid || !r.password || !grown) {
            free(r.box);
            free(r.sid);
            keystore_password_free(r.password);
            ksf_records_free(*recs, *n);
            *recs = NULL;
            *n = 0;
            if (nomem || !grown)
                return ks_fail(err, KS_ERR_NOMEM, "out of memory reading %s", name);
            return ks_fail(err, KS_ERR_CORRUPT,
                           "%s line %zu has an empty field or a bad %%-escape: fix or remove "
                           "that line",
                           name, lineno);
        }
        (*recs)[(*n)++] = r;
        p = nl ? nl + 1 : end;
    }
    return KS_OK;
}

char *ksf_serialize(const ksf_record *recs, size_t n, size_t *len)
{
    size_t total = sizeof HEADER - 1;
    for (size_t i = 0; i < n; i++)
        total +=
            encoded_len(recs[i].box) + encoded_len(recs[i].sid) + encoded_len(recs[i].password) + 3;
    char *buf = malloc(total + 1);
    if (!buf)
        return NULL;
    char *o = buf;
    memcpy(o, HEADER, sizeof HEADER - 1);
    o += sizeof HEADER - 1;
    for (size_t i = 0; i < n; i++) {
        o = encode_into(o, recs[i].box);
        *o++ = '\t';
        o = encode_into(o, recs[i].sid);
        *o++ = '\t';
        o = encode_into(o, recs[i].password);
        *o++ = '\n';
    }
    *o = '\0';
    *len = total;
    return buf;
}
