/* Blocking forms of core's asynchronous calls, for tests only: each starts the call and
 * e2b_waits for its callback (production code does the same inline). */
#include "tests/lib/sync_calls.h"

#include "core/util/base64.h"

#include <stdlib.h>
#include <string.h>

/* ---- plain HTTP ---- */

typedef struct perform_state {
    int done;
    e2b_error *err;
    e2b_http_response *out;
} perform_state;

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

static void perform_done(void *ud, const e2b_http_response *resp, const e2b_error *err)
{
    perform_state *st = ud;
    *st->out = *resp; /* then a deep copy of what the request frees after this call */
    st->out->body = NULL;
    if (resp->body) {
        st->out->body = malloc(resp->body_len + 1);
        if (st->out->body) {
            memcpy(st->out->body, resp->body, resp->body_len);
            st->out->body[resp->body_len] = '\0';
        }
    }
    st->out->trace_id = dup_or_null(resp->trace_id);
    st->out->next_token = dup_or_null(resp->next_token);
    st->out->content_type = dup_or_null(resp->content_type);
    st->err = err ? e2b_error_copy(err) : NULL;
    st->done = 1;
}

e2b_error *t_http_perform(e2b_loop *loop, const e2b_http_options *opts, e2b_http_response *resp)
{
    perform_state st = {0, NULL, resp};
    e2b_loop *own = NULL;
    e2b_error *err = NULL;
    memset(resp, 0, sizeof *resp);
    resp->total_running = -1;
    if (!loop) {
        own = loop = e2b_loop_new();
        if (!loop)
            return e2b_error_new(E2B_ERR_INTERNAL, "cannot set up libcurl");
    }
    if (!e2b_http_start(loop, opts, perform_done, &st, &err)) {
        e2b_loop_free(own);
        return err;
    }
    e2b_wait(loop, &st.done);
    e2b_loop_free(own);
    if (st.err && resp->status == 0)
        e2b_http_response_clear(resp);
    return st.err;
}

/* ---- the API ---- */

typedef struct sync_state {
    int done;
    e2b_error *err;
    void *result;
    long status;
} sync_state;

static void sync_finish(sync_state *st, void *result, long status, const e2b_error *err)
{
    st->done = 1;
    st->result = result;
    st->status = status;
    st->err = err ? e2b_error_copy(err) : NULL;
}

static void sync_sandbox(void *ud, e2b_sandbox *sb, long status, const e2b_error *err)
{
    sync_finish(ud, sb, status, err);
}
static void sync_list(void *ud, e2b_sandbox_list *l, const e2b_error *err)
{
    sync_finish(ud, l, 0, err);
}
static void sync_status(void *ud, long status, const e2b_error *err)
{
    sync_finish(ud, NULL, status, err);
}
static void sync_metrics(void *ud, e2b_metric_list *m, const e2b_error *err)
{
    sync_finish(ud, m, 0, err);
}
static void sync_logs(void *ud, e2b_log_list *l, const e2b_error *err)
{
    sync_finish(ud, l, 0, err);
}
static void sync_secret(void *ud, e2b_secret *s, const e2b_error *err)
{
    sync_finish(ud, s, 0, err);
}
static void sync_secret_list(void *ud, e2b_secret_list *l, const e2b_error *err)
{
    sync_finish(ud, l, 0, err);
}

/* Runs the loop until the started call called back (or returns the start error). */
/* start_err is read only after call was computed (argument order is unspecified in C). */
static e2b_error *sync_wait(e2b_client *c, e2b_api_call *call, e2b_error **start_err,
                            sync_state *st)
{
    if (!call)
        return *start_err;
    e2b_wait(e2b_client_loop(c), &st->done);
    return st->err;
}

/* Moves a heap result into the caller's struct. */
#define MOVE_OUT(out, st, type)                                                                    \
    do {                                                                                           \
        if ((st).result) {                                                                         \
            *(out) = *(type *)(st).result;                                                         \
            free((st).result);                                                                     \
        }                                                                                          \
    } while (0)

e2b_error *t_api_create(e2b_client *c, const e2b_create_params *p, e2b_sandbox *out)
{
    sync_state st = {0};
    e2b_error *e = NULL, *err;
    memset(out, 0, sizeof *out);
    err = sync_wait(c, e2b_api_create(c, p, sync_sandbox, &st, &e), &e, &st);
    MOVE_OUT(out, st, e2b_sandbox);
    return err;
}

