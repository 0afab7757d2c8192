/* upload: the local half of `up`, everything read from the project before a byte is sent.
 *
 * Lists the project's files (e2b_gitwork_list_files), divides them between a tar.gz and a
 * plain tar (e2b_upload_split: what of .git may leave the machine is decided there), and adds
 * the rewritten .git/config and .git/config.worktree (e2b_upload_gitconfig: no credentials),
 * an empty directory for each submodule, the refs (to the tar.gz) and one pack of the
 * reachable history (to the plain tar; upload_pack.h). A shallow clone, whose history
 * libgit2 cannot walk, sends objects/, refs/ and packed-refs as files instead (still not
 * the reflogs). This is the blocking part of `up` (a status walk, an lstat per file, a
 * sample of large files, the pack): the caller runs it off the UI thread.
 * It touches only g, so g must not be used elsewhere meanwhile. */
#ifndef E2B_UPLOAD_H
#define E2B_UPLOAD_H

#include "core/git/gitwork.h"
#include "core/git/tarball.h"

#include <stdatomic.h>

typedef struct {
    e2b_tarball *gz;    /* the archive to upload first (never NULL after success) */
    e2b_tarball *plain; /* compressed data as a plain tar, or NULL when there is none */
} e2b_upload_set;

enum {
    /* Everything in gz (one archive, e.g. for a test that reads it with tar -xz). */
    E2B_UPLOAD_ONE_ARCHIVE = 1u << 0,
    /* refs/stash and the stash's objects too (config up_stash; upload_pack.h) */
    E2B_UPLOAD_STASH = 1u << 1,
};

/* Prepares the archives of g's project at gzip_level (see e2b_tarball_new). On success *out
 * owns both archives (e2b_upload_set_free). cancel (may be NULL) is looked at between the
 * phases and while the pack is made: once it is non-zero the work stops with
 * E2B_SUB_CANCELLED. Errors: those of e2b_gitwork_list_files, e2b_upload_split, e2b_upload_gitconfig,
 * e2b_tarball_new and e2b_upload_pack_add. */
e2b_error *e2b_upload_prepare(e2b_gitwork *g, int gzip_level, unsigned flags,
                              const atomic_int *cancel, e2b_upload_set *out);
void e2b_upload_set_free(e2b_upload_set *s);
/* Adds the rewritten .git/<name> ("config", "config.worktree") to t when the project has
 * that file (upload_gitconfig.h: no credentials). */
e2b_error *e2b_upload_add_gitconfig(e2b_tarball *t, const char *root, const char *name);

#endif
