/* Snapshots, forks and templates (api_templates.h), built on the client's plain JSON calls. */
#include "core/e2b/api_templates.h"

#include "core/util/machine_id.h"

#include "core/e2b/api_json.h"
#include "core/util/str.h"

#include <stdlib.h>
#include <string.h>

/* Untrusted lists are bounded: more items than this is a protocol error. */
#define MAX_ITEMS 100000
#define MAX_NAMES 64

/* ---- results ---- */

static void free_strv(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void e2b_snapshot_free(e2b_snapshot *s)
{
    if (!s)
        return;
    free(s->snapshot_id);
    free_strv(s->names, s->nnames);
    free(s);
}

void e2b_snapshot_list_free(e2b_snapshot_list *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->count; i++) {
        free(l->items[i].snapshot_id);
        free_strv(l->items[i].names, l->items[i].nnames);
    }
    free(l->items);
    free(l);
}

static void template_clear(e2b_template *t)
{
    free(t->template_id);
    free_strv(t->aliases, t->naliases);
    free_strv(t->names, t->nnames);
}

void e2b_template_list_free(e2b_template_list *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->count; i++)
        template_clear(&l->items[i]);
    free(l->items);
    free(l);
}

void e2b_fork_list_free(e2b_fork_list *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->count; i++) {
        e2b_sandbox_free(l->items[i].sandbox);
        e2b_error_free(l->items[i].error);
    }
    free(l->items);
    free(l);
}

/* ---- parsers ---- */

/* An optional array of strings; a non-string entry is a protocol error. */
static e2b_error *strv_from_json(const json_t *a, const char *what, char ***out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!a || json_is_null(a))
        return NULL;
    if (!json_is_array(a) || json_array_size(a) > MAX_NAMES)
        return e2b_error_new(E2B_ERR_PROTOCOL, "%s is not a short list of strings", what);
    size_t cnt = json_array_size(a);
    char **v = calloc(cnt ? cnt : 1, sizeof *v);
    if (!v)
        return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    for (size_t i = 0; i < cnt; i++) {
        const char *s = json_string_value(json_array_get(a, i));
        if (!s || !(v[i] = strdup(s))) {
            free_strv(v, i);
            return e2b_error_new(s ? E2B_ERR_INTERNAL : E2B_ERR_PROTOCOL, "%s has a non-string entry", what);
        }
    }
    *out = v;
    *n = cnt;
    return NULL;
}

e2b_error *e2b_snapshot_from_json(const json_t *o, e2b_snapshot *out)
{
    memset(out, 0, sizeof *out);
    const char *id = json_string_value(json_object_get(o, "snapshotID"));
    if (!json_is_object(o) || !id || !*id)
        return e2b_error_new(E2B_ERR_PROTOCOL, "a snapshot has no snapshotID");
    if (!(out->snapshot_id = strdup(id)))
        return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    e2b_error *err = strv_from_json(json_object_get(o, "names"), "a snapshot's names", &out->names, &out->nnames);
    if (err) {
        free(out->snapshot_id);
        out->snapshot_id = NULL;
    }
    return err;
}

static time_t time_of(const json_t *o, const char *key)
{
    time_t t = 0;
    const char *s = json_string_value(json_object_get(o, key));
    if (!s || e2b_parse_rfc3339(s, &t, NULL) != 0)
        return 0;
    return t;
}

e2b_error *e2b_template_list_from_json(const json_t *a, e2b_template_list *out)
{
    memset(out, 0, sizeof *out);
    if (!json_is_array(a) || json_array_size(a) > MAX_ITEMS)
        return e2b_error_new(E2B_ERR_PROTOCOL, "the template list is not a JSON array");
    size_t n = json_array_size(a);
    out->items = calloc(n ? n : 1, sizeof *out->items);
    if (!out->items)
        return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const json_t *o = json_array_get(a, i);
        const char *id = json_string_value(json_object_get(o, "templateID"));
        e2b_template *t = &out->items[out->count];
        if (!id || !*id) {
            for (size_t k = 0; k < out->count; k++)
                template_clear(&out->items[k]);
            free(out->items);
            memset(out, 0, sizeof *out);
            return e2b_error_new(E2B_ERR_PROTOCOL, "a template has no templateID");
        }
        e2b_error *err = NULL;
        if (!(t->template_id = strdup(id)))
            err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        if (!err)
            err = strv_from_json(json_object_get(o, "aliases"), "a template's aliases", &t->aliases, &t->naliases);
        if (!err)
            err = strv_from_json(json_object_get(o, "names"), "a template's names", &t->names, &t->nnames);
        if (err) {
            template_clear(t);
            for (size_t k = 0; k < out->count; k++)
                template_clear(&out->items[k]);
            free(out->items);
            memset(out, 0, sizeof *out);
            return err;
        }
        t->is_public = json_is_true(json_object_get(o, "public"));
        t->created_at = time_of(o, "createdAt");
        t->updated_at = time_of(o, "updatedAt");
        t->last_spawned_at = time_of(o, "lastSpawnedAt");
        t->spawn_count = (long)json_integer_value(json_object_get(o, "spawnCount"));
        t->build_count = (long)json_integer_value(json_object_get(o, "buildCount"));
        out->count++;
    }
    return NULL;
}

