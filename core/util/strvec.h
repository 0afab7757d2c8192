/* A growable array of owned strings (file lists, path lists).
 *
 *   e2b_strvec s = {0};
 *   if (e2b_strvec_push(&s, path) < 0) ... out of memory
 *   ... s.v[0 .. s.n-1] ...
 *   e2b_strvec_clear(&s);            // or hand s.v over and free it the same way later
 *
 * v is NULL until the first push; each string is a copy the vector owns. */
#ifndef E2B_STRVEC_H
#define E2B_STRVEC_H

#include <stddef.h>

typedef struct e2b_strvec {
    char **v;
    size_t n, cap;
} e2b_strvec;

/* Appends a copy of str. Returns 0, or -1 when out of memory (s is unchanged). */
int e2b_strvec_push(e2b_strvec *s, const char *str);
/* Frees every string and the array; s is empty again. */
void e2b_strvec_clear(e2b_strvec *s);

#endif
