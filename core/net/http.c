#include "core/net/http.h"

#include "core/util/buf.h"
#include "core/util/str.h"

#include "core/util/log.h"
#include "core/net/loop_curl.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define DEFAULT_MAX_BODY (64u * 1024u * 1024u)
#define ERROR_BODY_MAX (64u * 1024u) /* a non-2xx body kept for the error message */
#define DEFAULT_CONNECT_TIMEOUT_MS 10000L
#define DEFAULT_LOW_SPEED_TIME_S 60L
#define MAX_RETRIES 3
#define RETRY_DEADLINE_WITHOUT_TIMEOUT_MS 60000L

/* Per-part context of a streamed multipart body. */
typedef struct part_src {
    struct e2b_http_request *req;
    e2b_http_read_fn fn;
    void *ud;
} part_src;

struct e2b_http_request {
    e2b_loop_transfer t; /* first: the loop hands it back to us */
    e2b_loop *loop;
    CURL *easy;
    struct curl_slist *headers;
    curl_mime *mime;
    part_src *part_srcs;
    char *method, *url, *log_path, *host;
    int log_by_caller;
    char *body; /* the request body (wiped when freed) */
    size_t body_len;
    e2b_http_read_fn read_body;
    void *read_ud;
    e2b_http_write_fn write_body;
    void *write_ud;
    e2b_http_progress_fn progress;
    void *progress_ud;
    size_t max_body;
    long timeout_ms;
    int retry_429, retry_503, streaming_body;
    e2b_http_done_fn done;
    void *ud;

    e2b_http_response resp;
    size_t body_cap;
    int status_checked, stream_to_user;
    e2b_error *cb_error;
    int cancel_requested, in_multi, finished;
    int retries_429, retries_503;
    long retry_after_s; /* Retry-After of the current attempt when a plain integer, else -1 */
    uint64_t timer;
    int64_t start_ms;
    char errbuf[CURL_ERROR_SIZE];
};

/* Depth of our own curl callbacks on this thread: curl_multi_remove_handle is not allowed
 * inside any of them. */
static _Thread_local int in_curl_callback;

static void finish(e2b_http_request *req, CURLcode rc);

static void reset_response(e2b_http_request *req)
{
    int attempts = req->resp.attempts;
    e2b_http_response_clear(&req->resp);
    req->resp.attempts = attempts;
    req->body_cap = 0;
    req->status_checked = 0;
    req->stream_to_user = 0;
    req->errbuf[0] = '\0';
    req->retry_after_s = -1;
}

void e2b_http_response_clear(e2b_http_response *resp)
{
    if (!resp)
        return;
    free(resp->body);
    free(resp->trace_id);
    free(resp->next_token);
    free(resp->content_type);
    memset(resp, 0, sizeof *resp);
    resp->total_running = -1;
}

int e2b_http_retry_after_seconds(const char *s, long *seconds)
{
    long v = 0;
    if (!s || !*s)
        return 0;
    for (const char *p = s; *p; p++) {
        if (!isdigit((unsigned char)*p))
            return 0;
        v = v * 10 + (*p - '0');
        if (v > 2147483L)
            return 0;
    }
    *seconds = v;
    return 1;
}

e2b_error *e2b_http_status_error(const e2b_http_response *resp, const char *not_found_text)
{
    return e2b_error_from_http(resp->status, resp->body, resp->body ? resp->body_len : 0,
                               resp->trace_id, not_found_text);
}

/* ---- curl callbacks ---- */

static int append_body(e2b_http_request *req, const char *data, size_t n, size_t limit)
{
    /* The response's body is core's one growable buffer, spread over resp and body_cap. */
    e2b_buf b = {.data = req->resp.body, .len = req->resp.body_len, .cap = req->body_cap};
    if (req->resp.body_len + n > limit)
        return -1;
    if (e2b_buf_add(&b, data, n) < 0)
        return -1; /* the body as it was stays valid */
    req->resp.body = b.data;
    req->resp.body_len = b.len;
    req->body_cap = b.cap;
    return 0;
}

