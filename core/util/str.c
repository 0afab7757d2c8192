#include "core/util/str.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *e2b_strfmt(const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;
    va_start(ap, fmt);
    if (vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    va_end(ap);
    return s;
}

void e2b_wipe_free(char *secret)
{
    if (!secret)
        return;
    /* A memset right before free() is a dead store the optimiser may remove. */
    explicit_bzero(secret, strlen(secret));
    free(secret);
}
