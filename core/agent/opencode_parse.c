/* The OpenCode servers' REST bodies into core/agent/agent.h structs, for both APIs. Every
 * string is bounded and sanitised here (e2b_agent_text); lists are capped. */
#include "core/agent/opencode_internal.h"

#include "core/util/buf.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

char *oc_strv(json_t *v, size_t max)
{
    if (!json_is_string(v))
        return NULL;
    return e2b_agent_text(json_string_value(v), json_string_length(v), max, false, false);
}

json_t *oc_list(int api, json_t *root)
{
    if (api == 1 || json_is_array(root))
        return json_is_array(root) ? root : NULL;
    json_t *data = json_object_get(root, "data");
    json_t *cand[3] = {data, json_object_get(root, "items"), json_object_get(data, "items")};
    for (int i = 0; i < 3; i++)
        if (json_is_array(cand[i]))
            return cand[i];
    return NULL;
}

json_t *oc_object(int api, json_t *root)
{
    return api == 1 ? root : json_object_get(root, "data");
}

char *oc_str(json_t *obj, const char *key, size_t max)
{
    return oc_strv(json_object_get(obj, key), max);
}

int64_t oc_int(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    if (json_is_integer(v))
        return (int64_t)json_integer_value(v);
    if (json_is_real(v)) {
        double d = json_real_value(v);
        if (d > -9e18 && d < 9e18)
            return (int64_t)d;
    }
    return 0;
}

char *oc_join(json_t *arr, const char *sep, size_t max)
{
    if (!json_is_array(arr) || !json_array_size(arr))
        return NULL;
    e2b_buf b = {0};
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v) {
        if (!json_is_string(v))
            continue;
        if (b.len)
            e2b_buf_adds(&b, sep);
        size_t room = b.len < max ? max - b.len : 0;
        size_t n = json_string_length(v);
        e2b_buf_add(&b, json_string_value(v), n < room ? n : room);
        if (b.len >= max)
            break;
    }
    char *raw = e2b_buf_take(&b);
    if (!raw)
        return NULL;
    char *s = e2b_agent_text(raw, strlen(raw), max, false, false);
    free(raw);
    return s;
}

static char *summary_of(const char *action, const char *detail)
{
    char *raw;
    if (action && *action && detail && *detail) {
        size_t n = strlen(action) + strlen(detail) + 3;
        raw = malloc(n);
        if (raw)
            snprintf(raw, n, "%s: %s", action, detail);
    } else {
        raw = strdup(action && *action ? action : detail ? detail : "");
    }
    if (!raw)
        return NULL;
    char *s = e2b_agent_text(raw, strlen(raw), E2B_AGENT_DETAIL_MAX, false, false);
    free(raw);
    return s;
}

/* Whether kept is v, a string the box sent, unchanged (not cut or sanitised). */
static bool same_text(json_t *v, const char *kept)
{
    return json_is_string(v) && kept && json_string_length(v) == strlen(kept) &&
           strcmp(json_string_value(v), kept) == 0;
}

/* Whether kept is the one element of array a, unchanged. */
static bool only_text(json_t *a, const char *kept)
{
    return json_is_array(a) && json_array_size(a) == 1 && same_text(json_array_get(a, 0), kept);
}

