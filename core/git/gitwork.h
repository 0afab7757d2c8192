/* gitwork: the local git side of boxes, through libgit2.
 *
 *  - open the project repository (discovering upwards from a directory),
 *  - what HEAD is (branch, detached, unborn) and the box name derived from it,
 *  - the upload file list (tracked + untracked-not-ignored, plus ".git"),
 *  - the local user.name / user.email,
 *  - create-or-fast-forward of refs/heads/e2b/<name> to an imported commit.
 *
 * Nothing here ever changes HEAD, the index or the work tree. No network code.
 *
 * libgit2 lifetime: every gitwork handle holds one git_libgit2_init() reference, released
 * by e2b_gitwork_close(), so callers never call git_libgit2_init/shutdown themselves.
 *
 * Errors (this module and the rest of core/git): a call that can fail returns e2b_error *,
 * NULL on success, else a new error the caller owns (e2b_error_free) whose subcode
 * (e2b_error_sub_of) names the local case a caller may act on, e.g. E2B_SUB_DIVERGED. */
#ifndef E2B_GITWORK_H
#define E2B_GITWORK_H

#include "core/util/error.h"

#include <stddef.h>

struct git_repository;
typedef struct e2b_gitwork e2b_gitwork;

enum {
    /* Open a repository owned by another uid (libgit2's owner check, CVE-2022-24765).
     * Without it such a repository is refused with E2B_SUB_FOREIGN_OWNER unless git's safe.directory
     * lists it. NB: libgit2 keeps this as a process-wide setting. */
    E2B_GITWORK_ALLOW_FOREIGN_OWNER = 1u << 0,
};

/* Opens the repository containing dir (dir itself or a parent). Bare repositories are
 * refused (a box needs a work tree). On success *out is owned by the caller (e2b_gitwork_close).
 * Errors: E2B_SUB_NOT_REPO, E2B_SUB_FOREIGN_OWNER, E2B_SUB_FAILED. */
e2b_error *e2b_gitwork_open(e2b_gitwork **out, const char *dir, unsigned flags);
void e2b_gitwork_close(e2b_gitwork *g);

/* The libgit2 repository (owned by g); for the other core modules (bundle). */
struct git_repository *e2b_gitwork_repo(e2b_gitwork *g);
/* Absolute path of the work tree, without a trailing slash (owned by g). */
const char *e2b_gitwork_workdir(const e2b_gitwork *g);

typedef enum {
    E2B_GITWORK_HEAD_BRANCH,   /* HEAD -> refs/heads/<branch>, which exists */
    E2B_GITWORK_HEAD_DETACHED, /* HEAD holds a commit id */
    E2B_GITWORK_HEAD_UNBORN,   /* HEAD -> refs/heads/<branch>, no commit yet */
} e2b_gitwork_head_kind;

typedef struct {
    e2b_gitwork_head_kind kind;
    char branch[256]; /* "main", "feat/x"; "" when detached */
    char oid[41];     /* HEAD's commit as 40 hex; "" when unborn */
} e2b_gitwork_head;

/* Fills *out. Errors: E2B_SUB_FAILED (e.g. a branch name longer than 255 bytes). */
e2b_error *e2b_gitwork_head_info(e2b_gitwork *g, e2b_gitwork_head *out);

/* Box names.
 * Rule: Latin-1 letters become ASCII ("ü" -> "u", "ß" -> "ss"); bytes [A-Za-z0-9._-] are
 * kept; every run of other bytes ('/', spaces, non-ASCII,
 * controls, ...) becomes one '-'; runs of '-' collapse to one and runs of '.' to one;
 * leading and trailing '-' and '.' are dropped; a trailing ".lock" becomes "-lock"; the
 * result is cut to E2B_GITWORK_BOX_NAME_MAX bytes (then trimmed again). An empty result is
 * "box". So "feat/x" -> "feat-x", "../a b" -> "a-b", "x.lock" -> "x-lock", "feat/ünï" ->
 * "feat-uni".
 * Such a name is safe as a file name, in metadata and in refs/heads/e2b/<name>. */
