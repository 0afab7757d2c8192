/* The setup of a project and its key (setup_key.h). */
#include "core/git/setup_key.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const LOCKS[] = {E2B_SETUP_LOCK_FILES};

static void put(EVP_MD_CTX *h, const void *p, size_t n)
{
    EVP_DigestUpdate(h, p, n);
}

/* One field: its text and a NUL, so that no two inputs run together. */
static void put_str(EVP_MD_CTX *h, const char *s)
{
    put(h, s ? s : "", strlen(s ? s : "") + 1);
}

/* The file rel of dir (a regular file, not followed when a link) into h as "rel\0size\0"
 * and its first E2B_SETUP_FILE_MAX bytes. 0 when it is not there, 1 hashed, -1 (*err). */
static int put_file(EVP_MD_CTX *h, int dirfd, const char *rel, e2b_error **err)
{
    int fd = openat(dirfd, rel, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ENOENT || errno == ELOOP || errno == ENOTDIR)
            return 0;
        *err = e2b_error_new(E2B_ERR_IO, "cannot read %s of the project: %s", rel, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return 0;
    }
    char size[32];
    snprintf(size, sizeof size, "%lld", (long long)st.st_size);
    put_str(h, rel);
    put_str(h, size);
    char buf[65536];
    long left = E2B_SETUP_FILE_MAX;
    while (left > 0) {
        ssize_t n = read(fd, buf, sizeof buf < (size_t)left ? sizeof buf : (size_t)left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            *err = e2b_error_new(E2B_ERR_IO, "cannot read %s of the project: %s", rel, strerror(errno));
            close(fd);
            return -1;
        }
        if (n == 0)
            break;
        put(h, buf, (size_t)n);
        left -= n;
    }
    close(fd);
    return 1;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* requirements*.txt of the top folder, by name. */
static int put_requirements(EVP_MD_CTX *h, int dirfd, e2b_error **err)
{
    int dup_fd = dup(dirfd);
    DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    if (!d) {
        if (dup_fd >= 0)
            close(dup_fd);
        return 0;
    }
    char *names[E2B_SETUP_REQS_MAX];
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < E2B_SETUP_REQS_MAX) {
        size_t len = strlen(de->d_name);
        if (len >= 16 && strncmp(de->d_name, "requirements", 12) == 0 &&
            strcmp(de->d_name + len - 4, ".txt") == 0 && (names[n] = strdup(de->d_name)))
            n++;
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_str);
    int count = 0;
    for (size_t i = 0; i < n; i++) {
        int r = *err ? 0 : put_file(h, dirfd, names[i], err);
        count += r > 0;
        free(names[i]);
    }
    return *err ? -1 : count;
}

/* Whether base (a file name) is a lock file's: one of LOCKS or requirements*.txt. */
static int is_lock_name(const char *base)
{
    for (size_t i = 0; i < sizeof LOCKS / sizeof *LOCKS; i++)
        if (strcmp(base, LOCKS[i]) == 0)
            return 1;
    size_t len = strlen(base);
    return len >= 16 && strncmp(base, "requirements", 12) == 0 && strcmp(base + len - 4, ".txt") == 0;
}

/* Opens the folder of rel (a path of the index, "a/b/name") beneath dirfd one folder at a
 * time, never through a link; *base is set to rel's file name. -1 when a folder is not
 * there or is a link. */