int oc_request_from(int api, bool question, json_t *o, e2b_agent_request *r)
{
    memset(r, 0, sizeof *r);
    if (!json_is_object(o))
        return -1;
    r->id = oc_str(o, "id", E2B_AGENT_TEXT_MAX);
    r->session_id = oc_str(o, "sessionID", E2B_AGENT_TEXT_MAX);
    r->question = question;
    if (!r->id || !*r->id) {
        e2b_agent_request_clear(r);
        return -1;
    }
    json_t *always = NULL;
    if (question) {
        json_t *q = json_array_get(json_object_get(o, "questions"), 0);
        r->action = oc_str(q, "header", E2B_AGENT_TEXT_MAX);
        r->detail = oc_str(q, "question", E2B_AGENT_DETAIL_MAX);
        if (!r->action)
            r->action = strdup("question");
        json_t *qs = json_object_get(o, "questions");
        r->nquestions = json_is_array(qs) ? (unsigned)json_array_size(qs) : 0;
        /* OpenCode allows a typed answer unless the question says custom: false */
        r->custom = !json_is_false(json_object_get(q, "custom"));
        r->multiple = json_is_true(json_object_get(q, "multiple"));
        json_t *opts = json_object_get(q, "options");
        size_t n = json_is_array(opts) ? json_array_size(opts) : 0;
        if (n > E2B_AGENT_OPTIONS_MAX)
            n = E2B_AGENT_OPTIONS_MAX;
        if (n) {
            r->option_labels = calloc(n, sizeof *r->option_labels);
            r->option_descs = calloc(n, sizeof *r->option_descs);
        }
        for (size_t i = 0; r->option_labels && r->option_descs && i < n; i++) {
            json_t *op = json_array_get(opts, i);
            char *label = oc_str(op, "label", E2B_AGENT_TEXT_MAX);
            if (!label || !*label) {
                free(label);
                continue;
            }
            char *desc = oc_str(op, "description", E2B_AGENT_TEXT_MAX);
            r->option_labels[r->noptions] = label;
            r->option_descs[r->noptions++] = desc ? desc : strdup("");
        }
    } else if (api == 1) {
        r->action = oc_str(o, "permission", E2B_AGENT_TEXT_MAX);
        json_t *cmd = json_object_get(json_object_get(o, "metadata"), "command");
        r->detail = oc_strv(cmd, E2B_AGENT_DETAIL_MAX);
        r->exact = same_text(cmd, r->detail);
        if (!r->detail) {
            r->detail = oc_join(json_object_get(o, "patterns"), ", ", E2B_AGENT_DETAIL_MAX);
            r->exact = only_text(json_object_get(o, "patterns"), r->detail);
        }
        always = json_object_get(o, "always");
    } else {
        r->action = oc_str(o, "action", E2B_AGENT_TEXT_MAX);
        r->detail = oc_join(json_object_get(o, "resources"), ", ", E2B_AGENT_DETAIL_MAX);
        r->exact = only_text(json_object_get(o, "resources"), r->detail);
        always = json_object_get(o, "save");
    }
    if (json_is_array(always) && json_array_size(always)) {
        size_t n = json_array_size(always);
        if (n > 8)
            n = 8;
        r->always = calloc(n, sizeof *r->always);
        for (size_t i = 0; r->always && i < n; i++) {
            char *s = oc_strv(json_array_get(always, i), E2B_AGENT_TEXT_MAX);
            if (s)
                r->always[r->nalways++] = s;
        }
    }
    r->summary = summary_of(r->action, r->detail);
    return 0;
}

int oc_parse_requests(int api, bool question, json_t *root, e2b_oc_result *res)
{
    json_t *arr = oc_list(api, root);
    if (!json_is_array(arr))
        return -1;
    size_t n = json_array_size(arr);
    if (n > E2B_AGENT_REQUESTS_MAX)
        n = E2B_AGENT_REQUESTS_MAX;
    res->requests = n ? calloc(n, sizeof *res->requests) : NULL;
    if (n && !res->requests)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (!oc_request_from(api, question, json_array_get(arr, i), &res->requests[res->nrequests]))
            res->nrequests++;
    return 0;
}

int oc_parse_todos(json_t *arr, e2b_agent_todo **out, size_t *count)
{
    *out = NULL;
    *count = 0;
    if (!json_is_array(arr))
        return -1;
    size_t n = json_array_size(arr);
    if (!n)
        return 0;
    *out = calloc(n, sizeof **out); /* all of them: the counts are of the whole list */
    if (!*out)
        return -1;
    for (size_t i = 0; i < n; i++) {
        json_t *t = json_array_get(arr, i);
        if (!json_is_object(t))
            continue;
        e2b_agent_todo *d = &(*out)[(*count)++];
        d->content = oc_str(t, "content", E2B_AGENT_TEXT_MAX);
        d->status = oc_str(t, "status", 32);
        d->priority = oc_str(t, "priority", 32);
        if (!d->content)
            d->content = strdup("");
        if (!d->status)
            d->status = strdup("pending");
        if (!d->priority)
            d->priority = strdup("");
    }
    return 0;
}

void oc_usage_from(json_t *o, e2b_agent_usage *u)
{
    memset(u, 0, sizeof *u);
    json_t *tok = json_object_get(o, "tokens");
    json_t *cost = json_object_get(o, "cost");
    if (json_is_object(tok)) {
        json_t *cache = json_object_get(tok, "cache");
        u->have_tokens = true;
        u->input = oc_int(tok, "input");
        u->output = oc_int(tok, "output");
        u->reasoning = oc_int(tok, "reasoning");
        u->cache_read = oc_int(cache, "read");
        u->cache_write = oc_int(cache, "write");
    }
    if (json_is_number(cost)) {
        double d = json_number_value(cost);
        /* a cost of 0 for tokens used is a server that did not price them (1.18.33's v2
         * says 0 for a model with a price): unknown, not free */
        bool unpriced = d == 0 && (u->input > 0 || u->output > 0);
        if (d >= 0 && d < 1e9 && !unpriced) { /* a box's figure, bounded */
            u->have_cost = true;
            u->cost_usd = d;
        }
    }
}

static int by_updated(const void *a, const void *b)
{
    const e2b_agent_session *x = a, *y = b;
    return x->updated_ms < y->updated_ms ? 1 : x->updated_ms > y->updated_ms ? -1 : 0;
}

