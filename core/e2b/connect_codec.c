#include "core/e2b/connect_codec.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

void e2b_connect_decoder_init(e2b_connect_decoder *d, size_t max_message)
{
    memset(d, 0, sizeof *d);
    d->max_message = max_message ? max_message : E2B_CONNECT_DEFAULT_MAX_MESSAGE;
}

void e2b_connect_decoder_clear(e2b_connect_decoder *d)
{
    if (!d)
        return;
    free(d->payload);
    e2b_error_free(d->end_error);
    e2b_error_free(d->failure);
    memset(d, 0, sizeof *d);
}

static e2b_error *fail(e2b_connect_decoder *d, e2b_error *err)
{
    d->failure = err;
    return e2b_error_copy(err);
}

e2b_error *e2b_connect_parse_end(const uint8_t *payload, size_t len)
{
    json_error_t je;
    json_t *root = json_loadb((const char *)payload, len, 0, &je), *error, *code, *msg;
    e2b_error *err;
    if (!json_is_object(root)) {
        json_decref(root);
        return e2b_error_new(E2B_ERR_PROTOCOL, "the end of the stream is not a JSON object");
    }
    error = json_object_get(root, "error");
    if (!error || json_is_null(error)) {
        json_decref(root);
        return NULL;
    }
    if (!json_is_object(error)) {
        json_decref(root);
        return e2b_error_new(E2B_ERR_PROTOCOL, "the end of the stream has a malformed error");
    }
    code = json_object_get(error, "code");
    msg = json_object_get(error, "message");
    err = e2b_error_remote(json_is_string(code) ? json_string_value(code) : "unknown",
                           json_is_string(msg) ? json_string_value(msg) : NULL);
    json_decref(root);
    return err;
}

/* Makes room for the payload of the current envelope. */
static int reserve(e2b_connect_decoder *d, size_t need)
{
    uint8_t *p;
    if (need <= d->payload_cap)
        return 0;
    p = realloc(d->payload, need);
    if (!p)
        return -1;
    d->payload = p;
    d->payload_cap = need;
    return 0;
}

/* The current envelope is complete: deliver it. */
static e2b_error *deliver(e2b_connect_decoder *d, e2b_connect_message_fn on_message, void *ud)
{
    const uint8_t *p = d->payload_len ? d->payload : (const uint8_t *)"";
    if (d->flags & E2B_CONNECT_FLAG_END_STREAM) {
        e2b_error *e = e2b_connect_parse_end(p, d->payload_len);
        d->ended = 1;
        if (e && e->kind == E2B_ERR_PROTOCOL)
            return fail(d, e);
        d->end_error = e;
        return NULL;
    }
    d->messages++;
    if (on_message && on_message(ud, p, d->payload_len) != 0)
        return fail(d, e2b_error_new(E2B_ERR_CANCELLED, "stopped by the receiver"));
    return NULL;
}

e2b_error *e2b_connect_decoder_feed(e2b_connect_decoder *d, const uint8_t *data, size_t len,
                                    e2b_connect_message_fn on_message, void *ud)
{
    size_t i = 0;
    if (d->failure)
        return e2b_error_copy(d->failure);
    while (i < len) {
        if (d->ended)
            return fail(d, e2b_error_new(E2B_ERR_PROTOCOL, "data after the end of the stream"));
        if (d->header_len < 5) {
            size_t take = 5 - d->header_len;
            if (take > len - i)
                take = len - i;
            memcpy(d->header + d->header_len, data + i, take);
            d->header_len += take;
            i += take;
            if (d->header_len < 5)
                break;
            d->flags = d->header[0];
            d->length = (uint32_t)d->header[1] << 24 | (uint32_t)d->header[2] << 16 |
                        (uint32_t)d->header[3] << 8 | (uint32_t)d->header[4];
            d->payload_len = 0;
            if (d->flags & E2B_CONNECT_FLAG_COMPRESSED)
                return fail(d, e2b_error_new(E2B_ERR_PROTOCOL,
                                             "compressed stream message (none was negotiated)"));
            if (d->flags & ~(unsigned)E2B_CONNECT_FLAG_END_STREAM)
                return fail(d, e2b_error_new(E2B_ERR_PROTOCOL, "bad stream flags 0x%02x",
                                             d->flags));
            if (d->length > d->max_message)
                return fail(d, e2b_error_new(E2B_ERR_PROTOCOL,
                                             "stream message of %u bytes exceeds the limit of "
                                             "%zu bytes",
                                             (unsigned)d->length, d->max_message));
            if (reserve(d, d->length) < 0)
                return fail(d, e2b_error_new(E2B_ERR_INTERNAL, "out of memory"));
        }
        if (d->payload_len < d->length) {
            size_t take = d->length - d->payload_len;
            if (take > len - i)
                take = len - i;
            memcpy(d->payload + d->payload_len, data + i, take);
            d->payload_len += take;
            i += take;
        }
        if (d->payload_len == d->length) {
            e2b_error *e = deliver(d, on_message, ud);
            d->header_len = 0;
            d->payload_len = 0;
            d->length = 0;
            if (e)
                return e;
        }
    }
    return NULL;
}

e2b_error *e2b_connect_decoder_finish(const e2b_connect_decoder *d)
{
    if (d->failure)
        return e2b_error_copy(d->failure);
    if (d->header_len > 0)
        return e2b_error_new(E2B_ERR_PROTOCOL,
                             "the stream ended inside a message (incomplete envelope)");
    if (!d->ended)
        return e2b_error_new(E2B_ERR_PROTOCOL, "the stream ended without its end-of-stream "
                                               "message (connection dropped?)");
    return d->end_error ? e2b_error_copy(d->end_error) : NULL;
}

void e2b_connect_write_header(uint8_t header[5], uint8_t flags, uint32_t len)
{
    header[0] = flags;
    header[1] = (uint8_t)(len >> 24);
    header[2] = (uint8_t)(len >> 16);
    header[3] = (uint8_t)(len >> 8);
    header[4] = (uint8_t)len;
}

int e2b_connect_encode(uint8_t flags, const void *payload, size_t len, uint8_t **out,
                       size_t *out_len)
{
    uint8_t *b;
    if (len > UINT32_MAX)
        return -1;
    b = malloc(len + 5);
    if (!b)
        return -1;
    e2b_connect_write_header(b, flags, (uint32_t)len);
    if (len)
        memcpy(b + 5, payload, len);
    *out = b;
    *out_len = len + 5;
    return 0;
}
