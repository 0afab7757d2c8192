/* Snapshot records (snap_records.h). */
#include "core/box/snap_records.h"

#include "core/e2b/objects.h"
#include "core/git/gitwork.h"
#include "core/e2b/json_read.h"
#include "core/util/buf.h"
#include "core/util/fs.h"
#include "core/util/str.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *e2b_snap_records_dir(const char *state_dir)
{
    return e2b_strfmt("%s/snapshots", state_dir ? state_dir : ".");
}

static e2b_error *check_name(const char *name)
{
    if (!name || !e2b_gitwork_box_name_valid(name))
        return e2b_error_new(E2B_ERR_INVALID,
                             "'%s' is not a valid snapshot name (letters, digits, '-', '_', '.')",
                             name ? name : "");
    return NULL;
}

/* *path = <state_dir>/snapshots/<name>.json (caller frees) for a valid name. */
static e2b_error *record_path(const char *state_dir, const char *name, char **path)
{
    *path = NULL;
    e2b_error *err = check_name(name);
    if (err)
        return err;
    *path = e2b_strfmt("%s/snapshots/%s.json", state_dir, name);
    return *path ? NULL : e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
}

static const char *nz(const char *s)
{
    return s ? s : "";
}

e2b_error *e2b_snap_record_write(const char *state_dir, const e2b_snap_record *r)
{
    e2b_error *err = check_name(r->name);
    if (err)
        return err;
    char *dir = e2b_snap_records_dir(state_dir);
    if (!dir)
        return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    if (e2b_mkdir_private(dir) < 0) {
        err = e2b_error_new(E2B_ERR_IO, "cannot use %s: %s", dir, strerror(errno));
        free(dir);
        return err;
    }
    char created[32];
    e2b_format_rfc3339(r->created_at, created, sizeof created);
    json_t *j = json_pack("{s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:s}", "version", 1, "name",
                          r->name, "snapshot_id", nz(r->snapshot_id), "box", nz(r->box), "sandbox_id",
                          nz(r->sandbox_id), "template_id", nz(r->template_id), "dir", nz(r->dir), "branch",
                          nz(r->branch), "commit", nz(r->commit), "port", r->port, "opencode", r->opencode,
                          "created_at", created);
    if (j && r->setup_key && *r->setup_key) /* a prepared snapshot: what it was set up from */
        json_object_set_new(j, "setup_key", json_string(r->setup_key));
    char *text = j ? json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS) : NULL;
    json_decref(j);
    char *file = e2b_strfmt("%s.json", r->name);
    int rc = text && file ? e2b_replace_file(dir, file, text, strlen(text), 0600, 0) : -1;
    int saved = errno;
    if (rc < 0)
        err = text && file ? e2b_error_new(E2B_ERR_IO, "cannot write %s/%s: %s", dir, file, strerror(saved))
                           : e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    free(text);
    free(file);
    free(dir);
    return err;
}

static e2b_error *read_path(const char *path, const char *name, e2b_snap_record *out)
{
    memset(out, 0, sizeof *out);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? e2b_error_new(E2B_ERR_NOT_FOUND, "no snapshot named %s on this machine "
                                                                  "(e2b-tui --snapshots lists them)",
                                               name)
                               : e2b_error_new(E2B_ERR_IO, "cannot read %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > 1 << 20) {
        close(fd);
        return e2b_error_new(E2B_ERR_PROTOCOL, "%s is not a snapshot record", path);
    }
    json_error_t je;
    json_t *j = json_loadfd(fd, 0, &je);
    close(fd);
    if (!json_is_object(j) || !json_string_value(json_object_get(j, "snapshot_id")) ||
        strcmp(nz(json_string_value(json_object_get(j, "name"))), name) != 0) {
        json_decref(j);
        return e2b_error_new(E2B_ERR_PROTOCOL, "%s: corrupt snapshot record", path);
    }
    out->name = strdup(e2b_json_text(j, "name", ""));
    out->snapshot_id = strdup(e2b_json_text(j, "snapshot_id", ""));
    out->box = strdup(e2b_json_text(j, "box", ""));
    out->sandbox_id = strdup(e2b_json_text(j, "sandbox_id", ""));
    out->template_id = strdup(e2b_json_text(j, "template_id", ""));
    out->dir = strdup(e2b_json_text(j, "dir", ""));
    out->branch = strdup(e2b_json_text(j, "branch", ""));
    out->commit = strdup(e2b_json_text(j, "commit", ""));
    const char *key = json_string_value(json_object_get(j, "setup_key"));
    if (key && e2b_snap_setup_key_valid(key) && !(out->setup_key = strdup(key))) {
        json_decref(j);
        e2b_snap_record_clear(out);
        return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    }
    out->port = (int)json_integer_value(json_object_get(j, "port"));
    out->opencode = (int)json_integer_value(json_object_get(j, "opencode"));
    if (e2b_parse_rfc3339(nz(json_string_value(json_object_get(j, "created_at"))), &out->created_at, NULL) < 0)
        out->created_at = 0;
    json_decref(j);
    if (!out->name || !out->snapshot_id || !out->box || !out->sandbox_id || !out->template_id || !out->dir ||
        !out->branch || !out->commit) {
        e2b_snap_record_clear(out);
        return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    }
    return NULL;
}

e2b_error *e2b_snap_record_read(const char *state_dir, const char *name, e2b_snap_record *out)
{
    memset(out, 0, sizeof *out);
    char *path;
    e2b_error *err = record_path(state_dir, name, &path);
    if (err)
        return err;
    err = read_path(path, name, out);
    free(path);
    return err;
}

