/* The control plane (api.<domain>): sandboxes, metrics, logs, network, templates, secrets.
 * Wire details follow E2B's OpenAPI as the published SDK uses it. */
#include "cow.h"
#include "egress_policy.h"
#include "http.h"
#include "lifecycle.h"
#include "process.h"
#include "runtime.h"
#include "sandbox.h"
#include "secrets.h"
#include "templates.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_TIMEOUT_S 300
#define MAX_TIMEOUT_S (24 * 3600)

static bool strings_object(json_t *o)
{
    if (!json_is_object(o))
        return false;
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v) {
        if (!json_is_string(v))
            return false;
    }
    return true;
}

static json_t *parse_body(struct req *r, bool *bad)
{
    *bad = false;
    if (!r->body.len)
        return json_object();
    json_error_t err;
    json_t *o = json_loadb(r->body.data, r->body.len, 0, &err);
    if (!json_is_object(o)) {
        json_decref(o);
        *bad = true;
        return NULL;
    }
    return o;
}

/* ---- create --------------------------------------------------------------------------- */

static enum MHD_Result create_sandbox(struct req *r)
{
    bool bad;
    json_t *body = parse_body(r, &bad);
    if (bad)
        return reply_error(r, 400, "the body must be a JSON object");
    json_t *tpl = json_object_get(body, "templateID");
    const char *template_id = tpl ? json_string_value(tpl) : "base";
    json_t *timeout = json_object_get(body, "timeout");
    json_t *md = json_object_get(body, "metadata");
    json_t *env = json_object_get(body, "envVars");
    json_t *net = json_object_get(body, "network");
    json_t *auto_pause = json_object_get(body, "autoPause");
    json_t *auto_resume = json_object_get(body, "autoResume");
    json_t *internet = json_object_get(body, "allow_internet_access");
    const char *why = NULL;
    if (!template_id || !*template_id)
        why = "templateID must be a string";
    else if (timeout && (!json_is_integer(timeout) || json_integer_value(timeout) < 0))
        why = "timeout must be a non-negative integer (seconds)";
    else if (md && !json_is_null(md) && !strings_object(md))
        why = "metadata must be an object of strings";
    else if (env && !json_is_null(env) && !strings_object(env))
        why = "envVars must be an object of strings";
    else if (net && !json_is_null(net) && !json_is_object(net))
        why = "network must be an object";
    else if (auto_pause && !json_is_boolean(auto_pause))
        why = "autoPause must be a boolean";
    else if (internet && !json_is_boolean(internet) && !json_is_null(internet))
        why = "allow_internet_access must be a boolean";
    char net_why[400];
    if (!why && json_is_object(net) && !egress_network_valid(net, net_why, sizeof net_why))
        why = net_why;
    if (why) {
        enum MHD_Result rc = reply_error(r, 400, "%s", why);
        json_decref(body);
        return rc;
    }
    char tname[32], from[2300];
    if (strlen(template_id) > 200 || !template_resolve(template_id, tname, sizeof tname, from, sizeof from)) {
        enum MHD_Result rc = reply_error(r, 404, "template '%.200s' not found", template_id);
        json_decref(body);
        return rc;
    }
    struct sandbox *sb = sandbox_new(tname);
    if (!sb) {
        json_decref(body);
        return reply_error(r, 500, "cannot create the sandbox's files");
    }
    if (from[0]) { /* a snapshot: its files become the sandbox's */
        char root[2300];
        sandbox_root_path(sb->id, root, sizeof root);
        if (cow_root_from(sb->id, from) != 0 && copy_tree(from, root) != 0) {
            remove_tree(root);
            json_decref(sb->metadata), json_decref(sb->env_vars), json_decref(sb->logs);
            free(sb);
            enum MHD_Result rc = reply_error(r, 404, "template '%.200s' not found (deleted while it was copied)",
                                             template_id);
            json_decref(body);
            return rc;
        }
    }
    template_spawned(tname);
    int64_t secs = timeout ? json_integer_value(timeout) : DEFAULT_TIMEOUT_S;
    if (secs > MAX_TIMEOUT_S)
        secs = MAX_TIMEOUT_S;
    sb->end_ms = sb->started_ms + secs * 1000;
    if (json_is_object(md))
        json_object_update(sb->metadata, md);
    if (json_is_object(env))
        json_object_update(sb->env_vars, env);
    if (json_is_object(net)) {
        sb->network = json_incref(net);
        sb->public_traffic = !json_is_false(json_object_get(net, "allowPublicTraffic"));
    }
    sb->auto_pause = json_is_true(auto_pause);
    sb->auto_resume = json_is_true(json_object_get(auto_resume, "enabled"));
    if (json_is_boolean(internet))
        sb->allow_internet = json_is_true(internet);
    json_decref(body);
    pthread_mutex_lock(&g_lock);
    sandbox_log_locked(sb, "info", "sandbox created");
    sandbox_add_locked(sb);
    int saved = sandbox_save_locked(sb);
    json_t *out = sandbox_json_created(sb);
    if (saved != 0) {
        lifecycle_kill_locked(sb, "cannot write its record");
        pthread_mutex_unlock(&g_lock);
        json_decref(out);
        return reply_error(r, 500, "cannot write the sandbox record");
    }
    pthread_mutex_unlock(&g_lock);
    return reply_json(r, 201, out);
}