time_t e2b_template_last_used(const e2b_template *t)
{
    time_t m = t->created_at;
    if (t->updated_at > m)
        m = t->updated_at;
    if (t->last_spawned_at > m)
        m = t->last_spawned_at;
    return m;
}

int e2b_template_is_managed(const e2b_template *t)
{
    size_t n = strlen(E2B_MANAGED_TEMPLATE_PREFIX);
    if (strncmp(t->template_id, E2B_MANAGED_TEMPLATE_PREFIX, n) == 0)
        return 1;
    for (size_t i = 0; i < t->naliases; i++)
        if (strncmp(t->aliases[i], E2B_MANAGED_TEMPLATE_PREFIX, n) == 0)
            return 1;
    return 0;
}

/* Where the machine mark of a managed name starts (its '-'), or NULL. */
static const char *machine_mark(const char *name)
{
    size_t n = strlen(name), p = strlen(E2B_MANAGED_TEMPLATE_PREFIX);
    size_t mark = strlen(E2B_MANAGED_MACHINE_MARK) + E2B_MACHINE_ID_LEN;
    if (strncmp(name, E2B_MANAGED_TEMPLATE_PREFIX, p) != 0 || n < p + 1 + mark)
        return NULL;
    const char *m = name + n - mark;
    if (strncmp(m, E2B_MANAGED_MACHINE_MARK, strlen(E2B_MANAGED_MACHINE_MARK)) != 0 ||
        !e2b_machine_id_valid(name + n - E2B_MACHINE_ID_LEN, E2B_MACHINE_ID_LEN))
        return NULL;
    return m;
}

static int name_made_here(const char *name, const char *machine_id)
{
    const char *m = machine_mark(name);
    return m && strcmp(m + strlen(E2B_MANAGED_MACHINE_MARK), machine_id) == 0;
}

int e2b_template_made_here(const e2b_template *t, const char *machine_id)
{
    if (!machine_id || !e2b_machine_id_valid(machine_id, strlen(machine_id)))
        return 0;
    if (name_made_here(t->template_id, machine_id))
        return 1;
    for (size_t i = 0; i < t->naliases; i++)
        if (name_made_here(t->aliases[i], machine_id))
            return 1;
    return 0;
}

void e2b_template_project(const e2b_template *t, char *out, size_t outsz)
{
    const char *name = machine_mark(t->template_id) ? t->template_id : NULL;
    for (size_t i = 0; !name && i < t->naliases; i++)
        if (machine_mark(t->aliases[i]))
            name = t->aliases[i];
    const char *m = name ? machine_mark(name) : NULL;
    size_t p = strlen(E2B_MANAGED_TEMPLATE_PREFIX);
    snprintf(out, outsz, "%.*s", m ? (int)(m - name - (ptrdiff_t)p) : 0, m ? name + p : "");
}

int e2b_template_gc_due(const e2b_template *t, time_t now, long ttl_s, const char *machine_id)
{
    time_t last = e2b_template_last_used(t);
    return e2b_template_is_managed(t) && e2b_template_made_here(t, machine_id) && !t->is_public &&
           last > 0 && now - last > ttl_s;
}

/* ---- calls ---- */

struct pending {
    void (*fn)(void);
    void *ud;
    e2b_client *c;
};

static struct pending *pending_new(e2b_client *c, void (*fn)(void), void *ud)
{
    struct pending *p = malloc(sizeof *p);
    if (p) {
        p->fn = fn;
        p->ud = ud;
        p->c = c;
    }
    return p;
}

static e2b_api_call *start(e2b_client *c, const e2b_json_call *jc, e2b_api_json_fn done, void (*fn)(void),
                           void *ud, e2b_error **err)
{
    struct pending *p = pending_new(c, fn, ud);
    if (!p) {
        *err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        return NULL;
    }
    e2b_api_call *call = e2b_api_json_call(c, jc, done, p, err);
    if (!call)
        free(p);
    return call;
}

static int bad_id(const char *id)
{
    return !id || !*id || strlen(id) > 256;
}

static e2b_api_call *invalid(e2b_error **err, const char *what)
{
    *err = e2b_error_new(E2B_ERR_INVALID, "%s", what);
    return NULL;
}

