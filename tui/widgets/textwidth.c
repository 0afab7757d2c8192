#include "tui/widgets/textwidth.h"

#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* Decodes one character at s; returns its length in bytes (1 for a bad byte) and its width. */
static size_t next_char(const char *s, size_t n, int *width)
{
    mbstate_t st;
    wchar_t wc;
    memset(&st, 0, sizeof st);
    size_t len = mbrtowc(&wc, s, n, &st);
    if (len == (size_t)-1 || len == (size_t)-2 || len == 0) {
        *width = 1;
        return 1;
    }
    int w = wcwidth(wc);
    *width = w < 0 ? 1 : w;
    return len;
}

int text_width(const char *s)
{
    int total = 0;
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        int w;
        i += next_char(s + i, n - i, &w);
        total += w;
    }
    return total;
}

size_t text_fit(const char *s, int width, int *used)
{
    int total = 0;
    size_t n = strlen(s), i = 0;
    while (i < n) {
        int w;
        size_t len = next_char(s + i, n - i, &w);
        if (total + w > width)
            break;
        total += w;
        i += len;
    }
    if (used)
        *used = total;
    return i;
}

const char *text_ellipsis(void)
{
    return MB_CUR_MAX > 1 ? "\xe2\x80\xa6" : "~";
}

/* Appends len bytes of s to out (keeping room for the NUL); returns the new position. */
static size_t put(char *out, size_t outsz, size_t pos, const char *s, size_t len)
{
    if (pos + len >= outsz)
        len = pos + 1 < outsz ? outsz - pos - 1 : 0;
    memcpy(out + pos, s, len);
    return pos + len;
}

size_t text_cell(char *out, size_t outsz, const char *s, int width)
{
    size_t pos = 0;
    if (outsz == 0)
        return 0;
    if (width > 0) {
        int used;
        size_t len;
        if (text_width(s) <= width) {
            len = text_fit(s, width, &used);
            pos = put(out, outsz, pos, s, len);
        } else {
            /* Room for the one-column ellipsis. */
            len = text_fit(s, width - 1, &used);
            pos = put(out, outsz, pos, s, len);
            const char *e = text_ellipsis();
            pos = put(out, outsz, pos, e, strlen(e));
            used += 1;
        }
        for (; used < width; used++)
            pos = put(out, outsz, pos, " ", 1);
    }
    out[pos] = '\0';
    return pos;
}

size_t text_wrap(const char *s, int width)
{
    size_t len = strlen(s);
    size_t k = text_fit(s, width > 0 ? width : 1, NULL);
    if (k < len) { /* break after the last blank that fits */
        size_t b = k;
        while (b > 0 && s[b] != ' ')
            b--;
        if (b > 0)
            k = b + 1;
    }
    if (k == 0 && len > 0) { /* nothing fits (a wide character in one column): one char */
        k = 1;
        while (k < len && ((unsigned char)s[k] & 0xC0) == 0x80)
            k++;
    }
    return k;
}
