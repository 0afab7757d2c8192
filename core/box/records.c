/* Box records on disk: one JSON file per box, written atomically (see records.h). */
#include "core/box/records.h"

#include "core/box/evidence_file.h"

#include "core/git/gitwork.h"
#include "core/e2b/objects.h"
#include "core/e2b/cost.h"
#include "core/e2b/json_read.h"
#include "core/util/buf.h"
#include "core/util/fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

static char *xstrdup(const char *s)
{
    return strdup(s ? s : "");
}

/* Creates dir (and parents) with mode 0700; an existing one that is group/world accessible
 * is tightened, since record names and paths are nobody else's business. */
static e2b_error *ensure_dir(const char *dir)
{
    if (e2b_mkdir_private(dir) < 0)
        return e2b_error_new(E2B_ERR_IO, "cannot use the records directory %s: %s", dir,
                             errno == ENOTDIR ? "not a directory"
                             : errno == EPERM ? "it belongs to another user"
                                              : strerror(errno));
    return NULL;
}

static e2b_error *check_name(const char *name)
{
    if (!name || !e2b_gitwork_box_name_valid(name))
        return e2b_error_new(E2B_ERR_INVALID,
                             "'%s' is not a valid box name (letters, digits, '.', '_', '-')",
                             name ? name : "");
    return NULL;
}

static json_t *record_to_json(const e2b_box_record *r)
{
    char created[32];
    e2b_format_rfc3339(r->created_at, created, sizeof created);
    json_t *o = json_pack("{s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:s, s:s, s:i, s:s}", "version",
                     E2B_BOX_RECORD_VERSION, "name", r->name, "sandbox_id", r->sandbox_id,
                     "template", r->template_id ? r->template_id : "", "branch",
                     r->branch ? r->branch : "", "base", r->base ? r->base : "", "dir",
                     r->dir ? r->dir : "", "port", r->port, "opencode", r->opencode,
                     "opencode_bin", r->opencode_bin, "opencode_version", r->opencode_version,
                     "hours", r->hours, "created_at", created);
    char task_at[32];
    e2b_format_rfc3339(r->task_at, task_at, sizeof task_at);
    if (o && ((r->group[0] && json_object_set_new(o, "group", json_string(r->group)) < 0) ||
              (r->model[0] && json_object_set_new(o, "model", json_string(r->model)) < 0) ||
              (r->task_at && json_object_set_new(o, "task_at", json_string(task_at)) < 0) ||
              (r->budget_usd > 0 &&
               json_object_set_new(o, "budget_usd", json_real(r->budget_usd)) < 0) ||
              (r->budget_stopped &&
               json_object_set_new(o, "budget_stopped", json_true()) < 0))) {
        json_decref(o);
        return NULL;
    }
    json_t *eg = r->egress ? json_loads(r->egress, 0, NULL) : NULL;
    if (o && json_is_object(eg))
        json_object_set(o, "egress", eg);
    json_decref(eg);
    if (o && r->napprove) {
        json_t *a = json_array();
        for (size_t i = 0; a && i < r->napprove; i++)
            json_array_append_new(a, json_string(r->approve[i]));
        if (!a || json_object_set_new(o, "approve", a) < 0) {
            json_decref(o);
            return NULL;
        }
    }
    if (o && r->yes_all && json_object_set_new(o, "yes_all", json_true()) < 0) {
        json_decref(o);
        return NULL;
    }
    if (o && r->turn_owed_ms > 0 &&
        (json_object_set_new(o, "turn_owed_ms", json_integer(r->turn_owed_ms)) < 0 ||
         (r->turn_owed_session[0] &&
          json_object_set_new(o, "turn_owed_session", json_string(r->turn_owed_session)) < 0))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static bool rule_ok(const char *rule)
{
    size_t n = rule ? strlen(rule) : 0;
    if (!n || n >= E2B_BOX_RULE_MAX)
        return false;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)rule[i] < 0x20 || rule[i] == 0x7f)
            return false;
    return true;
}

