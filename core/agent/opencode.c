/* The OpenCode client's REST calls (core/agent/opencode.h): one request per call (a prompt
 * to a new session makes the session first), routes chosen by the API. */
#include "core/agent/opencode_internal.h"

#include "core/net/http.h"
#include "core/util/base64.h"
#include "core/util/limits.h"
#include "core/util/str.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum oc_kind {
    OC_HEALTH,
    OC_SESSIONS,
    OC_ACTIVE,
    OC_PERMISSIONS,
    OC_QUESTIONS,
    OC_REPLY,
    OC_ANSWER,
    OC_NEW_SESSION, /* the first half of a prompt to a new session */
    OC_PROMPT,
    OC_INTERRUPT,
    OC_TODOS,
    OC_CONFIG,  /* model_ready: the configured model */
    OC_CATALOG, /* model_ready: the catalog */
    OC_LAST_TURN,
    OC_RECENT, /* the last step's usage (its newest messages) */
    OC_SAVED,        /* v2: the saved "always" permissions */
    OC_SAVED_REMOVE,
};

struct e2b_oc_call {
    e2b_oc_client *c;
    enum oc_kind kind;
    e2b_http_request *req;
    e2b_oc_done_fn done;
    void *ud;
    char *text;       /* OC_NEW_SESSION: the prompt to send next */
    char *session_id; /* the session of a prompt */
    char *model;      /* a prompt's model, "provider/model" (NULL = the session's) */
    bool cancelled;
};

static char *secret_header(const char *name, const char *value)
{
    size_t n = strlen(name) + strlen(value) + 3;
    char *h = malloc(n);
    if (h)
        snprintf(h, n, "%s: %s", name, value);
    return h;
}

static bool header_safe(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return false;
    return true;
}

e2b_oc_client *e2b_oc_new(e2b_loop *loop, const e2b_oc_config *cfg, e2b_error **err)
{
    if (!loop || !cfg || !cfg->base_url || !*cfg->base_url ||
        (cfg->api != 0 && cfg->api != 1 && cfg->api != 2)) {
        if (err)
            *err = e2b_error_new(E2B_ERR_INVALID, "the OpenCode client needs a server URL and API 1 or 2");
        return NULL;
    }
    if ((cfg->password && !header_safe(cfg->password)) ||
        (cfg->traffic_token && !header_safe(cfg->traffic_token)) ||
        (cfg->directory && !header_safe(cfg->directory)) ||
        (cfg->username && !header_safe(cfg->username))) {
        if (err)
            *err = e2b_error_new(E2B_ERR_INVALID, "the box's password, token or directory holds a control character");
        return NULL;
    }
    e2b_oc_client *c = calloc(1, sizeof *c);
    if (!c)
        goto oom;
    c->loop = loop;
    c->api = cfg->api ? cfg->api : 2;
    c->timeout_ms = cfg->timeout_ms > 0 ? cfg->timeout_ms : 30000;
    c->base_url = strdup(cfg->base_url);
    if (!c->base_url)
        goto oom;
    size_t bl = strlen(c->base_url);
    while (bl && c->base_url[bl - 1] == '/')
        c->base_url[--bl] = 0;
    if (cfg->password) {
        char *up = e2b_strfmt("%s:%s", cfg->username ? cfg->username : "opencode", cfg->password);
        char *b64 = up ? e2b_base64_encode((const uint8_t *)up, strlen(up)) : NULL;
        e2b_wipe_free(up);
        if (!b64)
            goto oom;
        char *val = e2b_strfmt("Basic %s", b64);
        e2b_wipe_free(b64);
        c->auth_header = val ? secret_header("Authorization", val) : NULL;
        e2b_wipe_free(val);
        if (!c->auth_header)
            goto oom;
    }
    if (cfg->traffic_token && *cfg->traffic_token &&
        !(c->token_header = secret_header("e2b-traffic-access-token", cfg->traffic_token)))
        goto oom;
    if (cfg->directory && *cfg->directory &&
        !(c->dir_header = secret_header("x-opencode-directory", cfg->directory)))
        goto oom;
    return c;
oom:
    e2b_oc_free(c);
    if (err)
        *err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    return NULL;
}