static size_t on_write(char *data, size_t size, size_t nmemb, void *ud)
{
    e2b_http_request *req = ud;
    size_t n = size * nmemb;
    if (req->cancel_requested)
        return 0;
    if (!req->status_checked) {
        long status = 0;
        curl_easy_getinfo(req->easy, CURLINFO_RESPONSE_CODE, &status);
        req->resp.status = status;
        req->stream_to_user = req->write_body && status >= 200 && status <= 299;
        req->status_checked = 1;
    }
    if (req->stream_to_user) {
        e2b_error *e;
        in_curl_callback++;
        e = req->write_body(req->write_ud, data, n);
        in_curl_callback--;
        if (e) {
            req->cb_error = e;
            return 0;
        }
        return req->cancel_requested ? 0 : n;
    }
    if (req->write_body || (req->resp.status && (req->resp.status < 200 || req->resp.status > 299))) {
        /* An error body: keep its beginning for the message, drop the rest. */
        size_t room = ERROR_BODY_MAX > req->resp.body_len ? ERROR_BODY_MAX - req->resp.body_len : 0;
        if (room && append_body(req, data, n < room ? n : room, ERROR_BODY_MAX) < 0) {
            req->cb_error = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
            return 0;
        }
        return n;
    }
    if (append_body(req, data, n, req->max_body) < 0) {
        req->cb_error = req->resp.body_len + n > req->max_body
                            ? e2b_error_new(E2B_ERR_PROTOCOL, "the reply is larger than %zu bytes",
                                            req->max_body)
                            : e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        return 0;
    }
    return n;
}

