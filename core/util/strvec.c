#include "core/util/strvec.h"

#include <stdlib.h>
#include <string.h>

int e2b_strvec_push(e2b_strvec *s, const char *str)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        char **v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return -1;
        s->v = v;
        s->cap = cap;
    }
    if (!(s->v[s->n] = strdup(str)))
        return -1;
    s->n++;
    return 0;
}

void e2b_strvec_clear(e2b_strvec *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
    memset(s, 0, sizeof *s);
}
