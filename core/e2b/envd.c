#include "core/e2b/envd.h"

#include "core/util/archive_dl.h"
#include "core/util/buf.h"
#include "core/util/json_wipe.h"
#include "core/util/base64.h"
#include "core/e2b/connect_codec.h"
#include "core/e2b/json_read.h"
#include "core/util/log.h"
#include "core/util/str.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RPC_TIMEOUT_MS 60000L
#define STREAM_LOW_SPEED_S 120L /* above the 50 s keepalive interval asked for */
#define KEEPALIVE_S "50"

struct e2b_envd {
    e2b_loop *loop;
    int own_loop;
    char *base;          /* no trailing '/' */
    char *sandbox_id;
    char *h_token;       /* "X-Access-Token: ..." or NULL */
    char *h_id;          /* "E2b-Sandbox-Id: ..." */
    char *h_user;        /* "Authorization: Basic ..." or NULL */
    char *user;          /* for the /files username= query, or NULL */
};

/* Same unreserved set as encodeURIComponent; '/' is escaped too, which envd decodes. */
static char *esc(const char *s)
{
    return e2b_percent_encode(s, "-_.~", 0);
}

e2b_envd *e2b_envd_new(e2b_loop *loop, const e2b_config *cfg, const e2b_sandbox *sb,
                       const char *user, e2b_error **err)
{
    e2b_envd *ev;
    *err = NULL;
    if (!sb || !sb->sandbox_id || !*sb->sandbox_id) {
        *err = e2b_error_new(E2B_ERR_INVALID, "no sandbox id for envd");
        return NULL;
    }
    ev = calloc(1, sizeof *ev);
    if (!ev)
        goto oom;
    if (!loop) {
        loop = e2b_loop_new();
        ev->own_loop = 1;
    }
    ev->loop = loop;
    ev->base = e2b_config_envd_url(cfg, sb->sandbox_id, sb->domain);
    ev->sandbox_id = strdup(sb->sandbox_id);
    ev->h_id = e2b_strfmt("E2b-Sandbox-Id: %s", sb->sandbox_id);
    if (sb->envd_access_token && *sb->envd_access_token)
        ev->h_token = e2b_strfmt("X-Access-Token: %s", sb->envd_access_token);
    if (user && *user) {
        char *pair = e2b_strfmt("%s:", user), *b64 = pair ? e2b_base64_encode((const uint8_t *)pair,
                                                                       strlen(pair))
                                                   : NULL;
        ev->h_user = b64 ? e2b_strfmt("Authorization: Basic %s", b64) : NULL;
        ev->user = strdup(user);
        free(pair);
        free(b64);
        if (!ev->h_user || !ev->user)
            goto oom_free;
    }
    if (!ev->loop || !ev->base || !ev->sandbox_id || !ev->h_id ||
        (sb->envd_access_token && *sb->envd_access_token && !ev->h_token))
        goto oom_free;
    return ev;
oom_free:
    e2b_envd_free(ev);
oom:
    *err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    return NULL;
}

e2b_loop *e2b_envd_loop(e2b_envd *ev)
{
    return ev->loop;
}

void e2b_envd_free(e2b_envd *ev)
{
    if (!ev)
        return;
    if (ev->own_loop)
        e2b_loop_free(ev->loop);
    free(ev->base);
    free(ev->sandbox_id);
    e2b_wipe_free(ev->h_token);
    free(ev->h_id);
    free(ev->h_user);
    free(ev->user);
    free(ev);
}

/* The common headers plus extra ones (NULL entries are skipped), into out[max]. */
static void headers(const e2b_envd *ev, int with_user, const char **out, size_t max,
                    const char *extra1, const char *extra2, const char *extra3)
{
    size_t n = 0;
    const char *all[] = {ev->h_token, ev->h_id, "E2b-Sandbox-Port: 49983",
                         with_user ? ev->h_user : NULL, extra1, extra2, extra3};
    for (size_t i = 0; i < sizeof all / sizeof all[0] && n + 1 < max; i++)
        if (all[i])
            out[n++] = all[i];
    out[n] = NULL;
}

