/* Requests, replies, routing and fault injection; see http.h. */
#include "http.h"
#include "sandbox.h"
#include "templates.h"
#include "util.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define MAX_BODY (256u << 20)

/* ---- requests ------------------------------------------------------------------------ */

const char *req_header(struct req *r, const char *name)
{
    return MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, name);
}

char *req_query(struct req *r, const char *name, bool *bad)
{
    const char *q = strchr(r->uri, '?');
    if (!q)
        return NULL;
    q++;
    size_t nlen = strlen(name);
    while (*q) {
        const char *amp = strchr(q, '&');
        size_t len = amp ? (size_t)(amp - q) : strlen(q);
        const char *eq = memchr(q, '=', len);
        size_t klen = eq ? (size_t)(eq - q) : len;
        char *key = query_unescape(q, klen);
        bool match = key && strlen(key) == nlen && memcmp(key, name, nlen) == 0;
        free(key);
        if (match) {
            char *v = eq ? query_unescape(eq + 1, len - klen - 1) : strdup("");
            if (!v && bad)
                *bad = true;
            return v;
        }
        if (!amp)
            break;
        q = amp + 1;
    }
    return NULL;
}

void req_add_header(struct req *r, const char *name, const char *value)
{
    if (r->nheaders >= 64)
        return;
    r->headers[r->nheaders][0] = strdup(name);
    r->headers[r->nheaders][1] = strdup(value);
    r->nheaders++;
}

/* ---- replies ------------------------------------------------------------------------- */

struct wrap {
    char *buf;
    size_t len;
    stream_fn fn;
    void *cls;
    void (*free_fn)(void *);
    long long cut;
    uint64_t sent;
};

static ssize_t wrap_read(void *cls, uint64_t pos, char *out, size_t max)
{
    struct wrap *w = cls;
    if (w->cut >= 0) {
        if (w->sent >= (uint64_t)w->cut)
            return MHD_CONTENT_READER_END_WITH_ERROR; /* the injected drop */
        if (max > (uint64_t)w->cut - w->sent)
            max = (size_t)((uint64_t)w->cut - w->sent);
    }
    ssize_t n;
    if (w->fn) {
        n = w->fn(w->cls, out, max);
    } else {
        if (pos >= w->len)
            return MHD_CONTENT_READER_END_OF_STREAM;
        n = (ssize_t)(w->len - pos < max ? w->len - pos : max);
        memcpy(out, w->buf + pos, (size_t)n);
    }
    if (n > 0)
        w->sent += (uint64_t)n;
    return n;
}

static void wrap_free(void *cls)
{
    struct wrap *w = cls;
    if (w->free_fn)
        w->free_fn(w->cls);
    free(w->buf);
    free(w);
}

static enum MHD_Result queue(struct req *r, int status, struct MHD_Response *resp, const char *ctype)
{
    if (!resp)
        return MHD_NO;
    if (ctype)
        MHD_add_response_header(resp, "Content-Type", ctype);
    for (int i = 0; i < r->nheaders; i++)
        MHD_add_response_header(resp, r->headers[i][0], r->headers[i][1]);
    r->status = status;
    r->replied = true;
    enum MHD_Result rc = MHD_queue_response(r->conn, (unsigned)status, resp);
    MHD_destroy_response(resp);
    return rc;
}

enum MHD_Result reply_raw(struct req *r, int status, const char *ctype, const void *data, size_t len)
{
    struct MHD_Response *resp;
    if (r->cut_after >= 0) {
        struct wrap *w = calloc(1, sizeof *w);
        w->buf = malloc(len ? len : 1);
        memcpy(w->buf, data, len);
        w->len = len;
        w->cut = r->cut_after == 0x7fffffffffffffffLL ? (long long)len / 2 : r->cut_after;
        resp = MHD_create_response_from_callback(len, 16384, wrap_read, w, wrap_free);
    } else {
        resp = MHD_create_response_from_buffer(len, (void *)data, MHD_RESPMEM_MUST_COPY);
    }
    return queue(r, status, resp, ctype);
}

enum MHD_Result reply_json(struct req *r, int status, json_t *body)
{
    char *text = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    enum MHD_Result rc = reply_raw(r, status, "application/json", text, strlen(text));
    free(text);
    return rc;
}

enum MHD_Result reply_error(struct req *r, int status, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return reply_json(r, status, json_pack("{s:i, s:s}", "code", status, "message", msg));
}

enum MHD_Result reply_empty(struct req *r, int status)
{
    return reply_raw(r, status, NULL, "", 0);
}

