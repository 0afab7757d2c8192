/* Fuzz target: the git bundle header parser (e2b_bundle_header_parse in core/git/bundle.h).
 *
 * Invariants:
 *  - a complete header: version 2 or 3, at least one ref, header_len within the input and
 *    ending with the blank line, every object id 40 lowercase hex, every ref name non-empty,
 *    printable, without a space;
 *  - incremental: the header alone (buf[0..header_len)) parses to the same result, and every
 *    shorter prefix (one cut derived from the data) answers "need more" (0);
 *  - a prefix of an input that is complete or valid so far is never judged invalid (an
 *    importer that sees the bytes in pieces must not refuse what it would accept whole);
 *  - an error leaves the output empty and carries a message. */
#include "core/git/bundle.h"
#include "tests/fuzz/fuzz_common.h"

#include <string.h>

static int is_oid(const char *s)
{
    for (int i = 0; i < 40; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return s[40] == '\0';
}

static void check_complete(const e2b_bundle_header *h, const uint8_t *data, size_t size)
{
    FUZZ_CHECK(h->version == 2 || h->version == 3);
    FUZZ_CHECK(h->nrefs >= 1 && h->refs != NULL);
    FUZZ_CHECK(h->header_len >= 2 && h->header_len <= size);
    FUZZ_CHECK(h->header_len <= E2B_BUNDLE_HEADER_MAX);
    FUZZ_CHECK(data[h->header_len - 1] == '\n' && data[h->header_len - 2] == '\n');
    for (size_t i = 0; i < h->nprereqs; i++)
        FUZZ_CHECK(is_oid(h->prereqs[i]));
    for (size_t i = 0; i < h->nrefs; i++) {
        FUZZ_CHECK(is_oid(h->refs[i].oid));
        const unsigned char *name = (const unsigned char *)h->refs[i].name;
        FUZZ_CHECK(name && name[0]);
        for (; *name; name++)
            FUZZ_CHECK(*name > 0x20 && *name != 0x7f);
    }
}

static void check_same(const e2b_bundle_header *a, const e2b_bundle_header *b)
{
    FUZZ_CHECK(a->version == b->version && a->header_len == b->header_len);
    FUZZ_CHECK(a->nprereqs == b->nprereqs && a->nrefs == b->nrefs);
    for (size_t i = 0; i < a->nprereqs; i++)
        FUZZ_CHECK(strcmp(a->prereqs[i], b->prereqs[i]) == 0);
    for (size_t i = 0; i < a->nrefs; i++) {
        FUZZ_CHECK(strcmp(a->refs[i].oid, b->refs[i].oid) == 0);
        FUZZ_CHECK(strcmp(a->refs[i].name, b->refs[i].name) == 0);
    }
}

/* Parses an exact-size copy of data[0..len) so that ASan catches any read past len. */
static int parse_prefix(const uint8_t *data, size_t len, e2b_bundle_header *h, e2b_error **err)
{
    uint8_t *copy = malloc(len ? len : 1);
    FUZZ_CHECK(copy != NULL);
    memcpy(copy, data, len);
    memset(h, 0x3C, sizeof *h);
    int r = e2b_bundle_header_parse(copy, len, h, err);
    free(copy);
    return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    e2b_bundle_header h;
    e2b_error *err = NULL;
    int r = parse_prefix(data, size, &h, &err);
    FUZZ_CHECK(r == -1 || r == 0 || r == 1);
    size_t cut = fuzz_split_offset(data, size);
    if (r == 1) {
        check_complete(&h, data, size);
        e2b_bundle_header again;
        FUZZ_CHECK(parse_prefix(data, h.header_len, &again, &err) == 1);
        check_same(&h, &again);
        e2b_bundle_header_free(&again);
        if (cut < h.header_len) {
            e2b_bundle_header part;
            FUZZ_CHECK(parse_prefix(data, cut, &part, &err) == 0);
        }
        e2b_bundle_header_free(&h);
    } else if (r == 0) {
        e2b_bundle_header part;
        FUZZ_CHECK(parse_prefix(data, cut, &part, &err) == 0);
    } else {
        FUZZ_CHECK(e2b_error_sub_of(err) == E2B_SUB_BAD_BUNDLE);
        FUZZ_CHECK(e2b_error_message(err)[0] != '\0');
    }
    if (r != -1) {
        /* A prefix of a valid-so-far input is valid so far. */
        e2b_bundle_header part;
        int p = parse_prefix(data, cut, &part, &err);
        FUZZ_CHECK(p != -1);
        if (p == 1)
            e2b_bundle_header_free(&part);
    }
    e2b_error_free(err);
    return 0;
}