void e2b_oc_free(e2b_oc_client *c)
{
    if (!c)
        return;
    free(c->base_url);
    e2b_wipe_free(c->auth_header);
    e2b_wipe_free(c->token_header);
    free(c->dir_header);
    free(c);
}

int e2b_oc_api(const e2b_oc_client *c) { return c->api; }

void oc_headers(const e2b_oc_client *c, const char *extra, const char **out, size_t max)
{
    size_t n = 0;
    const char *all[] = {c->auth_header, c->token_header, c->dir_header, extra};
    for (size_t i = 0; i < sizeof all / sizeof *all && n + 1 < max; i++)
        if (all[i])
            out[n++] = all[i];
    out[n] = NULL;
}

void e2b_oc_result_clear(e2b_oc_result *r)
{
    if (!r)
        return;
    free(r->version);
    for (size_t i = 0; i < r->nsessions; i++)
        e2b_agent_session_clear(&r->sessions[i]);
    free(r->sessions);
    for (size_t i = 0; i < r->nactive; i++) {
        free(r->active[i].session_id);
        free(r->active[i].message);
    }
    free(r->active);
    for (size_t i = 0; i < r->nrequests; i++)
        e2b_agent_request_clear(&r->requests[i]);
    free(r->requests);
    for (size_t i = 0; i < r->ntodos; i++)
        e2b_agent_todo_clear(&r->todos[i]);
    free(r->todos);
    free(r->session_id);
    free(r->message_id);
    free(r->error);
    memset(r, 0, sizeof *r);
}

static const char *kind_doing(enum oc_kind k)
{
    switch (k) {
    case OC_HEALTH: return "asking the agent's server for its health";
    case OC_SESSIONS: return "listing the agent's sessions";
    case OC_ACTIVE: return "asking which sessions are running";
    case OC_PERMISSIONS: return "listing the agent's permission requests";
    case OC_QUESTIONS: return "listing the agent's questions";
    case OC_REPLY: return "replying to the agent";
    case OC_ANSWER: return "answering the agent's question";
    case OC_NEW_SESSION: return "making a new session";
    case OC_PROMPT: return "sending the prompt";
    case OC_INTERRUPT: return "interrupting the agent";
    case OC_CONFIG: return "reading the agent's configuration";
    case OC_CATALOG: return "reading the agent's model catalog";
    case OC_LAST_TURN: return "reading how the agent's last turn ended";
    case OC_RECENT: return "reading the agent's newest messages";
    case OC_SAVED: return "listing the agent's saved permissions";
    case OC_SAVED_REMOVE: return "removing a saved permission";
    default: return "reading the agent's todo list";
    }
}

static void call_free(struct e2b_oc_call *call)
{
    free(call->text);
    free(call->session_id);
    free(call->model);
    free(call);
}

static int call_send(struct e2b_oc_call *call, const char *method, const char *path,
                     const char *body, e2b_error **err);

