/* Connect envelopes; see envelope.h. */
#include "envelope.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void bytes_append(struct bytes *b, const void *data, size_t len)
{
    if (b->len + len > b->cap) {
        size_t ncap = b->cap ? b->cap : 256;
        while (ncap < b->len + len)
            ncap *= 2;
        char *nd = realloc(b->data, ncap);
        if (!nd)
            abort();
        b->data = nd;
        b->cap = ncap;
    }
    memcpy(b->data + b->len, data, len);
    b->len += len;
}

void bytes_free(struct bytes *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

void envelope_append(struct bytes *b, unsigned flags, const json_t *msg)
{
    char *text = json_dumps(msg, JSON_COMPACT);
    if (!text)
        abort();
    size_t n = strlen(text);
    unsigned char head[5] = {(unsigned char)flags, (unsigned char)(n >> 24), (unsigned char)(n >> 16),
                             (unsigned char)(n >> 8), (unsigned char)n};
    bytes_append(b, head, 5);
    bytes_append(b, text, n);
    free(text);
}

json_t *envelope_parse_one(const char *data, size_t len, const char **why)
{
    if (len < 5) {
        *why = "incomplete envelope";
        return NULL;
    }
    const unsigned char *u = (const unsigned char *)data;
    if (u[0] & 0x01) {
        *why = "compressed envelopes are not supported";
        return NULL;
    }
    uint32_t n = ((uint32_t)u[1] << 24) | ((uint32_t)u[2] << 16) | ((uint32_t)u[3] << 8) | u[4];
    if ((size_t)n > len - 5) {
        *why = "incomplete envelope";
        return NULL;
    }
    json_error_t err;
    json_t *msg = json_loadb(data + 5, n, 0, &err);
    if (!json_is_object(msg)) {
        json_decref(msg);
        *why = "the message is not a JSON object";
        return NULL;
    }
    return msg;
}
