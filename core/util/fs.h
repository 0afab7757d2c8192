/* The file system helpers of core/: a private directory, a full write, an atomic replace.
 * keystore/ has its own (it includes nothing of core/; its password file adds a lock and its
 * own error codes), written to the same rules. */
#ifndef E2B_FS_H
#define E2B_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Creates dir and its missing parents (those made get mode 0700), then checks dir itself:
 * a real directory (not a symlink), owned by this user, and made 0700 when group or others
 * can reach it. Returns 0, or -1 with errno set (ENOTDIR: not a directory or a symlink;
 * EPERM: another user's). */
int e2b_mkdir_private(const char *dir);

/* Writes all n bytes (retrying on EINTR and short writes). Returns 0, or -1 with errno set. */
int e2b_write_all(int fd, const void *p, size_t n);

/* A private log that several processes append to (each line one O_APPEND write):
 * e2b_log_file_open opens path to append, created 0600 and never through a link, and makes it
 * 0600; the fd, or -1 with errno set. */
int e2b_log_file_open(const char *path);
/* Before n more bytes go to fd (opened from path): when path is still fd's file and they
 * would take it past max bytes (an empty file takes any line), moves it to <path>.1,
 * replacing the older one. Among processes this is serialised with flock on fd and a second
 * look that path is still fd's file, so no file is rotated twice and <path>.1 is always one
 * whole earlier file. Returns true when fd is no longer path's file (rotated here or by
 * another process, or removed): the caller opens path again. */
bool e2b_log_file_rotate(int fd, const char *path, size_t n, long max);

enum {
    E2B_REPLACE_EXCLUSIVE = 1, /* fail with EEXIST when dir/name exists (two writers race) */
};

/* Replaces dir/name with data, atomically: a temp file dir/.<name>.<pid>.tmp (O_EXCL, mode)
 * is written and fsync'd, then renamed over dir/name (or linked, with EXCLUSIVE), and dir is
 * fsync'd, so a crash leaves the old file or the new one, never a mix. On failure the temp
 * file is gone and dir/name is as it was. Returns 0, or -1 with errno set. */
int e2b_replace_file(const char *dir, const char *name, const void *data, size_t len,
                     mode_t mode, unsigned flags);

#endif
