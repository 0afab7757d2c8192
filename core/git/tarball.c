#include "core/git/tarball.h"

#include "core/util/archive_dl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    char *rel;    /* relative path inside the project */
    int synthetic; /* added by the caller (an empty directory, or data): nothing on disk */
    char *data;   /* a file given by the caller (e2b_tarball_add_data): its bytes, wiped on free */
    int src_fd;   /* a file given by the caller as an open file (e2b_tarball_add_fd), or -1 */
    mode_t mode;  /* st_mode from the listing (type + permissions) */
    off_t size;   /* regular files: size from the listing */
    time_t mtime;
} tb_entry;

struct e2b_tarball {
    char *root;
    tb_entry *ents;
    size_t nents, cap;

    struct archive *a;
    size_t next;      /* index of the next entry to start */
    int fd;           /* the regular file being copied, or -1 */
    off_t remaining;  /* its bytes still to copy */
    const char *cur;  /* its relative path, for messages */
    char *chunk;      /* E2B_TARBALL_CHUNK bytes of read buffer */

    char *out;        /* compressed bytes not yet handed out */
    size_t out_len, out_pos, out_cap;

    /* libarchive converts names with the current locale's charset; under a UTF-8 locale
     * UTF-8 names go out as UTF-8 pax paths whatever the caller's locale (often "C"),
     * and only names that are not valid UTF-8 fall back to raw bytes. */
    locale_t utf8;

    int finished, failed;
    e2b_error *err; /* why it failed, once failed is set */
    e2b_tarball_progress prog;
};

/* Records why the archive cannot be made or go on in t->err (replacing an earlier one);
 * returns -1, as every internal step does on failure. */