int e2b_box_record_approve_add(e2b_box_record *r, const char *rule)
{
    if (!rule_ok(rule) || (r->napprove >= E2B_BOX_RULES_MAX))
        return -1;
    for (size_t i = 0; i < r->napprove; i++)
        if (!strcmp(r->approve[i], rule))
            return 0;
    char **g = realloc(r->approve, (r->napprove + 1) * sizeof *g);
    if (!g)
        return -1;
    r->approve = g;
    if (!(g[r->napprove] = strdup(rule)))
        return -1;
    r->napprove++;
    return 0;
}

bool e2b_box_record_approve_remove(e2b_box_record *r, const char *rule)
{
    for (size_t i = 0; rule && i < r->napprove; i++) {
        if (strcmp(r->approve[i], rule) != 0)
            continue;
        free(r->approve[i]);
        memmove(&r->approve[i], &r->approve[i + 1], (r->napprove - i - 1) * sizeof *r->approve);
        r->napprove--;
        return true;
    }
    return false;
}

static e2b_error *record_from_json(const json_t *o, const char *file, e2b_box_record *out)
{
    memset(out, 0, sizeof *out);
    if (!json_is_object(o) || !e2b_json_text(o, "name", NULL) ||
        !*e2b_json_text(o, "sandbox_id", ""))
        return e2b_error_new(E2B_ERR_PROTOCOL, "%s: not a box record (name or sandbox_id missing)",
                             file);
    out->name = xstrdup(e2b_json_text(o, "name", ""));
    out->sandbox_id = xstrdup(e2b_json_text(o, "sandbox_id", ""));
    out->template_id = xstrdup(e2b_json_text(o, "template", ""));
    out->branch = xstrdup(e2b_json_text(o, "branch", ""));
    out->base = xstrdup(e2b_json_text(o, "base", ""));
    out->dir = xstrdup(e2b_json_text(o, "dir", ""));
    out->port = (int)json_integer_value(json_object_get(o, "port"));
    json_int_t api = json_integer_value(json_object_get(o, "opencode"));
    out->opencode = api == 1 ? 1 : 2; /* a file may be edited: 1 or 2 */
    /* Version 1 (before detection) named only the preset: its binary. A file may be
     * edited: only the two names are taken, the version as a version word. */
    e2b_opencode_kind k;
    e2b_opencode_kind_from_preset(out->opencode, &k);
    const char *bin = e2b_json_text(o, "opencode_bin", "");
    if (!strcmp(bin, "opencode") || !strcmp(bin, "opencode2"))
        snprintf(k.bin, sizeof k.bin, "%s", bin);
    char line[80];
    snprintf(line, sizeof line, "%s %.39s", k.bin, e2b_json_text(o, "opencode_version", ""));
    e2b_opencode_kind parsed;
    if (e2b_opencode_kind_parse(line, strlen(line), 0, &parsed))
        snprintf(k.version, sizeof k.version, "%s", parsed.version);
    snprintf(out->opencode_bin, sizeof out->opencode_bin, "%s", k.bin);
    snprintf(out->opencode_version, sizeof out->opencode_version, "%s", k.version);
    json_int_t h = json_integer_value(json_object_get(o, "hours"));
    out->hours = h >= 1 && h <= 24 ? (int)h : 0; /* a file may be edited: bounded */
    const char *group = e2b_json_text(o, "group", "");
    if (strlen(group) < sizeof out->group && e2b_gitwork_box_name_valid(group))
        snprintf(out->group, sizeof out->group, "%s", group); /* else: none */
    const char *model = e2b_json_text(o, "model", "");
    int model_ok = strlen(model) < sizeof out->model && strchr(model, '/');
    for (const char *c = model; model_ok && *c; c++)
        model_ok = (unsigned char)*c > ' ' && (unsigned char)*c < 0x7f;
    if (model_ok)
        snprintf(out->model, sizeof out->model, "%s", model);
    if (e2b_parse_rfc3339(e2b_json_text(o, "task_at", ""), &out->task_at, NULL) < 0)
        out->task_at = 0;
    /* a file may be edited: a budget out of range is none */
    double budget = json_number_value(json_object_get(o, "budget_usd"));
    if (budget >= 0.01 && budget <= E2B_BUDGET_MAX_USD)
        out->budget_usd = budget;
    out->budget_stopped = json_is_true(json_object_get(o, "budget_stopped"));
    if (e2b_parse_rfc3339(e2b_json_text(o, "created_at", ""), &out->created_at, NULL) < 0)
        out->created_at = 0;
    const json_t *eg = json_object_get(o, "egress");
    if (json_is_object(eg))
        out->egress = json_dumps(eg, JSON_COMPACT | JSON_SORT_KEYS);
    /* a file may be edited: a rule that is not well formed is dropped, not kept */
    const json_t *ap = json_object_get(o, "approve");
    for (size_t i = 0; json_is_array(ap) && i < json_array_size(ap); i++)
        if (json_is_string(json_array_get(ap, i)))
            e2b_box_record_approve_add(out, json_string_value(json_array_get(ap, i)));
    out->yes_all = json_is_true(json_object_get(o, "yes_all"));
    /* a file may be edited: a time that is not one (before 2001, or past year 2286) is none,
     * a session id that is not a plain word is not known */
    json_int_t owed = json_integer_value(json_object_get(o, "turn_owed_ms"));
    if (owed > 978307200000LL && owed < 9999999999999LL) {
        out->turn_owed_ms = owed;
        const char *ses = e2b_json_text(o, "turn_owed_session", "");
        int ses_ok = strlen(ses) < sizeof out->turn_owed_session;
        for (const char *c = ses; ses_ok && *c; c++)
            ses_ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                     (*c >= '0' && *c <= '9') || *c == '_' || *c == '-';
        if (ses_ok)
            snprintf(out->turn_owed_session, sizeof out->turn_owed_session, "%s", ses);
    }
    if (!out->name || !out->sandbox_id || !out->template_id || !out->branch || !out->base ||
        !out->dir) {
        e2b_box_record_clear(out);
        return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    }
    return NULL;
}