/* The body parsed by the call's kind into res; -1 = not what that route answers. */
static int parse_body(struct e2b_oc_call *call, json_t *root, e2b_oc_result *res)
{
    int api = call->c->api;
    switch (call->kind) {
    case OC_HEALTH:
        res->healthy = json_is_true(json_object_get(root, "healthy"));
        res->version = oc_str(root, "version", 64);
        return json_is_object(root) ? 0 : -1;
    case OC_SESSIONS: return oc_parse_sessions(api, root, res);
    case OC_ACTIVE: return oc_parse_active(api, root, res);
    case OC_PERMISSIONS: return oc_parse_requests(api, false, root, res);
    case OC_QUESTIONS: return oc_parse_requests(api, true, root, res);
    case OC_TODOS: return oc_parse_todos(oc_list(api, root), &res->todos, &res->ntodos);
    case OC_LAST_TURN: return oc_parse_last_turn(api, root, res);
    case OC_RECENT: return oc_parse_recent(api, root, res);
    case OC_SAVED: return oc_parse_saved(root, res);
    case OC_NEW_SESSION: {
        json_t *s = oc_object(api, root);
        res->session_id = oc_str(s, "id", E2B_AGENT_TEXT_MAX);
        return res->session_id && *res->session_id ? 0 : -1;
    }
    case OC_CONFIG:
        res->version = oc_str(root, "model", E2B_AGENT_TEXT_MAX); /* "provider/id" */
        return json_is_object(root) ? 0 : -1;
    case OC_CATALOG: {
        json_t *arr = oc_list(2, root);
        const char *want = call->text ? call->text : "";
        const char *slash = strchr(want, '/');
        size_t i;
        json_t *m;
        if (!json_is_array(arr))
            return -1;
        json_array_foreach(arr, i, m) {
            const char *prov = json_string_value(json_object_get(m, "providerID"));
            const char *id = json_string_value(json_object_get(m, "id"));
            if (slash && prov && id && strlen(prov) == (size_t)(slash - want) &&
                !strncmp(prov, want, (size_t)(slash - want)) && !strcmp(id, slash + 1))
                res->healthy = true;
        }
        return 0;
    }
    case OC_PROMPT:
        if (api == 2)
            res->message_id = oc_str(json_object_get(root, "data"), "id", E2B_AGENT_TEXT_MAX);
        return 0;
    default:
        return 0;
    }
}

static bool needs_body(enum oc_kind k)
{
    return k == OC_HEALTH || k == OC_SESSIONS || k == OC_ACTIVE || k == OC_PERMISSIONS ||
           k == OC_QUESTIONS || k == OC_TODOS || k == OC_NEW_SESSION || k == OC_CONFIG ||
           k == OC_CATALOG || k == OC_LAST_TURN || k == OC_RECENT || k == OC_SAVED;
}

static void prompt_send(struct e2b_oc_call *call, e2b_error **err);

static void on_http(void *ud, const e2b_http_response *resp, const e2b_error *herr)
{
    struct e2b_oc_call *call = ud;
    e2b_oc_result res = {0};
    e2b_error *err = NULL;
    call->req = NULL;

    if (herr) {
        err = e2b_error_copy(herr);
    } else if (resp->status == 401) {
        err = e2b_error_new(E2B_ERR_AUTH, "the agent's server refused the box's password (401)");
    } else if (call->kind == OC_TODOS && call->c->api == 2 &&
               !(resp->content_type && strstr(resp->content_type, "json"))) {
        res.status = resp->status; /* v2 has no todo route (the web app answers): empty */
    } else if (resp->status < 200 || resp->status > 299) {
        err = e2b_http_status_error(resp, call->kind == OC_REPLY || call->kind == OC_ANSWER ? "no such request (answered already?)"
                                          : "no such session on the agent's server");
    } else {
        res.status = resp->status;
        bool json = resp->content_type && strstr(resp->content_type, "json");
        if (needs_body(call->kind) || (resp->body_len && json)) {
            json_error_t je;
            /* v1 answers a reply or an abort with a bare `true` */
            json_t *root = json ? json_loadb(resp->body ? resp->body : "", resp->body_len,
                                             JSON_DECODE_ANY, &je)
                                : NULL;
            /* an unknown route answers 200 with the web app's HTML: not the server we want */
            if (!root || parse_body(call, root, &res))
                err = e2b_error_new(E2B_ERR_PROTOCOL,
                                    "the agent's server answered something that is not OpenCode's "
                                    "API %d (is the opencode setting right?)", call->c->api);
            json_decref(root);
        }
    }
    if (err)
        err = e2b_error_set_action(err, "%s", kind_doing(call->kind));
    if (!err && call->kind == OC_NEW_SESSION && !call->cancelled) {
        /* the session exists: send the prompt to it */
        free(call->session_id);
        call->session_id = res.session_id;
        res.session_id = NULL;
        e2b_oc_result_clear(&res);
        call->kind = OC_PROMPT;
        prompt_send(call, &err);
        if (!err)
            return;
    }
    if (!err && call->kind == OC_CONFIG && !call->cancelled) {
        /* the configured model: look for it in the catalog (none configured: ready) */
        char *model = res.version;
        res.version = NULL;
        if (model && strchr(model, '/')) {
            free(call->text);
            call->text = model;
            e2b_oc_result_clear(&res);
            call->kind = OC_CATALOG;
            if (call_send(call, "GET", "/api/model", NULL, &err) == 0)
                return;
        } else {
            free(model);
            res.healthy = true;
        }
    }
    if (!err && call->kind == OC_PROMPT && call->session_id) {
        res.session_id = call->session_id;
        call->session_id = NULL;
    }
    if (!err && call->cancelled)
        err = e2b_error_new(E2B_ERR_CANCELLED, "cancelled");
    call->done(call->ud, err ? NULL : &res, err);
    e2b_oc_result_clear(&res);
    e2b_error_free(err);
    call_free(call);
}