static int t_error(e2b_tarball *t, e2b_error_sub sub, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int t_error(e2b_tarball *t, e2b_error_sub sub, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    e2b_error *e = e2b_error_localv(sub, fmt, ap);
    va_end(ap);
    e2b_error_free(t->err);
    t->err = e;
    return -1;
}

/* Marks the stream failed and records why; evaluates to -1. */
#define FAIL(t, sub, ...) ((t)->failed = 1, t_error((t), (sub), __VA_ARGS__))

static la_ssize_t on_write(struct archive *a, void *ud, const void *buf, size_t len)
{
    (void)a;
    e2b_tarball *t = ud;
    if (t->out_pos == t->out_len)
        t->out_pos = t->out_len = 0;
    if (t->out_len + len > t->out_cap) {
        size_t cap = t->out_cap ? t->out_cap : 64 * 1024;
        while (cap < t->out_len + len)
            cap *= 2;
        char *n = realloc(t->out, cap);
        if (!n) {
            archive_set_error(a, ENOMEM, "out of memory");
            return -1;
        }
        t->out = n;
        t->out_cap = cap;
    }
    memcpy(t->out + t->out_len, buf, len);
    t->out_len += len;
    if (t->out_len - t->out_pos > t->prog.peak_buffer)
        t->prog.peak_buffer = t->out_len - t->out_pos;
    return (la_ssize_t)len;
}

static char *join(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *s = malloc(la + lb + 2);
    if (!s)
        return NULL;
    memcpy(s, a, la);
    s[la] = '/';
    memcpy(s + la + 1, b, lb + 1);
    return s;
}

static int safe_relative(const char *p)
{
    if (!p[0] || p[0] == '/' || strlen(p) >= PATH_MAX)
        return 0;
    for (const char *c = p; *c;) {
        const char *e = strchr(c, '/');
        size_t n = e ? (size_t)(e - c) : strlen(c);
        if (n == 0 || (n == 2 && c[0] == '.' && c[1] == '.') || (n == 1 && c[0] == '.'))
            return 0;
        c += n + (e ? 1 : 0);
    }
    return 1;
}

/* Takes ownership of rel. */
static int add_entry(e2b_tarball *t, char *rel, const struct stat *st)
{
    if (t->nents == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 256;
        tb_entry *n = realloc(t->ents, cap * sizeof *n);
        if (!n) {
            free(rel);
            return t_error(t, E2B_SUB_NOMEM, "out of memory");
        }
        t->ents = n;
        t->cap = cap;
    }
    tb_entry *e = &t->ents[t->nents++];
    e->rel = rel;
    e->mode = st->st_mode;
    e->size = S_ISREG(st->st_mode) ? st->st_size : 0;
    e->mtime = st->st_mtime;
    e->synthetic = 0;
    e->data = NULL;
    e->src_fd = -1;
    t->prog.files_total++;
    t->prog.bytes_total += (uint64_t)e->size;
    return 0;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_path(e2b_tarball *t, const char *rel, int depth);

/* Adds the children of directory rel in name order (a stable archive for stable input). */
static int add_dir_children(e2b_tarball *t, const char *rel, int depth)
{
    char *full = join(t->root, rel);
    if (!full)
        return t_error(t, E2B_SUB_NOMEM, "out of memory");
    DIR *d = opendir(full);
    if (!d) {
        t_error(t, E2B_SUB_FILE_IO, "cannot read directory %s: %s", rel, strerror(errno));
        free(full);
        return -1;
    }
    free(full);
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 32;
            char **nn = realloc(names, cap * sizeof *nn);
            if (!nn) {
                rc = t_error(t, E2B_SUB_NOMEM, "out of memory");
                break;
            }
            names = nn;
        }
        if (!(names[n] = strdup(de->d_name))) {
            rc = t_error(t, E2B_SUB_NOMEM, "out of memory");
            break;
        }
        n++;
    }
    closedir(d);
    if (rc == 0 && n > 1)
        qsort(names, n, sizeof *names, cmp_name);
    for (size_t i = 0; i < n; i++) {
        if (rc == 0) {
            char *child = join(rel, names[i]);
            if (!child)
                rc = t_error(t, E2B_SUB_NOMEM, "out of memory");
            else {
                rc = add_path(t, child, depth + 1);
                free(child);
            }
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

static int add_path(e2b_tarball *t, const char *rel, int depth)
{
    if (depth > 256)
        return t_error(t, E2B_SUB_FILE_IO, "directories nested too deeply at %s", rel);
    char *full = join(t->root, rel);
    if (!full)
        return t_error(t, E2B_SUB_NOMEM, "out of memory");
    struct stat st;
    int r = lstat(full, &st);
    int e = errno;
    free(full);
    if (r != 0)
        return t_error(t, E2B_SUB_FILE_IO, "cannot read %s: %s", rel, strerror(e));
    if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode) && !S_ISLNK(st.st_mode)) {
        t->prog.skipped++;
        return 0;
    }
    char *copy = strdup(rel);
    if (!copy)
        return t_error(t, E2B_SUB_NOMEM, "out of memory");
    int rc = add_entry(t, copy, &st);
    if (rc == 0 && S_ISDIR(st.st_mode))
        rc = add_dir_children(t, rel, depth);
    return rc;
}

e2b_error *e2b_tarball_new(e2b_tarball **out, const char *root, const char *const *paths,
                           size_t count, int gzip_level)
{
    *out = NULL;
    if (gzip_level < E2B_TARBALL_PLAIN || gzip_level > 9)
        return e2b_error_local(E2B_SUB_BAD_ARG, "gzip level must be 0..9 or E2B_TARBALL_PLAIN, not %d",
                               gzip_level);
    e2b_tarball *t = calloc(1, sizeof *t);
    if (!t)
        return e2b_error_local(E2B_SUB_NOMEM, "out of memory");
    t->fd = -1;
    t->root = strdup(root);
    t->chunk = malloc(E2B_TARBALL_CHUNK);
    int rc = (t->root && t->chunk) ? 0 : t_error(t, E2B_SUB_NOMEM, "out of memory");
    for (size_t i = 0; rc == 0 && i < count; i++) {
        if (!safe_relative(paths[i]))
            rc = t_error(t, E2B_SUB_BAD_ARG, "refusing path '%s': not relative to the project",
                         paths[i]);
        else
            rc = add_path(t, paths[i], 0);
    }
    t->utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
    locale_t old = t->utf8 ? uselocale(t->utf8) : (locale_t)0;
    if (rc == 0) {
        char opt[64];
        t->a = archive_write_new();
        snprintf(opt, sizeof opt, "gzip:compression-level=%d", gzip_level ? gzip_level : 6);
        int gz = gzip_level != E2B_TARBALL_PLAIN;
        if (!t->a || (gz && archive_write_add_filter_gzip(t->a) != ARCHIVE_OK) ||
            archive_write_set_format_pax_restricted(t->a) != ARCHIVE_OK ||
            (gz && archive_write_set_options(t->a, opt) != ARCHIVE_OK) ||
            archive_write_set_bytes_in_last_block(t->a, 1) != ARCHIVE_OK ||
            archive_write_open(t->a, t, NULL, on_write, NULL) != ARCHIVE_OK)
            rc = t_error(t, E2B_SUB_FAILED, "cannot start the archive: %s",
                         t->a ? archive_error_string(t->a)
                         : *e2b_archive_dl_error() ? e2b_archive_dl_error() : "out of memory");
    }
    if (t->utf8)
        uselocale(old);
    if (rc != 0) {
        e2b_error *e = t->err;
        t->err = NULL;
        e2b_tarball_free(t);
        return e;
    }
    *out = t;
    return NULL;
}

static struct archive_entry *new_header(e2b_tarball *t, const tb_entry *e, mode_t type, mode_t perm,
                                        off_t size)
{
    struct archive_entry *ae = archive_entry_new();
    if (!ae) {
        FAIL(t, E2B_SUB_NOMEM, "out of memory");
        return NULL;
    }
    archive_entry_copy_pathname(ae, e->rel);
    archive_entry_set_filetype(ae, type);
    archive_entry_set_perm(ae, perm);
    archive_entry_set_size(ae, size);
    archive_entry_set_mtime(ae, e->mtime, 0);
    archive_entry_set_uid(ae, 0);
    archive_entry_set_gid(ae, 0);
    return ae;
}

static int write_header(e2b_tarball *t, struct archive_entry *ae, const char *rel)
{
    int r = archive_write_header(t->a, ae);
    archive_entry_free(ae);
    /* WARN: a name that is not UTF-8 was stored as raw bytes (pax hdrcharset=BINARY). */
    if (r != ARCHIVE_OK && r != ARCHIVE_WARN)
        return FAIL(t, E2B_SUB_FAILED, "cannot archive %s: %s", rel, archive_error_string(t->a));
    return 0;
}

/* Starts entry t->next: writes its header and, for a regular file, opens it. */
static int start_entry(e2b_tarball *t)
{
    tb_entry *e = &t->ents[t->next++];
    char *full = join(t->root, e->rel);
    if (!full)
        return FAIL(t, E2B_SUB_NOMEM, "out of memory");
    struct archive_entry *ae = NULL;
    int rc = 0;
    struct stat now;
    if (!e->synthetic && lstat(full, &now) != 0 && errno == ENOENT) {
        /* deleted since the listing: the archive stays true to the disk */
        free(full);
        t->prog.vanished++;
        t->prog.files_done++;
        t->prog.bytes_total -= (uint64_t)e->size;
        return 0;
    }
    if (e->src_fd >= 0) {
        /* The caller's file: its size was taken when it was added and it is nobody
         * else's (an unlinked temporary file), so it is copied like a listed one. */
        free(full);
        if (lseek(e->src_fd, 0, SEEK_SET) != 0)
            return FAIL(t, E2B_SUB_FILE_IO, "cannot read %s: %s", e->rel, strerror(errno));
        if (!(ae = new_header(t, e, AE_IFREG, 0644, e->size)))
            return -1;
        t->fd = e->src_fd;
        e->src_fd = -1;
        t->remaining = e->size;
        t->cur = e->rel;
        return write_header(t, ae, e->rel);
    }
    if (e->data) {
        if ((ae = new_header(t, e, AE_IFREG, 0644, e->size))) {
            rc = write_header(t, ae, e->rel);
            if (rc == 0 && e->size > 0 &&
                archive_write_data(t->a, e->data, (size_t)e->size) != (la_ssize_t)e->size)
                rc = FAIL(t, E2B_SUB_FAILED, "cannot archive %s: %s", e->rel,
                          archive_error_string(t->a));
            if (rc == 0) {
                t->prog.bytes_done += (uint64_t)e->size;
                t->prog.files_done++;
            }
            free(full);
            return rc;
        }
    } else if (S_ISDIR(e->mode)) {
        ae = new_header(t, e, AE_IFDIR, 0755, 0);
    } else if (S_ISLNK(e->mode)) {
        char target[PATH_MAX + 1];
        ssize_t n = readlink(full, target, sizeof target - 1);
        if (n < 0)
            rc = FAIL(t, E2B_SUB_FILE_CHANGED, "%s changed while being archived (%s)", e->rel,
                      strerror(errno));
        else {
            target[n] = '\0';
            if ((ae = new_header(t, e, AE_IFLNK, 0777, 0)))
                archive_entry_copy_symlink(ae, target);
        }
    } else {
        int fd = open(full, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        struct stat st;
        int open_errno = errno;
        if (fd < 0 && open_errno != ELOOP) {
            /* e.g. no permission: not a change, the file cannot be read at all */
            rc = FAIL(t, E2B_SUB_FILE_IO, "cannot read %s: %s", e->rel, strerror(open_errno));
        } else if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            rc = FAIL(t, E2B_SUB_FILE_CHANGED, "%s changed while being archived (%s)", e->rel,
                      fd < 0 ? "now a symlink" : "no longer a regular file");
            if (fd >= 0)
                close(fd);
        } else {
            /* Edited since the listing but stable now: archive what is there. */
            t->prog.bytes_total += (uint64_t)st.st_size - (uint64_t)e->size;
            e->size = st.st_size;
            e->mtime = st.st_mtime;
            if ((ae = new_header(t, e, AE_IFREG, (st.st_mode & 0111) ? 0755 : 0644, st.st_size))) {
                t->fd = fd;
                t->remaining = st.st_size;
                t->cur = e->rel;
            } else {
                close(fd);
            }
        }
    }
    free(full);
    if (rc == 0 && !ae)
        rc = -1;
    if (rc == 0)
        rc = write_header(t, ae, e->rel);
    if (rc == 0 && t->fd < 0)
        t->prog.files_done++;
    return rc;
}

static void close_current(e2b_tarball *t)
{
    if (t->fd >= 0)
        close(t->fd);
    t->fd = -1;
    t->cur = NULL;
}

/* Copies one chunk of the current file. */
static int copy_chunk(e2b_tarball *t)
{
    size_t want = t->remaining < E2B_TARBALL_CHUNK ? (size_t)t->remaining : E2B_TARBALL_CHUNK;
    ssize_t r = want ? read(t->fd, t->chunk, want) : 0;
    if (r < 0)
        return FAIL(t, E2B_SUB_FILE_IO, "cannot read %s: %s", t->cur, strerror(errno));
    if (r == 0 && t->remaining > 0)
        return FAIL(t, E2B_SUB_FILE_CHANGED, "%s shrank while being archived; try again", t->cur);
    if (r > 0) {
        if (archive_write_data(t->a, t->chunk, (size_t)r) != r)
            return FAIL(t, E2B_SUB_FAILED, "cannot archive %s: %s", t->cur, archive_error_string(t->a));
        t->remaining -= r;
        t->prog.bytes_done += (uint64_t)r;
    }
    if (t->remaining == 0) {
        char extra;
        r = read(t->fd, &extra, 1);
        if (r > 0)
            return FAIL(t, E2B_SUB_FILE_CHANGED, "%s grew while being archived; try again", t->cur);
        close_current(t);
        t->prog.files_done++;
    }
    return 0;
}

/* One bounded unit of work. */
static int step(e2b_tarball *t)
{
    if (t->fd >= 0)
        return copy_chunk(t);
    if (t->next < t->nents)
        return start_entry(t);
    if (archive_write_close(t->a) != ARCHIVE_OK)
        return FAIL(t, E2B_SUB_FAILED, "cannot finish the archive: %s", archive_error_string(t->a));
    t->finished = 1;
    return 0;
}

ssize_t e2b_tarball_read(void *ud, char *buf, size_t n)
{
    e2b_tarball *t = ud;
    for (;;) {
        if (t->out_pos < t->out_len) {
            size_t k = t->out_len - t->out_pos;
            if (k > n)
                k = n;
            memcpy(buf, t->out + t->out_pos, k);
            t->out_pos += k;
            t->prog.out_bytes += k;
            return (ssize_t)k;
        }
        if (t->failed)
            return -1;
        if (t->finished || n == 0)
            return 0;
        locale_t old = t->utf8 ? uselocale(t->utf8) : (locale_t)0;
        int rc = step(t);
        if (t->utf8)
            uselocale(old);
        if (rc != 0) {
            t->failed = 1;
            close_current(t);
            return -1;
        }
    }
}

/* What every tarball_add_* checks first: the stream has not started, rel is relative. */
static e2b_error *can_add(const e2b_tarball *t, const char *rel)
{
    if (t->next > 0 || t->prog.out_bytes > 0)
        return e2b_error_local(E2B_SUB_BAD_ARG, "the archive has already started");
    if (!safe_relative(rel))
        return e2b_error_local(E2B_SUB_BAD_ARG, "refusing path '%s': not relative to the project",
                               rel);
    return NULL;
}

/* The error add_entry or add_path just recorded, for the caller (the stream keeps its own
 * copy: nothing failed in it). */
static e2b_error *copy_error(const e2b_tarball *t) { return e2b_error_copy(t->err); }

e2b_error *e2b_tarball_add_empty_dir(e2b_tarball *t, const char *rel)
{
    e2b_error *e = can_add(t, rel);
    if (e)
        return e;
    struct stat st = {0};
    st.st_mode = S_IFDIR | 0755;
    st.st_mtime = time(NULL);
    char *copy = strdup(rel);
    if (!copy)
        return e2b_error_local(E2B_SUB_NOMEM, "out of memory");
    if (add_entry(t, copy, &st) != 0)
        return copy_error(t);
    t->ents[t->nents - 1].synthetic = 1;
    return NULL;
}

e2b_error *e2b_tarball_add_data(e2b_tarball *t, const char *rel, const void *data, size_t len)
{
    e2b_error *e = can_add(t, rel);
    if (e)
        return e;
    struct stat st = {0};
    st.st_mode = S_IFREG | 0644;
    st.st_size = (off_t)len;
    st.st_mtime = time(NULL);
    char *copy = strdup(rel), *bytes = malloc(len ? len : 1);
    if (!copy || !bytes) {
        free(copy);
        free(bytes);
        return e2b_error_local(E2B_SUB_NOMEM, "out of memory");
    }
    memcpy(bytes, data, len);
    if (add_entry(t, copy, &st) != 0) {
        explicit_bzero(bytes, len);
        free(bytes);
        return copy_error(t);
    }
    t->ents[t->nents - 1].synthetic = 1;
    t->ents[t->nents - 1].data = bytes;
    return NULL;
}

e2b_error *e2b_tarball_add_fd(e2b_tarball *t, const char *rel, int fd)
{
    struct stat st;
    e2b_error *e = can_add(t, rel);
    if (!e && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)))
        e = e2b_error_local(E2B_SUB_FILE_IO, "cannot read the file for %s", rel);
    char *copy = !e ? strdup(rel) : NULL;
    if (!e && !copy)
        e = e2b_error_local(E2B_SUB_NOMEM, "out of memory");
    if (!e) {
        st.st_mode = S_IFREG | 0644;
        if (add_entry(t, copy, &st) != 0)
            e = copy_error(t);
    }
    if (e) {
        close(fd);
        return e;
    }
    t->ents[t->nents - 1].synthetic = 1;
    t->ents[t->nents - 1].src_fd = fd;
    return NULL;
}

