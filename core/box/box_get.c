/* get: find the box -> check the paths -> connect -> tar in the box -> download into an
 * unlinked file of DEST -> remove the box's file -> check and extract with libarchive on a
 * worker (box_get.h). */
#include "core/box/box_get.h"
#include "core/box/box_internal.h"
#include "core/util/archive_dl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

struct box_get_state {
    char **parents, **leaves; /* per asked path */
    size_t n;
    char *dest;               /* realpath of DEST */
    int force;
    int fd;                   /* the downloaded archive (unlinked), or -1 */
    char box_tmp[64];         /* the archive in the box */
    uint64_t size;            /* its size as the box said */
    uint64_t got;             /* bytes downloaded */
};

static void get_state_free(struct box_get_state *g)
{
    for (size_t i = 0; i < g->n; i++) {
        free(g->parents[i]);
        free(g->leaves[i]);
    }
    free(g->parents);
    free(g->leaves);
    free(g->dest);
    if (g->fd >= 0)
        close(g->fd);
    free(g);
}

/* ---- paths ---- */

/* The components of p ("a/./b//c" -> "a/b/c"), "" for none; -1 for a ".." component. */
static int normalise(const char *p, char *out, size_t outsz)
{
    size_t k = 0;
    out[0] = '\0';
    while (*p) {
        while (*p == '/')
            p++;
        size_t n = strcspn(p, "/");
        if (n == 0)
            break;
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return -1;
        if (!(n == 1 && p[0] == '.')) {
            if (k + n + 2 > outsz)
                return -2;
            if (k)
                out[k++] = '/';
            memcpy(out + k, p, n);
            k += n;
            out[k] = '\0';
        }
        p += n;
    }
    return 0;
}

static int where_fail(e2b_error **err, const char *path, const char *why)
{
    *err = e2b_error_new(E2B_ERR_INVALID, "'%s' cannot be fetched: %s", path, why);
    return -1;
}

int e2b_box_get_where(const char *path, const char *project, char **parent, char **leaf,
                      e2b_error **err)
{
    char rel[4096], proj[4096], full[8300];
    *parent = *leaf = NULL;
    if (!path || !*path)
        return where_fail(err, "", "an empty path");
    int rc = normalise(path, rel, sizeof rel);
    if (rc == -1)
        return where_fail(err, path, "a path with '..' in it (paths stay inside the project "
                                     "or /tmp)");
    if (rc < 0)
        return where_fail(err, path, "too long a path");
    int in_project = 0;
    if (path[0] == '/') {
        snprintf(full, sizeof full, "/%s", rel);
    } else {
        if (!project || !*project)
            return where_fail(err, path, "the box's project is not known here (a box of "
                                         "another machine): give an absolute path in /tmp");
        if (!*rel)
            return where_fail(err, path, "that is the whole project (e2b-tui --pull brings "
                                         "its work home); name a file or folder in it");
    }
    if (project && *project) {
        if (normalise(project, proj, sizeof proj) != 0 || !*proj)
            return where_fail(err, path, "the box's project folder is not a plain path");
        if (path[0] != '/')
            snprintf(full, sizeof full, "/%s/%s", proj, rel);
        size_t pn = strlen(proj);
        in_project = strncmp(full + 1, proj, pn) == 0 && full[1 + pn] == '/';
        if (strcmp(full + 1, proj) == 0)
            return where_fail(err, path, "that is the whole project (e2b-tui --pull brings "
                                         "its work home); name a file or folder in it");
    }
    int in_tmp = strncmp(full, "/tmp/", 5) == 0 && full[5];
    if (!in_project && !in_tmp)
        return where_fail(err, path, "only paths inside the box's project or /tmp can be "
                                     "fetched");
    char *slash = strrchr(full, '/');
    *leaf = strdup(slash + 1);
    *parent = slash == full ? strdup("/") : strndup(full, (size_t)(slash - full));
    if (!*leaf || !*parent) {
        free(*leaf);
        free(*parent);
        *parent = *leaf = NULL;
        *err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        return -1;
    }
    return 0;
}

/* ---- the archive, on the worker ---- */

typedef e2b_box_unpack get_work;

/* name without its leading "./" (the box's tar writes them) and trailing slashes, in buf
 * (4096 bytes), or NULL when it may not be written: empty, absolute, a ".." component, or
 * not under one of the asked leaves. */