static int call_send(struct e2b_oc_call *call, const char *method, const char *path,
                     const char *body, e2b_error **err)
{
    e2b_oc_client *c = call->c;
    char *url = e2b_strfmt("%s%s", c->base_url, path);
    if (!url) {
        *err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        return -1;
    }
    const char *hdrs[8];
    oc_headers(c, body ? "Content-Type: application/json" : "Accept: application/json", hdrs, 8);
    e2b_http_options o = {
        .method = method,
        .url = url,
        .headers = hdrs,
        .body = body,
        .body_len = body ? strlen(body) : 0,
        .max_body = call->kind == OC_LAST_TURN || call->kind == OC_RECENT ? E2B_AGENT_MESSAGE_BYTES : 4u * 1024 * 1024,
        .timeout_ms = c->timeout_ms,
        .connect_timeout_ms = c->timeout_ms < 10000 ? c->timeout_ms : 10000,
        .log_path = path,
    };
    call->req = e2b_http_start(c->loop, &o, on_http, call, err);
    free(url);
    return call->req ? 0 : -1;
}

static char *enc(const char *s)
{
    return e2b_percent_encode(s ? s : "", "-_.~", 0);
}

static void prompt_send(struct e2b_oc_call *call, e2b_error **err)
{
    char *sid = enc(call->session_id);
    json_t *body = call->c->api == 1
        ? json_pack("{s:[{s:s,s:s}]}", "parts", "type", "text", "text", call->text)
        : json_pack("{s:{s:s}}", "prompt", "text", call->text);
    const char *slash = call->model ? strchr(call->model, '/') : NULL;
    if (body && slash && call->c->api == 1) /* v1 takes a model per message */
        json_object_set_new(body, "model",
                            json_pack("{s:s%,s:s}", "providerID", call->model,
                                      (size_t)(slash - call->model), "modelID", slash + 1));
    char *b = body ? json_dumps(body, JSON_COMPACT) : NULL;
    json_decref(body);
    char *path = sid ? e2b_strfmt(call->c->api == 1 ? "/session/%s/prompt_async"
                                                    : "/api/session/%s/prompt", sid)
                     : NULL;
    if (!b || !path)
        *err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    else
        call_send(call, "POST", path, b, err);
    free(sid);
    free(path);
    free(b);
}