#define E2B_GITWORK_BOX_NAME_MAX 48
/* Writes the sanitised form of in to out (outsz > E2B_GITWORK_BOX_NAME_MAX). */
void e2b_gitwork_sanitize_box_name(const char *in, char *out, size_t outsz);
/* 1 when name is non-empty and already in sanitised form, else 0. */
int e2b_gitwork_box_name_valid(const char *name);
/* The default box name for a HEAD: the sanitised branch (branch or unborn), or
 * "detached-<first 7 hex>" when detached. */
void e2b_gitwork_default_box_name(const e2b_gitwork_head *h, char *out, size_t outsz);

/* The upload list. Paths are relative to the work tree, '/'-separated, sorted, and all
 * exist (lstat) when listed: tracked files (modified or not, staged or not) and untracked
 * files that are not ignored, never ignored files, never files deleted from the work tree.
 * The last path is ".git" (a directory the archiver walks recursively). Submodules are not
 * uploaded: their paths are reported in submodules so the caller can warn and add each as
 * an empty directory (e2b_tarball_add_empty_dir), which git in the box reads as an
 * uninitialised submodule rather than a deleted one. */
typedef struct {
    char **paths;
    size_t count;
    char **submodules;
    size_t nsubmodules;
} e2b_gitwork_filelist;

/* Fills *out (caller frees with e2b_gitwork_filelist_free, also after an error).
 * Errors: E2B_SUB_FAILED (e.g. ".git" is not a directory: linked worktrees and separate git
 * dirs cannot be uploaded), E2B_SUB_NOMEM. */
e2b_error *e2b_gitwork_list_files(e2b_gitwork *g, e2b_gitwork_filelist *out);
void e2b_gitwork_filelist_free(e2b_gitwork_filelist *l);

/* user.name and user.email as git resolves them for this repository (local, global,
 * system config). Each result is malloc'd (caller frees) or NULL when unset. */
e2b_error *e2b_gitwork_user(e2b_gitwork *g, char **name, char **email);

typedef enum {
    E2B_GITWORK_BRANCH_CREATED,        /* the branch did not exist */
    E2B_GITWORK_BRANCH_FAST_FORWARDED, /* it pointed to an ancestor of the commit */
    E2B_GITWORK_BRANCH_UP_TO_DATE,     /* it already was the commit or contains it: no new work */
    E2B_GITWORK_BRANCH_FORCED,         /* it had diverged and force was given */
} e2b_gitwork_branch_outcome;

/* Points refs/heads/<branch> at the commit oid_hex (which must be in the repository).
 * Create if missing; fast-forward when the commit descends from it; E2B_SUB_DIVERGED when the
 * branch has commits the new one lacks, unless force; E2B_SUB_CHECKED_OUT when the branch is the
 * one HEAD is on (moving it would change what the work tree is compared with). Only
 * refs/heads/ is ever written; HEAD, index and work tree are never touched. The update is a
 * compare-and-swap, so a concurrent change is an error, not lost. */
e2b_error *e2b_gitwork_update_branch(e2b_gitwork *g, const char *branch, const char *oid_hex,
                                     int force, e2b_gitwork_branch_outcome *outcome);

/* The commit refs/heads/<branch> points to, as 40 hex in oid_out (41 bytes), or "" when
 * the branch does not exist. For pull: pass it as e2b_pull_script_params.prev so successive
 * pulls fast-forward. Errors: E2B_SUB_BAD_ARG (invalid name), E2B_SUB_FAILED. */
e2b_error *e2b_gitwork_branch_tip(e2b_gitwork *g, const char *branch, char oid_out[41]);

/* Whether the file rel_path of the work tree holds what a box holds there (gitwork_match.c):
 * blob_hex is the blob id of the box's content (git hash-object without filters; a
 * symlink's of its target), or NULL/"" when the box has no file there (deleted: a match
 * when the work tree has none either). rel_path comes from the box: an absolute path, a
 * ".." component or a file larger than max_bytes is never a match. Reads only. */
int e2b_gitwork_file_matches(e2b_gitwork *g, const char *rel_path, const char *blob_hex,
                         unsigned long long max_bytes);

/* A short phrase for an outcome ("created", "fast-forwarded", ...). */
const char *e2b_gitwork_branch_outcome_name(e2b_gitwork_branch_outcome o);

/* A new error of subcode code from libgit2's last error, "<what>: <libgit2's text>". For
 * core modules. */
e2b_error *e2b_gitwork_git_error(e2b_error_sub code, const char *what);

#endif
