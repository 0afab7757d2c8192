/* Small string helpers shared by core's modules. */
#ifndef E2B_STR_H
#define E2B_STR_H

#include <stddef.h>

/* Returns a newly allocated formatted string (caller frees), or NULL when out of memory. */
char *e2b_strfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Overwrites a NUL-terminated secret (key header, password, request body holding a
 * value) with zeros in a way the compiler cannot drop, then frees it. NULL is fine. */
void e2b_wipe_free(char *secret);

/* Percent-encodes s: letters, digits and the characters of keep stay, a space becomes '+'
 * when space_plus (form encoding), every other byte becomes %XX. New string, or NULL. */
char *e2b_percent_encode(const char *s, const char *keep, int space_plus);

/* A span of seconds in one unit, whole units down, the way every list and column says
 * "how long ago": 45s, 12m, 3h (under two days), 2d. Negative: "-". */
void e2b_span_text(long seconds, char *buf, size_t n);

/* The host part of a URL ("https://api.e2b.app:443/x" -> "api.e2b.app:443"). New string. */
char *e2b_url_host(const char *url);
/* The value of one hexadecimal digit (either case), or -1 for any other character. */
int e2b_hex_digit(char c);

#endif