static int record_path(char *buf, size_t size, const char *dir, const char *name, const char *ext)
{
    return snprintf(buf, size, "%s/%s%s", dir, name, ext) < (int)size ? 0 : -1;
}

/* Removes the temp files of writers that died (".<name>.<pid>.tmp" whose pid is gone): a
 * SIGKILL between the temp write and the rename leaves one behind. A live pid may be
 * another e2b-tui writing right now, so its file is left alone. */
static void sweep_stale_temps(const char *records_dir)
{
    DIR *d = opendir(records_dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d))) {
        const char *n = de->d_name;
        size_t len = strlen(n);
        if (n[0] != '.' || len < 6 || strcmp(n + len - 4, ".tmp") != 0)
            continue;
        const char *dot = n + len - 4;
        const char *p = dot;
        while (p > n + 1 && p[-1] >= '0' && p[-1] <= '9')
            p--;
        if (p == dot || p[-1] != '.' || p - 1 == n)
            continue;
        long pid = strtol(p, NULL, 10);
        if (pid <= 0 || (kill((pid_t)pid, 0) < 0 && errno == ESRCH))
            unlinkat(dirfd(d), n, 0);
    }
    closedir(d);
}

e2b_error *e2b_box_record_write(const char *records_dir, const e2b_box_record *r, int exclusive)
{
    char final[4200];
    e2b_error *err = check_name(r ? r->name : NULL);
    if (err)
        return err;
    if (!r->sandbox_id || !*r->sandbox_id)
        return e2b_error_new(E2B_ERR_INVALID, "box record %s has no sandbox id", r->name);
    if ((err = ensure_dir(records_dir)))
        return err;
    sweep_stale_temps(records_dir);
    if (record_path(final, sizeof final, records_dir, r->name, ".json") < 0)
        return e2b_error_new(E2B_ERR_INVALID, "records directory path is too long");
    json_t *j = record_to_json(r);
    char *text = j ? json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS) : NULL;
    json_decref(j);
    e2b_buf b = {0};
    e2b_buf_adds(&b, text);
    e2b_buf_add(&b, "\n", 1);
    free(text);
    if (b.failed) {
        e2b_buf_clear(&b);
        return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    }
    char file[300];
    snprintf(file, sizeof file, "%s.json", r->name);
    int rc = e2b_replace_file(records_dir, file, b.data, b.len, 0600,
                              exclusive ? E2B_REPLACE_EXCLUSIVE : 0);
    int saved = errno;
    e2b_buf_clear(&b);
    if (rc < 0 && saved == EEXIST && exclusive)
        return e2b_error_set_action(
            e2b_error_new(E2B_ERR_CONFLICT, "a box named %s already exists", r->name),
            "recording box %s", r->name);
    if (rc < 0)
        return e2b_error_new(E2B_ERR_IO, "cannot write %s: %s", final, strerror(saved));
    return NULL;
}

