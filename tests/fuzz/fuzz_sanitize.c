/* Fuzz target: the display sanitiser (core/util/sanitize.h), with and without
 * E2B_SANITIZE_KEEP_NEWLINES.
 *
 * Invariants on the output: NUL-terminated at its length (no NUL inside), valid UTF-8 (no
 * overlong form, surrogate or code point above U+10FFFF), no byte below 0x20 except '\n' when
 * newlines are kept, no DEL, no C1 control (U+0080..U+009F), no bidi override or isolate; at
 * most 3 bytes per input byte; sanitising the output again changes nothing; and an input that
 * is already clean comes back unchanged. */
#include "core/util/sanitize.h"
#include "tests/fuzz/fuzz_common.h"

#include <string.h>

/* A strict UTF-8 decoder written independently of core/util/sanitize.c. Returns the sequence
 * length, or 0 when invalid. */
static size_t decode(const unsigned char *s, size_t n, uint32_t *cp)
{
    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    size_t len = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC0 ? 2 : 0;
    if (len == 0 || s[0] > 0xF4 || len > n)
        return 0;
    uint32_t c = s[0] & (0x7F >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        c = c << 6 | (s[i] & 0x3F);
    }
    if ((len == 2 && c < 0x80) || (len == 3 && c < 0x800) || (len == 4 && c < 0x10000) ||
        c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    *cp = c;
    return len;
}

static int is_bidi(uint32_t c)
{
    return (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069) || c == 0x200E ||
           c == 0x200F || c == 0x061C;
}

/* Whether s[0..n) is text the sanitiser must pass through as is. */
static int is_clean(const unsigned char *s, size_t n, int keep_newlines)
{
    for (size_t i = 0; i < n;) {
        uint32_t c;
        size_t k = decode(s + i, n - i, &c);
        if (k == 0)
            return 0;
        if ((c < 0x20 && !(c == '\n' && keep_newlines)) || c == 0x7F ||
            (c >= 0x80 && c <= 0x9F) || is_bidi(c))
            return 0;
        i += k;
    }
    return 1;
}

static void check(const uint8_t *data, size_t size, unsigned flags)
{
    int keep = (flags & E2B_SANITIZE_KEEP_NEWLINES) != 0;
    char *out = e2b_sanitize_display((const char *)data, size, flags);
    FUZZ_CHECK(out != NULL);
    size_t n = strlen(out);
    FUZZ_CHECK(n <= 3 * size);
    const unsigned char *o = (const unsigned char *)out;
    for (size_t i = 0; i < n;) {
        uint32_t c;
        size_t k = decode(o + i, n - i, &c);
        FUZZ_CHECK(k != 0);
        FUZZ_CHECK(c >= 0x20 || (c == '\n' && keep));
        FUZZ_CHECK(c != 0x7F);
        FUZZ_CHECK(c < 0x80 || c > 0x9F);
        FUZZ_CHECK(!is_bidi(c));
        i += k;
    }
    FUZZ_CHECK(is_clean(o, n, keep));
    char *again = e2b_sanitize_display(out, n, flags);
    FUZZ_CHECK(again && strcmp(again, out) == 0);
    free(again);
    if (is_clean(data, size, keep))
        FUZZ_CHECK(n == size && memcmp(out, data, size) == 0);
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check(data, size, 0);
    check(data, size, E2B_SANITIZE_KEEP_NEWLINES);
    return 0;
}