int oc_parse_sessions(int api, json_t *root, e2b_oc_result *res)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return oc_parse_sessions_at(api, root, (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000, res);
}

int oc_parse_sessions_at(int api, json_t *root, int64_t now_ms, e2b_oc_result *res)
{
    res->today.day_ms = e2b_agent_day_start(now_ms);
    json_t *arr = oc_list(api, root);
    if (!json_is_array(arr))
        return -1;
    size_t n = json_array_size(arr);
    res->sessions = n ? calloc(n, sizeof *res->sessions) : NULL;
    if (n && !res->sessions)
        return -1;
    for (size_t i = 0; i < n; i++) {
        json_t *s = json_array_get(arr, i);
        if (!json_is_object(s))
            continue;
        e2b_agent_usage u;
        oc_usage_from(s, &u); /* every session counts, also those not kept */
        e2b_agent_usage_add(&res->usage, &u);
        /* today's: a session begun today counts whole; one begun before and changed today
         * spent some today, how much is not told */
        json_t *tm = json_object_get(s, "time");
        int64_t created = oc_int(tm, "created"), updated = oc_int(tm, "updated");
        if (created >= res->today.day_ms)
            e2b_agent_usage_add(&res->today.usage, &u);
        else if (updated >= res->today.day_ms && (u.have_cost || u.have_tokens))
            res->today.partial = true;
        e2b_agent_session *d = &res->sessions[res->nsessions];
        d->id = oc_str(s, "id", E2B_AGENT_TEXT_MAX);
        if (!d->id) {
            continue;
        }
        d->title = oc_str(s, "title", E2B_AGENT_TEXT_MAX);
        if (!d->title)
            d->title = strdup("");
        json_t *t = json_object_get(s, "time");
        d->updated_ms = oc_int(t, "updated");
        if (!d->updated_ms)
            d->updated_ms = oc_int(t, "created");
        res->nsessions++;
    }
    if (res->nsessions > 1)
        qsort(res->sessions, res->nsessions, sizeof *res->sessions, by_updated);
    while (res->nsessions > E2B_AGENT_SESSIONS_MAX)
        e2b_agent_session_clear(&res->sessions[--res->nsessions]);
    return 0;
}

void oc_run_from(json_t *status, e2b_oc_active *a)
{
    const char *type = json_string_value(json_object_get(status, "type"));
    a->run = E2B_OC_BUSY;
    if (type && !strcmp(type, "idle"))
        a->run = E2B_OC_IDLE;
    else if (type && !strcmp(type, "retry")) {
        a->run = E2B_OC_RETRY;
        a->attempt = (int)oc_int(status, "attempt");
        a->message = oc_str(status, "message", E2B_AGENT_DETAIL_MAX);
        a->next_ms = oc_int(status, "next");
    }
}

int oc_parse_active(int api, json_t *root, e2b_oc_result *res)
{
    json_t *obj = oc_object(api, root);
    if (!json_is_object(obj))
        return -1;
    size_t n = json_object_size(obj);
    if (n > E2B_AGENT_SESSIONS_MAX)
        n = E2B_AGENT_SESSIONS_MAX;
    res->active = n ? calloc(n, sizeof *res->active) : NULL;
    if (n && !res->active)
        return -1;
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        if (res->nactive == n)
            break;
        e2b_oc_active a = {0};
        oc_run_from(v, &a);
        if (a.run == E2B_OC_IDLE) {
            free(a.message);
            continue;
        }
        a.session_id = e2b_agent_text(key, strlen(key), E2B_AGENT_TEXT_MAX, false, false);
        res->active[res->nactive++] = a;
    }
    return 0;
}

int oc_parse_saved(json_t *root, e2b_oc_result *res)
{
    json_t *arr = oc_list(2, root);
    if (!json_is_array(arr))
        return -1;
    size_t n = json_array_size(arr);
    if (n > E2B_AGENT_REQUESTS_MAX * 4) /* a box may send any number: bounded */
        n = E2B_AGENT_REQUESTS_MAX * 4;
    res->requests = n ? calloc(n, sizeof *res->requests) : NULL;
    for (size_t i = 0; res->requests && i < n; i++) {
        json_t *o = json_array_get(arr, i);
        e2b_agent_request *r = &res->requests[res->nrequests];
        r->id = oc_str(o, "id", E2B_AGENT_TEXT_MAX);
        r->action = oc_str(o, "action", E2B_AGENT_TEXT_MAX);
        json_t *resource = json_object_get(o, "resource");
        r->detail = oc_strv(resource, E2B_AGENT_DETAIL_MAX);
        r->exact = same_text(resource, r->detail);
        r->summary = summary_of(r->action, r->detail);
        if (!r->id || !*r->id) {
            e2b_agent_request_clear(r);
            continue;
        }
        res->nrequests++;
    }
    return 0;
}