static e2b_error *read_file(const char *path, const char *name, e2b_box_record *out)
{
    json_error_t jerr;
    struct stat st;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return e2b_error_new(E2B_ERR_NOT_FOUND, "no box named %s on this machine", name);
        return e2b_error_new(E2B_ERR_IO, "cannot read %s: %s", path, strerror(errno));
    }
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > 1 << 20) {
        close(fd);
        return e2b_error_new(E2B_ERR_PROTOCOL, "%s is not a box record file", path);
    }
    json_t *j = json_loadfd(fd, 0, &jerr);
    close(fd);
    if (!j)
        return e2b_error_new(E2B_ERR_PROTOCOL, "%s: corrupt box record (%s)", path, jerr.text);
    e2b_error *err = record_from_json(j, path, out);
    json_decref(j);
    if (!err && strcmp(out->name, name) != 0) {
        e2b_box_record_clear(out);
        err = e2b_error_new(E2B_ERR_PROTOCOL, "%s: the record names another box", path);
    }
    return err;
}

e2b_error *e2b_box_record_read(const char *records_dir, const char *name, e2b_box_record *out)
{
    char path[4200];
    e2b_error *err = check_name(name);
    memset(out, 0, sizeof *out);
    if (err)
        return err;
    if (record_path(path, sizeof path, records_dir, name, ".json") < 0)
        return e2b_error_new(E2B_ERR_INVALID, "records directory path is too long");
    return read_file(path, name, out);
}

int e2b_box_record_exists(const char *records_dir, const char *name)
{
    char path[4200];
    struct stat st;
    if (!e2b_gitwork_box_name_valid(name) ||
        record_path(path, sizeof path, records_dir, name, ".json") < 0)
        return 0;
    return lstat(path, &st) == 0;
}

e2b_error *e2b_box_record_remove(const char *records_dir, const char *name)
{
    char path[4200];
    e2b_error *err = check_name(name);
    if (err)
        return err;
    if (record_path(path, sizeof path, records_dir, name, ".json") < 0)
        return e2b_error_new(E2B_ERR_INVALID, "records directory path is too long");
    if (unlink(path) < 0 && errno != ENOENT)
        return e2b_error_new(E2B_ERR_IO, "cannot remove %s: %s", path, strerror(errno));
    e2b_box_evidence_remove(records_dir, name); /* a member's tests go with it */
    return NULL;
}

static int cmp_record(const void *a, const void *b)
{
    return strcmp(((const e2b_box_record *)a)->name, ((const e2b_box_record *)b)->name);
}

static void append_name(char **list, const char *name)
{
    size_t old = *list ? strlen(*list) : 0;
    char *n = realloc(*list, old + strlen(name) + 3);
    if (!n)
        return;
    if (old)
        strcpy(n + old, ", ");
    else
        n[0] = '\0';
    strcat(n, name);
    *list = n;
}

