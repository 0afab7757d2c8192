/* overlap: how much of one byte string's start is already at the end of another, in
 * linear time. For merging a stream with a copy read a moment later (the Log pane: the
 * history of a box's log file and the live output that began before it was read): both
 * come from a box, so the search must not be quadratic on the UI thread. */
#ifndef E2B_OVERLAP_H
#define E2B_OVERLAP_H

#include <stddef.h>

/* The longest k such that the last k bytes of a equal the first k bytes of b. Knuth-
 * Morris-Pratt over b's prefix function: O(alen + blen) time, one allocation of
 * min(alen, blen) words (when that fails the answer is 0: a merge then shows some bytes
 * twice rather than drop any). */
size_t e2b_overlap_suffix_prefix(const char *a, size_t alen, const char *b, size_t blen);

#endif
