/* The one growable buffer of core/ (bytes or text), and array growth.
 *
 *   e2b_buf b = {0};                       // or {.secret = 1} for text that holds a secret
 *   e2b_buf_add(&b, data, n);
 *   e2b_buf_addf(&b, "%d files", n);
 *   char *s = e2b_buf_take(&b);            // NUL-terminated, caller frees; NULL if any add failed
 *
 * The content is always NUL-terminated (data may also hold NULs: len counts bytes). After an
 * allocation failure the buffer is "failed": later adds do nothing and take returns NULL,
 * so a chain of adds needs one check at the end. A secret buffer never uses realloc (which
 * may leave the old bytes behind): it moves to a new block and wipes the old one, and it is
 * wiped when cleared or taken from on failure. */
#ifndef E2B_BUF_H
#define E2B_BUF_H

#include <stddef.h>

typedef struct e2b_buf {
    char *data; /* NULL until the first add */
    size_t len, cap;
    int failed;
    int secret;
} e2b_buf;

/* Room for extra more bytes (and the NUL). Returns 0, or -1 (the buffer is failed). */
int e2b_buf_reserve(e2b_buf *b, size_t extra);
/* Appends n bytes. Returns 0 or -1. */
int e2b_buf_add(e2b_buf *b, const void *p, size_t n);
/* Appends a string; NULL (e.g. an allocation that failed upstream) fails the buffer. */
int e2b_buf_adds(e2b_buf *b, const char *s);
int e2b_buf_addf(e2b_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The content as a malloc'd string ("" when empty), leaving b empty; NULL when failed. */
char *e2b_buf_take(e2b_buf *b);
/* Frees the content (wiping it when secret) and empties b (secret stays as it was). */
void e2b_buf_clear(e2b_buf *b);

/* Makes *items (an array of elem-sized items with capacity *cap) hold at least need items,
 * doubling (from 8). Returns 0, or -1 when out of memory (the array is unchanged). */
int e2b_array_grow(void **items, size_t *cap, size_t need, size_t elem);

#endif