static const char *entry_name(const e2b_box_unpack *g, const char *raw, char *buf)
{
    if (!raw)
        return NULL;
    while (raw[0] == '.' && raw[1] == '/')
        raw += 2;
    size_t len = strlen(raw);
    if (!*raw || raw[0] == '/' || len > 4000)
        return NULL;
    while (len > 1 && raw[len - 1] == '/')
        len--;
    memcpy(buf, raw, len);
    buf[len] = '\0';
    const char *name = buf;
    for (const char *p = name; *p;) {
        size_t n = strcspn(p, "/");
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return NULL;
        p += n;
        while (*p == '/')
            p++;
    }
    size_t top = strcspn(name, "/");
    for (size_t i = 0; i < g->nleaves; i++)
        if (strlen(g->leaves[i]) == top && strncmp(name, g->leaves[i], top) == 0)
            return name;
    return NULL;
}

/* Whether name lies under one of the links seen so far (an entry that would be written
 * through a link of the archive). Linear in the links: they are few in build output; the
 * entries are capped. */
static int under_link(char **links, size_t nlinks, const char *name)
{
    for (size_t i = 0; i < nlinks; i++) {
        size_t n = strlen(links[i]);
        if (strncmp(name, links[i], n) == 0 && name[n] == '/')
            return 1;
    }
    return 0;
}

static e2b_error *hostile(const char *name, const char *why)
{
    char safe[200];
    size_t k = 0;
    for (const char *p = name ? name : ""; *p && k < sizeof safe - 4; p++)
        safe[k++] = (unsigned char)*p < ' ' || (unsigned char)*p == 0x7f ? '?' : *p;
    safe[k] = '\0';
    return e2b_error_local(E2B_SUB_FAILED, "the box's archive was refused, nothing was "
                           "written: '%s' %s", safe, why);
}

static struct archive *open_archive(int fd, e2b_error **err)
{
    struct archive *a = archive_read_new();
    if (!a) {
        *err = e2b_error_local(E2B_SUB_FAILED, "%s", e2b_archive_dl_error());
        return NULL;
    }
    if (lseek(fd, 0, SEEK_SET) != 0 || archive_read_support_format_tar(a) != ARCHIVE_OK ||
        archive_read_open_fd(a, fd, 64 * 1024) != ARCHIVE_OK) {
        *err = e2b_error_local(E2B_SUB_FAILED, "the box's archive cannot be read: %s",
                               archive_error_string(a) ? archive_error_string(a) : "?");
        archive_read_free(a);
        return NULL;
    }
    return a;
}

