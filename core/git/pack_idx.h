/* pack_idx: the object ids a pack's index (.idx, version 2) lists, read with every size
 * checked, so that an up can tell whether a pack on disk holds only reachable objects. */
#ifndef E2B_PACK_IDX_H
#define E2B_PACK_IDX_H

#include <git2/oid.h>

/* Calls each(id, payload) for the ids idx_path lists, in its order, until one returns
 * nonzero. The index must be version 2 with a sane fanout and a size that fits its count,
 * and pack_path a version 2 or 3 pack declaring the same count. Returns 0 after every id,
 * 1 when each stopped it, -1 when either file is unreadable, a symlink, not a regular file
 * or not of that shape (the caller treats the pack as one it cannot send as it is). */
int pack_idx_each(const char *idx_path, const char *pack_path,
                  int (*each)(const git_oid *id, void *payload), void *payload);

#endif
