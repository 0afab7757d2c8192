/* Helpers for tests that build real git repositories with the git command line.
 * Every command runs through /bin/sh in a scratch directory made by gitfix_tmpdir(). */
#ifndef E2B_TEST_GITFIX_H
#define E2B_TEST_GITFIX_H

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

/* Reads a whole file (malloc'd, caller frees; *len set). NULL on error. */
unsigned char *gitfix_read_file(const char *path, size_t *len);

#endif