e2b_error *t_api_list(e2b_client *c, const e2b_list_query *q, e2b_sandbox_list *out)
{
    sync_state st = {0};
    e2b_error *e = NULL, *err;
    memset(out, 0, sizeof *out);
    out->total_running = -1;
    err = sync_wait(c, e2b_api_list(c, q, sync_list, &st, &e), &e, &st);
    MOVE_OUT(out, st, e2b_sandbox_list);
    return err;
}

e2b_error *t_api_get(e2b_client *c, const char *id, e2b_sandbox *out)
{
    sync_state st = {0};
    e2b_error *e = NULL, *err;
    memset(out, 0, sizeof *out);
    err = sync_wait(c, e2b_api_get(c, id, sync_sandbox, &st, &e), &e, &st);
    MOVE_OUT(out, st, e2b_sandbox);
    return err;
}

e2b_error *t_api_kill(e2b_client *c, const char *id)
{
    sync_state st = {0};
    e2b_error *e = NULL;
    return sync_wait(c, e2b_api_kill(c, id, sync_status, &st, &e), &e, &st);
}

e2b_error *t_api_pause(e2b_client *c, const char *id)
{
    sync_state st = {0};
    e2b_error *e = NULL;
    return sync_wait(c, e2b_api_pause(c, id, sync_status, &st, &e), &e, &st);
}

e2b_error *t_api_connect(e2b_client *c, const char *id, long timeout_s, e2b_sandbox *out,
                         int *resumed)
{
    sync_state st = {0};
    e2b_error *e = NULL, *err;
    memset(out, 0, sizeof *out);
    err = sync_wait(c, e2b_api_connect(c, id, timeout_s, sync_sandbox, &st, &e), &e, &st);
    MOVE_OUT(out, st, e2b_sandbox);
    if (resumed)
        *resumed = !err && st.status == 201;
    return err;
}

e2b_error *t_api_set_timeout(e2b_client *c, const char *id, long timeout_s)
{
    sync_state st = {0};
    e2b_error *e = NULL;
    return sync_wait(c, e2b_api_set_timeout(c, id, timeout_s, sync_status, &st, &e), &e, &st);
}

e2b_error *t_api_metrics(e2b_client *c, const char *id, int64_t start, int64_t end,
                         e2b_metric_list *out)
{
    sync_state st = {0};
    e2b_error *e = NULL, *err;
    memset(out, 0, sizeof *out);
    err = sync_wait(c, e2b_api_metrics(c, id, start, end, sync_metrics, &st, &e), &e, &st);
    MOVE_OUT(out, st, e2b_metric_list);
    return err;
}

e2b_error *t_api_metrics_bulk(e2b_client *c, const char *const *ids, size_t n, e2b_metric_list *out)
{
    sync_state st = {0};
    e2b_error *e = NULL, *err;
    memset(out, 0, sizeof *out);
    err = sync_wait(c, e2b_api_metrics_bulk(c, ids, n, sync_metrics, &st, &e), &e, &st);
    MOVE_OUT(out, st, e2b_metric_list);
    return err;
}

e2b_error *t_api_logs(e2b_client *c, const char *id, const e2b_logs_query *q, e2b_log_list *out)
{
    sync_state st = {0};
    e2b_error *e = NULL, *err;
    memset(out, 0, sizeof *out);
    err = sync_wait(c, e2b_api_logs(c, id, q, sync_logs, &st, &e), &e, &st);
    MOVE_OUT(out, st, e2b_log_list);
    return err;
}

e2b_error *t_api_secrets_list(e2b_client *c, e2b_secret_list *out)
{
    sync_state st = {0};
    e2b_error *e = NULL, *err;
    memset(out, 0, sizeof *out);
    err = sync_wait(c, e2b_api_secrets_list(c, sync_secret_list, &st, &e), &e, &st);
    MOVE_OUT(out, st, e2b_secret_list);
    return err;
}

e2b_error *t_api_secret_create(e2b_client *c, const char *name, const char *value,
                               const e2b_metadata *metadata, e2b_secret *out)
{
    sync_state st = {0};
    e2b_error *e = NULL, *err;
    memset(out, 0, sizeof *out);
    err = sync_wait(c, e2b_api_secret_create(c, name, value, metadata, sync_secret, &st, &e), &e,
                    &st);
    MOVE_OUT(out, st, e2b_secret);
    return err;
}