static e2b_oc_call *start(e2b_oc_client *c, enum oc_kind kind, const char *method,
                          const char *path, const char *body, e2b_oc_done_fn done, void *ud,
                          e2b_error **err)
{
    e2b_error *e = NULL;
    struct e2b_oc_call *call = calloc(1, sizeof *call);
    if (!call) {
        e = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    } else {
        *call = (struct e2b_oc_call){.c = c, .kind = kind, .done = done, .ud = ud};
        if (call_send(call, method, path, body, &e) == 0)
            return call;
        call_free(call);
    }
    if (err)
        *err = e;
    else
        e2b_error_free(e);
    return NULL;
}

void e2b_oc_cancel(e2b_oc_call *call)
{
    if (!call)
        return;
    call->cancelled = true;
    if (call->req)
        e2b_http_cancel(call->req);
}

e2b_oc_call *e2b_oc_health(e2b_oc_client *c, e2b_oc_done_fn done, void *ud, e2b_error **err)
{
    return start(c, OC_HEALTH, "GET", c->api == 1 ? "/global/health" : "/api/health", NULL,
                 done, ud, err);
}

e2b_oc_call *e2b_oc_sessions(e2b_oc_client *c, e2b_oc_done_fn done, void *ud, e2b_error **err)
{
    return start(c, OC_SESSIONS, "GET",
                 c->api == 1 ? "/session" : "/api/session?limit=32&order=desc", NULL, done, ud, err);
}

e2b_oc_call *e2b_oc_active_sessions(e2b_oc_client *c, e2b_oc_done_fn done, void *ud,
                                    e2b_error **err)
{
    return start(c, OC_ACTIVE, "GET", c->api == 1 ? "/session/status" : "/api/session/active",
                 NULL, done, ud, err);
}

e2b_oc_call *e2b_oc_permissions(e2b_oc_client *c, e2b_oc_done_fn done, void *ud, e2b_error **err)
{
    return start(c, OC_PERMISSIONS, "GET", c->api == 1 ? "/permission" : "/api/permission/request",
                 NULL, done, ud, err);
}

e2b_oc_call *e2b_oc_questions(e2b_oc_client *c, e2b_oc_done_fn done, void *ud, e2b_error **err)
{
    return start(c, OC_QUESTIONS, "GET", c->api == 1 ? "/question" : "/api/question/request",
                 NULL, done, ud, err);
}

e2b_oc_call *e2b_oc_saved(e2b_oc_client *c, e2b_oc_done_fn done, void *ud, e2b_error **err)
{
    if (c->api == 1) {
        if (err)
            *err = e2b_error_new(E2B_ERR_INVALID, "OpenCode 1's API keeps \"always\" answers in "
                                 "the server's memory, with no route to list them");
        return NULL;
    }
    return start(c, OC_SAVED, "GET", "/api/permission/saved", NULL, done, ud, err);
}

e2b_oc_call *e2b_oc_saved_remove(e2b_oc_client *c, const char *id, e2b_oc_done_fn done,
                                 void *ud, e2b_error **err)
{
    if (c->api == 1 || !id || !*id) {
        if (err)
            *err = e2b_error_new(E2B_ERR_INVALID, c->api == 1 ? "OpenCode 1's API cannot remove "
                                 "an \"always\" answer" : "no saved permission named");
        return NULL;
    }
    char *eid = enc(id);
    char *path = eid ? e2b_strfmt("/api/permission/saved/%s", eid) : NULL;
    e2b_oc_call *call = NULL;
    if (path)
        call = start(c, OC_SAVED_REMOVE, "DELETE", path, NULL, done, ud, err);
    else if (err)
        *err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    free(eid);
    free(path);
    return call;
}