/* The first pass: every entry checked, nothing written. */
static e2b_error *check_pass(get_work *w, const atomic_int *cancel)
{
    get_work *g = w;
    e2b_error *err = NULL;
    struct archive *a = open_archive(g->fd, &err);
    if (!a)
        return err;
    char **links = NULL;
    size_t nlinks = 0, cap_links = 0, entries = 0, conflicts = 0;
    uint64_t total = 0;
    char first_conflict[300] = "";
    struct archive_entry *e;
    int r;
    while (!err && (r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
        if (cancel && atomic_load(cancel)) {
            err = e2b_error_new(E2B_ERR_CANCELLED, "cancelled");
            break;
        }
        const char *raw = archive_entry_pathname(e);
        char nbuf[4096];
        const char *name = entry_name(g, raw, nbuf);
        mode_t type = archive_entry_filetype(e);
        if (++entries > E2B_BOX_GET_ENTRIES_MAX) {
            err = hostile(raw, "is past the most entries an archive may hold (200000)");
            break;
        }
        if (raw && (!strcmp(raw, ".") || !strcmp(raw, "./")))
            continue;
        if (!name) {
            err = hostile(raw, "is not a name under the paths asked for (absolute, '..', or "
                               "elsewhere)");
            break;
        }
        if (archive_entry_hardlink(e)) {
            err = hostile(raw, "is a hard link (only files, folders and symbolic links are "
                               "copied)");
            break;
        }
        if (type != AE_IFREG && type != AE_IFDIR && type != AE_IFLNK) {
            err = hostile(raw, "is a device, FIFO or socket (only files, folders and "
                               "symbolic links are copied)");
            break;
        }
        if (under_link(links, nlinks, name)) {
            err = hostile(raw, "lies under a symbolic link of the archive (it would be "
                               "written through the link)");
            break;
        }
        la_int64_t sz = archive_entry_size(e);
        total += sz > 0 ? (uint64_t)sz : 0;
        if (total > w->cap) {
            err = e2b_error_local(E2B_SUB_FAILED, "the box's files add up to more than %llu "
                                  "MiB (limit.get_bytes in the config); nothing was written",
                                  (unsigned long long)(w->cap >> 20));
            break;
        }
        if (type == AE_IFLNK) {
            if (nlinks == cap_links) {
                size_t nc = cap_links ? cap_links * 2 : 16;
                char **nl = realloc(links, nc * sizeof *nl);
                if (!nl) {
                    err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
                    break;
                }
                links = nl;
                cap_links = nc;
            }
            if (!(links[nlinks] = strdup(name))) {
                err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
                break;
            }
            nlinks++;
        }
        char path[8300];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", g->dest, name);
        if (lstat(path, &st) == 0 && !(type == AE_IFDIR && S_ISDIR(st.st_mode))) {
            if (!conflicts++)
                snprintf(first_conflict, sizeof first_conflict, "%s", name);
        }
    }
    if (!err && r != ARCHIVE_EOF)
        err = e2b_error_local(E2B_SUB_FAILED, "the box's archive is broken: %s",
                              archive_error_string(a) ? archive_error_string(a) : "?");
    if (!err && conflicts && !g->force) {
        for (char *p = first_conflict; *p; p++)
            if ((unsigned char)*p < ' ' || (unsigned char)*p == 0x7f)
                *p = '?';
        err = e2b_error_new(E2B_ERR_CONFLICT, "%zu of the files exist in %s already (%s%s); "
                            "nothing was written: --force overwrites them", conflicts, g->dest,
                            first_conflict, conflicts > 1 ? ", ..." : "");
    }
    for (size_t i = 0; i < nlinks; i++)
        free(links[i]);
    free(links);
    archive_read_free(a);
    return err;
}

/* The second pass: extraction under DEST's real path, never through a link. */
static e2b_error *extract_pass(get_work *w, const atomic_int *cancel)
{
    get_work *g = w;
    e2b_error *err = NULL;
    struct archive *a = open_archive(g->fd, &err);
    if (!a)
        return err;
    struct archive *disk = archive_write_disk_new();
    if (!disk) {
        archive_read_free(a);
        return e2b_error_local(E2B_SUB_FAILED, "%s", e2b_archive_dl_error());
    }
    /* ARCHIVE_EXTRACT_PERM is not set: modes lose their set-id bits and pass the umask. */
    archive_write_disk_set_options(disk, ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_SECURE_SYMLINKS |
                                             ARCHIVE_EXTRACT_SECURE_NODOTDOT |
                                             (g->force ? ARCHIVE_EXTRACT_UNLINK : 0));
    struct archive_entry *e;
    int r;
    while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
        if (cancel && atomic_load(cancel)) {
            err = e2b_error_new(E2B_ERR_CANCELLED, "cancelled (some files were written)");
            break;
        }
        const char *raw = archive_entry_pathname(e);
        if (raw && (!strcmp(raw, ".") || !strcmp(raw, "./")))
            continue;
        char nbuf[4096];
        const char *name = entry_name(g, raw, nbuf);
        if (!name) { /* the first pass saw the same archive */
            err = hostile(raw, "changed between the passes");
            break;
        }
        char path[8300];
        snprintf(path, sizeof path, "%s/%s", g->dest, name);
        archive_entry_copy_pathname(e, path);
        la_int64_t sz = archive_entry_size(e);
        /* A warning fails too: "Cannot extract through symlink" is one. */
        if (archive_read_extract2(a, e, disk) != ARCHIVE_OK) {
            err = e2b_error_local(E2B_SUB_FILE_IO, "writing %s: %s", name,
                                  archive_error_string(a) ? archive_error_string(a)
                                  : archive_error_string(disk) ? archive_error_string(disk) : "?");
            break;
        }
        g->files++;
        g->bytes += sz > 0 ? (uint64_t)sz : 0;
    }
    if (!err && r != ARCHIVE_EOF)
        err = e2b_error_local(E2B_SUB_FAILED, "the box's archive is broken: %s",
                              archive_error_string(a) ? archive_error_string(a) : "?");
    archive_write_free(disk);
    archive_read_free(a);
    return err;
}

e2b_error *e2b_box_get_unpack(e2b_box_unpack *u, const atomic_int *cancel)
{
    u->files = u->bytes = 0;
    e2b_error *err = check_pass(u, cancel);
    return err ? err : extract_pass(u, cancel);
}

static e2b_error *get_work_run(void *arg, const atomic_int *cancel)
{
    return e2b_box_get_unpack(arg, cancel);
}

