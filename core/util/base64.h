/* Standard base64 with padding (RFC 4648 §4), as protobuf JSON uses for bytes fields. */
#ifndef E2B_BASE64_H
#define E2B_BASE64_H

#include <stddef.h>
#include <stdint.h>

/* A newly allocated NUL-terminated encoding of len bytes; NULL when out of memory. */
char *e2b_base64_encode(const uint8_t *data, size_t len);

/* Decodes len characters of text into a new buffer (*out, *out_len; *out is never NULL on
 * success, even for empty input). Padding is optional; whitespace and any other character
 * outside the alphabet is an error. Returns 0, or -1 (malformed or out of memory). Caller
 * frees *out. */
int e2b_base64_decode(const char *text, size_t len, uint8_t **out, size_t *out_len);

#endif