e2b_error *t_api_secret_get(e2b_client *c, const char *name_or_id, e2b_secret *out)
{
    sync_state st = {0};
    e2b_error *e = NULL, *err;
    memset(out, 0, sizeof *out);
    err = sync_wait(c, e2b_api_secret_get(c, name_or_id, sync_secret, &st, &e), &e, &st);
    MOVE_OUT(out, st, e2b_secret);
    return err;
}

e2b_error *t_api_secret_update(e2b_client *c, const char *name_or_id, const char *value,
                               const e2b_metadata *metadata, e2b_secret *out)
{
    sync_state st = {0};
    e2b_error *e = NULL, *err;
    memset(out, 0, sizeof *out);
    err = sync_wait(c, e2b_api_secret_update(c, name_or_id, value, metadata, sync_secret, &st, &e),
                    &e, &st);
    MOVE_OUT(out, st, e2b_secret);
    return err;
}

e2b_error *t_api_secret_delete(e2b_client *c, const char *name_or_id)
{
    sync_state st = {0};
    e2b_error *e = NULL;
    return sync_wait(c, e2b_api_secret_delete(c, name_or_id, sync_status, &st, &e), &e, &st);
}

/* ---- envd ---- */

typedef struct envd_state {
    int done;
    e2b_error *err;
    json_t *reply;
} envd_state;

static void envd_done(void *ud, const e2b_error *err)
{
    envd_state *st = ud;
    st->done = 1;
    st->err = err ? e2b_error_copy(err) : NULL;
}

static void envd_json(void *ud, const json_t *reply, const e2b_error *err)
{
    envd_state *st = ud;
    st->done = 1;
    st->err = err ? e2b_error_copy(err) : NULL;
    st->reply = reply ? json_incref((json_t *)reply) : NULL;
}

static e2b_error *wait_for(e2b_envd *ev, e2b_http_request *req, e2b_error **start_err,
                           envd_state *st)
{
    if (!req)
        return *start_err;
    e2b_wait(e2b_envd_loop(ev), &st->done);
    return st->err;
}

e2b_error *t_envd_upload(e2b_envd *ev, const e2b_upload *up)
{
    envd_state st = {0};
    e2b_error *e = NULL;
    return wait_for(ev, e2b_envd_upload(ev, up, envd_done, &st, &e), &e, &st);
}

e2b_error *t_envd_download(e2b_envd *ev, const char *path, e2b_http_write_fn write, void *write_ud,
                           int gzip)
{
    envd_state st = {0};
    e2b_error *e = NULL;
    return wait_for(ev, e2b_envd_download(ev, path, write, write_ud, gzip, envd_done, &st, &e), &e,
                    &st);
}

typedef struct run_state {
    envd_state st; /* first: envd_done gets the same pointer */
    t_process_result *r;
    size_t max;
} run_state;

static void keep(char **buf, size_t *len, size_t *total, size_t max, const uint8_t *d, size_t n)
{
    size_t take = *len + n > max ? (max > *len ? max - *len : 0) : n;
    *total += n;
    if (take) {
        char *p = realloc(*buf, *len + take + 1);
        if (!p)
            return;
        memcpy(p + *len, d, take);
        *len += take;
        p[*len] = '\0';
        *buf = p;
    }
}

static int run_event(void *ud, const e2b_process_event *evt)
{
    run_state *rs = ud;
    t_process_result *r = rs->r;
    switch (evt->type) {
    case E2B_PROC_START:
        r->pid = evt->pid;
        break;
    case E2B_PROC_STDOUT:
    case E2B_PROC_PTY:
        keep(&r->out, &r->out_len, &r->out_total, rs->max, evt->data, evt->len);
        break;
    case E2B_PROC_STDERR:
        keep(&r->err, &r->err_len, &r->err_total, rs->max, evt->data, evt->len);
        break;
    case E2B_PROC_END:
        r->exit_code = evt->exit_code;
        r->exited = evt->exited;
        break;
    default:
        break;
    }
    return 0;
}

