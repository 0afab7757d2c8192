/* Small string helpers shared by core's modules. */
#ifndef E2B_STR_H
#define E2B_STR_H

/* Returns a newly allocated formatted string (caller frees), or NULL when out of memory. */
char *e2b_strfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Overwrites a NUL-terminated secret (key header, password, request body holding a
 * value) with zeros in a way the compiler cannot drop, then frees it. NULL is fine. */
void e2b_wipe_free(char *secret);

#endif
