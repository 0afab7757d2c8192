/* The file backend: every entry in one private text file (file_format.h), replaced
 * atomically under an flock()ed lock file. Used when there is no keyring, or on request. */
#include "keystore/file_format.h"
#include "keystore/file_testing.h"
#include "keystore/ks_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define KSF_MAX_FILE (8u << 20)

void (*ks_file_before_rename_hook)(const char *tmp_path);

typedef struct {
    pthread_mutex_t lock; /* flock() is per open file, so threads also need a mutex */
    char *path, *dir, *lock_path, *tmp_path;
} file_state;

static char *concat(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *s = malloc(la + lb + 1);
    if (s) {
        memcpy(s, a, la);
        memcpy(s + la, b, lb + 1);
    }
    return s;
}

/* mkdir -p with mode 0700 for what is created; the last directory must be ours and private. */
static ks_code ensure_dir(const char *dir, ks_error *err)
{
    char *d = ks_strdup(dir);
    if (!d)
        return ks_fail(err, KS_ERR_NOMEM, "out of memory");
    for (char *p = d + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        if (mkdir(d, 0700) != 0 && errno != EEXIST) {
            int e = errno;
            ks_code rc = ks_fail(err, e == EACCES ? KS_ERR_PERMISSION : KS_ERR_IO,
                                 "cannot create the directory %s: %s", d, strerror(e));
            free(d);
            return rc;
        }
        *p = c;
        if (c == '\0')
            break;
    }
    free(d);
    struct stat st;
    if (stat(dir, &st) != 0)
        return ks_fail(err, KS_ERR_IO, "cannot use the directory %s: %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return ks_fail(err, KS_ERR_IO, "%s is not a directory", dir);
    if (st.st_uid != geteuid())
        return ks_fail(err, KS_ERR_PERMISSION,
                       "refusing to keep passwords in %s: it belongs to another user", dir);
    if ((st.st_mode & 077) && chmod(dir, 0700) != 0)
        return ks_fail(err, KS_ERR_PERMISSION,
                       "%s is accessible by other users and cannot be made private: %s", dir,
                       strerror(errno));
    return KS_OK;
}

/* Reads the password file into a malloc'd buffer (NULL, 0 when it does not exist), refusing
 * a symlink, a file that is not ours, or one that group/others can access. */
static ks_code read_file(const char *path, char **buf, size_t *len, ks_error *err)
{
    *buf = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        if (errno == ENOENT)
            return KS_OK;
        if (errno == ELOOP)
            return ks_fail(err, KS_ERR_PERMISSION,
                           "refusing to read %s: it is a symbolic link; replace it with a "
                           "regular file (mode 0600) or remove it",
                           path);
        int e = errno;
        return ks_fail(err, e == EACCES ? KS_ERR_PERMISSION : KS_ERR_IO, "cannot read %s: %s", path,
                       strerror(e));
    }
    struct stat st;
    ks_code rc = KS_OK;
    if (fstat(fd, &st) != 0)
        rc = ks_fail(err, KS_ERR_IO, "cannot read %s: %s", path, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        rc = ks_fail(err, KS_ERR_PERMISSION, "refusing to read %s: it is not a regular file", path);
    else if (st.st_uid != geteuid())
        rc = ks_fail(err, KS_ERR_PERMISSION, "refusing to read %s: it belongs to another user",
                     path);
    else if (st.st_mode & 077)
        rc = ks_fail(err, KS_ERR_PERMISSION,
                     "refusing to read %s: other users can access it (mode %04o); check who "
                     "saw it, then run: chmod 600 %s",
                     path, (unsigned)(st.st_mode & 07777), path);
    else if ((unsigned long long)st.st_size > KSF_MAX_FILE)
        rc = ks_fail(err, KS_ERR_CORRUPT, "%s is too large to be a password file", path);
    if (rc != KS_OK) {
        close(fd);
        return rc;
    }
    size_t cap = (size_t)st.st_size + 1, n = 0;
    char *b = malloc(cap);
    if (!b) {
        close(fd);
        return ks_fail(err, KS_ERR_NOMEM, "out of memory reading %s", path);
    }
    for (;;) {
        if (n == cap) { /* the file grew after fstat: only a bounded amount more */
            if (cap > KSF_MAX_FILE) {
                rc = ks_fail(err, KS_ERR_CORRUPT, "%s is too large to be a password file", path);
                break;
            }
            char *g = malloc(cap * 2);
            if (!g) {
                rc = ks_fail(err, KS_ERR_NOMEM, "out of memory reading %s", path);
                break;
            }
            memcpy(g, b, n);
            explicit_bzero(b, n);
            free(b);
            b = g;
            cap *= 2;
        }
        ssize_t r = read(fd, b + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            rc = ks_fail(err, KS_ERR_IO, "cannot read %s: %s", path, strerror(errno));
            break;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    if (rc != KS_OK) {
        explicit_bzero(b, cap);
        free(b);
        return rc;
    }
    *buf = b;
    *len = n;
    return KS_OK;
}

static ks_code load(file_state *f, ksf_record **recs, size_t *n, ks_error *err)
{
    char *buf;
    size_t len;
    *recs = NULL;
    *n = 0;
    ks_code rc = read_file(f->path, &buf, &len, err);
    if (rc != KS_OK)
        return rc;
    rc = ksf_parse(buf ? buf : "", len, f->path, recs, n, err);
    if (buf) {
        explicit_bzero(buf, len);
        free(buf);
    }
    return rc;
}

static ks_code write_all(int fd, const char *p, size_t len)
{
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return KS_ERR_IO;
        p += w;
        len -= (size_t)w;
    }
    return KS_OK;
}

/* Temp file (O_EXCL, 0600) + fsync + rename + fsync of the directory: a crash at any point
 * leaves either the old file or the new one, never a mix. Called with the lock held, so a
 * temp file that already exists is a leftover of a crashed writer. */
static ks_code store(file_state *f, const ksf_record *recs, size_t n, ks_error *err)
{
    size_t len;
    char *buf = ksf_serialize(recs, n, &len);
    if (!buf)
        return ks_fail(err, KS_ERR_NOMEM, "out of memory writing %s", f->path);
    unlink(f->tmp_path);
    int fd = open(f->tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    ks_code rc = KS_OK;
    if (fd < 0) {
        int e = errno;
        rc = ks_fail(err, e == EACCES ? KS_ERR_PERMISSION : KS_ERR_IO, "cannot create %s: %s",
                     f->tmp_path, strerror(e));
    } else {
        if (fchmod(fd, 0600) != 0 || write_all(fd, buf, len) != KS_OK || fsync(fd) != 0)
            rc = ks_fail(err, KS_ERR_IO, "cannot write %s: %s", f->tmp_path, strerror(errno));
        if (close(fd) != 0 && rc == KS_OK)
            rc = ks_fail(err, KS_ERR_IO, "cannot write %s: %s", f->tmp_path, strerror(errno));
    }
    explicit_bzero(buf, len);
    free(buf);
    if (rc == KS_OK && ks_file_before_rename_hook)
        ks_file_before_rename_hook(f->tmp_path);
    if (rc == KS_OK && rename(f->tmp_path, f->path) != 0)
        rc = ks_fail(err, KS_ERR_IO, "cannot replace %s: %s", f->path, strerror(errno));
    if (rc != KS_OK) {
        unlink(f->tmp_path);
        return rc;
    }
    int dfd = open(f->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return KS_OK;
}

/* Takes the in-process mutex and the inter-process flock (shared for reads). Returns the
 * lock fd, or -1 with err set (the mutex is then released). */
static int lock(file_state *f, bool exclusive, ks_error *err)
{
    pthread_mutex_lock(&f->lock);
    int fd = open(f->lock_path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        int e = errno;
        pthread_mutex_unlock(&f->lock);
        ks_fail(err, e == EACCES || e == ELOOP ? KS_ERR_PERMISSION : KS_ERR_IO,
                "cannot open the lock file %s: %s", f->lock_path, strerror(e));
        return -1;
    }
    while (flock(fd, exclusive ? LOCK_EX : LOCK_SH) != 0) {
        if (errno == EINTR)
            continue;
        int e = errno;
        close(fd);
        pthread_mutex_unlock(&f->lock);
        ks_fail(err, KS_ERR_IO, "cannot lock %s: %s", f->lock_path, strerror(e));
        return -1;
    }
    return fd;
}

static void unlock(file_state *f, int fd)
{
    close(fd); /* releases the flock */
    pthread_mutex_unlock(&f->lock);
}

static ssize_t find(const ksf_record *recs, size_t n, const char *box, const char *sid)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(recs[i].box, box) == 0 && strcmp(recs[i].sid, sid) == 0)
            return (ssize_t)i;
    return -1;
}

/* Locks the file (exclusively for a write) and loads every record; the caller owns *recs.
 * A write keeps the lock until it has stored the result and calls unlock(f, *lfd); a read
 * needs only a consistent snapshot, so its lock is released here (*lfd = -1). On an error
 * nothing is held. */
static ks_code locked_load(file_state *f, bool for_write, int *lfd, ksf_record **recs,
                           size_t *n, ks_error *err)
{
    *lfd = lock(f, for_write, err);
    if (*lfd < 0)
        return err ? err->code : KS_ERR_IO;
    ks_code rc = load(f, recs, n, err);
    if (rc != KS_OK || !for_write) {
        unlock(f, *lfd);
        *lfd = -1;
    }
    return rc;
}

static ks_code file_put(keystore *ks, const char *box, const char *sid, const char *password,
                        unsigned timeout_ms, ks_error *err)
{
    file_state *f = ks_state(ks);
    int lfd;
    ksf_record *recs;
    size_t n;
    ks_code rc = locked_load(f, true, &lfd, &recs, &n, err);
    if (rc != KS_OK)
        return rc;
    ssize_t i = find(recs, n, box, sid);
    char *pw = ks_strdup(password);
    if (!pw) {
        rc = ks_fail(err, KS_ERR_NOMEM, "out of memory storing a password");
    } else if (i >= 0) {
        keystore_password_free(recs[i].password);
        recs[i].password = pw;
    } else {
        ksf_record *g = realloc(recs, (n + 1) * sizeof *g);
        char *b = ks_strdup(box), *s = ks_strdup(sid);
        if (g)
            recs = g;
        if (!g || !b || !s) {
            free(b);
            free(s);
            keystore_password_free(pw);
            rc = ks_fail(err, KS_ERR_NOMEM, "out of memory storing a password");
        } else {
            recs[n++] = (ksf_record){b, s, pw};
        }
    }
    if (rc == KS_OK)
        rc = store(f, recs, n, err);
    ksf_records_free(recs, n);
    unlock(f, lfd);
    return rc;
}

static ks_code file_get(keystore *ks, const char *box, const char *sid, char **password,
                        unsigned timeout_ms, ks_error *err)
{
    file_state *f = ks_state(ks);
    int lfd;
    ksf_record *recs;
    size_t n;
    ks_code rc = locked_load(f, false, &lfd, &recs, &n, err);
    if (rc != KS_OK)
        return rc;
    ssize_t i = find(recs, n, box, sid);
    if (i < 0) {
        rc = ks_fail(err, KS_ERR_NOT_FOUND, "no password is stored for box %s (sandbox %s) in %s",
                     box, sid, f->path);
    } else {
        *password = recs[i].password; /* moved out: not wiped below */
        recs[i].password = NULL;
    }
    ksf_records_free(recs, n);
    return rc;
}

static ks_code file_del(keystore *ks, const char *box, const char *sid, unsigned timeout_ms,
                        ks_error *err)
{
    file_state *f = ks_state(ks);
    int lfd;
    ksf_record *recs;
    size_t n;
    ks_code rc = locked_load(f, true, &lfd, &recs, &n, err);
    if (rc != KS_OK)
        return rc;
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(recs[i].box, box) == 0 && (!sid || strcmp(recs[i].sid, sid) == 0)) {
            free(recs[i].box);
            free(recs[i].sid);
            keystore_password_free(recs[i].password);
        } else {
            recs[kept++] = recs[i];
        }
    }
    if (kept == n)
        rc = ks_fail(err, KS_ERR_NOT_FOUND, "no password is stored for box %s in %s", box,
                     f->path);
    else
        rc = store(f, recs, kept, err);
    ksf_records_free(recs, kept);
    unlock(f, lfd);
    return rc;
}