enum MHD_Result reply_stream(struct req *r, int status, const char *ctype, uint64_t size, stream_fn fn, void *cls,
                             void (*free_fn)(void *))
{
    struct wrap *w = calloc(1, sizeof *w);
    w->fn = fn;
    w->cls = cls;
    w->free_fn = free_fn;
    w->cut = r->cut_after == 0x7fffffffffffffffLL ? 0 : r->cut_after;
    struct MHD_Response *resp = MHD_create_response_from_callback(size, 32768, wrap_read, w, wrap_free);
    return queue(r, status, resp, ctype);
}

static int connect_status(const char *code)
{
    static const struct {
        const char *code;
        int status;
    } map[] = {{"invalid_argument", 400}, {"failed_precondition", 400}, {"out_of_range", 400},
               {"unauthenticated", 401}, {"permission_denied", 403}, {"not_found", 404},
               {"already_exists", 409}, {"aborted", 409}, {"resource_exhausted", 429},
               {"canceled", 499}, {"unimplemented", 501}, {"unavailable", 503},
               {"deadline_exceeded", 504}};
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (strcmp(map[i].code, code) == 0)
            return map[i].status;
    return 500;
}

enum MHD_Result reply_connect_error(struct req *r, const char *code, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return reply_json(r, connect_status(code), json_pack("{s:s, s:s}", "code", code, "message", msg));
}

enum MHD_Result reply_proxy_502(struct req *r, const char *message, int port)
{
    json_t *o = json_pack("{s:s, s:s, s:i}", "sandboxId", r->sandbox_id, "message", message, "code", 502);
    if (port)
        json_object_set_new(o, "port", json_integer(port));
    return reply_json(r, 502, o);
}

/* ---- faults -------------------------------------------------------------------------- */

struct fault {
    char kind[16];       /* 429 500 503 delay truncate drop next_token */
    char token[64];      /* next_token: the X-Next-Token to send; empty = a new one each time */
    char path[256];      /* substring of the path; empty matches all */
    char method[16];     /* the request's method; empty matches all */
    int count;
    int retry_after;
    int delay_ms;
    long long after_bytes;
};

static pthread_mutex_t faults_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fault faults[64];
static int nfaults;

int faults_add(json_t *spec, char *err, size_t errlen)
{
    const char *kind = json_string_value(json_object_get(spec, "kind"));
    static const char *const kinds[] = {"429", "500", "503", "delay", "truncate", "drop",
                                        "next_token", "fork_fail"};
    bool ok = false;
    for (size_t i = 0; kind && i < sizeof kinds / sizeof *kinds; i++)
        ok |= strcmp(kind, kinds[i]) == 0;
    if (!ok) {
        snprintf(err, errlen, "kind must be one of 429, 500, 503, delay, truncate, drop, next_token, fork_fail");
        return -1;
    }
    struct fault f = {.count = 1, .retry_after = 1, .delay_ms = 1000, .after_bytes = -1};
    snprintf(f.kind, sizeof f.kind, "%s", kind);
    const char *path = json_string_value(json_object_get(spec, "path"));
    snprintf(f.path, sizeof f.path, "%s", path ? path : "");
    const char *token = json_string_value(json_object_get(spec, "token"));
    snprintf(f.token, sizeof f.token, "%s", token ? token : "");
    const char *method = json_string_value(json_object_get(spec, "method"));
    snprintf(f.method, sizeof f.method, "%s", method ? method : "");
    if (json_is_integer(json_object_get(spec, "count")))
        f.count = (int)json_integer_value(json_object_get(spec, "count"));
    if (json_is_integer(json_object_get(spec, "retryAfter")))
        f.retry_after = (int)json_integer_value(json_object_get(spec, "retryAfter"));
    if (json_is_integer(json_object_get(spec, "delayMs")))
        f.delay_ms = (int)json_integer_value(json_object_get(spec, "delayMs"));
    if (json_is_integer(json_object_get(spec, "afterBytes")))
        f.after_bytes = json_integer_value(json_object_get(spec, "afterBytes"));
    if (f.count <= 0) {
        snprintf(err, errlen, "count must be positive");
        return -1;
    }
    pthread_mutex_lock(&faults_lock);
    int rc = -1;
    if (nfaults < 64) {
        faults[nfaults++] = f;
        rc = 0;
    } else {
        snprintf(err, errlen, "too many faults queued");
    }
    pthread_mutex_unlock(&faults_lock);
    return rc;
}

json_t *faults_json(void)
{
    json_t *a = json_array();
    pthread_mutex_lock(&faults_lock);
    for (int i = 0; i < nfaults; i++)
        json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:I}", "kind", faults[i].kind, "path",
                                           faults[i].path, "method", faults[i].method, "count", faults[i].count, "retryAfter",
                                           faults[i].retry_after, "delayMs", faults[i].delay_ms, "afterBytes",
                                           (json_int_t)faults[i].after_bytes));
    pthread_mutex_unlock(&faults_lock);
    return a;
}