static char *dup_trimmed(const char *s, size_t n)
{
    while (n && (s[n - 1] == '\r' || s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    while (n && (*s == ' ' || *s == '\t')) {
        s++;
        n--;
    }
    return strndup(s, n);
}

static void set_header_field(char **slot, const char *v, size_t n)
{
    free(*slot);
    *slot = dup_trimmed(v, n);
    if (*slot && !**slot) {
        free(*slot);
        *slot = NULL;
    }
}

static size_t on_header(char *data, size_t size, size_t nmemb, void *ud)
{
    e2b_http_request *req = ud;
    size_t n = size * nmemb;
    const char *colon = memchr(data, ':', n);
    if (n >= 5 && strncmp(data, "HTTP/", 5) == 0) {
        /* A new status line (after 100 Continue, or a new attempt): forget earlier headers. */
        free(req->resp.trace_id);
        free(req->resp.next_token);
        free(req->resp.content_type);
        req->resp.trace_id = req->resp.next_token = req->resp.content_type = NULL;
        req->resp.total_running = -1;
        req->retry_after_s = -1;
        return n;
    }
    if (!colon)
        return n;
#define IS(name) ((size_t)(colon - data) == sizeof name - 1 && strncasecmp(data, name, sizeof name - 1) == 0)
    if (IS("X-E2B-Trace-ID")) {
        set_header_field(&req->resp.trace_id, colon + 1, n - (size_t)(colon + 1 - data));
    } else if (IS("X-Next-Token")) {
        set_header_field(&req->resp.next_token, colon + 1, n - (size_t)(colon + 1 - data));
    } else if (IS("Content-Type")) {
        set_header_field(&req->resp.content_type, colon + 1, n - (size_t)(colon + 1 - data));
    } else if (IS("X-Total-Running")) {
        char *v = dup_trimmed(colon + 1, n - (size_t)(colon + 1 - data));
        if (v) {
            char *end;
            long t = strtol(v, &end, 10);
            if (*v && !*end && t >= 0)
                req->resp.total_running = t;
            free(v);
        }
    } else if (IS("Retry-After")) {
        char *v = dup_trimmed(colon + 1, n - (size_t)(colon + 1 - data));
        long s;
        if (v && e2b_http_retry_after_seconds(v, &s))
            req->retry_after_s = s;
        free(v);
    }
#undef IS
    return n;
}

static size_t read_into(e2b_http_request *req, e2b_http_read_fn fn, void *ud, char *buf,
                        size_t n)
{
    e2b_error *e = NULL;
    long got;
    if (req->cancel_requested)
        return CURL_READFUNC_ABORT;
    in_curl_callback++;
    got = fn(ud, buf, n, &e);
    in_curl_callback--;
    if (got < 0 || (size_t)got > n) {
        req->cb_error = e ? e : e2b_error_new(E2B_ERR_IO, "the upload source failed");
        return CURL_READFUNC_ABORT;
    }
    e2b_error_free(e);
    return req->cancel_requested ? CURL_READFUNC_ABORT : (size_t)got;
}

static size_t on_read(char *buf, size_t size, size_t nitems, void *ud)
{
    e2b_http_request *req = ud;
    return read_into(req, req->read_body, req->read_ud, buf, size * nitems);
}

static size_t on_part_read(char *buf, size_t size, size_t nitems, void *ud)
{
    part_src *ps = ud;
    return read_into(ps->req, ps->fn, ps->ud, buf, size * nitems);
}

static int on_progress(void *ud, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                       curl_off_t ulnow)
{
    e2b_http_request *req = ud;
    int stop = 0;
    if (req->cancel_requested)
        return 1;
    if (req->progress) {
        in_curl_callback++;
        stop = req->progress(req->progress_ud, (int64_t)dlnow, (int64_t)dltotal, (int64_t)ulnow,
                             (int64_t)ultotal);
        in_curl_callback--;
    }
    if (stop)
        req->cancel_requested = 1;
    return req->cancel_requested;
}

/* ---- completion, retries, cancellation ---- */

static e2b_error *curl_failure(e2b_http_request *req, CURLcode rc)
{
    const char *detail = req->errbuf[0] ? req->errbuf : curl_easy_strerror(rc);
    e2b_error_kind kind;
    switch (rc) {
    case CURLE_OPERATION_TIMEDOUT:
        kind = E2B_ERR_TIMEOUT;
        break;
    case CURLE_ABORTED_BY_CALLBACK:
        kind = E2B_ERR_CANCELLED;
        break;
    default: {
        /* A status line already arrived (maybe no body byte yet: a stream cut right after
         * its headers): the server was reached and the connection broke off. */
        long code = req->resp.status;
        if (!code)
            curl_easy_getinfo(req->easy, CURLINFO_RESPONSE_CODE, &code);
        kind = code > 0 ? E2B_ERR_CONNECTION_LOST : E2B_ERR_NETWORK;
        break;
    }
    }
    return e2b_error_network(kind, req->host, detail);
}

static void log_attempt(e2b_http_request *req, const e2b_error *err)
{
    e2b_log_request(req->method, req->log_path, req->resp.status,
                    (long)(e2b_now_ms() - req->start_ms), req->resp.trace_id,
                    err ? e2b_error_message(err) : NULL);
}

static void free_request(e2b_http_request *req)
{
    if (req->easy)
        curl_easy_cleanup(req->easy);
    if (req->body)
        explicit_bzero(req->body, req->body_len);
    free(req->body);
    if (req->mime)
        curl_mime_free(req->mime);
    curl_slist_free_all(req->headers);
    e2b_http_response_clear(&req->resp);
    e2b_error_free(req->cb_error);
    free(req->part_srcs);
    free(req->method);
    free(req->url);
    free(req->log_path);
    free(req->host);
    free(req);
}

static void finish(e2b_http_request *req, CURLcode rc)
{
    e2b_error *err = NULL;
    long v = 0;
    if (req->finished)
        return;
    req->finished = 1;
    if (req->in_multi) {
        curl_multi_remove_handle(e2b_loop_multi(req->loop), req->easy);
        req->in_multi = 0;
    }
    if (req->timer) {
        e2b_loop_timer_cancel(req->loop, req->timer);
        req->timer = 0;
    }
    e2b_loop_transfer_unregister(req->loop, &req->t);
    if (req->cancel_requested)
        err = e2b_error_new(E2B_ERR_CANCELLED, NULL);
    else if (req->cb_error)
        err = e2b_error_copy(req->cb_error);
    else if (rc != CURLE_OK)
        err = curl_failure(req, rc);
    if (!req->resp.status)
        curl_easy_getinfo(req->easy, CURLINFO_RESPONSE_CODE, &req->resp.status);
    curl_easy_getinfo(req->easy, CURLINFO_NUM_CONNECTS, &req->resp.new_connections);
    curl_easy_getinfo(req->easy, CURLINFO_HTTP_VERSION, &v);
    req->resp.http_version = v == CURL_HTTP_VERSION_2_0 ? 2 : v ? 1 : 0;
    req->resp.ms = (long)(e2b_now_ms() - req->start_ms);
    if (!req->log_by_caller)
        e2b_log_request(req->method, req->log_path, req->resp.status, req->resp.ms,
                        req->resp.trace_id, err ? e2b_error_message(err) : NULL);
    req->done(req->ud, &req->resp, err);
    e2b_error_free(err);
    free_request(req);
}

static void start_attempt(void *ud)
{
    e2b_http_request *req = ud;
    CURLMcode mc;
    req->timer = 0;
    reset_response(req);
    req->resp.attempts++;
    mc = curl_multi_add_handle(e2b_loop_multi(req->loop), req->easy);
    if (mc != CURLM_OK) {
        req->cb_error = e2b_error_new(E2B_ERR_INTERNAL, "curl_multi_add_handle: %s",
                                      curl_multi_strerror(mc));
        finish(req, CURLE_OK);
        return;
    }
    req->in_multi = 1;
}

/* The delay before another attempt in ms, or -1 when this response is final. */
static long retry_delay(e2b_http_request *req, CURLcode rc)
{
    long retry_after = req->retry_after_s;
    long delay = -1, budget;
    if (rc != CURLE_OK || req->cancel_requested || req->cb_error || req->streaming_body)
        return -1;
    if (req->resp.status == 429 && req->retry_429 && req->retries_429 < MAX_RETRIES &&
        retry_after >= 0) {
        req->retries_429++;
        delay = retry_after * 1000;
    } else if (req->resp.status == 503 && req->retry_503 && req->retries_503 < MAX_RETRIES) {
        delay = retry_after >= 0 ? retry_after * 1000 : 1000L << req->retries_503;
        req->retries_503++;
    }
    if (delay < 0)
        return -1;
    budget = req->timeout_ms ? req->timeout_ms : RETRY_DEADLINE_WITHOUT_TIMEOUT_MS;
    if (e2b_now_ms() + delay > req->start_ms + budget)
        return -1;
    return delay;
}

static void on_transfer_done(e2b_loop_transfer *t, CURLcode rc)
{
    e2b_http_request *req = (e2b_http_request *)t;
    long delay;
    req->in_multi = 0;
    if (rc == CURLE_OK && req->resp.status == 429) /* the whole loop slows down for it */
        e2b_loop_note_429(req->loop, req->retry_after_s >= 0 ? req->retry_after_s * 1000 : -1);
    delay = retry_delay(req, rc);
    if (delay >= 0) {
        log_attempt(req, NULL);
        req->timer = e2b_loop_timer_add(req->loop, delay, start_attempt, req);
        if (req->timer)
            return;
    }
    finish(req, rc);
}

static void on_abandon(e2b_loop_transfer *t)
{
    e2b_http_request *req = (e2b_http_request *)t;
    req->cancel_requested = 1;
    finish(req, CURLE_OK);
}

static void on_fail(e2b_loop_transfer *t, const char *why)
{
    e2b_http_request *req = (e2b_http_request *)t;
    if (!req->cb_error)
        req->cb_error = e2b_error_network(E2B_ERR_NETWORK, req->host, why);
    finish(req, CURLE_OK);
}

static void cancel_later(void *ud)
{
    e2b_http_request *req = ud;
    req->timer = 0;
    finish(req, CURLE_OK);
}

void e2b_http_cancel(e2b_http_request *req)
{
    if (!req || req->finished || req->cancel_requested)
        return;
    req->cancel_requested = 1;
    if (req->timer) {
        /* Waiting for a retry: complete instead (from the loop). */
        e2b_loop_timer_cancel(req->loop, req->timer);
        req->timer = 0;
    }
    if (req->in_multi && !in_curl_callback) {
        curl_multi_remove_handle(e2b_loop_multi(req->loop), req->easy);
        req->in_multi = 0;
    }
    /* Inside a curl callback the transfer is aborted by our callbacks' return values; the
     * timer finishes it in any case (finish() runs once). */
    req->timer = e2b_loop_timer_add(req->loop, 0, cancel_later, req);
    if (!req->timer && !req->in_multi)
        finish(req, CURLE_OK); /* out of memory: better now than never */
}

/* ---- setup ---- */

static const char *url_path(const char *url)
{
    const char *p = strstr(url, "://");
    p = p ? p + 3 : url;
    p += strcspn(p, "/?#");
    return *p ? p : "/";
}

static e2b_error *setup_body(e2b_http_request *req, const e2b_http_options *o)
{
    CURL *e = req->easy;
    const char *m = req->method;
    if (o->nparts) {
        req->mime = curl_mime_init(e);
        req->part_srcs = calloc(o->nparts, sizeof *req->part_srcs);
        if (!req->mime || !req->part_srcs)
            return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        for (size_t i = 0; i < o->nparts; i++) {
            const e2b_http_part *p = &o->parts[i];
            curl_mimepart *mp = curl_mime_addpart(req->mime);
            if (!mp)
                return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
            curl_mime_name(mp, p->name ? p->name : "file");
            if (p->filename)
                curl_mime_filename(mp, p->filename);
            if (p->content_type)
                curl_mime_type(mp, p->content_type);
            if (p->read) {
                req->part_srcs[i] = (part_src){req, p->read, p->read_ud};
                curl_mime_data_cb(mp, p->size >= 0 ? (curl_off_t)p->size : (curl_off_t)-1,
                                  on_part_read, NULL, NULL, &req->part_srcs[i]);
                req->streaming_body = 1;
            } else {
                curl_mime_data(mp, p->data ? p->data : "", p->len);
            }
        }
        curl_easy_setopt(e, CURLOPT_MIMEPOST, req->mime);
        if (strcmp(m, "POST") != 0)
            curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, m);
        return NULL;
    }
    if (o->read_body) {
        req->streaming_body = 1;
        curl_easy_setopt(e, CURLOPT_READFUNCTION, on_read);
        curl_easy_setopt(e, CURLOPT_READDATA, req);
        if (strcmp(m, "PUT") == 0) {
            curl_easy_setopt(e, CURLOPT_UPLOAD, 1L);
            curl_easy_setopt(e, CURLOPT_INFILESIZE_LARGE, (curl_off_t)o->body_size);
        } else {
            curl_easy_setopt(e, CURLOPT_POST, 1L);
            curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)o->body_size);
            if (strcmp(m, "POST") != 0)
                curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, m);
        }
        return NULL;
    }
    if (o->body || strcmp(m, "POST") == 0 || strcmp(m, "PUT") == 0) {
        /* Our own copy instead of CURLOPT_COPYPOSTFIELDS: a body may hold a secret, and
         * curl frees its copy without wiping it. */
        req->body = malloc(o->body_len ? o->body_len : 1);
        if (!req->body)
            return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        if (o->body_len)
            memcpy(req->body, o->body, o->body_len);
        req->body_len = o->body_len;
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)o->body_len);
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, req->body);
        if (strcmp(m, "POST") != 0)
            curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, m);
        return NULL;
    }
    if (strcmp(m, "GET") == 0)
        curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
    else if (strcmp(m, "HEAD") == 0)
        curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
    else
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, m);
    return NULL;
}