e2b_error *e2b_tarball_add_path(e2b_tarball *t, const char *rel)
{
    e2b_error *e = can_add(t, rel);
    if (!e && add_path(t, rel, 0) != 0)
        e = copy_error(t);
    return e;
}

const e2b_error *e2b_tarball_error(const e2b_tarball *t) { return t->err; }

void e2b_tarball_get_progress(const e2b_tarball *t, e2b_tarball_progress *p) { *p = t->prog; }

void e2b_tarball_free(e2b_tarball *t)
{
    if (!t)
        return;
    close_current(t);
    if (t->a) {
        locale_t old = t->utf8 ? uselocale(t->utf8) : (locale_t)0;
        archive_write_free(t->a);
        if (t->utf8)
            uselocale(old);
    }
    if (t->utf8)
        freelocale(t->utf8);
    for (size_t i = 0; i < t->nents; i++) {
        free(t->ents[i].rel);
        if (t->ents[i].src_fd >= 0)
            close(t->ents[i].src_fd);
        if (t->ents[i].data) {
            explicit_bzero(t->ents[i].data, (size_t)t->ents[i].size);
            free(t->ents[i].data);
        }
    }
    free(t->ents);
    free(t->root);
    free(t->chunk);
    free(t->out);
    e2b_error_free(t->err);
    free(t);
}