/* ---- the op ---- */

static void get_fail(e2b_box_op *op, const e2b_error *err, const char *step)
{
    e2b_error *e = err ? e2b_error_copy(err) : e2b_error_new(E2B_ERR_CANCELLED, "cancelled");
    e2b_error_set_action(e, "fetching from box %s: %s", op->res.name ? op->res.name : "", step);
    box_op_finish(op, e);
}

static void get_fail_own(e2b_box_op *op, e2b_error *err, const char *step)
{
    get_fail(op, err, step);
    e2b_error_free(err);
}

static void get_extracted(e2b_box_op *op, e2b_error *err)
{
    get_work *w = op->work_arg;
    op->work_arg = NULL;
    op->res.files = w ? w->files : 0;
    op->res.bytes_in = w ? w->bytes : 0;
    free(w);
    if (err || op->cancelled) {
        get_fail(op, err, "writing the files");
        e2b_error_free(err);
        return;
    }
    box_op_finish(op, NULL);
}

static void get_extract(e2b_box_op *op)
{
    get_work *w = calloc(1, sizeof *w);
    if (w)
        *w = (get_work){.fd = op->get->fd, .dest = op->get->dest, .leaves = op->get->leaves,
                        .nleaves = op->get->n, .force = op->get->force,
                        .cap = op->env.cfg->limits.get_bytes};
    op->work_arg = w;
    box_op_progress(op, "writing the files", 0, 0);
    if (!w || box_op_work(op, get_work_run, w, get_extracted) < 0) {
        free(w);
        op->work_arg = NULL;
        get_fail_own(op, e2b_error_local(E2B_SUB_NOMEM, "cannot start a worker thread"),
                     "writing the files");
    }
}

/* The box's archive is removed once downloaded; a failure of the remove leaves a file in
 * the box's /tmp, which is harmless. */
static void get_removed(void *ud, const json_t *reply, const e2b_error *err)
{
    e2b_box_op *op = ud;
    (void)reply, (void)err;
    op->http = NULL;
    op->pending--;
    if (op->cancelled) {
        get_fail(op, NULL, "downloading");
        return;
    }
    get_extract(op);
}

static void get_remove_box_file(e2b_box_op *op)
{
    e2b_error *e = NULL;
    json_t *req = json_pack("{s:s}", "path", op->get->box_tmp);
    op->http = e2b_envd_rpc(op->envd, "filesystem.Filesystem", "Remove", req, get_removed, op, &e);
    json_decref(req);
    if (!op->http) {
        e2b_error_free(e);
        get_extract(op);
        return;
    }
    op->pending++;
}

static e2b_error *get_write(void *ud, const char *data, size_t len)
{
    e2b_box_op *op = ud;
    struct box_get_state *g = op->get;
    uint64_t cap = op->env.cfg->limits.get_bytes;
    if (op->cancelled)
        return e2b_error_new(E2B_ERR_CANCELLED, "cancelled");
    if (g->got + len > cap || g->got + len > g->size)
        return e2b_error_local(E2B_SUB_FAILED, "the box sent more than the %llu bytes it "
                               "announced (limit.get_bytes %llu MiB); nothing was written",
                               (unsigned long long)g->size, (unsigned long long)(cap >> 20));
    for (size_t off = 0; off < len;) {
        ssize_t w = write(g->fd, data + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return e2b_error_local(E2B_SUB_FILE_IO, "writing the download into %s: %s", g->dest,
                                   strerror(errno));
        off += (size_t)w;
    }
    g->got += len;
    op->res.bundle_bytes = g->got;
    box_op_progress(op, "downloading", (int64_t)g->got, (int64_t)g->size);
    return NULL;
}

static void get_downloaded(void *ud, const e2b_error *err)
{
    e2b_box_op *op = ud;
    op->http = NULL;
    op->pending--;
    if (err || op->cancelled) {
        get_fail(op, err, "downloading");
        return;
    }
    if (op->get->got != op->get->size) {
        get_fail_own(op, e2b_error_new(E2B_ERR_PROTOCOL, "the download ended after %llu of "
                                       "%llu bytes", (unsigned long long)op->get->got,
                                       (unsigned long long)op->get->size),
                     "downloading");
        return;
    }
    get_remove_box_file(op);
}

/* An unlinked file in DEST for the download: O_TMPFILE, else a named one removed at once. */
static int temp_fd(const char *dir)
{
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0)
        return fd;
    char path[4200];
    snprintf(path, sizeof path, "%s/.e2b-tui-get-XXXXXX", dir);
    fd = mkostemp(path, O_CLOEXEC);
    if (fd >= 0)
        unlink(path);
    return fd;
}