static void snapshot_done(void *ud, json_t *v, long status, const e2b_error *err)
{
    struct pending *p = ud;
    (void)status;
    e2b_snapshot *s = NULL;
    e2b_error *perr = NULL;
    if (!err) {
        s = calloc(1, sizeof *s);
        perr = s ? e2b_snapshot_from_json(v, s) : e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        if (perr) {
            free(s);
            s = NULL;
            e2b_error_set_action(perr, "reading the new snapshot");
        }
    }
    ((e2b_api_snapshot_fn)p->fn)(p->ud, s, err ? err : perr);
    e2b_error_free(perr);
    json_decref(v);
    free(p);
}

e2b_api_call *e2b_api_snapshot_create(e2b_client *c, const char *sandbox_id, const char *name,
                                      e2b_api_snapshot_fn fn, void *ud, e2b_error **err)
{
    if (bad_id(sandbox_id))
        return invalid(err, "no sandbox id given");
    char *s = e2b_encode_uri_component(sandbox_id);
    char *path = s ? e2b_strfmt("/sandboxes/%s/snapshots", s) : NULL;
    char *action = e2b_strfmt("taking a snapshot of sandbox %s", sandbox_id);
    char *nf = e2b_strfmt("no sandbox with id %s", sandbox_id);
    json_t *body = name ? json_pack("{s:s}", "name", name) : json_object();
    e2b_api_call *call = NULL;
    if (path && action && nf && body) {
        /* The sandbox is paused while it is copied: as long as a pause may take. */
        e2b_json_call jc = {.method = "POST", .path = path, .body = body, .action = action, .not_found = nf,
                            .ok1 = 201, .ok2 = 200, .timeout_ms = 300000};
        call = start(c, &jc, snapshot_done, (void (*)(void))fn, ud, err);
    } else {
        *err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    }
    free(s), free(path), free(action), free(nf);
    json_decref(body);
    return call;
}

static void snapshots_done(void *ud, json_t *v, long status, const e2b_error *err)
{
    struct pending *p = ud;
    (void)status;
    e2b_snapshot_list *l = NULL;
    e2b_error *perr = NULL;
    if (!err) {
        size_t n = json_array_size(v);
        l = calloc(1, sizeof *l);
        if (l)
            l->items = calloc(n ? n : 1, sizeof *l->items);
        if (!l || !l->items)
            perr = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        else if (n > MAX_ITEMS)
            perr = e2b_error_new(E2B_ERR_PROTOCOL, "more than %d snapshots", MAX_ITEMS);
        for (size_t i = 0; !perr && i < n; i++) {
            perr = e2b_snapshot_from_json(json_array_get(v, i), &l->items[i]);
            if (!perr)
                l->count++;
        }
        if (perr) {
            if (l && !l->items) {
                free(l);
                l = NULL;
            }
            e2b_snapshot_list_free(l);
            l = NULL;
            e2b_error_set_action(perr, "listing snapshots");
        }
    }
    ((e2b_api_snapshot_list_fn)p->fn)(p->ud, l, err ? err : perr);
    e2b_error_free(perr);
    json_decref(v);
    free(p);
}

e2b_api_call *e2b_api_snapshots_list(e2b_client *c, const char *sandbox_id, e2b_api_snapshot_list_fn fn,
                                     void *ud, e2b_error **err)
{
    char *s = sandbox_id ? e2b_encode_uri_component(sandbox_id) : NULL;
    char *query = sandbox_id ? (s ? e2b_strfmt("sandboxID=%s&limit=100", s) : NULL) : strdup("limit=100");
    e2b_api_call *call = NULL;
    if (query) {
        e2b_json_call jc = {.method = "GET", .path = "/snapshots", .query = query, .action = "listing snapshots",
                            .ok1 = 200, .paged = 1, .retry_503 = 1};
        call = start(c, &jc, snapshots_done, (void (*)(void))fn, ud, err);
    } else {
        *err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    }
    free(s);
    free(query);
    return call;
}

static void status_done(void *ud, json_t *v, long status, const e2b_error *err)
{
    struct pending *p = ud;
    ((e2b_api_status_fn)p->fn)(p->ud, status, err);
    json_decref(v);
    free(p);
}

e2b_api_call *e2b_api_template_delete(e2b_client *c, const char *template_id, e2b_api_status_fn fn, void *ud,
                                      e2b_error **err)
{
    if (bad_id(template_id))
        return invalid(err, "no template id given");
    char *s = e2b_encode_uri_component(template_id);
    char *path = s ? e2b_strfmt("/templates/%s", s) : NULL;
    char *action = e2b_strfmt("deleting template %s", template_id);
    char *nf = e2b_strfmt("no template or snapshot %s (already deleted?)", template_id);
    e2b_api_call *call = NULL;
    if (path && action && nf) {
        e2b_json_call jc = {.method = "DELETE", .path = path, .action = action, .not_found = nf, .ok1 = 204,
                            .ok2 = 200, .retry_503 = 1};
        call = start(c, &jc, status_done, (void (*)(void))fn, ud, err);
    } else {
        *err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    }
    free(s), free(path), free(action), free(nf);
    return call;
}