/* ---- list ----------------------------------------------------------------------------- */

static int cmp_asc(const void *a, const void *b)
{
    const struct sandbox *x = *(struct sandbox *const *)a, *y = *(struct sandbox *const *)b;
    if (x->started_ms != y->started_ms)
        return x->started_ms < y->started_ms ? -1 : 1;
    return strcmp(x->id, y->id);
}

static int cmp_desc(const void *a, const void *b)
{
    return -cmp_asc(a, b);
}

/* Decodes the metadata filter exactly as E2B does: the (already once-decoded) value is
 * unescaped as a whole, split on '&' and '=', and each key and value unescaped again. */
static json_t *parse_metadata_filter(const char *value)
{
    char *whole = query_unescape(value, strlen(value));
    if (!whole)
        return NULL;
    json_t *filter = json_object();
    char *save = NULL;
    for (char *pair = strtok_r(whole, "&", &save); pair; pair = strtok_r(NULL, "&", &save)) {
        char *eq = strchr(pair, '=');
        if (!eq || strchr(eq + 1, '=')) {
            json_decref(filter);
            free(whole);
            return NULL;
        }
        char *k = query_unescape(pair, (size_t)(eq - pair));
        char *v = query_unescape(eq + 1, strlen(eq + 1));
        if (!k || !v) {
            free(k);
            free(v);
            json_decref(filter);
            free(whole);
            return NULL;
        }
        json_object_set_new(filter, k, json_string(v));
        free(k);
        free(v);
    }
    free(whole);
    return filter;
}

static bool metadata_matches(const struct sandbox *sb, json_t *filter)
{
    const char *k;
    json_t *v;
    json_object_foreach(filter, k, v) {
        const char *have = json_string_value(json_object_get(sb->metadata, k));
        if (!have || strcmp(have, json_string_value(v)) != 0)
            return false;
    }
    return true;
}

