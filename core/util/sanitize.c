#include "core/util/sanitize.h"

#include <stdint.h>
#include <stdlib.h>

/* Decodes one UTF-8 sequence at s (n bytes available). Returns its length and stores the
 * code point, or returns 0 for an invalid, overlong, surrogate or truncated sequence. */
static size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
    size_t len;
    uint32_t c;
    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    if ((s[0] & 0xE0) == 0xC0) {
        len = 2;
        c = s[0] & 0x1F;
    } else if ((s[0] & 0xF0) == 0xE0) {
        len = 3;
        c = s[0] & 0x0F;
    } else if ((s[0] & 0xF8) == 0xF0) {
        len = 4;
        c = s[0] & 0x07;
    } else {
        return 0;
    }
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        c = (c << 6) | (s[i] & 0x3F);
    }
    static const uint32_t min_for_len[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < min_for_len[len] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    *cp = c;
    return len;
}

static int is_bidi_control(uint32_t c)
{
    return (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069) || c == 0x200E ||
           c == 0x200F || c == 0x061C;
}

char *e2b_sanitize_display(const char *s, size_t len, unsigned flags)
{
    /* Worst case: every byte becomes U+FFFD (3 bytes). */
    char *out = malloc(len * 3 + 1);
    if (out)
        e2b_sanitize_into(out, s, len, flags);
    return out;
}

size_t e2b_sanitize_into(char *out, const char *s, size_t len, unsigned flags)
{
    const unsigned char *in = (const unsigned char *)s;
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        size_t n = utf8_decode(in + i, len - i, &cp);
        if (n == 0) {
            out[o++] = (char)0xEF;
            out[o++] = (char)0xBF;
            out[o++] = (char)0xBD;
            i++;
            continue;
        }
        if (cp == '\n')
            out[o++] = (flags & E2B_SANITIZE_KEEP_NEWLINES) ? '\n' : ' ';
        else if (cp == '\t')
            out[o++] = ' ';
        else if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) || is_bidi_control(cp))
            out[o++] = '?';
        else
            for (size_t k = 0; k < n; k++)
                out[o++] = (char)in[i + k];
        i += n;
    }
    out[o] = '\0';
    return o;
}
