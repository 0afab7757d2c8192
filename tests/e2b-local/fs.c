/* Safe sandbox paths and the filesystem.Filesystem service; see fs.h. */
#include "fs.h"
#include "sandbox.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static void normalise(const char *in, char *out, size_t outlen)
{
    char buf[8400];
    snprintf(buf, sizeof buf, "%s", in);
    const char *parts[512];
    int n = 0;
    char *save = NULL;
    for (char *c = strtok_r(buf, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
        if (strcmp(c, ".") == 0)
            continue;
        if (strcmp(c, "..") == 0) {
            if (n > 0)
                n--;
            continue;
        }
        if (n < 512)
            parts[n++] = c;
    }
    size_t o = 0;
    out[0] = '\0';
    for (int i = 0; i < n && o < outlen; i++)
        o += (size_t)snprintf(out + o, outlen - o, "/%s", parts[i]);
    if (n == 0)
        snprintf(out, outlen, "/");
}

int fs_resolve(const char *sandbox_id, const char *user, const char *path, struct fsroot *out)
{
    bool root = user && strcmp(user, "root") == 0;
    const char *home = root ? "/root" : "/home/user";
    char full[8400];
    if (!path || !*path)
        snprintf(full, sizeof full, "%s", home);
    else if (path[0] == '/')
        snprintf(full, sizeof full, "%s", path);
    else if (path[0] == '~' && (path[1] == '/' || !path[1]))
        snprintf(full, sizeof full, "%s%s", home, path + 1);
    else
        snprintf(full, sizeof full, "%s/%s", home, path);
    memset(out, 0, sizeof *out);
    normalise(full, out->abs, sizeof out->abs);
    out->uid = root ? 0 : 1000;
    out->gid = root ? 0 : 1000;
    char dir[2200];
    const char *rest;
    if (strcmp(out->abs, "/usr") == 0 || strncmp(out->abs, "/usr/", 5) == 0) {
        snprintf(dir, sizeof dir, "/usr");
        rest = out->abs + 4;
        out->readonly = true;
    } else {
        sandbox_root_path(sandbox_id, dir, sizeof dir);
        rest = out->abs;
    }
    snprintf(out->rel, sizeof out->rel, "%s", rest[0] == '/' && rest[1] ? rest + 1 : ".");
    out->fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    return out->fd >= 0 ? 0 : -1;
}

void fs_release(struct fsroot *fr)
{
    if (fr->fd >= 0)
        close(fr->fd);
    fr->fd = -1;
}

int fs_open(const struct fsroot *fr, const char *rel, int flags, mode_t mode)
{
    if (fr->readonly && (flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC))) {
        errno = EROFS;
        return -1;
    }
    struct open_how how = {.flags = (uint64_t)(flags | O_CLOEXEC),
                           .mode = (flags & O_CREAT) ? mode : 0,
                           .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
    long fd;
    do {
        fd = syscall(SYS_openat2, fr->fd, rel, &how, sizeof how);
    } while (fd < 0 && errno == EAGAIN);
    return (int)fd;
}

/* The parent directory of rel (opened in the root) and rel's last component. */
static int open_parent(const struct fsroot *fr, const char *rel, char *base, size_t baselen)
{
    const char *slash = strrchr(rel, '/');
    char parent[4096];
    if (slash) {
        snprintf(parent, sizeof parent, "%.*s", (int)(slash - rel), rel);
        snprintf(base, baselen, "%s", slash + 1);
    } else {
        snprintf(parent, sizeof parent, ".");
        snprintf(base, baselen, "%s", rel);
    }
    return fs_open(fr, parent, O_PATH | O_DIRECTORY, 0);
}

int fs_mkdirs(const struct fsroot *fr, const char *rel, bool last)
{
    if (fr->readonly) {
        errno = EROFS;
        return -1;
    }
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", rel);
    if (!last) {
        char *slash = strrchr(buf, '/');
        if (!slash)
            return 0;
        *slash = '\0';
    }
    if (strcmp(buf, ".") == 0)
        return 0;
    for (char *p = buf;; p++) {
        if (*p == '/' || *p == '\0') {
            char saved = *p;
            *p = '\0';
            int dfd = fs_open(fr, buf, O_PATH | O_DIRECTORY, 0);
            if (dfd >= 0) {
                close(dfd);
            } else {
                char base[1024];
                int pfd = open_parent(fr, buf, base, sizeof base);
                if (pfd < 0)
                    return -1;
                int rc = mkdirat(pfd, base, 0755);
                if (rc == 0 && fchownat(pfd, base, fr->uid, fr->gid, AT_SYMLINK_NOFOLLOW) != 0)
                    rc = 0; /* ownership is best effort when not root */
                int e = errno;
                close(pfd);
                if (rc != 0 && e != EEXIST) {
                    errno = e;
                    return -1;
                }
            }
            *p = saved;
            if (!saved)
                break;
        }
    }
    return 0;
}

static void perm_string(mode_t m, char *out)
{
    out[0] = S_ISDIR(m) ? 'd' : S_ISLNK(m) ? 'l' : '-';
    const char *rwx = "rwxrwxrwx";
    for (int i = 0; i < 9; i++)
        out[i + 1] = (m & (1u << (8 - i))) ? rwx[i] : '-';
    out[10] = '\0';
}

/* Names as the sandbox sees them; without root, the server's own uid is "user" inside. */
static const char *owner_name(unsigned id)
{
    if (geteuid() != 0 && id == (unsigned)geteuid())
        return "user";
    return id == 0 ? "root" : id == 1000 ? "user" : id == 65534 ? "nobody" : "";
}

static json_t *entry_at(int parent, const char *name, const char *abs)
{
    struct stat st;
    if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW | (name[0] ? 0 : AT_EMPTY_PATH)) != 0)
        return NULL;
    char perms[12], mtime[40], sizebuf[32];
    perm_string(st.st_mode, perms);
    rfc3339((int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000, mtime, sizeof mtime);
    const char *slash = strrchr(abs, '/');
    const char *base = slash && slash[1] ? slash + 1 : "/";
    const char *type = S_ISDIR(st.st_mode) ? "FILE_TYPE_DIRECTORY" : S_ISLNK(st.st_mode) ? "FILE_TYPE_SYMLINK"
                                                                                         : "FILE_TYPE_FILE";
    json_t *e = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "name", base, "type", type, "path", abs,
                          "permissions", perms, "owner", owner_name(st.st_uid), "group", owner_name(st.st_gid),
                          "modifiedTime", mtime);
    if (st.st_size) {
        snprintf(sizebuf, sizeof sizebuf, "%lld", (long long)st.st_size);
        json_object_set_new(e, "size", json_string(sizebuf));
    }
    if (st.st_mode & 07777)
        json_object_set_new(e, "mode", json_integer(st.st_mode & 07777));
    if (S_ISLNK(st.st_mode)) {
        char target[4096];
        ssize_t n = readlinkat(parent, name, target, sizeof target - 1);
        if (n > 0) {
            target[n] = '\0';
            json_object_set_new(e, "symlinkTarget", json_string(target));
        }
    }
    return e;
}