e2b_error *e2b_snap_record_remove(const char *state_dir, const char *name)
{
    char *path;
    e2b_error *err = record_path(state_dir, name, &path);
    if (err)
        return err;
    if (unlink(path) < 0 && errno != ENOENT)
        err = e2b_error_new(E2B_ERR_IO, "cannot remove %s: %s", path, strerror(errno));
    free(path);
    return err;
}

int e2b_snap_record_exists(const char *state_dir, const char *name)
{
    if (!name || !e2b_gitwork_box_name_valid(name))
        return 0;
    char *path = e2b_strfmt("%s/snapshots/%s.json", state_dir, name);
    struct stat st;
    int yes = path && lstat(path, &st) == 0 && S_ISREG(st.st_mode);
    free(path);
    return yes;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(((const e2b_snap_record *)a)->name, ((const e2b_snap_record *)b)->name);
}

e2b_error *e2b_snap_record_list_read(const char *state_dir, e2b_snap_record_list *out)
{
    memset(out, 0, sizeof *out);
    char *dir = e2b_snap_records_dir(state_dir);
    DIR *d = dir ? opendir(dir) : NULL;
    if (!d) {
        e2b_error *err = !dir || errno != ENOENT ? e2b_error_new(E2B_ERR_IO, "cannot read %s: %s", nz(dir),
                                                                 strerror(errno))
                                                 : NULL;
        free(dir);
        return err;
    }
    size_t cap = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t n = strlen(de->d_name);
        char name[256];
        if (de->d_name[0] == '.' || n <= 5 || n - 5 >= sizeof name || strcmp(de->d_name + n - 5, ".json") != 0)
            continue;
        memcpy(name, de->d_name, n - 5);
        name[n - 5] = '\0';
        if (!e2b_gitwork_box_name_valid(name))
            continue;
        if (e2b_array_grow((void **)&out->items, &cap, out->count + 1, sizeof *out->items) < 0)
            break;
        char *path = e2b_strfmt("%s/%s", dir, de->d_name);
        e2b_error *err = path ? read_path(path, name, &out->items[out->count]) : NULL;
        free(path);
        if (path && !err)
            out->count++;
        e2b_error_free(err);
    }
    closedir(d);
    free(dir);
    if (out->count)
        qsort(out->items, out->count, sizeof *out->items, cmp_name);
    return NULL;
}

const e2b_snap_record *e2b_snap_record_list_find_id(const e2b_snap_record_list *l, const char *id)
{
    for (size_t i = 0; l && id && i < l->count; i++)
        if (strcmp(l->items[i].snapshot_id, id) == 0)
            return &l->items[i];
    return NULL;
}

int e2b_snap_setup_key_valid(const char *s)
{
    size_t n = 0;
    for (; s && s[n]; n++)
        if (!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f')))
            return 0;
    return n == 64;
}

/* Whether a is newer than b (the name breaks a tie of the same second). */
static int newer(const e2b_snap_record *a, const e2b_snap_record *b)
{
    return a->created_at > b->created_at || (a->created_at == b->created_at && strcmp(a->name, b->name) > 0);
}

int e2b_snap_record_superseded(const e2b_snap_record_list *l, const e2b_snap_record *r)
{
    if (!r || !r->setup_key)
        return 0;
    for (size_t i = 0; l && i < l->count; i++) {
        const e2b_snap_record *o = &l->items[i];
        if (o != r && o->setup_key && strcmp(o->dir, r->dir) == 0 && newer(o, r))
            return 1;
    }
    return 0;
}

const e2b_snap_record *e2b_snap_record_list_find_key(const e2b_snap_record_list *l, const char *key)
{
    const e2b_snap_record *best = NULL;
    for (size_t i = 0; l && key && i < l->count; i++)
        if (l->items[i].setup_key && strcmp(l->items[i].setup_key, key) == 0 &&
            (!best || l->items[i].created_at > best->created_at))
            best = &l->items[i];
    return best;
}

const e2b_snap_record *e2b_snap_record_of_template(const e2b_snap_record_list *l, const e2b_template *t)
{
    for (size_t i = 0; l && i < l->count; i++) {
        const char *id = l->items[i].snapshot_id;
        size_t n = strcspn(id, ":");
        const char *slash = memchr(id, '/', n);
        const char *bare = slash ? slash + 1 : id;
        size_t bn = n - (size_t)(bare - id);
        if (strlen(t->template_id) == bn && strncmp(t->template_id, bare, bn) == 0)
            return &l->items[i];
        for (size_t k = 0; k < t->naliases; k++)
            if (strlen(t->aliases[k]) == bn && strncmp(t->aliases[k], bare, bn) == 0)
                return &l->items[i];
    }
    return NULL;
}

int e2b_snap_template_is_ours(const e2b_snap_record_list *l, const e2b_template *t)
{
    if (e2b_snap_record_of_template(l, t))
        return 1;
    for (size_t k = 0; k < t->naliases; k++)
        if (strncmp(t->aliases[k], "e2b-tui-", 8) == 0)
            return 1;
    return 0;
}

void e2b_snap_record_clear(e2b_snap_record *r)
{
    if (!r)
        return;
    free(r->name);
    free(r->snapshot_id);
    free(r->box);
    free(r->sandbox_id);
    free(r->template_id);
    free(r->dir);
    free(r->branch);
    free(r->commit);
    free(r->setup_key);
    memset(r, 0, sizeof *r);
}

void e2b_snap_record_list_clear(e2b_snap_record_list *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->count; i++)
        e2b_snap_record_clear(&l->items[i]);
    free(l->items);
    memset(l, 0, sizeof *l);
}