e2b_http_request *e2b_http_start(e2b_loop *loop, const e2b_http_options *o, e2b_http_done_fn done,
                                 void *ud, e2b_error **errp)
{
    e2b_http_request *req;
    e2b_error *err = NULL;
    CURL *e;
    long low;
    if (errp)
        *errp = NULL;
    if (!o->url || !done) {
        if (errp)
            *errp = e2b_error_new(E2B_ERR_INTERNAL, "e2b_http_start without a URL or callback");
        return NULL;
    }
    req = calloc(1, sizeof *req);
    if (!req)
        goto oom;
    req->t.done = on_transfer_done;
    req->t.abandon = on_abandon;
    req->t.fail = on_fail;
    req->loop = loop;
    req->done = done;
    req->ud = ud;
    req->method = strdup(o->method ? o->method : "GET");
    req->url = strdup(o->url);
    req->log_path = strdup(o->log_path ? o->log_path : url_path(o->url));
    req->host = e2b_url_host(o->url);
    req->easy = e = curl_easy_init();
    if (!req->method || !req->url || !req->log_path || !req->host || !e)
        goto oom;
    req->read_body = o->read_body;
    req->read_ud = o->read_ud;
    req->write_body = o->write_body;
    req->write_ud = o->write_ud;
    req->progress = o->progress;
    req->progress_ud = o->progress_ud;
    req->max_body = o->max_body ? o->max_body : DEFAULT_MAX_BODY;
    req->timeout_ms = o->timeout_ms;
    req->retry_429 = o->retry_429;
    req->retry_503 = o->retry_503;
    req->log_by_caller = o->log_by_caller;
    req->resp.total_running = -1;
    req->retry_after_s = -1;

    for (const char *const *h = o->headers; h && *h; h++) {
        struct curl_slist *n = curl_slist_append(req->headers, *h);
        if (!n)
            goto oom;
        req->headers = n;
    }
    /* No "Expect: 100-continue" round trip before uploads. */
    {
        struct curl_slist *n = curl_slist_append(req->headers, "Expect:");
        if (!n)
            goto oom;
        req->headers = n;
    }

    curl_easy_setopt(e, CURLOPT_URL, req->url);
    curl_easy_setopt(e, CURLOPT_PRIVATE, req);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, req->errbuf);
    curl_easy_setopt(e, CURLOPT_USERAGENT, "e2b-tui/" E2B_TUI_VERSION);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, req->headers);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, req);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, req);
    curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(e, CURLOPT_XFERINFODATA, req);
    curl_easy_setopt(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
    if (strncmp(req->url, "https://", 8) == 0)
        curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
    curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(e, CURLOPT_TCP_KEEPIDLE, 30L);
    curl_easy_setopt(e, CURLOPT_TCP_KEEPINTVL, 30L);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
                     o->connect_timeout_ms > 0 ? o->connect_timeout_ms : DEFAULT_CONNECT_TIMEOUT_MS);
    if (o->timeout_ms > 0)
        curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, o->timeout_ms);
    low = o->low_speed_time_s > 0 ? o->low_speed_time_s
                                  : (o->timeout_ms > 0 ? 0 : DEFAULT_LOW_SPEED_TIME_S);
    if (low > 0) {
        curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1L);
        curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, low);
    }
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    if (o->accept_gzip)
        curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "gzip");
    err = setup_body(req, o);
    if (err)
        goto fail;

    req->start_ms = e2b_now_ms();
    e2b_loop_transfer_register(loop, &req->t);
    {
        CURLMcode mc;
        req->resp.attempts = 1;
        mc = curl_multi_add_handle(e2b_loop_multi(loop), e);
        if (mc != CURLM_OK) {
            e2b_loop_transfer_unregister(loop, &req->t);
            err = e2b_error_new(E2B_ERR_INTERNAL, "curl_multi_add_handle: %s",
                                curl_multi_strerror(mc));
            goto fail;
        }
        req->in_multi = 1;
    }
    return req;
oom:
    err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
fail:
    if (req)
        free_request(req);
    if (errp)
        *errp = err;
    else
        e2b_error_free(err);
    return NULL;
}
