/* The Connect streaming envelope codec (reference §2.5), pure and incremental.
 *
 * An envelope is 1 flags byte, a big-endian uint32 payload length, then the payload. Flag 0x02
 * marks the end-of-stream envelope, whose JSON payload is {} on success or
 * {"error":{"code","message"}}; 0x01 (compressed) and any other bit are rejected, since no
 * compression is ever negotiated.
 *
 *   e2b_connect_decoder d;
 *   e2b_connect_decoder_init(&d, 0);                        // 0 = default size limit
 *   while (more bytes) if ((err = e2b_connect_decoder_feed(&d, p, n, on_msg, ud))) break;
 *   if (!err) err = e2b_connect_decoder_finish(&d);         // the body ended
 *   e2b_connect_decoder_clear(&d);
 *
 * The decoder accepts data split at any byte offset, has no global state, and never reads
 * beyond what it is given (fuzz entry point: feed + finish on a (const uint8_t *, size_t)).
 * After an error every later feed returns a copy of that error. */
#ifndef E2B_CONNECT_CODEC_H
#define E2B_CONNECT_CODEC_H

#include "core/util/error.h"

#include <stddef.h>
#include <stdint.h>

#define E2B_CONNECT_FLAG_COMPRESSED 0x01u
#define E2B_CONNECT_FLAG_END_STREAM 0x02u
/* Default largest accepted payload: envd sends chunks of at most 32 KiB (base64: ~44 KiB). */
#define E2B_CONNECT_DEFAULT_MAX_MESSAGE (4u * 1024u * 1024u)

/* Called for every complete data envelope (never for the end-of-stream one). payload is
 * owned by the decoder and valid only during the call. Return 0 to go on; a non-zero
 * return stops decoding and feed returns an E2B_ERR_CANCELLED error. */
typedef int (*e2b_connect_message_fn)(void *ud, const uint8_t *payload, size_t len);

typedef struct e2b_connect_decoder {
    size_t max_message;
    uint8_t header[5];
    size_t header_len; /* bytes of the current header seen so far */
    uint8_t flags;
    uint32_t length; /* payload length of the current envelope */
    uint8_t *payload;
    size_t payload_len; /* bytes of the current payload seen so far */
    size_t payload_cap;
    int ended;             /* end-of-stream envelope fully seen */
    e2b_error *end_error;  /* the error carried by the end-of-stream, or NULL */
    e2b_error *failure;    /* the decoder's own sticky error, or NULL */
    uint64_t messages;     /* data envelopes delivered */
} e2b_connect_decoder;

/* max_message 0 = E2B_CONNECT_DEFAULT_MAX_MESSAGE. */
void e2b_connect_decoder_init(e2b_connect_decoder *d, size_t max_message);

/* Feeds len bytes. Returns NULL, or an error (caller frees): bad flags, oversize length, bytes
 * after the end-of-stream envelope, a malformed end-of-stream payload, or the callback asked
 * to stop. An end-of-stream that carries a Connect error is NOT returned here: see finish. */
e2b_error *e2b_connect_decoder_feed(e2b_connect_decoder *d, const uint8_t *data, size_t len,
                                    e2b_connect_message_fn on_message, void *ud);

/* The body has ended. Returns NULL when the stream ended with a successful end-of-stream;
 * otherwise the Connect error it carried (E2B_ERR_REMOTE with code and message), or
 * "incomplete envelope" (truncated), or "missing end-of-stream" (E2B_ERR_PROTOCOL), or the
 * decoder's earlier failure. Caller frees. */
e2b_error *e2b_connect_decoder_finish(const e2b_connect_decoder *d);

void e2b_connect_decoder_clear(e2b_connect_decoder *d);

/* Parses an end-of-stream payload: NULL for {} (metadata is ignored), E2B_ERR_REMOTE for
 * {"error":{...}}, E2B_ERR_PROTOCOL when it is not such JSON. */
e2b_error *e2b_connect_parse_end(const uint8_t *payload, size_t len);

/* Writes the 5-byte envelope header for a payload of len bytes. */
void e2b_connect_write_header(uint8_t header[5], uint8_t flags, uint32_t len);

/* A newly allocated envelope (header + payload) in *out and *out_len. Returns 0, or -1 when out
 * of memory or len does not fit in 32 bits. Caller frees *out. */
int e2b_connect_encode(uint8_t flags, const void *payload, size_t len, uint8_t **out,
                       size_t *out_len);

#endif
