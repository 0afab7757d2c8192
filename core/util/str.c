#include "core/util/str.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *e2b_strfmt(const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;
    va_start(ap, fmt);
    if (vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    va_end(ap);
    return s;
}

void e2b_wipe_free(char *secret)
{
    if (!secret)
        return;
    /* A memset right before free() is a dead store the optimiser may remove. */
    explicit_bzero(secret, strlen(secret));
    free(secret);
}

char *e2b_percent_encode(const char *s, const char *keep, int space_plus)
{
    static const char hex[] = "0123456789ABCDEF";
    char *out = malloc(strlen(s) * 3 + 1), *o = out;
    if (!out)
        return NULL;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
            (*p < 0x80 && strchr(keep, *p))) {
            *o++ = (char)*p;
        } else if (*p == ' ' && space_plus) {
            *o++ = '+';
        } else {
            *o++ = '%';
            *o++ = hex[*p >> 4];
            *o++ = hex[*p & 15];
        }
    }
    *o = '\0';
    return out;
}

char *e2b_url_host(const char *url)
{
    const char *p = strstr(url, "://"), *end;
    p = p ? p + 3 : url;
    end = p + strcspn(p, "/?#");
    return strndup(p, (size_t)(end - p));
}

void e2b_span_text(long d, char *buf, size_t n)
{
    if (!n)
        return;
    if (d < 0)
        snprintf(buf, n, "-");
    else if (d < 60)
        snprintf(buf, n, "%lds", d);
    else if (d < 3600)
        snprintf(buf, n, "%ldm", d / 60);
    else if (d < 48 * 3600)
        snprintf(buf, n, "%ldh", d / 3600);
    else
        snprintf(buf, n, "%ldd", d / 86400);
}

int e2b_hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}