/* ---- a call: one HTTP request with a completion ---- */

typedef enum call_kind { C_DONE, C_JSON, C_STREAM } call_kind;

typedef struct call {
    call_kind kind;
    e2b_envd_done_fn done;
    e2b_envd_json_fn json_done;
    void *ud;
    char *action;
    char *not_found;
    char *body; /* owned request body (may hold a secret: wiped when freed) */
    size_t body_len;
    e2b_process_stream stream;
    /* gzip on the fly */
    struct archive *gz;
    e2b_http_read_fn src_read;
    void *src_ud;
    char *gz_out;
    size_t gz_len, gz_pos, gz_cap;
    int gz_done;
} call;

static void call_free(call *c)
{
    if (!c)
        return;
    free(c->action);
    free(c->not_found);
    if (c->body)
        explicit_bzero(c->body, c->body_len);
    free(c->body);
    if (c->kind == C_STREAM)
        e2b_process_stream_clear(&c->stream);
    if (c->gz)
        archive_write_free(c->gz);
    free(c->gz_out);
    free(c);
}

static call *call_new(call_kind kind, char *action, void *ud)
{
    call *c = calloc(1, sizeof *c);
    if (!c || !action) {
        free(c);
        free(action);
        return NULL;
    }
    c->kind = kind;
    c->action = action;
    c->ud = ud;
    return c;
}

static e2b_error *with_action(e2b_error *e, const call *c)
{
    return e2b_error_set_action(e, "%s", c->action);
}

static void on_done(void *ud, const e2b_http_response *r, const e2b_error *herr)
{
    call *c = ud;
    e2b_error *err = NULL;
    json_t *reply = NULL;
    if (herr) {
        err = e2b_error_copy(herr);
    } else if (r->status == 502) {
        /* E2B's proxy answers 502 for a sandbox that is gone or paused (reference §2.3). */
        err = e2b_http_status_error(r, NULL);
        err->kind = E2B_ERR_NOT_FOUND;
        free(err->detail);
        err->detail = e2b_strfmt("the sandbox is not running (paused, killed or timed out)");
        e2b_error_set_trace_id(err, r->trace_id); /* rebuilds the message */
    } else if (r->status == 401) {
        /* envd checks the sandbox's access token, not the API key. */
        err = e2b_http_status_error(r, NULL);
        free(err->detail);
        err->detail = e2b_strfmt("the sandbox refused its access token (connect to it again)");
        e2b_error_set_trace_id(err, r->trace_id);
    } else if (r->status < 200 || r->status > 299) {
        err = e2b_http_status_error(r, c->not_found);
    } else if (c->kind == C_STREAM) {
        err = e2b_process_stream_finish(&c->stream);
    } else if (c->kind == C_JSON) {
        json_error_t je;
        reply = json_loadb(r->body ? r->body : "", r->body ? r->body_len : 0, 0, &je);
        if (!json_is_object(reply)) {
            json_decref(reply);
            reply = NULL;
            err = e2b_error_new(E2B_ERR_PROTOCOL, "envd's reply is not a JSON object");
        }
    }
    if (err) {
        with_action(err, c);
        if (err->kind != E2B_ERR_CANCELLED)
            e2b_logf("error: %s", e2b_error_message(err));
    }
    if (c->kind == C_JSON)
        c->json_done(c->ud, reply, err);
    else
        c->done(c->ud, err);
    json_decref(reply);
    e2b_error_free(err);
    call_free(c);
}

static e2b_http_request *launch(e2b_envd *ev, call *c, e2b_http_options *o, e2b_error **errp)
{
    e2b_http_request *req;
    e2b_error *err = NULL;
    if (errp)
        *errp = NULL;
    if (!c) {
        if (errp)
            *errp = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        return NULL;
    }
    req = e2b_http_start(ev->loop, o, on_done, c, &err);
    if (!req) {
        with_action(err, c);
        call_free(c);
        if (errp)
            *errp = err;
        else
            e2b_error_free(err);
    }
    return req;
}

/* ---- files ---- */

