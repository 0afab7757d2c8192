#include "core/util/buf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int e2b_buf_reserve(e2b_buf *b, size_t extra)
{
    size_t cap;
    char *p;
    if (b->failed)
        return -1;
    if (extra > SIZE_MAX / 2 - b->len - 1)
        goto fail;
    if (b->len + extra + 1 <= b->cap)
        return 0;
    cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra + 1)
        cap *= 2;
    if (b->secret) {
        p = malloc(cap);
        if (!p)
            goto fail;
        if (b->data) {
            memcpy(p, b->data, b->len + 1);
            explicit_bzero(b->data, b->cap);
            free(b->data);
        }
    } else {
        p = realloc(b->data, cap);
        if (!p)
            goto fail;
    }
    b->data = p;
    b->cap = cap;
    return 0;
fail:
    b->failed = 1;
    return -1;
}

int e2b_buf_add(e2b_buf *b, const void *p, size_t n)
{
    if (e2b_buf_reserve(b, n) < 0)
        return -1;
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}

int e2b_buf_adds(e2b_buf *b, const char *s)
{
    if (!s) {
        b->failed = 1;
        return -1;
    }
    return e2b_buf_add(b, s, strlen(s));
}

int e2b_buf_addf(e2b_buf *b, const char *fmt, ...)
{
    va_list ap;
    int n;
    char small[256];
    va_start(ap, fmt);
    n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = 1;
        return -1;
    }
    if ((size_t)n < sizeof small) {
        int rc = e2b_buf_add(b, small, (size_t)n);
        if (b->secret)
            explicit_bzero(small, sizeof small);
        return rc;
    }
    if (e2b_buf_reserve(b, (size_t)n) < 0)
        return -1;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return 0;
}

char *e2b_buf_take(e2b_buf *b)
{
    char *s;
    if (b->failed) {
        e2b_buf_clear(b);
        b->failed = 0;
        return NULL;
    }
    s = b->data ? b->data : strdup("");
    b->data = NULL;
    b->len = b->cap = 0;
    return s;
}

void e2b_buf_clear(e2b_buf *b)
{
    if (b->data && b->secret)
        explicit_bzero(b->data, b->cap);
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

int e2b_array_grow(void **items, size_t *cap, size_t need, size_t elem)
{
    size_t ncap = *cap ? *cap : 8;
    void *p;
    if (need <= *cap)
        return 0;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2)
            return -1;
        ncap *= 2;
    }
    if (elem && ncap > SIZE_MAX / elem)
        return -1;
    p = realloc(*items, ncap * elem);
    if (!p)
        return -1;
    *items = p;
    *cap = ncap;
    return 0;
}
