/* Small helpers shared by the e2b-local server: time, random ids, base64, URL decoding,
 * atomic file writes and the request log. Nothing here knows about HTTP or sandboxes. */
#ifndef E2B_LOCAL_UTIL_H
#define E2B_LOCAL_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <sys/types.h>

/* Wall-clock milliseconds since the epoch, and a monotonic clock in milliseconds. */
int64_t now_ms(void);
int64_t mono_ms(void);

/* Formats epoch milliseconds as RFC 3339 UTC with milliseconds into out (>= 32 bytes). */
void rfc3339(int64_t ms, char *out, size_t outlen);
/* Parses RFC 3339 (Z or +hh:mm offset, optional fraction); -1 when malformed. */
int64_t parse_rfc3339(const char *s);

/* Fills out with n random characters from [a-z0-9] (n+1 bytes incl. NUL). */
void random_alnum(char *out, size_t n);

/* Standard base64 with padding. Return malloc'd strings/buffers the caller frees;
 * b64_decode returns NULL on malformed input and sets *outlen. */
char *b64_encode(const unsigned char *data, size_t len);
unsigned char *b64_decode(const char *s, size_t *outlen);
/* URL-safe base64 without padding (for opaque pagination tokens). */
char *b64url_encode(const char *s);
char *b64url_decode(const char *s);

/* Go's url.QueryUnescape: "+" becomes a space, %XX is decoded. Returns a malloc'd string,
 * or NULL when an escape is malformed. */
char *query_unescape(const char *s, size_t len);

/* Writes data to path atomically (temp file + rename) with the given mode. No fsync: a
 * test server trades durability across power loss for speed (1,000 creates in seconds).
 * Returns 0 or -1 with errno set. */
int write_file_atomic(const char *path, const char *data, size_t len, mode_t mode);
/* Reads a whole file; malloc'd, NUL-terminated; NULL on error. */
char *read_file(const char *path, size_t *len);
/* mkdir -p for a host path. */
int mkdir_p(const char *path, mode_t mode);
/* rm -rf for a host path (never follows symlinks). */
int remove_tree(const char *path);
/* Bytes used by the files under path (best effort). */
int64_t tree_bytes(const char *path);

/* The request log (a file in the state dir); log_line is thread-safe. */
void log_open(const char *path);
void log_close(void);
void log_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