void faults_clear(void)
{
    pthread_mutex_lock(&faults_lock);
    nfaults = 0;
    pthread_mutex_unlock(&faults_lock);
}

/* fork_fail faults are taken per fork (fault_take_fork), never for a whole request. */
static bool fault_take_kind(const char *method, const char *path, bool fork_kind, struct fault *out)
{
    bool hit = false;
    pthread_mutex_lock(&faults_lock);
    for (int i = 0; i < nfaults; i++) {
        if ((strcmp(faults[i].kind, "fork_fail") == 0) != fork_kind)
            continue;
        if (faults[i].path[0] && !strstr(path, faults[i].path))
            continue;
        if (faults[i].method[0] && strcasecmp(method, faults[i].method) != 0)
            continue;
        *out = faults[i];
        if (--faults[i].count <= 0) {
            memmove(&faults[i], &faults[i + 1], (size_t)(nfaults - i - 1) * sizeof *faults);
            nfaults--;
        }
        hit = true;
        break;
    }
    pthread_mutex_unlock(&faults_lock);
    return hit;
}

static bool fault_take(const char *method, const char *path, struct fault *out)
{
    return fault_take_kind(method, path, false, out);
}

bool fault_take_fork(const char *path)
{
    struct fault f;
    return fault_take_kind("POST", path, true, &f);
}

/* ---- routing ------------------------------------------------------------------------- */

void *http_uri_log(void *cls, const char *uri, struct MHD_Connection *conn)
{
    (void)cls;
    struct req *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->uri = strdup(uri ? uri : "/");
    r->conn = conn;
    r->cut_after = -1;
    r->t0 = mono_ms();
    return r;
}

/* "<port>-<id>.<domain>" → port and id. */
static bool parse_sandbox_host(const char *host, int *port, char *id, size_t idlen)
{
    if (!host || !isdigit((unsigned char)host[0]))
        return false;
    char *end;
    long p = strtol(host, &end, 10);
    if (*end != '-' || p <= 0 || p > 65535)
        return false;
    const char *s = end + 1;
    size_t n = 0;
    while (s[n] && (isalnum((unsigned char)s[n])))
        n++;
    if (n == 0 || s[n] != '.' || n >= idlen)
        return false;
    memcpy(id, s, n);
    id[n] = '\0';
    *port = (int)p;
    return true;
}

static void route(struct req *r)
{
    const char *host = req_header(r, "Host");
    const char *hid = req_header(r, "E2b-Sandbox-Id");
    const char *hport = req_header(r, "E2b-Sandbox-Port");
    if (strncmp(r->path, "/_e2b-local/", 12) == 0) {
        r->route = ROUTE_ADMIN;
    } else if (parse_sandbox_host(host, &r->port, r->sandbox_id, sizeof r->sandbox_id)) {
        r->route = r->port == ENVD_PORT ? ROUTE_ENVD : ROUTE_PROXY;
    } else if (hid && *hid && hport && atoi(hport) > 0) {
        snprintf(r->sandbox_id, sizeof r->sandbox_id, "%s", hid);
        r->port = atoi(hport);
        r->route = r->port == ENVD_PORT ? ROUTE_ENVD : ROUTE_PROXY;
    } else {
        r->route = ROUTE_CONTROL;
    }
}

static enum MHD_Result admin_handle(struct req *r)
{
    if (strcmp(r->path, "/_e2b-local/templates") == 0)
        return templates_admin(r);
    if (strcmp(r->path, "/_e2b-local/faults") != 0)
        return reply_error(r, 404, "no such e2b-local endpoint: %s", r->path);
    if (strcmp(r->method, "GET") == 0)
        return reply_json(r, 200, faults_json());
    if (strcmp(r->method, "DELETE") == 0) {
        faults_clear();
        return reply_empty(r, 204);
    }
    if (strcmp(r->method, "POST") != 0)
        return reply_error(r, 405, "use GET, POST or DELETE");
    json_error_t jerr;
    json_t *spec = json_loadb(r->body.data ? r->body.data : "", r->body.len, 0, &jerr);
    if (!spec)
        return reply_error(r, 400, "body is not JSON: %s", jerr.text);
    char err[200] = "";
    int rc = 0;
    if (json_is_array(spec)) {
        size_t i;
        json_t *f;
        json_array_foreach(spec, i, f) {
            if (rc == 0)
                rc = faults_add(f, err, sizeof err);
        }
    } else {
        rc = faults_add(spec, err, sizeof err);
    }
    json_decref(spec);
    if (rc != 0)
        return reply_error(r, 400, "%s", err);
    return reply_json(r, 201, faults_json());
}

static enum MHD_Result dispatch(struct req *r)
{
    if (r->body_too_big)
        return reply_error(r, 413, "request body is larger than %u bytes", MAX_BODY);
    switch (r->route) {
    case ROUTE_ADMIN:
        return admin_handle(r);
    case ROUTE_ENVD:
        return envd_handle(r);
    case ROUTE_PROXY:
        return proxy_handle(r);
    default:
        return control_handle(r);
    }
}