e2b_error *t_envd_run(e2b_envd *ev, const e2b_process_spec *spec, size_t max_output,
                      t_process_result *out)
{
    run_state rs = {{0}, out, max_output};
    e2b_error *e = NULL;
    memset(out, 0, sizeof *out);
    out->out = strdup("");
    out->err = strdup("");
    return wait_for(ev, e2b_envd_process_start(ev, spec, run_event, envd_done, &rs, &e), &e,
                    &rs.st);
}

void t_process_result_clear(t_process_result *r)
{
    if (!r)
        return;
    free(r->out);
    free(r->err);
    memset(r, 0, sizeof *r);
}

/* A unary call to the end: *reply (caller decrefs) or the error. */
static e2b_error *rpc_sync(e2b_envd *ev, const char *service, const char *method, json_t *req,
                           json_t **reply)
{
    envd_state st = {0};
    e2b_error *e = NULL, *err;
    err = wait_for(ev, e2b_envd_rpc(ev, service, method, req, envd_json, &st, &e), &e, &st);
    json_decref(req);
    if (reply)
        *reply = st.reply;
    else
        json_decref(st.reply);
    return err;
}

e2b_error *t_envd_process_list(e2b_envd *ev, e2b_process_list *out)
{
    json_t *reply = NULL;
    e2b_error *err = rpc_sync(ev, "process.Process", "List", json_object(), &reply);
    memset(out, 0, sizeof *out);
    if (!err)
        err = e2b_process_list_from_json(reply, out);
    json_decref(reply);
    return err;
}

e2b_error *t_envd_send_signal(e2b_envd *ev, uint32_t pid, const char *signal)
{
    char name[32];
    snprintf(name, sizeof name, "SIGNAL_%s", signal ? signal : "SIGKILL");
    return rpc_sync(ev, "process.Process", "SendSignal",
                    json_pack("{s:{s:I},s:s}", "process", "pid", (json_int_t)pid, "signal", name),
                    NULL);
}

e2b_error *t_envd_send_input(e2b_envd *ev, uint32_t pid, const void *data, size_t len)
{
    char *b64 = e2b_base64_encode(data, len);
    e2b_error *err;
    if (!b64)
        return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    err = rpc_sync(
        ev, "process.Process", "SendInput",
        json_pack("{s:{s:I},s:{s:s}}", "process", "pid", (json_int_t)pid, "input", "stdin", b64),
        NULL);
    free(b64);
    return err;
}

e2b_error *t_envd_close_stdin(e2b_envd *ev, uint32_t pid)
{
    return rpc_sync(ev, "process.Process", "CloseStdin",
                    json_pack("{s:{s:I}}", "process", "pid", (json_int_t)pid), NULL);
}

e2b_error *t_envd_stat(e2b_envd *ev, const char *path, e2b_entry *out)
{
    json_t *reply = NULL;
    e2b_error *err =
        rpc_sync(ev, "filesystem.Filesystem", "Stat", json_pack("{s:s}", "path", path), &reply);
    memset(out, 0, sizeof *out);
    if (!err)
        err = e2b_entry_from_reply(reply, out);
    json_decref(reply);
    return err;
}

e2b_error *t_envd_make_dir(e2b_envd *ev, const char *path, int *created)
{
    e2b_error *err =
        rpc_sync(ev, "filesystem.Filesystem", "MakeDir", json_pack("{s:s}", "path", path), NULL);
    if (created)
        *created = err == NULL;
    if (err && err->e2b_error_code && strcmp(err->e2b_error_code, "already_exists") == 0) {
        e2b_error_free(err);
        return NULL;
    }
    return err;
}

e2b_error *t_envd_list_dir(e2b_envd *ev, const char *path, int depth, e2b_entry_list *out)
{
    json_t *reply = NULL;
    e2b_error *err =
        rpc_sync(ev, "filesystem.Filesystem", "ListDir",
                 json_pack("{s:s,s:i}", "path", path, "depth", depth > 0 ? depth : 1), &reply);
    memset(out, 0, sizeof *out);
    if (!err)
        err = e2b_entry_list_from_reply(reply, out);
    json_decref(reply);
    return err;
}

e2b_error *t_envd_remove(e2b_envd *ev, const char *path)
{
    return rpc_sync(ev, "filesystem.Filesystem", "Remove", json_pack("{s:s}", "path", path), NULL);
}
