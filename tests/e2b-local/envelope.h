/* Connect protocol envelopes (1 flag byte + 4-byte big-endian length + payload) in a
 * growable byte buffer. Our own code: e2b-local shares nothing with core/. */
#ifndef E2B_LOCAL_ENVELOPE_H
#define E2B_LOCAL_ENVELOPE_H

#include <jansson.h>
#include <stddef.h>

#define ENVELOPE_END_STREAM 0x02

struct bytes {
    char *data;
    size_t len, cap;
};

void bytes_append(struct bytes *b, const void *data, size_t len);
void bytes_free(struct bytes *b);
/* Appends one envelope whose payload is the compact JSON of msg (msg is not stolen). */
void envelope_append(struct bytes *b, unsigned flags, const json_t *msg);
/* Parses the first envelope of a request body; returns its JSON (new reference) or NULL
 * with a reason in *why. */
json_t *envelope_parse_one(const char *data, size_t len, const char **why);

#endif