/* Applies an injected fault at the start of a request; returns true when it replied. */
static bool apply_fault(struct req *r, enum MHD_Result *rc)
{
    struct fault f;
    if (r->route == ROUTE_ADMIN || !fault_take(r->method, r->path, &f))
        return false;
    log_line("fault %s injected on %s %s", f.kind, r->method, r->path);
    if (strcmp(f.kind, "429") == 0) {
        char ra[24];
        snprintf(ra, sizeof ra, "%d", f.retry_after);
        req_add_header(r, "Retry-After", ra);
        *rc = reply_error(r, 429, "rate limit exceeded (injected by e2b-local)");
        return true;
    }
    if (strcmp(f.kind, "500") == 0) {
        *rc = reply_error(r, 500, "internal server error (injected by e2b-local)");
        return true;
    }
    if (strcmp(f.kind, "503") == 0) {
        *rc = reply_error(r, 503, "service unavailable (injected by e2b-local)");
        return true;
    }
    if (strcmp(f.kind, "delay") == 0) {
        /* In steps, so that a SIGTERM does not wait for a delay nobody waits for any more. */
        for (long left = f.delay_ms; left > 0 && !g_stopping; left -= 50)
            usleep((useconds_t)(left < 50 ? left : 50) * 1000);
        return false;
    }
    if (strcmp(f.kind, "next_token") == 0) {
        /* an empty page that says more follow: a server that pages forever */
        static unsigned long chain;
        char tok[96];
        if (f.token[0])
            snprintf(tok, sizeof tok, "%s", f.token);
        else
            snprintf(tok, sizeof tok, "chain-%lu", __atomic_add_fetch(&chain, 1, __ATOMIC_RELAXED));
        req_add_header(r, "X-Next-Token", tok);
        *rc = reply_json(r, 200, json_array());
        return true;
    }
    /* truncate / drop: the reply is cut after afterBytes; without it a body is cut in the
     * middle and a stream right after its headers. */
    r->cut_after = f.after_bytes >= 0 ? f.after_bytes : 0x7fffffffffffffffLL;
    return false;
}

enum MHD_Result http_access(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                            const char *version, const char *upload_data, size_t *upload_data_size,
                            void **con_cls)
{
    (void)cls;
    (void)version;
    struct req *r = *con_cls;
    if (!r)
        return MHD_NO;
    if (!r->started) {
        r->started = true;
        r->conn = conn;
        r->method = method;
        r->path = strdup(url);
        route(r);
        enum MHD_Result rc;
        if (apply_fault(r, &rc))
            return rc;
        if (r->route == ROUTE_ENVD && strcmp(method, "POST") == 0 && strcmp(url, "/files") == 0)
            envd_upload_begin(r);
        return MHD_YES;
    }
    if (r->replied) {
        *upload_data_size = 0; /* a reply went out early: discard the rest of the body */
        return MHD_YES;
    }
    if (*upload_data_size) {
        if (r->upload) {
            envd_upload_data(r, upload_data, *upload_data_size);
        } else if (r->body.len + *upload_data_size > MAX_BODY) {
            r->body_too_big = true;
        } else if (!r->body_too_big) {
            bytes_append(&r->body, upload_data, *upload_data_size);
        }
        *upload_data_size = 0;
        return MHD_YES;
    }
    return dispatch(r);
}

void http_completed(void *cls, struct MHD_Connection *conn, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)conn;
    struct req *r = *con_cls;
    if (!r)
        return;
    if (r->path) {
        const char *host = req_header(r, "Host");
        /* The control plane's query goes at the end (the list filters a test checks); a
         * box port's never does (a client may carry its password there: ?auth_token=). */
        const char *q = r->route == ROUTE_CONTROL && r->uri ? strchr(r->uri, '?') : NULL;
        log_line("%s %s%s%s %d %lldms%s%s%.400s", r->method ? r->method : "-",
                 r->route == ROUTE_CONTROL || r->route == ROUTE_ADMIN ? "" : host ? host : "",
                 r->route == ROUTE_CONTROL || r->route == ROUTE_ADMIN ? "" : " ", r->path, r->status,
                 (long long)(mono_ms() - r->t0), toe == MHD_REQUEST_TERMINATED_COMPLETED_OK ? "" : " (aborted)",
                 q ? " " : "", q ? q : "");
    }
    envd_upload_free(r);
    for (int i = 0; i < r->nheaders; i++) {
        free(r->headers[i][0]);
        free(r->headers[i][1]);
    }
    bytes_free(&r->body);
    free(r->uri);
    free(r->path);
    free(r);
    *con_cls = NULL;
}