static char *files_url(const e2b_envd *ev, const char *path)
{
    char *p = path ? esc(path) : NULL, *u = ev->user ? esc(ev->user) : NULL, *url;
    url = e2b_strfmt("%s/files%s%s%s%s", ev->base, p ? "?path=" : "", p ? p : "",
              u ? (p ? "&username=" : "?username=") : "", u ? u : "");
    free(p);
    free(u);
    return url;
}

static int gz_write(struct archive *a, void *ud, const void *buf, size_t n)
{
    call *c = ud;
    (void)a;
    e2b_buf b = {.data = c->gz_out, .len = c->gz_len, .cap = c->gz_cap};
    if (e2b_buf_add(&b, buf, n) < 0)
        return -1;
    c->gz_out = b.data;
    c->gz_len = b.len;
    c->gz_cap = b.cap;
    return (int)n;
}

static la_ssize_t gz_write_cb(struct archive *a, void *ud, const void *buf, size_t n)
{
    return gz_write(a, ud, buf, n) < 0 ? -1 : (la_ssize_t)n;
}

/* Pulls from the caller's source, compresses with libarchive (raw format + gzip filter). */
static long gz_read(void *ud, char *buf, size_t size, e2b_error **err)
{
    call *c = ud;
    char in[65536];
    while (c->gz_pos == c->gz_len && !c->gz_done) {
        long n;
        c->gz_pos = c->gz_len = 0;
        n = c->src_read(c->src_ud, in, sizeof in, err);
        if (n < 0)
            return -1;
        if (n == 0) {
            if (archive_write_close(c->gz) != ARCHIVE_OK) {
                *err = e2b_error_new(E2B_ERR_INTERNAL, "gzip: %s", archive_error_string(c->gz));
                return -1;
            }
            c->gz_done = 1;
        } else if (archive_write_data(c->gz, in, (size_t)n) < 0) {
            *err = e2b_error_new(E2B_ERR_INTERNAL, "gzip: %s", archive_error_string(c->gz));
            return -1;
        }
    }
    if (c->gz_pos == c->gz_len)
        return 0;
    if (size > c->gz_len - c->gz_pos)
        size = c->gz_len - c->gz_pos;
    memcpy(buf, c->gz_out + c->gz_pos, size);
    c->gz_pos += size;
    return (long)size;
}

/* A source over memory, for gzip of in-memory data. */
typedef struct mem_src {
    const char *p;
    size_t len, pos;
} mem_src;

static int gz_setup(call *c, e2b_http_read_fn read, void *ud)
{
    struct archive_entry *e;
    c->src_read = read;
    c->src_ud = ud;
    c->gz = archive_write_new();
    if (!c->gz || archive_write_set_format_raw(c->gz) != ARCHIVE_OK ||
        archive_write_add_filter_gzip(c->gz) != ARCHIVE_OK ||
        archive_write_set_bytes_per_block(c->gz, 0) != ARCHIVE_OK ||
        archive_write_open2(c->gz, c, NULL, gz_write_cb, NULL, NULL) != ARCHIVE_OK)
        return -1;
    e = archive_entry_new();
    if (!e)
        return -1;
    archive_entry_set_pathname(e, "data");
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    if (archive_write_header(c->gz, e) != ARCHIVE_OK) {
        archive_entry_free(e);
        return -1;
    }
    archive_entry_free(e);
    return 0;
}

static long mem_read(void *ud, char *buf, size_t size, e2b_error **err)
{
    mem_src *m = ud;
    (void)err;
    if (size > m->len - m->pos)
        size = m->len - m->pos;
    memcpy(buf, m->p + m->pos, size);
    m->pos += size;
    return (long)size;
}

