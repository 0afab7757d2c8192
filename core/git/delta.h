/* delta: the local half of an up from a snapshot that holds this project at commit base.
 *
 * The box made from the snapshot has the project's directory as the snapshot kept it
 * (with whatever the agent and installs added, ignored files such as node_modules too).
 * Its script first resets that tree to base (git reset --hard base; git clean -fd: tracked
 * and untracked files as in base, ignored files kept) and removes .git/refs and
 * .git/packed-refs (the refs come whole), then extracts the archives made here and applies
 * the control file in the project root:
 *
 *   out->gz      the files that differ between base's tree and the work tree (added,
 *                modified, type changes; ignored files never), .git's own small files as a
 *                full up sends them (HEAD, index, hooks, ..., config rewritten without
 *                credentials), the refs (upload_pack.h), not objects/;
 *   out->plain   a pack with its index of the objects reachable from the refs and HEAD
 *                but not from base, and the blobs of index entries base's tree lacks
 *                (upload_pack.h); NULL when there are none;
 *   E2B_DELTA_DELETED the paths base has and the work tree does not, NUL-separated (in gz).
 *
 * Blocking (a diff walk with the index's stat cache, a pack build): run it off the UI
 * thread. It touches only g. */
#ifndef E2B_DELTA_H
#define E2B_DELTA_H

#include "core/git/gitwork.h"
#include "core/git/upload.h"

#include <stdatomic.h>
#include <stdint.h>

#define E2B_DELTA_DELETED ".e2b-tui-deleted"

typedef struct {
    uint64_t changed;  /* files sent */
    uint64_t deleted;  /* paths to remove */
    uint64_t objects;  /* objects in the pack */
} e2b_delta_info;

/* Fills out with the delta from base_hex (40 hex); flags: E2B_UPLOAD_STASH (upload.h). Errors:
 * E2B_SUB_MISSING_BASE when base is not a commit of this repository (the caller then sends
 * everything), E2B_SUB_CANCELLED, E2B_SUB_NOMEM, E2B_SUB_FAILED (libgit2). */
e2b_error *e2b_delta_prepare(e2b_gitwork *g, const char *base_hex, int gzip_level, unsigned flags,
                             const atomic_int *cancel, e2b_upload_set *out, e2b_delta_info *info);

#endif