static ks_code file_list(keystore *ks, ks_entry **entries, size_t *count, unsigned timeout_ms,
                         ks_error *err)
{
    file_state *f = ks_state(ks);
    int lfd;
    ksf_record *recs;
    size_t n, cap = 0;
    ks_code rc = locked_load(f, false, &lfd, &recs, &n, err);
    if (rc != KS_OK)
        return rc;
    for (size_t i = 0; rc == KS_OK && i < n; i++)
        if (!ks_entries_push(entries, count, &cap, recs[i].box, recs[i].sid))
            rc = ks_fail(err, KS_ERR_NOMEM, "out of memory listing passwords");
    ksf_records_free(recs, n);
    if (rc != KS_OK) {
        ks_entries_free(*entries, *count);
        *entries = NULL;
        *count = 0;
    }
    return rc;
}

static void file_destroy(void *state)
{
    file_state *f = state;
    if (!f)
        return;
    pthread_mutex_destroy(&f->lock);
    free(f->path);
    free(f->dir);
    free(f->lock_path);
    free(f->tmp_path);
    free(f);
}

static const ks_ops file_ops = {file_put, file_get, file_del, file_list, file_destroy};

keystore *keystore_open_file(const char *path, ks_error *err)
{
    if (!path || path[0] != '/' || path[strlen(path) - 1] == '/') {
        ks_fail(err, KS_ERR_INVALID, "the password file must be an absolute file path, not \"%s\"",
                path ? path : "");
        return NULL;
    }
    file_state *f = calloc(1, sizeof *f);
    if (!f) {
        ks_fail(err, KS_ERR_NOMEM, "out of memory opening the keystore");
        return NULL;
    }
    pthread_mutex_init(&f->lock, NULL);
    f->path = ks_strdup(path);
    f->dir = ks_strdup(path);
    f->lock_path = concat(path, ".lock");
    f->tmp_path = concat(path, ".tmp");
    if (!f->path || !f->dir || !f->lock_path || !f->tmp_path) {
        file_destroy(f);
        ks_fail(err, KS_ERR_NOMEM, "out of memory opening the keystore");
        return NULL;
    }
    char *slash = strrchr(f->dir, '/');
    if (slash == f->dir)
        slash[1] = '\0';
    else
        *slash = '\0';
    /* Check now, so that an unsafe file is reported when the store opens, not at first use. */
    ksf_record *recs = NULL;
    size_t n = 0;
    if (ensure_dir(f->dir, err) != KS_OK || load(f, &recs, &n, err) != KS_OK) {
        file_destroy(f);
        return NULL;
    }
    ksf_records_free(recs, n);
    return ks_new(KS_BACKEND_FILE, &file_ops, f, path, err);
}