e2b_http_request *e2b_envd_upload(e2b_envd *ev, const e2b_upload *up, e2b_envd_done_fn done,
                                  void *ud, e2b_error **err)
{
    const char *hdrs[10];
    char *url;
    call *c;
    e2b_http_request *req;
    e2b_http_part part;
    e2b_http_options o = {.method = "POST", .progress = up->progress,
                          .progress_ud = up->progress_ud, .timeout_ms = 0};
    if (!up->path || !*up->path || (!up->data && !up->read)) {
        if (err)
            *err = e2b_error_new(E2B_ERR_INVALID, "an upload needs a destination and data");
        return NULL;
    }
    c = call_new(C_DONE, e2b_strfmt("uploading %s to sandbox %s", up->path, ev->sandbox_id), ud);
    if (!c)
        return launch(ev, NULL, &o, err);
    c->done = done;
    if (up->octet_stream) {
        url = files_url(ev, up->path);
        headers(ev, 0, hdrs, 10, "Content-Type: application/octet-stream",
                up->gzip ? "Content-Encoding: gzip" : NULL, NULL);
        if (up->gzip) {
            /* The memory source lives in a block allocated with the call. */
            mem_src *m = calloc(1, sizeof *m);
            if (m) {
                m->p = up->data;
                m->len = up->data ? up->len : 0;
            }
            if (!m ||
                gz_setup(c, up->data ? mem_read : up->read, up->data ? (void *)m : up->read_ud) < 0) {
                free(m);
                free(url);
                call_free(c);
                if (err)
                    *err = e2b_error_new(E2B_ERR_INTERNAL, "cannot set up gzip%s%s",
                                         *e2b_archive_dl_error() ? ": " : "", e2b_archive_dl_error());
                return NULL;
            }
            if (!up->data) {
                free(m);
            } else {
                c->body = (char *)m; /* freed with the call */
                c->body_len = sizeof *m;
            }
            o.read_body = gz_read;
            o.read_ud = c;
            o.body_size = -1;
        } else if (up->read) {
            o.read_body = up->read;
            o.read_ud = up->read_ud;
            o.body_size = up->size;
        } else {
            o.body = up->data;
            o.body_len = up->len;
        }
    } else {
        /* Multipart: the destination is the part's filename (no ?path=). */
        url = files_url(ev, NULL);
        headers(ev, 0, hdrs, 10, NULL, NULL, NULL);
        part = (e2b_http_part){.name = "file", .filename = up->path,
                               .content_type = "application/octet-stream",
                               .data = up->data, .len = up->len, .read = up->read,
                               .read_ud = up->read_ud, .size = up->read ? up->size : 0};
        o.parts = &part;
        o.nparts = 1;
    }
    o.url = url;
    o.headers = hdrs;
    o.low_speed_time_s = 60;
    o.log_path = "/files";
    req = launch(ev, c, &o, err);
    free(url);
    return req;
}

e2b_http_request *e2b_envd_download(e2b_envd *ev, const char *path, e2b_http_write_fn write,
                                    void *write_ud, int gzip, e2b_envd_done_fn done, void *ud,
                                    e2b_error **err)
{
    const char *hdrs[10];
    char *url;
    call *c;
    e2b_http_request *req;
    e2b_http_options o = {.method = "GET", .write_body = write, .write_ud = write_ud,
                          .accept_gzip = gzip, .low_speed_time_s = 60, .log_path = "/files",
                          .retry_429 = 1};
    if (!path || !*path || !write) {
        if (err)
            *err = e2b_error_new(E2B_ERR_INVALID, "a download needs a path and a sink");
        return NULL;
    }
    c = call_new(C_DONE, e2b_strfmt("downloading %s from sandbox %s", path, ev->sandbox_id), ud);
    if (c) {
        c->done = done;
        c->not_found = e2b_strfmt("no file %s in sandbox %s", path, ev->sandbox_id);
    }
    url = files_url(ev, path);
    headers(ev, 0, hdrs, 10, NULL, NULL, NULL);
    o.url = url;
    o.headers = hdrs;
    req = url ? launch(ev, c, &o, err) : launch(ev, NULL, &o, err);
    if (!url)
        call_free(c);
    free(url);
    return req;
}

/* ---- processes ---- */

