/* pull_script: the bash program that `pull` runs inside the box (Process/Start with
 * cmd "/bin/bash", args {"-c", e2b_pull_script_text()}), and the parser of what it prints.
 *
 * In the box's repository, without touching its HEAD, index, work tree or branches, the
 * script commits the work in progress (tracked and untracked-not-ignored files, deletions
 * included) through a temporary index copied from the real one, as the local user, on the
 * scratch ref E2B_PULL_SCRIPT_REF (removed again once the bundle is written). When nothing
 * changed since HEAD, HEAD itself is used.
 *
 * Successive pulls: PREV is the local e2b/<box> tip. When the box still has that commit
 * (an earlier pull's snapshot, unreferenced there but kept by git until gc prunes it), the
 * new snapshot builds on it (parent PREV when it sits on the current HEAD, else a commit
 * with parents HEAD and PREV), so the local branch fast-forwards. A PREV the box does not
 * know (the user committed on e2b/<box> locally) is ignored, and the import then reports
 * the branch as diverged.
 *
 * It then writes `git bundle create` of scratch minus BASE and PREV (BASE only when the
 * work descends from it: "thin"; else "full") and prints exactly one result line on
 * stdout (NOWORK when the commit is BASE or PREV itself):
 *
 *   E2B-TUI-BUNDLE <commit> <thin|full> <size> <path>   bundle written (path: rest of line)
 *   E2B-TUI-NOWORK <commit>                              the work is BASE itself
 *   E2B-TUI-ERROR <message>                              (and exit status 1)
 *
 * All inputs travel in environment variables (never in the script text), so names, paths
 * and commit ids are data, not code. No credential is needed or sent. */
#ifndef E2B_PULL_SCRIPT_H
#define E2B_PULL_SCRIPT_H

#include "core/util/error.h"

#include <stddef.h>
#include <stdint.h>

/* The ref the bundle carries the work on; pass it to e2b_bundle_import_finish as want_ref. */
#define E2B_PULL_SCRIPT_REF "refs/e2b-tui/scratch"

/* The script (static text; do not free). */
const char *e2b_pull_script_text(void);

typedef struct {
    const char *dir;         /* the project's directory in the box (required) */
    const char *base;        /* 40-hex commit `up` started from; NULL/"" = unknown */
    const char *prev;        /* 40-hex tip of the local e2b/<box> branch; NULL/"" = none */
    const char *box_name;    /* for the commit message (required) */
    const char *user_name;   /* local git user.name; NULL = "e2b-tui" */
    const char *user_email;  /* local git user.email; NULL = "e2b-tui@localhost" */
    const char *bundle_path; /* where to write the bundle; NULL = a new temp file */
} e2b_pull_script_params;

typedef struct {
    char *name;
    char *value;
} e2b_pull_script_var;

/* The environment for the script: E2B_TUI_DIR, E2B_TUI_BASE, E2B_TUI_PREV, E2B_TUI_BOX,
 * E2B_TUI_BUNDLE
 * and GIT_{AUTHOR,COMMITTER}_{NAME,EMAIL}. *vars is a malloc'd array of *n entries (caller
 * frees with e2b_pull_script_env_free). Errors: E2B_SUB_BAD_ARG (dir not absolute, no box name, a
 * base/prev that is not 40 lowercase hex, a newline or <> in the user's name/email),
 * E2B_SUB_NOMEM. */
e2b_error *e2b_pull_script_env(const e2b_pull_script_params *p, e2b_pull_script_var **vars,
                               size_t *n);
void e2b_pull_script_env_free(e2b_pull_script_var *vars, size_t n);

typedef enum { E2B_PULL_SCRIPT_BUNDLE, E2B_PULL_SCRIPT_NOWORK } e2b_pull_script_kind;

typedef struct {
    e2b_pull_script_kind kind;
    char commit[41];
    int full;      /* BUNDLE: 1 full bundle, 0 thin (BASE..commit) */
    uint64_t size; /* BUNDLE: bytes */
    char *path;    /* BUNDLE: malloc'd path in the box (caller frees); NULL for NOWORK */
} e2b_pull_script_result;

/* Finds the result line in the script's stdout. Returns NULL with *r filled, or an error
 * (E2B_SUB_FAILED) with the box's error message (control characters replaced) or "no result
 * line" when the output holds no valid result. */
e2b_error *e2b_pull_script_parse_output(const char *out, size_t len, e2b_pull_script_result *r);

#endif
