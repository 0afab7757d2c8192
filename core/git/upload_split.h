/* e2b_upload_split: divides an upload list between a gzip'd archive and a plain one.
 *
 * gzip costs most of an upload's CPU and gains nothing on bytes that are compressed
 * already: git's objects (zlib streams, loose or packed) and files whose bytes look random
 * (images, archives, binaries of random data). Those go in a plain tar; the rest in a
 * tar.gz (gzip level 1). The box extracts both.
 *
 * A ".git" directory in the list is replaced by those of its children that a box may have
 * (e2b_upload_git_entry), hooks/ by its hooks without git's *.sample files; config and
 * config.worktree are in neither (the upload sends rewritten copies, see
 * upload_gitconfig.h), nor objects/, refs/ and packed-refs (the upload sends a pack of
 * what is reachable and the refs, see upload_pack.h) unless E2B_UPLOAD_SPLIT_HISTORY_FILES:
 * then objects/ goes to the plain list. A regular file of at least
 * E2B_UPLOAD_SPLIT_MIN_SIZE bytes whose first 4 KiB look random (almost every byte value, none
 * much more frequent than the others) goes to the plain list. Paths are copied: both lists are owned by the caller
 * (e2b_upload_list_free, also after an error). */
#ifndef E2B_UPLOAD_SPLIT_H
#define E2B_UPLOAD_SPLIT_H

#include "core/util/error.h"

#include <stddef.h>

#define E2B_UPLOAD_SPLIT_MIN_SIZE (64 * 1024)

typedef struct {
    char **paths;
    size_t count, cap;
} e2b_upload_list;

enum {
    /* objects/, refs/ and packed-refs as files (a shallow repository: see upload.h) */
    E2B_UPLOAD_SPLIT_HISTORY_FILES = 1u << 0,
};

/* root: the work tree; paths: relative paths as e2b_gitwork_list_files gives them.
 * Errors: E2B_SUB_NOMEM, E2B_SUB_FILE_IO (.git cannot be read). */
e2b_error *e2b_upload_split(const char *root, const char *const *paths, size_t count,
                            unsigned flags, e2b_upload_list *gz, e2b_upload_list *plain);

/* What of .git leaves the machine, by the name of a child of .git. Sent: HEAD, index,
 * shallow, info/, hooks/, description, COMMIT_EDITMSG, the state of an operation in
 * progress (MERGE_*, AUTO_MERGE, CHERRY_PICK_HEAD, REVERT_HEAD, BISECT_*, rebase-merge/,
 * rebase-apply/, sequencer/, rr-cache/). History, sent as a pack and the refs it reaches:
 * objects/, refs/, packed-refs. Rewritten: config, config.worktree. Everything else
 * stays home: logs/ (reflogs record the command lines of pulls, URLs with tokens
 * included), ORIG_HEAD (what a reset or an amend left behind), FETCH_HEAD (remote URLs),
 * modules/ (submodules' own repositories and configs), worktrees/, lfs/, reftable/,
 * credential or cookie files a helper was told to keep there, locks, logs of other tools.
 * Returns E2B_UPLOAD_GIT_SEND, E2B_UPLOAD_GIT_HISTORY, E2B_UPLOAD_GIT_REWRITE or E2B_UPLOAD_GIT_KEEP. */
enum { E2B_UPLOAD_GIT_KEEP = 0, E2B_UPLOAD_GIT_SEND = 1, E2B_UPLOAD_GIT_REWRITE = 2, E2B_UPLOAD_GIT_HISTORY = 3 };
int e2b_upload_git_entry(const char *name);

/* Whether the first 4 KiB of the file look random; 0 for small, unreadable or non-regular
 * files. */
int e2b_upload_looks_compressed(const char *path);

void e2b_upload_list_free(e2b_upload_list *l);

#endif
