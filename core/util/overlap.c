#include "core/util/overlap.h"

#include <stdlib.h>

size_t e2b_overlap_suffix_prefix(const char *a, size_t alen, const char *b, size_t blen)
{
    size_t m = alen < blen ? alen : blen; /* no overlap is longer than either string */
    if (m == 0)
        return 0;
    size_t *fail = malloc(m * sizeof *fail); /* fail[i]: b[0..i]'s longest proper border */
    if (!fail)
        return 0;
    fail[0] = 0;
    for (size_t i = 1, k = 0; i < m; i++) {
        while (k > 0 && b[i] != b[k])
            k = fail[k - 1];
        if (b[i] == b[k])
            k++;
        fail[i] = k;
    }
    /* Run the last m bytes of a through the matcher of b[0..m): the state at the end is the
     * longest prefix of b that ends a. */
    size_t k = 0;
    for (size_t i = alen - m; i < alen; i++) {
        while (k > 0 && (k == m || a[i] != b[k]))
            k = fail[k - 1];
        if (k < m && a[i] == b[k])
            k++;
    }
    free(fail);
    return k;
}