json_t *fs_entry(const struct fsroot *fr)
{
    if (strcmp(fr->rel, ".") == 0)
        return entry_at(fr->fd, "", fr->abs);
    char base[1024];
    int pfd = open_parent(fr, fr->rel, base, sizeof base);
    if (pfd < 0)
        return NULL;
    json_t *e = entry_at(pfd, base, fr->abs);
    int saved = errno;
    close(pfd);
    errno = saved;
    return e;
}

static void list_dir(int dfd, const char *abs, int depth, json_t *out)
{
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return;
    }
    struct dirent *de;
    while ((de = readdir(d))) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        char child[4096];
        snprintf(child, sizeof child, "%s/%s", strcmp(abs, "/") == 0 ? "" : abs, de->d_name);
        json_t *e = entry_at(dirfd(d), de->d_name, child);
        if (!e)
            continue;
        bool isdir = strcmp(json_string_value(json_object_get(e, "type")), "FILE_TYPE_DIRECTORY") == 0;
        json_array_append_new(out, e);
        if (isdir && depth > 1) {
            int cfd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (cfd >= 0)
                list_dir(cfd, child, depth - 1, out);
        }
    }
    closedir(d);
}

static int remove_at(int parent, const char *name)
{
    if (unlinkat(parent, name, 0) == 0 || errno == ENOENT)
        return 0;
    if (errno != EISDIR && errno != EPERM)
        return -1;
    int cfd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (cfd < 0)
        return -1;
    DIR *d = fdopendir(cfd);
    if (!d) {
        close(cfd);
        return -1;
    }
    struct dirent *de;
    while ((de = readdir(d)))
        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
            remove_at(dirfd(d), de->d_name);
    closedir(d);
    return unlinkat(parent, name, AT_REMOVEDIR) == 0 || errno == ENOENT ? 0 : -1;
}

