/* upload_pack: the history a box gets — the objects that are reachable, and the refs.
 *
 * .git/objects holds whatever the repository ever saw (a file added with `git add -f` and
 * unstaged, a dropped stash, a commit amended to remove a secret) and .git/logs records
 * the command lines of pulls (URLs with their tokens). Neither leaves the machine. An up
 * sends instead, of the objects reachable from every ref under refs/ but refs/stash
 * (unless E2B_UPLOAD_PACK_STASH), from HEAD (detached too), from the commits MERGE_HEAD,
 * CHERRY_PICK_HEAD and REVERT_HEAD name and the tree AUTO_MERGE names, and of the index's
 * blobs (conflict stages included) and trees (computed in memory, never written here):
 *   each pack of objects/pack whose .idx lists only reachable objects, as it is (its .pack
 *       and .idx read from disk: no CPU);
 *   each other pack (it holds unreachable objects too: after an amend or a rebase, git gc
 *       packs what only the reflog reaches) as a copy with only its reachable objects not
 *       sent yet, compressed bytes and deltas copied (pack_rewrite.h: copy speed, no delta
 *       search); a pack that cannot be rewritten (an index that is not version 2, anything
 *       odd or corrupt) is logged and its objects go to the builder;
 *   each other reachable object that is loose, as its file objects/xx/...;
 *   the rest (objects of an alternate, of a pack that could not be rewritten, the index's
 *       trees) in one pack-<hash>.pack with its .idx, made by libgit2's packbuilder —
 *       usually nothing;
 *   .git/packed-refs with those refs (annotated tags with their peeled commit), symbolic
 *       refs (refs/remotes/origin/HEAD) as loose files, and the directories refs/heads and
 *       refs/tags, which git needs to recognise a repository.
 * The reachable set is computed once (a revwalk, each distinct tree read once) and held in
 * an oid_set: 21 bytes a slot, bounded by the repository's objects. A repository whose git
 * directory is not the work tree's .git, and a delta (hide), skip the set: all their
 * objects go through the packbuilder (a delta is what the box lacks, usually small).
 * Not sent: reflogs (logs/), ORIG_HEAD (the commit a reset or an amend left behind), other
 * pseudo-refs, refs outside refs/. A ref whose object is missing is left out.
 *
 * Blocking (a history walk, reading pack indexes, copying packs, delta search and compression
 * of what is built): run it off the UI thread. A built pack is written to a 0700 temporary directory
 * and streamed from its open files, so memory stays bounded by libgit2's delta window and
 * the set. cancel is looked at between the steps, every 256 commits, trees or index
 * entries, after each pack sent as it is or rewritten, every 64 entries of a rewrite, every
 * 1024 objects and during the writes. */
#ifndef E2B_UPLOAD_PACK_H
#define E2B_UPLOAD_PACK_H

#include "core/git/tarball.h"

#include <stdatomic.h>
#include <stdint.h>

enum {
    E2B_UPLOAD_PACK_STASH = 1u << 0, /* refs/stash and its objects too (config up_stash) */
};

typedef struct {
    uint64_t objects;     /* objects sent, however */
    uint64_t packs_as_is; /* existing packs sent as they are */
    uint64_t packs_rewritten; /* existing packs sent without what is not to be sent */
    uint64_t rewritten;   /* objects in those */
    uint64_t loose;       /* loose objects sent as their files */
    uint64_t built;       /* objects in the pack built here */
    uint64_t refs;        /* refs written */
} e2b_upload_pack_info;

/* Adds the refs to refs_to and the objects to pack_to (rooted at the work tree: files go
 * as .git/objects/...); both may be the same archive, neither started. hide (may be NULL):
 * a commit the box has with all it reaches; hide_tree: its tree (an index entry whose blob
 * it has at the same path is left out). Errors: E2B_SUB_CANCELLED, E2B_SUB_NOMEM,
 * E2B_SUB_FILE_IO (the temporary file, an object file), E2B_SUB_FILE_CHANGED (a pack
 * changed while read), E2B_SUB_FAILED (libgit2: reading the refs or the history, building
 * or writing the pack). */
struct git_repository;
struct git_oid;
struct git_tree;
e2b_error *e2b_upload_pack_add(struct git_repository *repo, const struct git_oid *hide,
                               struct git_tree *hide_tree, unsigned flags, const atomic_int *cancel,
                               e2b_tarball *refs_to, e2b_tarball *pack_to,
                               e2b_upload_pack_info *info);

#endif
