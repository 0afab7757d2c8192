/* upload_pack: the history a box gets — one pack of what is reachable, and the refs.
 *
 * .git/objects holds whatever the repository ever saw (a file added with `git add -f` and
 * unstaged, a dropped stash, a commit amended to remove a secret) and .git/logs records
 * the command lines of pulls (URLs with their tokens). Neither leaves the machine. An up
 * sends instead:
 *   .git/objects/pack/pack-<hash>.pack and its .idx, made by libgit2's packbuilder (the
 *       index written here: the box need not index the pack), of the objects reachable
 *       from every ref under refs/ but refs/stash (unless UPLOAD_PACK_STASH), from HEAD
 *       (detached too), from the commits MERGE_HEAD, CHERRY_PICK_HEAD and REVERT_HEAD name
 *       and the tree AUTO_MERGE names, and the blobs of the index's entries (conflict
 *       stages included); for a delta, minus what the base commit reaches;
 *   .git/packed-refs with those refs (annotated tags with their peeled commit), symbolic
 *       refs (refs/remotes/origin/HEAD) as loose files, and the directories refs/heads and
 *       refs/tags, which git needs to recognise a repository.
 * Not sent: reflogs (logs/), ORIG_HEAD (the commit a reset or an amend left behind), other
 * pseudo-refs, refs outside refs/. A ref whose object is missing is left out.
 *
 * Blocking (a history walk, delta search, compression, writing the pack): run it off the
 * UI thread. The pack is written to an unlinked temporary file (0600) and streamed from
 * there, so memory stays bounded by libgit2's delta window, not by the history's size.
 * cancel is looked at between the steps, every 256 index entries and during the write. */
#ifndef E2B_UPLOAD_PACK_H
#define E2B_UPLOAD_PACK_H

#include "core/git/tarball.h"

#include <stdatomic.h>
#include <stdint.h>

enum {
    UPLOAD_PACK_STASH = 1u << 0, /* refs/stash and its objects too (config up_stash) */
};

typedef struct {
    uint64_t objects; /* objects in the pack */
    uint64_t refs;    /* refs written */
} upload_pack_info;

/* Adds the refs to refs_to and the pack (when it has objects) to pack_to; both may be the
 * same archive, neither started. hide (may be NULL): a commit the box has with all it
 * reaches; hide_tree: its tree (an index entry whose blob it has at the same path is left
 * out). Errors: E2B_SUB_CANCELLED, E2B_SUB_NOMEM, E2B_SUB_FILE_IO (the temporary file),
 * E2B_SUB_FAILED (libgit2: reading the refs, building or writing the pack). */
struct git_repository;
struct git_oid;
struct git_tree;
int upload_pack_add(struct git_repository *repo, const struct git_oid *hide,
                    struct git_tree *hide_tree,
                    unsigned flags, const atomic_int *cancel, tarball *refs_to,
                    tarball *pack_to, upload_pack_info *info, e2b_error **err);

#endif