e2b_error *e2b_box_record_list_read(const char *records_dir, e2b_box_record_list *out, char **skipped)
{
    memset(out, 0, sizeof *out);
    if (skipped)
        *skipped = NULL;
    sweep_stale_temps(records_dir);
    DIR *d = opendir(records_dir);
    if (!d) {
        if (errno == ENOENT)
            return NULL;
        return e2b_error_new(E2B_ERR_IO, "cannot read %s: %s", records_dir, strerror(errno));
    }
    struct dirent *de;
    size_t cap = 0;
    while ((de = readdir(d))) {
        size_t n = strlen(de->d_name);
        char name[256], path[4200];
        if (de->d_name[0] == '.' || n <= 5 || strcmp(de->d_name + n - 5, ".json") != 0 ||
            n - 5 >= sizeof name)
            continue;
        memcpy(name, de->d_name, n - 5);
        name[n - 5] = '\0';
        if (!e2b_gitwork_box_name_valid(name) ||
            record_path(path, sizeof path, records_dir, name, ".json") < 0)
            continue;
        if (e2b_array_grow((void **)&out->items, &cap, out->count + 1, sizeof *out->items) < 0) {
            closedir(d);
            e2b_box_record_list_clear(out);
            return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        }
        e2b_error *err = read_file(path, name, &out->items[out->count]);
        if (err) {
            if (skipped)
                append_name(skipped, de->d_name);
            e2b_error_free(err);
            continue;
        }
        out->count++;
    }
    closedir(d);
    if (out->count)
        qsort(out->items, out->count, sizeof *out->items, cmp_record);
    return NULL;
}

const e2b_box_record *e2b_box_record_list_find_sandbox(const e2b_box_record_list *list, const char *sandbox_id)
{
    for (size_t i = 0; list && sandbox_id && i < list->count; i++)
        if (strcmp(list->items[i].sandbox_id, sandbox_id) == 0)
            return &list->items[i];
    return NULL;
}

const e2b_box_record *e2b_box_record_list_find(const e2b_box_record_list *list, const char *name)
{
    for (size_t i = 0; list && name && i < list->count; i++)
        if (strcmp(list->items[i].name, name) == 0)
            return &list->items[i];
    return NULL;
}

void e2b_box_record_opencode(const e2b_box_record *r, e2b_opencode_kind *out)
{
    e2b_opencode_kind_from_preset(r->opencode, out);
    if (r->opencode_bin[0])
        snprintf(out->bin, sizeof out->bin, "%s", r->opencode_bin);
    snprintf(out->version, sizeof out->version, "%s", r->opencode_version);
}

static bool same_text(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

bool e2b_box_record_same(const e2b_box_record *a, const e2b_box_record *b)
{
    if (!same_text(a->name, b->name) || !same_text(a->sandbox_id, b->sandbox_id) ||
        !same_text(a->template_id, b->template_id) || !same_text(a->branch, b->branch) ||
        !same_text(a->base, b->base) || !same_text(a->dir, b->dir) || a->port != b->port ||
        a->opencode != b->opencode || strcmp(a->opencode_bin, b->opencode_bin) ||
        strcmp(a->opencode_version, b->opencode_version) || a->hours != b->hours ||
        a->created_at != b->created_at || strcmp(a->group, b->group) ||
        strcmp(a->model, b->model) || a->task_at != b->task_at ||
        a->budget_usd != b->budget_usd || a->budget_stopped != b->budget_stopped ||
        !same_text(a->egress, b->egress) || a->yes_all != b->yes_all ||
        a->napprove != b->napprove)
        return false;
    for (size_t i = 0; i < a->napprove; i++)
        if (strcmp(a->approve[i], b->approve[i]))
            return false;
    return true;
}

void e2b_box_record_clear(e2b_box_record *r)
{
    if (!r)
        return;
    free(r->name);
    free(r->sandbox_id);
    free(r->template_id);
    free(r->branch);
    free(r->base);
    free(r->dir);
    free(r->egress);
    for (size_t i = 0; i < r->napprove; i++)
        free(r->approve[i]);
    free(r->approve);
    memset(r, 0, sizeof *r);
}

void e2b_box_record_list_clear(e2b_box_record_list *list)
{
    if (!list)
        return;
    for (size_t i = 0; i < list->count; i++)
        e2b_box_record_clear(&list->items[i]);
    free(list->items);
    list->items = NULL;
    list->count = 0;
}

