/* Helpers for tests that build real git repositories with the git command line.
 * Every command runs through /bin/sh in a scratch directory made by gitfix_tmpdir(). */
#ifndef E2B_TEST_GITFIX_H
#define E2B_TEST_GITFIX_H

#include "core/util/error.h"

#include <stddef.h>

/* Creates a fresh scratch directory (mkdtemp under $TMPDIR or /tmp) and sets the git
 * identity environment so commits are reproducible. Returns a static path; the directory is
 * removed by gitfix_cleanup(). */
const char *gitfix_tmpdir(void);
void gitfix_cleanup(void);

/* Runs a printf-formatted shell command with cwd = the scratch directory; stdout and stderr
 * go to the test log. Returns the exit status (or -1). */
int gitfix_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Like gitfix_sh but captures stdout (trailing newlines removed) into a malloc'd string the
 * caller frees; NULL when the command fails. */
char *gitfix_out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Runs `bash -c SCRIPT ARGV0` (a generated script as core sends it to a box) with exactly
 * the n variables names[i]=values[i] plus PATH and HOME (the scratch directory) as its
 * environment. Returns its stdout (malloc'd, NUL-terminated; NULs inside are kept and
 * counted in *len, which may be NULL) and sets *status to its exit status (-1 when it did
 * not exit). NULL when it cannot be run. */
char *gitfix_bash_script(const char *script, const char *argv0, const char *const *names,
                         const char *const *values, size_t n, size_t *len, int *status);

/* Reads a whole file (malloc'd, caller frees; *len set). NULL on error. */
unsigned char *gitfix_read_file(const char *path, size_t *len);

/* For tests of core/git's calls, which return an e2b_error (NULL on success): keeps e in
 * *kept (the error kept before is freed; kept NULL: e is freed) and returns its subcode, 0
 * for NULL (E2B_SUB_NOMEM for the static out-of-memory error, which has none). So
 *   CHECK_INT_EQ(gitfix_sub(&err, e2b_gitwork_open(&g, dir, 0)), E2B_SUB_NOT_REPO);
 * checks the case, and err's message the words the user reads. */
static inline int gitfix_sub(e2b_error **kept, e2b_error *e)
{
    int sub = !e ? 0 : e2b_error_sub_of(e) != E2B_SUB_NONE ? (int)e2b_error_sub_of(e) : E2B_SUB_NOMEM;
    if (kept) {
        e2b_error_free(*kept);
        *kept = e;
    } else {
        e2b_error_free(e);
    }
    return sub;
}

#endif
