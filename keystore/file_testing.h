/* Test hook of the file backend (tests only; NULL in normal runs). */
#ifndef E2B_KS_FILE_TESTING_H
#define E2B_KS_FILE_TESTING_H

/* Called after the new content is written and fsynced to the temporary file and before it
 * is renamed over the password file. A test sets it to simulate a crash at that point
 * (e.g. raise(SIGKILL) in a child process). */
extern void (*ks_file_before_rename_hook)(const char *tmp_path);

#endif