json_t *e2b_envd_start_body(const e2b_process_spec *spec)
{
    json_t *proc = json_object(), *args = json_array(), *envs = json_object(), *b = json_object();
    for (const char *const *a = spec->args; a && *a; a++)
        json_array_append_new(args, json_string(*a));
    for (size_t i = 0; spec->envs && i < spec->envs->count; i++)
        json_object_set_new(envs, spec->envs->items[i].key, json_string(spec->envs->items[i].value));
    json_object_set_new(proc, "cmd", json_string(spec->cmd ? spec->cmd : ""));
    json_object_set_new(proc, "args", args);
    json_object_set_new(proc, "envs", envs);
    if (spec->cwd)
        json_object_set_new(proc, "cwd", json_string(spec->cwd));
    json_object_set_new(b, "process", proc);
    if (spec->tag)
        json_object_set_new(b, "tag", json_string(spec->tag));
    json_object_set_new(b, "stdin", json_boolean(spec->stdin_open));
    return b;
}

static e2b_error *stream_write(void *ud, const char *data, size_t len)
{
    call *c = ud;
    return e2b_process_stream_feed(&c->stream, (const uint8_t *)data, len);
}

static e2b_http_request *stream_call(e2b_envd *ev, const char *method, json_t *msg,
                                     long timeout_ms, e2b_process_event_fn on_event,
                                     e2b_envd_done_fn done, void *ud, char *action,
                                     e2b_error **err)
{
    const char *hdrs[10];
    char *url = e2b_strfmt("%s/process.Process/%s", ev->base, method), *text = e2b_json_dumps_wiped(msg, JSON_COMPACT);
    char *deadline = timeout_ms > 0 ? e2b_strfmt("Connect-Timeout-Ms: %ld", timeout_ms) : NULL;
    uint8_t *env = NULL;
    size_t env_len = 0;
    call *c = call_new(C_STREAM, action, ud);
    e2b_http_request *req = NULL;
    e2b_http_options o = {.method = "POST", .low_speed_time_s = STREAM_LOW_SPEED_S,
                          .retry_429 = 1};
    e2b_json_wipe_decref(msg); /* a Start body carries the box password in its envs */
    if (!c || !url || !text || (timeout_ms > 0 && !deadline) ||
        e2b_connect_encode(0, text, strlen(text), &env, &env_len) < 0) {
        call_free(c);
        c = NULL;
        goto out;
    }
    c->done = done;
    c->body = (char *)env; /* the envelope is binary: wiped and freed with the call */
    c->body_len = env_len;
    env = NULL;
    e2b_process_stream_init(&c->stream, on_event, ud);
    headers(ev, 1, hdrs, 10, "Content-Type: application/connect+json",
            "Connect-Protocol-Version: 1", deadline);
    /* Keepalive-Ping-Interval does not fit in the three extras: add it by hand. */
    for (size_t i = 0; i < 9; i++) {
        if (!hdrs[i]) {
            hdrs[i] = "Keepalive-Ping-Interval: " KEEPALIVE_S;
            hdrs[i + 1] = NULL;
            break;
        }
    }
    o.url = url;
    o.headers = hdrs;
    o.body = c->body;
    o.body_len = env_len;
    o.write_body = stream_write;
    o.write_ud = c;
    o.log_path = strstr(url, "/process.Process/");
    req = launch(ev, c, &o, err);
    free(url);
    e2b_json_text_wipe_free(text);
    free(deadline);
    return req;
out:
    if (env)
        explicit_bzero(env, env_len);
    free(env);
    free(url);
    e2b_json_text_wipe_free(text);
    free(deadline);
    return launch(ev, NULL, &o, err);
}

e2b_http_request *e2b_envd_process_start(e2b_envd *ev, const e2b_process_spec *spec,
                                         e2b_process_event_fn on_event, e2b_envd_done_fn done,
                                         void *ud, e2b_error **err)
{
    if (!spec->cmd || !*spec->cmd) {
        if (err)
            *err = e2b_error_new(E2B_ERR_INVALID, "no command to start");
        return NULL;
    }
    return stream_call(ev, "Start", e2b_envd_start_body(spec), spec->timeout_ms, on_event, done,
                       ud, e2b_strfmt("running %s in sandbox %s", spec->cmd, ev->sandbox_id), err);
}