static enum MHD_Result list_sandboxes(struct req *r, bool v1)
{
    bool bad = false;
    char *state = req_query(r, "state", &bad);
    char *mdq = req_query(r, "metadata", &bad);
    char *limq = req_query(r, "limit", &bad);
    char *tok = req_query(r, "nextToken", &bad);
    char *order = req_query(r, "order", &bad);
    char *after = req_query(r, "startedAfter", &bad);
    char *tpl = req_query(r, "template", &bad);
    json_t *filter = NULL;
    char why[200] = "";
    bool want_running = true, want_paused = !v1;
    long limit = 100;
    int64_t after_ms = -1;
    bool asc = false;
    int64_t cur_ms = 0;
    char cur_id[sizeof((struct sandbox *)0)->id] = "";
    if (bad)
        snprintf(why, sizeof why, "malformed query string");
    if (!why[0] && state) {
        want_running = want_paused = false;
        char *save = NULL;
        for (char *s = strtok_r(state, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
            if (strcmp(s, "running") == 0)
                want_running = true;
            else if (strcmp(s, "paused") == 0)
                want_paused = true;
            else
                snprintf(why, sizeof why, "invalid state '%s' (running or paused)", s);
        }
    }
    if (!why[0] && mdq && !(filter = parse_metadata_filter(mdq)))
        snprintf(why, sizeof why, "invalid metadata filter: use key=value pairs joined by &");
    if (!why[0] && limq) {
        char *end;
        limit = strtol(limq, &end, 10);
        if (*end || limit < 0)
            snprintf(why, sizeof why, "limit must be a non-negative integer");
        if (limit > 100 || limit == 0)
            limit = 100;
    }
    if (!why[0] && order) {
        if (strcmp(order, "asc") == 0)
            asc = true;
        else if (strcmp(order, "desc") != 0)
            snprintf(why, sizeof why, "order must be asc or desc");
    }
    if (!why[0] && after && (after_ms = parse_rfc3339(after)) < 0)
        snprintf(why, sizeof why, "startedAfter must be an RFC 3339 date-time");
    if (!why[0] && tok && *tok) {
        char *dec = b64url_decode(tok);
        char *sep = dec ? strstr(dec, "__") : NULL;
        bool tok_asc = dec && strstr(dec, "__asc") != NULL;
        size_t id_len = sep ? strcspn(sep + 2, "_") : 0;
        /* A cursor id longer than any sandbox id was not issued here. */
        if (!sep || tok_asc != asc || id_len >= sizeof((struct sandbox *)0)->id) {
            snprintf(why, sizeof why, "invalid nextToken");
        } else {
            cur_ms = strtoll(dec, NULL, 10);
            snprintf(cur_id, sizeof cur_id, "%.*s", (int)strcspn(sep + 2, "_"), sep + 2);
        }
        free(dec);
    }
    if (why[0]) {
        free(state), free(mdq), free(limq), free(tok), free(order), free(after), free(tpl);
        json_decref(filter);
        return reply_error(r, 400, "%s", why);
    }

    pthread_mutex_lock(&g_lock);
    size_t n;
    struct sandbox **all = sandbox_all_locked(&n);
    struct sandbox **sel = malloc((n ? n : 1) * sizeof *sel);
    size_t m = 0, running = 0;
    for (size_t i = 0; i < n; i++) {
        struct sandbox *sb = all[i];
        bool st_ok = sb->state == SB_RUNNING ? want_running : want_paused;
        if (!st_ok || (filter && !metadata_matches(sb, filter)) || (after_ms >= 0 && sb->started_ms < after_ms) ||
            (tpl && strcmp(tpl, sb->template_id) != 0))
            continue;
        if (sb->state == SB_RUNNING)
            running++;
        sel[m++] = sb;
    }
    qsort(sel, m, sizeof *sel, asc ? cmp_asc : cmp_desc);
    size_t start = 0;
    if (cur_id[0]) {
        struct sandbox key = {.started_ms = cur_ms};
        memcpy(key.id, cur_id, strlen(cur_id) + 1); /* length checked when decoded */
        struct sandbox *kp = &key;
        while (start < m && (asc ? cmp_asc(&sel[start], &kp) : cmp_desc(&sel[start], &kp)) <= 0)
            start++;
    }
    json_t *out = json_array();
    size_t end = v1 ? m : (start + (size_t)limit < m ? start + (size_t)limit : m);
    for (size_t i = start; i < end; i++)
        json_array_append_new(out, sandbox_json_listed(sel[i]));
    if (end < m && end > start) {
        char raw[128];
        snprintf(raw, sizeof raw, "%lld__%s%s", (long long)sel[end - 1]->started_ms, sel[end - 1]->id,
                 asc ? "__asc" : "");
        char *enc = b64url_encode(raw);
        req_add_header(r, "X-Next-Token", enc);
        free(enc);
    }
    if (want_running) {
        char cnt[32];
        snprintf(cnt, sizeof cnt, "%zu", running);
        req_add_header(r, "X-Total-Running", cnt);
    }
    pthread_mutex_unlock(&g_lock);
    free(sel);
    free(state), free(mdq), free(limq), free(tok), free(order), free(after), free(tpl);
    json_decref(filter);
    return reply_json(r, 200, out);
}

/* ---- one sandbox ---------------------------------------------------------------------- */

static enum MHD_Result connect_sandbox(struct req *r, struct sandbox *sb)
{
    bool bad;
    json_t *body = parse_body(r, &bad);
    json_t *t = body ? json_object_get(body, "timeout") : NULL;
    if (bad || (t && !json_is_integer(t))) {
        json_decref(body);
        return reply_error(r, 400, "timeout must be an integer (seconds)");
    }
    int64_t secs = t ? json_integer_value(t) : DEFAULT_TIMEOUT_S;
    json_decref(body);
    if (secs < 0)
        secs = 0;
    if (secs > MAX_TIMEOUT_S)
        secs = MAX_TIMEOUT_S;
    int64_t want_end = now_ms() + secs * 1000;
    int status = 200;
    if (sb->state == SB_PAUSED) {
        lifecycle_resume_locked(sb);
        sb->end_ms = want_end;
        status = 201;
    } else if (want_end > sb->end_ms) {
        sb->end_ms = want_end; /* connect only ever extends a running sandbox */
    }
    sandbox_save_locked(sb);
    return reply_json(r, status, sandbox_json_created(sb));
}

static enum MHD_Result set_timeout(struct req *r, struct sandbox *sb)
{
    bool bad;
    json_t *body = parse_body(r, &bad);
    json_t *t = body ? json_object_get(body, "timeout") : NULL;
    if (bad || !json_is_integer(t)) {
        json_decref(body);
        return reply_error(r, 400, "timeout (seconds) is required");
    }
    int64_t secs = json_integer_value(t);
    json_decref(body);
    if (secs < 0)
        secs = 0;
    if (secs > MAX_TIMEOUT_S)
        secs = MAX_TIMEOUT_S;
    sb->end_ms = now_ms() + secs * 1000;
    sandbox_save_locked(sb);
    return reply_empty(r, 204);
}

static enum MHD_Result refresh(struct req *r, struct sandbox *sb)
{
    bool bad;
    json_t *body = parse_body(r, &bad);
    json_t *d = body ? json_object_get(body, "duration") : NULL;
    int64_t secs = json_is_integer(d) ? json_integer_value(d) : 60;
    json_decref(body);
    if (bad)
        return reply_error(r, 400, "the body must be a JSON object");
    int64_t want_end = now_ms() + secs * 1000;
    if (want_end > sb->end_ms)
        sb->end_ms = want_end;
    sandbox_save_locked(sb);
    return reply_empty(r, 204);
}

static enum MHD_Result get_logs(struct req *r, struct sandbox *sb, bool v2)
{
    bool bad = false;
    char *limq = req_query(r, "limit", &bad);
    char *search = req_query(r, "search", &bad);
    char *level = req_query(r, "level", &bad);
    char *direction = req_query(r, "direction", &bad);
    char *cursor = req_query(r, v2 ? "cursor" : "start", &bad);
    long limit = limq ? strtol(limq, NULL, 10) : 1000;
    int64_t from = cursor ? strtoll(cursor, NULL, 10) : 0;
    static const char *const levels[] = {"debug", "info", "warn", "error"};
    int min_level = 0;
    for (int i = 0; level && i < 4; i++)
        if (strcasecmp(level, levels[i]) == 0)
            min_level = i;
    bool backward = direction && strcmp(direction, "backward") == 0;
    json_t *out = json_array(), *entries = json_array();
    size_t n = json_array_size(sb->logs);
    for (size_t j = 0; j < n && (long)json_array_size(out) < (limit > 0 ? limit : 1000); j++) {
        json_t *e = json_array_get(sb->logs, backward ? n - 1 - j : j);
        const char *msg = json_string_value(json_object_get(e, "message"));
        const char *lv = json_string_value(json_object_get(e, "level"));
        int64_t ts = parse_rfc3339(json_string_value(json_object_get(e, "timestamp")));
        int li = 0;
        for (int i = 0; i < 4; i++)
            if (lv && strcmp(lv, levels[i]) == 0)
                li = i;
        if (li < min_level || (search && !strstr(msg, search)) ||
            (from && (backward ? ts > from : ts < from)))
            continue;
        json_array_append(out, e);
        json_t *lo = json_pack("{s:s, s:s, s:s}", "level", lv ? lv : "info", "logger", "e2b-local", "message",
                               msg ? msg : "");
        char *line = json_dumps(lo, JSON_COMPACT);
        json_decref(lo);
        json_array_append_new(entries, json_pack("{s:O, s:s}", "timestamp", json_object_get(e, "timestamp"),
                                                 "line", line));
        free(line);
    }
    free(limq), free(search), free(level), free(direction), free(cursor);
    if (v2) {
        json_decref(entries);
        return reply_json(r, 200, json_pack("{s:o}", "logs", out));
    }
    return reply_json(r, 200, json_pack("{s:o, s:o}", "logs", entries, "logEntries", out));
}

static enum MHD_Result bulk_metrics(struct req *r)
{
    bool bad = false;
    char *ids = req_query(r, "sandbox_ids", &bad);
    if (!ids || bad) {
        free(ids);
        return reply_error(r, 400, "sandbox_ids is required (comma-separated, at most 100)");
    }
    int count = 1;
    for (char *p = ids; *p; p++)
        count += *p == ',';
    if (count > 100) {
        free(ids);
        return reply_error(r, 400, "at most 100 sandbox_ids per request");
    }
    json_t *map = json_object();
    pthread_mutex_lock(&g_lock);
    char *save = NULL;
    for (char *id = strtok_r(ids, ",", &save); id; id = strtok_r(NULL, ",", &save)) {
        struct sandbox *sb = sandbox_find_locked(id);
        if (sb && sb->state == SB_RUNNING)
            json_object_set_new(map, id, runtime_metric_locked(sb));
    }
    pthread_mutex_unlock(&g_lock);
    free(ids);
    return reply_json(r, 200, json_pack("{s:o}", "sandboxes", map));
}

static enum MHD_Result one_sandbox(struct req *r, const char *id, const char *action, bool v2)
{
    pthread_mutex_lock(&g_lock);
    struct sandbox *sb = sandbox_find_locked(id);
    enum MHD_Result rc;
    const char *m = r->method;
    if (!sb) {
        rc = reply_error(r, 404, "sandbox \"%s\" not found", id);
    } else if (!*action && !v2 && strcmp(m, "GET") == 0) {
        rc = reply_json(r, 200, sandbox_json_detail(sb));
    } else if (!*action && !v2 && strcmp(m, "DELETE") == 0) {
        lifecycle_kill_locked(sb, "killed through the API");
        rc = reply_empty(r, 204);
    } else if (strcmp(action, "pause") == 0 && !v2 && strcmp(m, "POST") == 0) {
        if (sb->state == SB_PAUSED) {
            rc = reply_error(r, 409, "sandbox \"%s\" is already paused", id);
        } else {
            lifecycle_pause_locked(sb, "sandbox paused");
            rc = reply_empty(r, 204);
        }
    } else if (strcmp(action, "connect") == 0 && strcmp(m, "POST") == 0) {
        rc = connect_sandbox(r, sb);
    } else if (strcmp(action, "resume") == 0 && !v2 && strcmp(m, "POST") == 0) {
        if (sb->state == SB_RUNNING) {
            rc = reply_error(r, 409, "sandbox \"%s\" is already running", id);
        } else {
            rc = connect_sandbox(r, sb);
        }
    } else if (strcmp(action, "timeout") == 0 && !v2 && strcmp(m, "POST") == 0) {
        rc = set_timeout(r, sb);
    } else if (strcmp(action, "refreshes") == 0 && !v2 && strcmp(m, "POST") == 0) {
        rc = refresh(r, sb);
    } else if (strcmp(action, "metrics") == 0 && !v2 && strcmp(m, "GET") == 0) {
        json_t *arr = json_array();
        if (sb->state == SB_RUNNING)
            json_array_append_new(arr, runtime_metric_locked(sb));
        rc = reply_json(r, 200, arr);
    } else if (strcmp(action, "logs") == 0 && strcmp(m, "GET") == 0) {
        rc = get_logs(r, sb, v2);
    } else if (strcmp(action, "network") == 0 && !v2 && strcmp(m, "PUT") == 0) {
        bool bad;
        json_t *body = parse_body(r, &bad);
        char why[400];
        if (bad) {
            rc = reply_error(r, 400, "the body must be a JSON object");
        } else if (!egress_network_valid(body, why, sizeof why)) {
            rc = reply_error(r, 400, "%s", why);
        } else {
            json_t *internet = json_object_get(body, "allow_internet_access");
            json_object_del(body, "allow_internet_access");
            json_decref(sb->network);
            sb->network = json_object_size(body) ? json_incref(body) : NULL;
            sb->allow_internet = json_is_boolean(internet) ? json_is_true(internet) : -1;
            sandbox_save_locked(sb);
            rc = reply_empty(r, 204);
        }
        json_decref(body);
    } else {
        rc = reply_error(r, 404, "no such endpoint: %s %s", m, r->path);
    }
    pthread_mutex_unlock(&g_lock);
    return rc;
}

static bool authorized(struct req *r)
{
    const char *key = req_header(r, "X-API-KEY");
    if (!key || !*key)
        return false;
    return !g_cfg.api_key[0] || strcmp(key, g_cfg.api_key) == 0;
}

enum MHD_Result control_handle(struct req *r)
{
    const char *p = r->path, *m = r->method;
    if (strcmp(p, "/health") == 0 && strcmp(m, "GET") == 0)
        return reply_json(r, 200, json_pack("{s:s}", "status", "ok"));
    if (!authorized(r))
        return reply_error(r, 401, "Invalid API key: send a valid key in the X-API-KEY header");
    if (strcmp(p, "/v2/sandboxes") == 0 || strcmp(p, "/sandboxes") == 0) {
        if (strcmp(m, "POST") == 0)
            return create_sandbox(r);
        if (strcmp(m, "GET") == 0)
            return list_sandboxes(r, p[1] != 'v');
        return reply_error(r, 405, "method not allowed");
    }
    if (strcmp(p, "/sandboxes/metrics") == 0 && strcmp(m, "GET") == 0)
        return bulk_metrics(r);
    if (strcmp(p, "/templates") == 0 || strncmp(p, "/templates/", 11) == 0 || strcmp(p, "/snapshots") == 0)
        return templates_handle(r);
    if (strcmp(p, "/secrets") == 0 || strncmp(p, "/secrets/", 9) == 0)
        return secrets_handle(r);
    bool v2 = strncmp(p, "/v2/sandboxes/", 14) == 0;
    if (v2 || strncmp(p, "/sandboxes/", 11) == 0) {
        const char *rest = p + (v2 ? 14 : 11);
        char id[64];
        size_t idlen = strcspn(rest, "/");
        if (idlen == 0 || idlen >= sizeof id)
            return reply_error(r, 404, "sandbox not found");
        memcpy(id, rest, idlen);
        id[idlen] = '\0';
        const char *action = rest[idlen] == '/' ? rest + idlen + 1 : "";
        if (!v2 && strcmp(action, "snapshots") == 0 && strcmp(m, "POST") == 0)
            return snapshot_create(r, id);
        if (!v2 && strcmp(action, "fork") == 0 && strcmp(m, "POST") == 0)
            return sandbox_fork(r, id);
        return one_sandbox(r, id, action, v2);
    }
    return reply_error(r, 404, "no such endpoint: %s %s", m, p);
}
