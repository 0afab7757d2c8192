/* pack_idx: the object ids a pack's index (.idx, version 2) lists, read with every size
 * checked, so that an up can tell whether a pack on disk holds only reachable objects. */
#ifndef E2B_PACK_IDX_H
#define E2B_PACK_IDX_H

#include <git2/oid.h>
#include <stdint.h>

/* Calls each(id, payload) for the ids idx_path lists, in its order, until one returns
 * nonzero. The index must be version 2 with a sane fanout and a size that fits its count,
 * and pack_path a version 2 or 3 pack declaring the same count. Returns 0 after every id,
 * 1 when each stopped it, -1 when either file is unreadable, a symlink, not a regular file
 * or not of that shape (the caller treats the pack as one it cannot send as it is). */
int pack_idx_each(const char *idx_path, const char *pack_path,
                  int (*each)(const git_oid *id, void *payload), void *payload);

/* All of an index, for a rewrite of its pack (pack_rewrite.h). Zero-initialise; free with
 * pack_idx_free. */
typedef struct {
    uint32_t n;
    git_oid *ids;         /* strictly ascending */
    uint32_t *crcs;       /* CRC-32 of each entry's bytes in the pack */
    uint64_t *offsets;    /* each between the pack's header and its trailer */
    uint64_t pack_size;   /* of the .pack file when it was read */
    uint8_t pack_sum[20]; /* the pack's trailer, as the index records it */
} pack_idx;

/* Reads idx_path whole, with the checks of pack_idx_each and: ids strictly ascending, each
 * large offset's index within the table, each offset inside the pack, the pack's trailer
 * equal to the one the index records. 0, -1 as pack_idx_each (*why says what was odd), or
 * -2 when out of memory. */
int pack_idx_load(const char *idx_path, const char *pack_path, pack_idx *out, const char **why);
void pack_idx_free(pack_idx *p);

#endif
