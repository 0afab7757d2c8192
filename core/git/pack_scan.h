/* pack_scan: the bounds of a pack stream, checked before libgit2's indexer sees its bytes.
 *
 * A pack is compressed: a few kilobytes can declare a blob of gigabytes, or a delta whose
 * result is gigabytes, and libgit2's indexer builds every delta's result in memory when the
 * pack is committed. The scanner reads the same bytes first, object by object: each entry's
 * header (type, declared size), each delta's base (offset or id) and, from the first bytes
 * its zlib stream inflates to, the delta's declared base and result sizes. It refuses, before
 * the indexer has any byte of the object:
 *   - an object, a delta's instructions or a delta's base or result larger than object_bytes;
 *   - a pack whose declared sizes (objects, delta instructions and delta results) add up to
 *     more than inflated_bytes;
 *   - a delta chain that may be deeper than delta_depth;
 * and, while inflating (to find where each object ends), a zlib stream that inflates to more
 * than its entry declared (the lie is caught within one output buffer, not after it).
 *
 * Depth: git writes a bundle's in-pack bases by offset (OFS_DELTA), which gives the exact
 * depth. A delta by id (REF_DELTA) whose base is in the local repository starts a new chain
 * (the local object database is trusted); one whose base is not there has its base in this
 * pack, at a depth the scanner cannot know without hashing: with R such deltas and no chain
 * of offsets longer than M, no chain is deeper than (R + 1) * M, and that bound is checked.
 *
 * Pure: zlib only, no libgit2, no I/O (the local-base question is a callback), fuzzable.
 * Memory: a fixed inflate buffer plus 16 bytes per object (offset and depth, to look bases up).
 * Threads: one scanner is used by one thread at a time. */
#ifndef E2B_PACK_SCAN_H
#define E2B_PACK_SCAN_H

#include "core/util/error.h"

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t object_bytes;   /* one object, delta instructions, base or result */
    uint64_t inflated_bytes; /* everything the pack declares, added up */
    unsigned delta_depth;    /* the deepest delta chain */
} pack_scan_limits;

/* What a refused pack crossed (kept by the scanner; its message says it). */
typedef enum {
    PACK_SCAN_OK = 0,
    PACK_SCAN_BAD,       /* not a pack, or a malformed entry */
    PACK_SCAN_OBJECT,    /* an object or delta larger than object_bytes */
    PACK_SCAN_INFLATED,  /* the total over inflated_bytes */
    PACK_SCAN_DEPTH,     /* a delta chain over delta_depth */
    PACK_SCAN_CANCELLED, /* the tick callback asked to stop */
} pack_scan_refusal;

/* 1 when the object with this 20-byte id is in the local repository. */
typedef int (*pack_scan_local_cb)(const uint8_t id[20], void *ud);
/* Called every PACK_SCAN_TICK_BYTES inflated, inside an object as well: non-zero cancels. */
typedef int (*pack_scan_tick_cb)(void *ud);

#define PACK_SCAN_TICK_BYTES (1u << 20)

typedef struct pack_scan pack_scan;

/* A scanner for a pack from its first byte ("PACK"). local and tick may be NULL (no local
 * bases; never cancelled). NULL when out of memory. */
pack_scan *pack_scan_new(const pack_scan_limits *lim, pack_scan_local_cb local,
                         pack_scan_tick_cb tick, void *ud);

/* Scans the next n bytes. Returns NULL when they may go to the indexer, or a new error
 * (E2B_SUB_BAD_BUNDLE for every refusal, E2B_SUB_CANCELLED, E2B_SUB_NOMEM) whose message
 * says what was refused and which limit key raises it; errors are sticky (every later call
 * returns the same again). Bytes after the pack's last object (its checksum, or more) are
 * left to the indexer. */
e2b_error *pack_scan_feed(pack_scan *ps, const uint8_t *p, size_t n);

/* 1 once every object the pack header declared was scanned whole: an import must not
 * commit a pack the scanner did not finish (the indexer would have unchecked bytes). */
int pack_scan_complete(const pack_scan *ps);

void pack_scan_free(pack_scan *ps);

#endif