static const char *errno_code(int e)
{
    switch (e) {
    case ENOENT:
        return "not_found";
    case EEXIST:
        return "already_exists";
    case EACCES:
    case EPERM:
    case EROFS:
        return "permission_denied";
    case ENOTDIR:
    case EISDIR:
    case EINVAL:
    case ENAMETOOLONG:
    case EXDEV:
        return "invalid_argument";
    case ENOSPC:
        return "resource_exhausted";
    default:
        return "internal";
    }
}

json_t *fs_rpc(const char *method, const char *sandbox_id, const char *user, json_t *body, const char **code,
               char *msg, size_t msglen)
{
    const char *path = json_string_value(json_object_get(body, strcmp(method, "Move") == 0 ? "source" : "path"));
    *code = "invalid_argument";
    if (!path || !*path) {
        snprintf(msg, msglen, "path is required");
        return NULL;
    }
    struct fsroot fr;
    if (fs_resolve(sandbox_id, user, path, &fr) != 0) {
        *code = "unavailable";
        snprintf(msg, msglen, "the sandbox's files are gone");
        return NULL;
    }
    json_t *result = NULL;
    int e = 0;
    if (strcmp(method, "Stat") == 0) {
        json_t *entry = fs_entry(&fr);
        e = errno;
        if (entry)
            result = json_pack("{s:o}", "entry", entry);
    } else if (strcmp(method, "MakeDir") == 0) {
        json_t *entry = fs_entry(&fr);
        if (entry) {
            bool dir = strcmp(json_string_value(json_object_get(entry, "type")), "FILE_TYPE_DIRECTORY") == 0;
            json_decref(entry);
            e = dir ? EEXIST : EINVAL;
            snprintf(msg, msglen, "%s: %s", dir ? "directory already exists" : "a file exists at", fr.abs);
        } else if (fs_mkdirs(&fr, fr.rel, true) == 0 && (entry = fs_entry(&fr))) {
            result = json_pack("{s:o}", "entry", entry);
        } else {
            e = errno;
        }
    } else if (strcmp(method, "ListDir") == 0) {
        json_t *depth_j = json_object_get(body, "depth");
        int depth = json_is_integer(depth_j) ? (int)json_integer_value(depth_j) : 1;
        if (depth < 1)
            depth = 1;
        int dfd = fs_open(&fr, fr.rel, O_RDONLY | O_DIRECTORY, 0);
        if (dfd < 0) {
            e = errno;
        } else {
            json_t *entries = json_array();
            list_dir(dfd, fr.abs, depth, entries);
            result = json_pack("{s:o}", "entries", entries);
        }
    } else if (strcmp(method, "Remove") == 0) {
        if (fr.readonly || strcmp(fr.rel, ".") == 0) {
            e = EPERM;
        } else {
            char base[1024];
            int pfd = open_parent(&fr, fr.rel, base, sizeof base);
            if (pfd < 0 && errno == ENOENT)
                result = json_object();
            else if (pfd < 0)
                e = errno;
            else {
                if (remove_at(pfd, base) == 0)
                    result = json_object();
                else
                    e = errno;
                close(pfd);
            }
        }
    } else if (strcmp(method, "Move") == 0) {
        const char *dest = json_string_value(json_object_get(body, "destination"));
        struct fsroot to;
        if (!dest || !*dest) {
            snprintf(msg, msglen, "destination is required");
            e = EINVAL;
        } else if (fs_resolve(sandbox_id, user, dest, &to) != 0) {
            e = errno;
        } else {
            char b1[1024], b2[1024];
            int p1 = -1, p2 = -1;
            if (fr.readonly || to.readonly)
                e = EROFS;
            else if ((p1 = open_parent(&fr, fr.rel, b1, sizeof b1)) < 0)
                e = errno;
            else if (fs_mkdirs(&to, to.rel, false) != 0 || (p2 = open_parent(&to, to.rel, b2, sizeof b2)) < 0)
                e = errno;
            else if (renameat(p1, b1, p2, b2) != 0)
                e = errno;
            else {
                json_t *entry = fs_entry(&to);
                result = entry ? json_pack("{s:o}", "entry", entry) : json_object();
            }
            if (p1 >= 0)
                close(p1);
            if (p2 >= 0)
                close(p2);
            fs_release(&to);
        }
    } else {
        *code = "unimplemented";
        snprintf(msg, msglen, "filesystem.Filesystem/%s is not implemented by e2b-local", method);
        fs_release(&fr);
        return NULL;
    }
    if (!result) {
        *code = errno_code(e ? e : EIO);
        if (!msg[0])
            snprintf(msg, msglen, "%s: %s", fr.abs, strerror(e ? e : EIO));
    }
    fs_release(&fr);
    return result;
}