static int open_parent(int dirfd, const char *rel, const char **base)
{
    int fd = dup(dirfd);
    const char *p = rel;
    for (const char *slash; fd >= 0 && (slash = strchr(p, '/'));) {
        char part[256];
        size_t n = (size_t)(slash - p);
        if (n == 0 || n >= sizeof part) {
            close(fd);
            return -1;
        }
        memcpy(part, p, n);
        part[n] = 0;
        int next = openat(fd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        close(fd);
        fd = next;
        p = slash + 1;
    }
    *base = p;
    return fd;
}

/* The lock files of the project's sub-folders: git-tracked paths of the index (a file that
 * git does not track is never taken) at most E2B_SETUP_SUB_DEPTH folders deep, at most
 * E2B_SETUP_SUB_MAX of them in the index's order (by path), among its first
 * E2B_SETUP_INDEX_MAX entries. Each goes in as its path, its size and content in the work
 * tree (what up sends). Nothing is added when there is none, so a project without any
 * keeps its key. A project that is not a repository has none. */
static int put_sub_locks(EVP_MD_CTX *h, const char *workdir, int dirfd, e2b_error **err)
{
    if (git_libgit2_init() < 0)
        return 0;
    git_repository *repo = NULL;
    git_index *idx = NULL;
    int count = 0;
    if (git_repository_open_ext(&repo, workdir, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0 ||
        git_repository_index(&idx, repo) < 0)
        goto out;
    size_t n = git_index_entrycount(idx);
    if (n > E2B_SETUP_INDEX_MAX)
        n = E2B_SETUP_INDEX_MAX;
    for (size_t i = 0; i < n && count < E2B_SETUP_SUB_MAX; i++) {
        const git_index_entry *e = git_index_get_byindex(idx, i);
        if (!e || !e->path || git_index_entry_stage(e) != 0 ||
            (e->mode != GIT_FILEMODE_BLOB && e->mode != GIT_FILEMODE_BLOB_EXECUTABLE))
            continue;
        const char *slash = strrchr(e->path, '/');
        if (!slash || !is_lock_name(slash + 1)) /* the top folder's are hashed above */
            continue;
        int depth = 0;
        for (const char *c = e->path; *c; c++)
            depth += *c == '/';
        if (depth > E2B_SETUP_SUB_DEPTH)
            continue;
        const char *base;
        int fd = open_parent(dirfd, e->path, &base);
        if (fd < 0)
            continue;
        if (count == 0)
            put_str(h, "sub-folder locks");
        put_str(h, e->path);
        int r = put_file(h, fd, base, err);
        close(fd);
        if (r < 0) {
            count = -1;
            goto out;
        }
        count += r;
    }
out:
    git_error_clear();
    git_index_free(idx);
    git_repository_free(repo);
    git_libgit2_shutdown();
    return count;
}

/* Whether the project has an executable regular .e2b-tui/setup (a link is not taken). */
static int has_script(int dirfd)
{
    struct stat st;
    return fstatat(dirfd, E2B_SETUP_SCRIPT, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
           (st.st_mode & S_IXUSR) && st.st_size <= E2B_SETUP_FILE_MAX;
}

e2b_error *e2b_setup_find(const char *workdir, const char *command, const char *template_id,
                          e2b_setup *out)
{
    memset(out, 0, sizeof *out);
    int dirfd = open(workdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0)
        return e2b_error_new(E2B_ERR_IO, "cannot open the project %s: %s", workdir, strerror(errno));
    int script = has_script(dirfd);
    if (!(command && *command) && !script) {
        close(dirfd);
        return NULL;
    }
    out->from_script = !(command && *command);
    out->command = strdup(out->from_script ? "./" E2B_SETUP_SCRIPT : command);
    EVP_MD_CTX *h = EVP_MD_CTX_new();
    e2b_error *err = NULL;
    if (!out->command || !h || EVP_DigestInit_ex(h, EVP_sha256(), NULL) != 1) {
        err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        goto out;
    }
    put_str(h, "e2b-tui setup key 1");
    put_str(h, workdir);
    put_str(h, template_id);
    put_str(h, out->command);
    if (script && put_file(h, dirfd, E2B_SETUP_SCRIPT, &err) < 0)
        goto out;
    put_str(h, "locks");
    for (size_t i = 0; i < sizeof LOCKS / sizeof *LOCKS; i++) {
        int r = put_file(h, dirfd, LOCKS[i], &err);
        if (r < 0)
            goto out;
        out->locks += r;
    }
    int r = put_requirements(h, dirfd, &err);
    if (r < 0)
        goto out;
    out->locks += r;
    r = put_sub_locks(h, workdir, dirfd, &err);
    if (r < 0)
        goto out;
    out->locks += r;
    unsigned char sum[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    if (EVP_DigestFinal_ex(h, sum, &len) != 1 || len != 32) {
        err = e2b_error_new(E2B_ERR_INTERNAL, "cannot hash the project's setup");
        goto out;
    }
    for (unsigned i = 0; i < 32; i++)
        snprintf(out->key + 2 * i, 3, "%02x", sum[i]);
out:
    EVP_MD_CTX_free(h);
    close(dirfd);
    if (err)
        e2b_setup_clear(out);
    return err;
}

void e2b_setup_clear(e2b_setup *s)
{
    if (!s)
        return;
    free(s->command);
    memset(s, 0, sizeof *s);
}