e2b_oc_call *e2b_oc_reply(e2b_oc_client *c, const char *session_id, const char *request_id,
                          e2b_agent_reply reply, e2b_oc_done_fn done, void *ud, e2b_error **err)
{
    if (!request_id || !*request_id || (c->api == 2 && (!session_id || !*session_id))) {
        if (err)
            *err = e2b_error_new(E2B_ERR_INVALID, "a reply needs the request (and its session)");
        return NULL;
    }
    char *rid = enc(request_id), *sid = enc(session_id);
    char *path = c->api == 1 ? e2b_strfmt("/permission/%s/reply", rid)
                             : e2b_strfmt("/api/session/%s/permission/%s/reply", sid, rid);
    char *body = e2b_strfmt("{\"reply\":\"%s\"}", e2b_agent_reply_name(reply));
    e2b_oc_call *call = NULL;
    if (rid && sid && path && body)
        call = start(c, OC_REPLY, "POST", path, body, done, ud, err);
    else if (err)
        *err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    free(rid);
    free(sid);
    free(path);
    free(body);
    return call;
}

e2b_oc_call *e2b_oc_answer(e2b_oc_client *c, const char *session_id, const char *request_id,
                           const char *answer, unsigned nquestions, e2b_oc_done_fn done,
                           void *ud, e2b_error **err)
{
    if (!request_id || !*request_id || !answer || (c->api == 2 && (!session_id || !*session_id))) {
        if (err)
            *err = e2b_error_new(E2B_ERR_INVALID, "an answer needs the question (and its session)");
        return NULL;
    }
    if (nquestions < 1)
        nquestions = 1;
    if (nquestions > 64)
        nquestions = 64;
    json_t *answers = json_array();
    json_array_append_new(answers, json_pack("[s]", answer));
    for (unsigned i = 1; i < nquestions; i++)
        json_array_append_new(answers, json_array());
    json_t *root = json_pack("{s:o}", "answers", answers);
    char *body = root ? json_dumps(root, JSON_COMPACT) : NULL;
    json_decref(root);
    char *rid = enc(request_id), *sid = enc(session_id);
    char *path = c->api == 1 ? e2b_strfmt("/question/%s/reply", rid)
                             : e2b_strfmt("/api/session/%s/question/%s/reply", sid, rid);
    e2b_oc_call *call = NULL;
    if (rid && sid && path && body)
        call = start(c, OC_ANSWER, "POST", path, body, done, ud, err);
    else if (err)
        *err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    free(rid);
    free(sid);
    free(path);
    e2b_wipe_free(body); /* the user's words */
    return call;
}

e2b_oc_call *e2b_oc_prompt(e2b_oc_client *c, const char *session_id, const char *text,
                           const char *model, e2b_oc_done_fn done, void *ud, e2b_error **err)
{
    const char *slash = model ? strchr(model, '/') : NULL;
    if (model && (!slash || slash == model || !slash[1])) {
        if (err)
            *err = e2b_error_new(E2B_ERR_INVALID, "model '%s' is not provider/model", model);
        return NULL;
    }
    if (!text) {
        if (err)
            *err = e2b_error_new(E2B_ERR_INVALID, "no prompt text");
        return NULL;
    }
    struct e2b_oc_call *call = calloc(1, sizeof *call);
    e2b_error *e = NULL;
    if (!call || !(call->text = strdup(text)) ||
        (session_id && !(call->session_id = strdup(session_id))) ||
        (model && !(call->model = strdup(model)))) {
        e = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        goto fail;
    }
    call->c = c;
    call->done = done;
    call->ud = ud;
    if (session_id) {
        call->kind = OC_PROMPT;
        prompt_send(call, &e);
    } else {
        call->kind = OC_NEW_SESSION;
        char *body = NULL;
        if (c->api == 2) {
            const char *d = c->dir_header ? c->dir_header + strlen("x-opencode-directory: ") : NULL;
            json_t *j = d ? json_pack("{s:{s:s}}", "location", "directory", d) : json_object();
            if (j && slash) /* v2 takes the model with the new session */
                json_object_set_new(j, "model",
                                    json_pack("{s:s%,s:s}", "providerID", model,
                                              (size_t)(slash - model), "id", slash + 1));
            body = j ? json_dumps(j, JSON_COMPACT) : NULL;
            json_decref(j);
        } else {
            body = strdup("{}");
        }
        if (!body)
            e = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        else
            call_send(call, "POST", c->api == 1 ? "/session" : "/api/session", body, &e);
        free(body);
    }
    if (!e)
        return call;
fail:
    if (call)
        call_free(call);
    if (err)
        *err = e;
    else
        e2b_error_free(e);
    return NULL;
}