static void get_packed(e2b_box_op *op, const e2b_error *err)
{
    struct box_get_state *g = op->get;
    e2b_error *e = NULL;
    if (err || op->cancelled) {
        get_fail(op, err, "packing the files in the box");
        return;
    }
    const char *size_line = op->out ? strstr(op->out, "E2B-TUI-SIZE ") : NULL;
    char *end = NULL;
    unsigned long long size = size_line ? strtoull(size_line + 13, &end, 10) : 0;
    if (op->proc_exit != 0 || !size_line || end == size_line + 13) {
        /* tar's first complaint names the path; its last only says it failed */
        const char *t = op->err_len ? op->errout : "";
        size_t n = strcspn(t, "\n");
        char line[300];
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line - 1 ? n : sizeof line - 1), t);
        for (char *c = line; *c; c++)
            if ((unsigned char)*c < ' ')
                *c = ' ';
        get_fail_own(op, *line ? e2b_error_new(E2B_ERR_REMOTE, "%s", line)
                               : box_op_process_error(op, "tar"),
                     "packing the files in the box");
        return;
    }
    g->size = size;
    uint64_t cap = op->env.cfg->limits.get_bytes;
    if (size > cap) {
        get_fail_own(op, e2b_error_local(E2B_SUB_FAILED, "the box's archive is %llu MiB, more "
                                         "than %llu MiB (limit.get_bytes in the config); "
                                         "nothing was downloaded", size >> 20,
                                         (unsigned long long)(cap >> 20)),
                     "packing the files in the box");
        return;
    }
    if ((g->fd = temp_fd(g->dest)) < 0) {
        get_fail_own(op, e2b_error_local(E2B_SUB_FILE_IO, "cannot make a file in %s: %s", g->dest,
                                         strerror(errno)),
                     "downloading");
        return;
    }
    box_op_progress(op, "downloading", 0, (int64_t)size);
    op->http = e2b_envd_download(op->envd, g->box_tmp, get_write, op, 0, get_downloaded, op, &e);
    if (!op->http) {
        get_fail_own(op, e, "downloading");
        return;
    }
    op->pending++;
}

static void get_connected(void *ud, e2b_sandbox *sb, long status, const e2b_error *err)
{
    e2b_box_op *op = ud;
    struct box_get_state *g = op->get;
    e2b_error *e = NULL;
    op->api_call = NULL;
    op->pending--;
    if (err && err->kind == E2B_ERR_NOT_FOUND) {
        e2b_sandbox_free(sb);
        get_fail_own(op, e2b_error_new(E2B_ERR_NOT_FOUND, "its sandbox %s is gone (e2b-tui "
                                       "--kill %s removes the record)",
                                       op->res.sandbox_id ? op->res.sandbox_id : "",
                                       op->res.name),
                     "connecting");
        return;
    }
    if (err || op->cancelled) {
        e2b_sandbox_free(sb);
        get_fail(op, err, "connecting");
        return;
    }
    op->sb = *sb;
    free(sb);
    op->have_sandbox = 1;
    op->res.resumed = status == 201;
    op->envd = e2b_envd_new(op->env.loop, op->env.cfg, &op->sb, NULL, &e);
    if (!op->envd) {
        get_fail_own(op, e, "reaching envd");
        return;
    }
    unsigned char rnd[8];
    if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
        get_fail_own(op, e2b_error_new(E2B_ERR_INTERNAL, "no randomness for a file name"),
                     "packing the files in the box");
        return;
    }
    snprintf(g->box_tmp, sizeof g->box_tmp, "/tmp/e2b-tui-get-%02x%02x%02x%02x%02x%02x%02x%02x.tar",
             rnd[0], rnd[1], rnd[2], rnd[3], rnd[4], rnd[5], rnd[6], rnd[7]);
    /* sh -c SCRIPT sh OUT -C PARENT ./LEAF ...: the names are arguments, never shell text;
     * "./" keeps a leaf that starts with '-' from being an option. tar keeps links as links
     * (no -h) and follows nothing. */
    size_t nargs = 4 + 2 + 3 * g->n + 1, k = 0;
    const char **args = calloc(nargs, sizeof *args);
    char **dotted = calloc(g->n, sizeof *dotted);
    int ok = args && dotted;
    for (size_t i = 0; ok && i < g->n; i++)
        ok = asprintf(&dotted[i], "./%s", g->leaves[i]) >= 0 || (dotted[i] = NULL, 0);
    if (ok) {
        args[k++] = "-c";
        args[k++] = "out=$1; shift; umask 077; tar -cf \"$out\" \"$@\" || { rm -f \"$out\"; "
                    "exit 1; }; echo \"E2B-TUI-SIZE $(stat -c %s \"$out\")\"";
        args[k++] = "sh";
        args[k++] = g->box_tmp;
        for (size_t i = 0; i < g->n; i++) {
            args[k++] = "-C";
            args[k++] = g->parents[i];
            args[k++] = dotted[i];
        }
        args[k] = NULL;
        e2b_process_spec spec = {.cmd = "/bin/sh", .args = args, .timeout_ms = 600000};
        box_op_progress(op, "packing the files in the box", 0, 0);
        box_op_run(op, op->envd, &spec, get_packed);
    }
    for (size_t i = 0; dotted && i < g->n; i++)
        free(dotted[i]);
    free(dotted);
    free(args);
    if (!ok)
        get_fail_own(op, e2b_error_new(E2B_ERR_INTERNAL, "out of memory"),
                     "packing the files in the box");
}