static void templates_done(void *ud, json_t *v, long status, const e2b_error *err)
{
    struct pending *p = ud;
    (void)status;
    e2b_template_list *l = NULL;
    e2b_error *perr = NULL;
    if (!err) {
        l = calloc(1, sizeof *l);
        perr = l ? e2b_template_list_from_json(v, l) : e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        if (perr) {
            free(l);
            l = NULL;
            e2b_error_set_action(perr, "listing templates");
        }
    }
    ((e2b_api_template_list_fn)p->fn)(p->ud, l, err ? err : perr);
    e2b_error_free(perr);
    json_decref(v);
    free(p);
}

e2b_api_call *e2b_api_templates_list(e2b_client *c, e2b_api_template_list_fn fn, void *ud, e2b_error **err)
{
    e2b_json_call jc = {.method = "GET", .path = "/templates", .action = "listing templates", .ok1 = 200,
                        .retry_503 = 1};
    return start(c, &jc, templates_done, (void (*)(void))fn, ud, err);
}

static e2b_fork_list *forks_from_json(const json_t *a, const char *keys, e2b_error **perr)
{
    if (!json_is_array(a) || json_array_size(a) > 100) {
        *perr = e2b_error_new(E2B_ERR_PROTOCOL, "the fork reply is not a list of at most 100 results");
        return NULL;
    }
    size_t n = json_array_size(a);
    e2b_fork_list *l = calloc(1, sizeof *l);
    if (l)
        l->items = calloc(n ? n : 1, sizeof *l->items);
    if (!l || !l->items) {
        free(l);
        *perr = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < n; i++, l->count++) {
        const json_t *o = json_array_get(a, i);
        const json_t *sb = json_object_get(o, "sandbox");
        e2b_fork_result *r = &l->items[i];
        if (json_is_object(sb)) {
            r->sandbox = calloc(1, sizeof *r->sandbox);
            e2b_error *e = r->sandbox ? e2b_sandbox_from_json(sb, r->sandbox)
                                      : e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
            if (!e && e2b_sandbox_classify(r->sandbox, keys) < 0)
                e = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
            if (e) {
                e2b_sandbox_free(r->sandbox);
                r->sandbox = NULL;
                r->error = e;
            }
            continue;
        }
        const json_t *er = json_object_get(o, "error");
        long code = (long)json_integer_value(json_object_get(er, "code"));
        const char *msg = json_string_value(json_object_get(er, "message"));
        char *body = er ? json_dumps(er, JSON_COMPACT) : NULL;
        r->error = e2b_error_from_http(code >= 400 ? code : 500, body, body ? strlen(body) : 0, NULL, NULL);
        free(body);
        if (!msg && !er)
            e2b_error_set_action(r->error, "a fork reported neither a sandbox nor an error");
    }
    return l;
}

static void fork_done(void *ud, json_t *v, long status, const e2b_error *err)
{
    struct pending *p = ud;
    (void)status;
    e2b_fork_list *l = NULL;
    e2b_error *perr = NULL;
    if (!err) {
        l = forks_from_json(v, e2b_client_workspace_keys(p->c), &perr);
        if (perr)
            e2b_error_set_action(perr, "reading the forks");
    }
    ((e2b_api_fork_fn)p->fn)(p->ud, l, err ? err : perr);
    e2b_error_free(perr);
    json_decref(v);
    free(p);
}

e2b_api_call *e2b_api_fork(e2b_client *c, const char *sandbox_id, int count, long timeout_s, e2b_api_fork_fn fn,
                           void *ud, e2b_error **err)
{
    if (bad_id(sandbox_id))
        return invalid(err, "no sandbox id given");
    if (count < 1 || count > 100)
        return invalid(err, "a fork count is 1 to 100");
    char *s = e2b_encode_uri_component(sandbox_id);
    char *path = s ? e2b_strfmt("/sandboxes/%s/fork", s) : NULL;
    char *action = e2b_strfmt("forking sandbox %s", sandbox_id);
    char *nf = e2b_strfmt("no sandbox with id %s", sandbox_id);
    json_t *body = json_pack("{s:i}", "count", count);
    if (body && timeout_s > 0)
        json_object_set_new(body, "timeout", json_integer(timeout_s));
    e2b_api_call *call = NULL;
    if (path && action && nf && body) {
        e2b_json_call jc = {.method = "POST", .path = path, .body = body, .action = action, .not_found = nf,
                            .ok1 = 201, .ok2 = 200, .timeout_ms = 300000};
        call = start(c, &jc, fork_done, (void (*)(void))fn, ud, err);
    } else {
        *err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    }
    free(s), free(path), free(action), free(nf);
    json_decref(body);
    return call;
}