e2b_http_request *e2b_envd_process_connect(e2b_envd *ev, uint32_t pid, const char *tag,
                                           e2b_process_event_fn on_event, e2b_envd_done_fn done,
                                           void *ud, e2b_error **err)
{
    json_t *msg = tag ? json_pack("{s:{s:s}}", "process", "tag", tag)
                      : json_pack("{s:{s:I}}", "process", "pid", (json_int_t)pid);
    return stream_call(ev, "Connect", msg, 0, on_event, done, ud,
                       tag ? e2b_strfmt("attaching to process %s in sandbox %s", tag, ev->sandbox_id)
                           : e2b_strfmt("attaching to process %u in sandbox %s", pid, ev->sandbox_id),
                       err);
}

e2b_http_request *e2b_envd_rpc(e2b_envd *ev, const char *service, const char *method,
                               const json_t *request, e2b_envd_json_fn done, void *ud,
                               e2b_error **err)
{
    const char *hdrs[10];
    char *url = e2b_strfmt("%s/%s/%s", ev->base, service, method);
    call *c = call_new(C_JSON, e2b_strfmt("%s/%s in sandbox %s", service, method, ev->sandbox_id), ud);
    e2b_http_request *req;
    /* A 429 means the request was not handled: waiting Retry-After and sending it again
     * is safe for any call (streams and uploads are retried only when their body is in
     * memory, which http.c checks). */
    e2b_http_options o = {.method = "POST", .timeout_ms = RPC_TIMEOUT_MS, .retry_429 = 1};
    if (c) {
        c->json_done = done;
        c->body = e2b_json_dumps_wiped(request, JSON_COMPACT);
        c->body_len = c->body ? strlen(c->body) : 0;
    }
    if (!url || !c || !c->body) {
        free(url);
        call_free(c);
        return launch(ev, NULL, &o, err);
    }
    headers(ev, 1, hdrs, 10, "Content-Type: application/json", "Connect-Protocol-Version: 1",
            NULL);
    o.url = url;
    o.headers = hdrs;
    o.body = c->body;
    o.body_len = strlen(c->body);
    o.log_path = url + strlen(ev->base);
    req = launch(ev, c, &o, err);
    free(url);
    return req;
}

/* ---- reply mappers ---- */

e2b_error *e2b_process_list_from_json(const json_t *reply, e2b_process_list *out)
{
    const json_t *procs = json_object_get(reply, "processes");
    size_t n;
    memset(out, 0, sizeof *out);
    if (!procs || json_is_null(procs))
        return NULL;
    if (!json_is_array(procs))
        return e2b_error_new(E2B_ERR_PROTOCOL, "process list: 'processes' is not an array");
    n = json_array_size(procs);
    out->items = calloc(n ? n : 1, sizeof *out->items);
    if (!out->items)
        return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const json_t *p = json_array_get(procs, i), *cfg, *pid, *args;
        e2b_process_info *pi = &out->items[i];
        if (!json_is_object(p) || !json_is_integer(pid = json_object_get(p, "pid"))) {
            e2b_process_list_clear(out);
            return e2b_error_new(E2B_ERR_PROTOCOL, "process list: entry %zu has no pid", i + 1);
        }
        out->count++;
        pi->pid = (uint32_t)json_integer_value(pid);
        pi->tag = e2b_json_dup(p, "tag");
        cfg = json_object_get(p, "config");
        if (json_is_object(cfg)) {
            pi->cmd = e2b_json_dup(cfg, "cmd");
            pi->cwd = e2b_json_dup(cfg, "cwd");
            args = json_object_get(cfg, "args");
            if (json_is_array(args)) {
                size_t na = json_array_size(args);
                pi->args = calloc(na + 1, sizeof *pi->args);
                for (size_t k = 0; pi->args && k < na; k++) {
                    const json_t *a = json_array_get(args, k);
                    pi->args[k] = strdup(json_is_string(a) ? json_string_value(a) : "");
                }
            }
        }
    }
    return NULL;
}