static void get_resolved(e2b_box_op *op, const e2b_error *err)
{
    struct box_get_state *g = op->get;
    e2b_error *e = NULL;
    if (err) {
        get_fail(op, err, "finding the box");
        return;
    }
    const char *project = op->have_record && op->rec.dir && op->rec.dir[0] ? op->rec.dir : NULL;
    /* leaves[] holds the asked paths until here: each becomes its folder and last name. */
    for (size_t i = 0; i < g->n; i++) {
        char *leaf = NULL;
        if (e2b_box_get_where(g->leaves[i], project, &g->parents[i], &leaf, &e) != 0) {
            get_fail_own(op, e, "checking the paths");
            return;
        }
        free(g->leaves[i]);
        g->leaves[i] = leaf;
    }
    for (size_t i = 0; i < g->n; i++)
        for (size_t j = 0; j < i; j++)
            if (strcmp(g->leaves[i], g->leaves[j]) == 0) {
                get_fail_own(op, e2b_error_new(E2B_ERR_INVALID, "two paths end in the same "
                                               "name '%s': fetch them into different --dir "
                                               "folders", g->leaves[i]),
                             "checking the paths");
                return;
            }
    box_op_progress(op, "connecting", 0, 0);
    box_op_connect_as_is(op, get_connected);
}

e2b_box_op *e2b_box_get(const e2b_box_env *env, const e2b_box_get_params *p,
                        e2b_box_progress_fn progress, e2b_box_done_fn done, void *ud,
                        e2b_error **err)
{
    if (!p->npaths || p->npaths > E2B_BOX_GET_PATHS_MAX) {
        *err = e2b_error_new(E2B_ERR_INVALID, "--get takes 1 to %d paths",
                             E2B_BOX_GET_PATHS_MAX);
        return NULL;
    }
    const char *dest = p->dest && *p->dest ? p->dest : ".";
    char *real = realpath(dest, NULL);
    struct stat st;
    if (!real || stat(real, &st) != 0 || !S_ISDIR(st.st_mode)) {
        *err = e2b_error_new(E2B_ERR_INVALID, "%s is not a folder here (--dir names an "
                             "existing folder)", dest);
        free(real);
        return NULL;
    }
    e2b_box_op *op = box_op_new(OP_GET, env, progress, done, ud);
    struct box_get_state *g = op ? calloc(1, sizeof *g) : NULL;
    if (g) {
        g->fd = -1;
        g->n = p->npaths;
        g->force = p->force;
        g->dest = real;
        real = NULL;
        g->parents = calloc(g->n, sizeof *g->parents);
        g->leaves = calloc(g->n, sizeof *g->leaves);
        for (size_t i = 0; g->leaves && i < g->n; i++)
            if (!(g->leaves[i] = strdup(p->paths[i] ? p->paths[i] : "")))
                g->n = i;
    }
    if (!g || !g->parents || !g->leaves || g->n != p->npaths || !(op->res.dir = strdup(g->dest))) {
        if (g)
            get_state_free(g);
        if (op)
            e2b_box_op_free(op);
        free(real);
        *err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        return NULL;
    }
    op->get = g;
    op->get_free = get_state_free;
    box_op_start(op, p->name, get_resolved);
    return op;
}
