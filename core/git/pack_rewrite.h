/* pack_rewrite: a copy of a pack on disk with only the objects an up sends.
 *
 * A long-lived repository's main pack also holds what only a reflog reaches (a commit
 * amended or rebased away, with its tree and blobs), so it cannot go as it is. Its kept
 * entries are copied as they are, compressed bytes and all, wholes and deltas alike: no
 * inflate, no delta search. A kept OFS_DELTA gets its base's new distance; a REF_DELTA
 * whose base is kept in the pack stays as it is. Only a delta whose base is dropped (or is
 * not in this pack) is resolved: read whole from the repository and written as a whole
 * object (libgit2 has no public delta encoder, and a whole object is always correct).
 *
 * The source is the user's, but read as untrusted: the index must pass pack_idx_load's
 * checks, each kept entry's bytes must match its CRC-32 in the index, its header must parse
 * and a delta's base must be an entry of the pack. Before any of it is used, the whole
 * source goes through the pack scanner (pack_scan.h: every size an entry or a delta
 * declares within lim, every zlib stream no longer than declared), so that libgit2 never
 * builds a larger object from it. The new stream is indexed by libgit2's indexer as it is
 * written (every object inflated and hashed, every delta applied), and the ids of the index
 * it writes must be exactly the kept ids. Anything else: an error saying
 * what, and nothing written (the caller sends those objects another way).
 *
 * Blocking (reads the pack twice, inflating it once, writes the new one): run it off the UI
 * thread. Memory:
 * about 70 bytes per entry of the source, two 256 KiB buffers, and an object being resolved
 * (read whole by libgit2). */
#ifndef E2B_PACK_REWRITE_H
#define E2B_PACK_REWRITE_H

#include "core/util/error.h"
#include "core/git/pack_scan.h"

#include <git2/oid.h>
#include <stdatomic.h>
#include <stdint.h>

struct git_odb;

typedef struct {
    uint64_t kept;      /* objects in the new pack */
    uint64_t copied;    /* of them, entries copied as they are (a delta's base distance fixed) */
    uint64_t resolved;  /* of them, deltas whose base was dropped, written whole */
    char name[64];      /* the new pack's name: dir/pack-<name>.pack and .idx */
} pack_rewrite_info;

/* Writes dir/pack-<name>.{pack,idx} with the entries of pack_path (its index idx_path) for
 * which keep(id, payload) is nonzero. odb: the repository's objects (a resolved delta is
 * read from there). lim: the scanner's bounds. kept 0: nothing is written, returns NULL. Errors: E2B_SUB_CANCELLED,
 * E2B_SUB_NOMEM, E2B_SUB_FILE_IO (dir), E2B_SUB_FAILED (the pack is odd or corrupt: the error
 * names the pack and what). */
e2b_error *pack_rewrite(struct git_odb *odb, const char *idx_path, const char *pack_path,
                        int (*keep)(const git_oid *id, void *payload), void *payload,
                        const pack_scan_limits *lim, const char *dir, const atomic_int *cancel,
                        pack_rewrite_info *info);

#endif