void e2b_process_list_clear(e2b_process_list *list)
{
    if (!list)
        return;
    for (size_t i = 0; i < list->count; i++) {
        e2b_process_info *p = &list->items[i];
        free(p->tag);
        free(p->cmd);
        free(p->cwd);
        for (char **a = p->args; a && *a; a++)
            free(*a);
        free(p->args);
    }
    free(list->items);
    list->items = NULL;
    list->count = 0;
}

static e2b_error *entry_map(const json_t *o, e2b_entry *out)
{
    const json_t *type, *size, *mode, *mt;
    memset(out, 0, sizeof *out);
    if (!json_is_object(o))
        return e2b_error_new(E2B_ERR_PROTOCOL, "a filesystem entry is not an object");
    out->name = e2b_json_dup(o, "name");
    out->path = e2b_json_dup(o, "path");
    out->permissions = e2b_json_dup(o, "permissions");
    out->owner = e2b_json_dup(o, "owner");
    out->group = e2b_json_dup(o, "group");
    out->symlink_target = e2b_json_dup(o, "symlinkTarget");
    type = json_object_get(o, "type");
    if (json_is_string(type)) {
        const char *t = json_string_value(type);
        out->type = strcmp(t, "FILE_TYPE_FILE") == 0        ? E2B_FILE_FILE
                    : strcmp(t, "FILE_TYPE_DIRECTORY") == 0 ? E2B_FILE_DIRECTORY
                    : strcmp(t, "FILE_TYPE_SYMLINK") == 0   ? E2B_FILE_SYMLINK
                                                            : E2B_FILE_UNKNOWN;
    } else if (json_is_integer(type)) {
        json_int_t t = json_integer_value(type);
        out->type = t >= 1 && t <= 3 ? (e2b_file_type)t : E2B_FILE_UNKNOWN;
    }
    size = json_object_get(o, "size");
    if (json_is_string(size))
        out->size = strtoll(json_string_value(size), NULL, 10);
    else if (json_is_integer(size))
        out->size = json_integer_value(size);
    mode = json_object_get(o, "mode");
    if (json_is_integer(mode))
        out->mode = (uint32_t)json_integer_value(mode);
    mt = json_object_get(o, "modifiedTime");
    if (json_is_string(mt))
        e2b_parse_rfc3339(json_string_value(mt), &out->modified, NULL);
    if (!out->path) {
        e2b_entry_clear(out);
        return e2b_error_new(E2B_ERR_PROTOCOL, "a filesystem entry has no path");
    }
    return NULL;
}

e2b_error *e2b_entry_from_reply(const json_t *reply, e2b_entry *out)
{
    return entry_map(json_object_get(reply, "entry"), out);
}

e2b_error *e2b_entry_list_from_reply(const json_t *reply, e2b_entry_list *out)
{
    const json_t *es = json_object_get(reply, "entries");
    size_t n;
    memset(out, 0, sizeof *out);
    if (!es || json_is_null(es))
        return NULL;
    if (!json_is_array(es))
        return e2b_error_new(E2B_ERR_PROTOCOL, "'entries' is not an array");
    n = json_array_size(es);
    out->items = calloc(n ? n : 1, sizeof *out->items);
    if (!out->items)
        return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    for (size_t i = 0; i < n; i++) {
        e2b_error *e = entry_map(json_array_get(es, i), &out->items[i]);
        if (e) {
            e2b_entry_list_clear(out);
            return e;
        }
        out->count++;
    }
    return NULL;
}

void e2b_entry_clear(e2b_entry *e)
{
    if (!e)
        return;
    free(e->name);
    free(e->path);
    free(e->permissions);
    free(e->owner);
    free(e->group);
    free(e->symlink_target);
    memset(e, 0, sizeof *e);
}

void e2b_entry_list_clear(e2b_entry_list *list)
{
    if (!list)
        return;
    for (size_t i = 0; i < list->count; i++)
        e2b_entry_clear(&list->items[i]);
    free(list->items);
    list->items = NULL;
    list->count = 0;
}