e2b_oc_call *e2b_oc_interrupt(e2b_oc_client *c, const char *session_id, e2b_oc_done_fn done,
                              void *ud, e2b_error **err)
{
    char *sid = enc(session_id);
    char *path = sid ? e2b_strfmt(c->api == 1 ? "/session/%s/abort" : "/api/session/%s/interrupt", sid)
                     : NULL;
    e2b_oc_call *call = NULL;
    if (!session_id || !*session_id) {
        if (err)
            *err = e2b_error_new(E2B_ERR_INVALID, "no session to interrupt");
    } else if (path) {
        call = start(c, OC_INTERRUPT, "POST", path, "{}", done, ud, err);
    } else if (err) {
        *err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    }
    free(sid);
    free(path);
    return call;
}

/* A GET of one session's route: /session/ID (v1) or /api/session/ID (v2), then the API's
 * suffix. */
static e2b_oc_call *session_get(e2b_oc_client *c, enum oc_kind kind, const char *v1_suffix,
                                const char *v2_suffix, const char *session_id,
                                e2b_oc_done_fn done, void *ud, e2b_error **err)
{
    char *sid = enc(session_id);
    char *path = sid ? e2b_strfmt("%s/%s%s", c->api == 1 ? "/session" : "/api/session", sid,
                                  c->api == 1 ? v1_suffix : v2_suffix)
                     : NULL;
    e2b_oc_call *call = NULL;
    if (!session_id || !*session_id) {
        if (err)
            *err = e2b_error_new(E2B_ERR_INVALID, "no session");
    } else if (path) {
        call = start(c, kind, "GET", path, NULL, done, ud, err);
    } else if (err) {
        *err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    }
    free(sid);
    free(path);
    return call;
}

e2b_oc_call *e2b_oc_todos(e2b_oc_client *c, const char *session_id, e2b_oc_done_fn done,
                          void *ud, e2b_error **err)
{
    /* v2 has no todo route in 1.18.33 (the web app answers it): an empty list comes back,
     * and a later release that adds the route is read the same way */
    return session_get(c, OC_TODOS, "/todo", "/todo", session_id, done, ud, err);
}

e2b_oc_call *e2b_oc_last_turn(e2b_oc_client *c, const char *session_id, e2b_oc_done_fn done,
                              void *ud, e2b_error **err)
{
    return session_get(c, OC_LAST_TURN, "/message?limit=1", "/message?limit=1&order=desc",
                       session_id, done, ud, err);
}

#define OC_STR2(x) #x
#define OC_STR(x) OC_STR2(x)
e2b_oc_call *e2b_oc_recent(e2b_oc_client *c, const char *session_id, e2b_oc_done_fn done,
                               void *ud, e2b_error **err)
{
    return session_get(c, OC_RECENT, "/message?limit=" OC_STR(E2B_OC_RECENT_MESSAGES),
                       "/message?limit=" OC_STR(E2B_OC_RECENT_MESSAGES) "&order=desc", session_id,
                       done, ud, err);
}

e2b_oc_call *e2b_oc_model_ready(e2b_oc_client *c, e2b_oc_done_fn done, void *ud,
                                e2b_error **err)
{
    /* v1 has no such wait: its health says enough */
    return start(c, c->api == 1 ? OC_HEALTH : OC_CONFIG, "GET",
                 c->api == 1 ? "/global/health" : "/config", NULL, done, ud, err);
}
