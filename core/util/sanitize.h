/* Display sanitising: text that came from the network (sandbox names, metadata, logs,
 * error messages) must never reach the terminal with control or escape sequences in it. */
#ifndef E2B_SANITIZE_H
#define E2B_SANITIZE_H

#include <stddef.h>

enum {
    /* Keep '\n' (log views); otherwise newlines become spaces. */
    E2B_SANITIZE_KEEP_NEWLINES = 1u << 0,
};

/* Returns a newly allocated, NUL-terminated copy of the first len bytes of s that is safe to
 * draw: C0/C1 controls, DEL and ESC become '?', tabs become a space, bidirectional
 * override/isolate characters become '?', and invalid UTF-8 becomes U+FFFD. A NUL byte in
 * the input ends nothing: it becomes '?'. The caller frees the result; NULL only when out of
 * memory. */
char *e2b_sanitize_display(const char *s, size_t len, unsigned flags);

/* The same into out, which holds at least len * 3 + 1 bytes (no allocation: for text kept in
 * storage of its own). Returns the length written before its NUL. */
size_t e2b_sanitize_into(char *out, const char *s, size_t len, unsigned flags);

#endif
