#include "core/util/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

int e2b_mkdir_private(const char *dir)
{
    struct stat st;
    char *copy = strdup(dir);
    if (!copy)
        return -1;
    for (char *p = copy + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(copy, 0700) < 0 && errno != EEXIST) {
            free(copy);
            return -1;
        }
        *p = '/';
    }
    free(copy);
    if (mkdir(dir, 0700) < 0 && errno != EEXIST)
        return -1;
    if (lstat(dir, &st) < 0)
        return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    if (st.st_uid != geteuid()) {
        errno = EPERM;
        return -1;
    }
    return (st.st_mode & 077) ? chmod(dir, 0700) : 0;
}

int e2b_write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t w = write(fd, c, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

int e2b_replace_file(const char *dir, const char *name, const void *data, size_t len,
                     mode_t mode, unsigned flags)
{
    char tmp[4352], final[4352];
    int fd, saved;
    if (snprintf(final, sizeof final, "%s/%s", dir, name) >= (int)sizeof final ||
        snprintf(tmp, sizeof tmp, "%s/.%s.%ld.tmp", dir, name, (long)getpid()) >=
            (int)sizeof tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    unlink(tmp); /* ours (this pid): a leftover of an earlier failure */
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0)
        return -1;
    if (fchmod(fd, mode) < 0 || e2b_write_all(fd, data, len) < 0 || fsync(fd) < 0) {
        saved = errno;
        close(fd);
        goto fail;
    }
    if (close(fd) < 0) {
        saved = errno;
        goto fail;
    }
    if (flags & E2B_REPLACE_EXCLUSIVE) {
        /* link() fails when the name exists: of two writers, one wins. */
        if (link(tmp, final) < 0) {
            saved = errno;
            goto fail;
        }
        unlink(tmp);
    } else if (rename(tmp, final) < 0) {
        saved = errno;
        goto fail;
    }
    fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd); /* the rename itself must survive a crash */
        close(fd);
    }
    return 0;
fail:
    unlink(tmp);
    errno = saved;
    return -1;
}

int e2b_log_file_open(const char *path)
{
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd >= 0 && fchmod(fd, 0600) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

static bool same_file(const char *path, const struct stat *fst)
{
    struct stat pst;
    return stat(path, &pst) == 0 && pst.st_ino == fst->st_ino && pst.st_dev == fst->st_dev;
}

bool e2b_log_file_rotate(int fd, const char *path, size_t n, long max)
{
    struct stat fst;
    if (fd < 0 || !path || fstat(fd, &fst) < 0)
        return false;
    bool ours = same_file(path, &fst);
    if (ours && (fst.st_size == 0 || fst.st_size + (off_t)n <= max))
        return false;
    if (ours && flock(fd, LOCK_EX) == 0) {
        if (same_file(path, &fst)) { /* still ours once locked: nobody rotated it meanwhile */
            char *old = NULL;
            if (asprintf(&old, "%s.1", path) >= 0) {
                rename(path, old); /* replaces the older one */
                free(old);
            }
        }
        flock(fd, LOCK_UN);
    }
    return true;
}
