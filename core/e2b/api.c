#include "core/e2b/api.h"
#include "core/e2b/api_json.h"

#include "core/net/http.h"
#include "core/util/buf.h"
#include "core/util/json_wipe.h"
#include "core/util/log.h"
#include "core/util/str.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_TIMEOUT_MS 60000L
#define PAUSE_TIMEOUT_MS 120000L
#define PAGE_LIMIT 100
#define BULK_METRICS_MAX 100

struct e2b_client {
    e2b_loop *loop;
    int own_loop;
    char *api_url;
    char *key_header; /* "X-API-KEY: ..." */
    char *workspace_keys;
    long timeout_ms;
    unsigned max_pages; /* the input policy's limit.list_pages */
    /* The pages of the last report_unchanged list (e2b_list_query), to compare the next. */
    struct {
        char *query; /* the first page's query string */
        char **bodies;
        size_t *lens;
        size_t n;
        int busy; /* a report_unchanged list is running (its pages may point here) */
    } memo;
    /* The summary line of the last unchanged list, until the metrics call its caller starts
     * at once takes it (one line for the whole refresh) or it is written out. */
    char *pending_summary;
};

typedef enum result_kind {
    R_NONE,
    R_SANDBOX,
    R_SANDBOX_LIST,
    R_METRICS,
    R_METRICS_BULK,
    R_LOGS,
    R_SECRET,
    R_SECRET_LIST,
    R_JSON,       /* the parsed body, for the calls of api_templates.c */
    R_JSON_PAGES, /* every page's array joined */
} result_kind;

struct e2b_api_call {
    e2b_client *c;
    e2b_http_request *req;
    result_kind kind;
    char *action;
    char *not_found;
    long ok[2];
    char *method;
    char *path;  /* without the query */
    char *query; /* may be NULL */
    char *body;  /* may be NULL */
    long timeout_ms;
    int retry_503;
    /* Paging. */
    e2b_list_query list_query; /* metadata pointer borrowed only while starting a page */
    e2b_metadata list_metadata; /* owned copy of the filter */
    char *workspace_keys;
    e2b_sandbox_list *slist;
    e2b_secret_list *seclist;
    json_t *jpages; /* R_JSON_PAGES: the items so far */
    char *page_query; /* R_JSON_PAGES: the query of every page before its nextToken */
    /* report_unchanged lists: this list's pages so far, and whether one differed from the
     * memo (then every page is parsed). */
    char *memo_query;
    char **pages;
    size_t *page_lens;
    size_t npages;
    int diverged;
    /* Every nextToken this list followed (a server that repeats one would loop forever). */
    char **tokens;
    unsigned ntokens;
    int memo_owner; /* this call set memo.busy */
    /* The log lines of its pages, held back while they equal the memo's: an unchanged list
     * writes one summary line instead (see log_page). */
    struct held_line {
        long status, ms;
        char *trace_id;
    } *held;
    size_t nheld;
    long held_ms;
    char *summary; /* a metrics call: the unchanged list's summary, written with its line */
    int cancelled;
    void (*fn)(void);
    void *ud;
};

/* ---- percent-encoding as the JS SDK does it ---- */

char *e2b_encode_uri_component(const char *s)
{
    return e2b_percent_encode(s, "-_.!~*'()", 0);
}

char *e2b_encode_form_component(const char *s)
{
    return e2b_percent_encode(s, "*-._", 1);
}

/* A growing string: core's one buffer (core/util/buf.h). Adding NULL (an allocation that
 * failed upstream) fails it, and sb_done then returns NULL. */
typedef e2b_buf sbuf;

static void sb_add(sbuf *b, const char *t)
{
    e2b_buf_adds(b, t);
}

/* Adds and frees t. */
static void sb_take(sbuf *b, char *t)
{
    e2b_buf_adds(b, t);
    free(t);
}

static char *sb_done(sbuf *b)
{
    return e2b_buf_take(b);
}

char *e2b_api_list_query_string(const e2b_list_query *q, const char *next_token)
{
    sbuf b = {0};
    const char *sep = "";
    if (q->metadata && q->metadata->count) {
        /* encodeURIComponent each key and value, serialise with URLSearchParams, then the
         * HTTP client encodes the whole string as one value: three levels. */
        sbuf inner = {0};
        for (size_t i = 0; i < q->metadata->count; i++) {
            char *k1 = e2b_encode_uri_component(q->metadata->items[i].key);
            char *v1 = e2b_encode_uri_component(q->metadata->items[i].value);
            if (i)
                sb_add(&inner, "&");
            sb_take(&inner, k1 ? e2b_encode_form_component(k1) : NULL);
            sb_add(&inner, "=");
            sb_take(&inner, v1 ? e2b_encode_form_component(v1) : NULL);
            free(k1);
            free(v1);
        }
        {
            char *joined = sb_done(&inner);
            sb_add(&b, "metadata=");
            sb_take(&b, joined ? e2b_encode_uri_component(joined) : NULL);
            free(joined);
        }
        sep = "&";
    }
    if (q->states && (q->states & (E2B_LIST_RUNNING | E2B_LIST_PAUSED))) {
        sb_add(&b, sep);
        sb_add(&b, "state=");
        if (q->states & E2B_LIST_RUNNING)
            sb_add(&b, (q->states & E2B_LIST_PAUSED) ? "running," : "running");
        if (q->states & E2B_LIST_PAUSED)
            sb_add(&b, "paused");
        sep = "&";
    }
    sb_add(&b, sep);
    sb_add(&b, "limit=100");
    if (next_token && *next_token) {
        sb_add(&b, "&nextToken=");
        sb_take(&b, e2b_encode_uri_component(next_token));
    }
    return sb_done(&b);
}

/* ---- client ---- */

e2b_client *e2b_client_new(e2b_loop *loop, const e2b_config *cfg, e2b_error **err)
{
    e2b_client *c;
    *err = NULL;
    if (!cfg->api_key || !*cfg->api_key) {
        *err = e2b_error_new(E2B_ERR_AUTH, "no API key: set E2B_API_KEY (see e2b-tui --info)");
        return NULL;
    }
    if (!cfg->api_url) {
        *err = e2b_error_new(E2B_ERR_INTERNAL, "the configuration was not loaded");
        return NULL;
    }
    c = calloc(1, sizeof *c);
    if (!c)
        goto oom;
    if (!loop) {
        loop = e2b_loop_new();
        c->own_loop = 1;
    }
    c->loop = loop;
    c->api_url = strdup(cfg->api_url);
    c->workspace_keys = strdup(cfg->workspace_keys ? cfg->workspace_keys : E2B_DEFAULT_WORKSPACE_KEYS);
    if (asprintf(&c->key_header, "X-API-KEY: %s", cfg->api_key) < 0)
        c->key_header = NULL;
    /* http_timeout (config, E2B_TUI_HTTP_TIMEOUT) for every client: the dashboard's and the
     * one-shot modes' alike. */
    c->timeout_ms = cfg->http_timeout_s > 0 ? cfg->http_timeout_s * 1000L : DEFAULT_TIMEOUT_MS;
    c->max_pages = cfg->limits.list_pages ? cfg->limits.list_pages
                                          : e2b_limits_default().list_pages;
    if (!c->loop || !c->api_url || !c->key_header || !c->workspace_keys) {
        e2b_client_free(c);
        goto oom;
    }
    return c;
oom:
    *err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    return NULL;
}

static void memo_clear(e2b_client *c)
{
    for (size_t i = 0; i < c->memo.n; i++)
        free(c->memo.bodies[i]);
    free(c->memo.bodies);
    free(c->memo.lens);
    free(c->memo.query);
    int busy = c->memo.busy;
    memset(&c->memo, 0, sizeof c->memo);
    c->memo.busy = busy;
}

static void flush_summary(e2b_client *c);

void e2b_client_free(e2b_client *c)
{
    if (!c)
        return;
    if (c->own_loop)
        e2b_loop_free(c->loop);
    free(c->api_url);
    e2b_wipe_free(c->key_header);
    free(c->workspace_keys);
    memo_clear(c);
    flush_summary(c);
    free(c);
}

e2b_loop *e2b_client_loop(e2b_client *c)
{
    return c->loop;
}

/* ---- calls ---- */

/* A path segment (sandbox id, secret name) escaped for the URL. */
static char *seg(const char *s)
{
    return e2b_encode_uri_component(s ? s : "");
}

static void call_free(e2b_api_call *call)
{
    if (!call)
        return;
    free(call->action);
    free(call->not_found);
    free(call->method);
    free(call->path);
    free(call->query);
    e2b_wipe_free(call->body); /* bodies may hold a secret value */
    e2b_metadata_clear(&call->list_metadata);
    free(call->workspace_keys);
    e2b_sandbox_list_free(call->slist);
    e2b_secret_list_free(call->seclist);
    json_decref(call->jpages);
    free(call->page_query);
    if (call->memo_owner)
        call->c->memo.busy = 0;
    free(call->memo_query);
    for (size_t i = 0; i < call->npages; i++)
        free(call->pages[i]);
    free(call->pages);
    free(call->page_lens);
    for (size_t i = 0; i < call->nheld; i++)
        free(call->held[i].trace_id);
    free(call->held);
    free(call->summary);
    for (unsigned i = 0; i < call->ntokens; i++)
        free(call->tokens[i]);
    free(call->tokens);
    free(call);
}

/* Notes the next page's token; an error when the list already had it or has as many pages
 * as the input policy allows (core/util/limits.h). */
static e2b_error *follow_token(e2b_api_call *call, const char *token)
{
    for (unsigned i = 0; i < call->ntokens; i++)
        if (strcmp(call->tokens[i], token) == 0)
            return e2b_error_new(E2B_ERR_PROTOCOL, "the list's next page token repeats an "
                                                   "earlier one (after %u pages)",
                                 call->ntokens + 1);
    if (call->ntokens + 1 >= call->c->max_pages)
        return e2b_error_new(E2B_ERR_PROTOCOL, "the list has more than %u pages "
                                               "(limit.list_pages in the config)",
                             call->c->max_pages);
    char **t = realloc(call->tokens, (call->ntokens + 1) * sizeof *t);
    if (t)
        call->tokens = t;
    if (!t || !(call->tokens[call->ntokens] = strdup(token)))
        return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    call->ntokens++;
    return NULL;
}


static e2b_api_call *call_new(e2b_client *c, result_kind kind, const char *method, char *path,
                              char *action, long ok1, long ok2, void (*fn)(void), void *ud)
{
    e2b_api_call *call = calloc(1, sizeof *call);
    if (!call || !path || !action) {
        free(call);
        free(path);
        free(action);
        return NULL;
    }
    call->c = c;
    call->kind = kind;
    call->method = strdup(method);
    call->path = path;
    call->action = action;
    call->ok[0] = ok1;
    call->ok[1] = ok2;
    call->fn = fn;
    call->ud = ud;
    call->timeout_ms = c->timeout_ms;
    if (!call->method) {
        call_free(call);
        return NULL;
    }
    return call;
}

static void deliver(e2b_api_call *call, void *result, long status, const e2b_error *err)
{
    switch (call->kind) {
    case R_NONE:
        ((e2b_api_status_fn)call->fn)(call->ud, status, err);
        break;
    case R_SANDBOX:
        ((e2b_api_sandbox_fn)call->fn)(call->ud, result, status, err);
        break;
    case R_SANDBOX_LIST:
        ((e2b_api_list_fn)call->fn)(call->ud, result, err);
        break;
    case R_METRICS:
    case R_METRICS_BULK:
        ((e2b_api_metrics_fn)call->fn)(call->ud, result, err);
        break;
    case R_LOGS:
        ((e2b_api_logs_fn)call->fn)(call->ud, result, err);
        break;
    case R_SECRET:
        ((e2b_api_secret_fn)call->fn)(call->ud, result, err);
        break;
    case R_SECRET_LIST:
        ((e2b_api_secret_list_fn)call->fn)(call->ud, result, err);
        break;
    case R_JSON:
    case R_JSON_PAGES:
        ((e2b_api_json_fn)call->fn)(call->ud, result, status, err);
        break;
    }
}

static e2b_error *send_page(e2b_api_call *call);

/* Maps a 2xx JSON body to the call's result. */
static e2b_error *parse_body(e2b_api_call *call, const char *body, size_t len, void **result)
{
    json_error_t je;
    json_t *j;
    e2b_error *err = NULL;
    *result = NULL;
    if (call->kind == R_NONE || (call->kind == R_JSON && (!body || !len)))
        return NULL;
    j = json_loadb(body ? body : "", body ? len : 0, 0, &je);
    if (!j)
        return e2b_error_new(E2B_ERR_PROTOCOL, "the reply is not JSON (%s)", je.text);
    switch (call->kind) {
    case R_SANDBOX: {
        e2b_sandbox *sb = calloc(1, sizeof *sb);
        if (!sb || (err = e2b_sandbox_from_json(j, sb))) {
            free(sb);
            break;
        }
        if (e2b_sandbox_classify(sb, call->c->workspace_keys) < 0) {
            e2b_sandbox_free(sb);
            err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
            break;
        }
        *result = sb;
        break;
    }
    case R_SANDBOX_LIST:
        err = e2b_sandbox_list_append_json(j, call->slist);
        break;
    case R_SECRET_LIST:
        err = e2b_secret_list_append_json(j, call->seclist);
        break;
    case R_JSON:
        *result = json_incref(j);
        break;
    case R_JSON_PAGES:
        if (!json_is_array(j))
            err = e2b_error_new(E2B_ERR_PROTOCOL, "the reply is not a JSON array");
        else if (json_array_extend(call->jpages, j) != 0)
            err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        break;
    case R_METRICS:
    case R_METRICS_BULK:
    case R_LOGS: {
        void *l = calloc(1, call->kind == R_LOGS ? sizeof(e2b_log_list) : sizeof(e2b_metric_list));
        if (!l) {
            err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
            break;
        }
        err = call->kind == R_METRICS        ? e2b_metric_list_from_json(j, l)
              : call->kind == R_METRICS_BULK ? e2b_metric_list_from_bulk_json(j, l)
                                             : e2b_log_list_from_json(j, l);
        if (err)
            free(l);
        else
            *result = l;
        break;
    }
    case R_SECRET: {
        e2b_secret *s = calloc(1, sizeof *s);
        if (!s || (err = e2b_secret_from_json(j, s))) {
            free(s);
            if (!err)
                err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
            break;
        }
        *result = s;
        break;
    }
    default:
        break;
    }
    json_decref(j);
    return err;
}

static e2b_error *parse_result(e2b_api_call *call, const e2b_http_response *r, void **result)
{
    return parse_body(call, r->body, r->body_len, result);
}

/* ---- report_unchanged lists: one log line when nothing changed ----
 * A dashboard refresh lists every page each few seconds; when the reply is the last one
 * byte for byte, one summary line says so instead of a line per page. The lines of pages
 * equal to the memo's are held back; the first page that differs (or fails) writes them
 * out, and from then on every page is logged as it comes. */

static void flush_held(e2b_api_call *call)
{
    for (size_t i = 0; i < call->nheld; i++) {
        e2b_log_request(call->method, call->path, call->held[i].status, call->held[i].ms,
                        call->held[i].trace_id, NULL);
        free(call->held[i].trace_id);
    }
    call->nheld = 0;
}

/* The log line of one page of a report_unchanged list (same: it equals the memo's). */
static void log_page(e2b_api_call *call, const e2b_http_response *r, const e2b_error *err,
                     int same)
{
    long status = r ? r->status : 0, ms = r ? r->ms : 0;
    const char *trace = r ? r->trace_id : NULL;
    if (same && !err) {
        struct held_line *h = realloc(call->held, (call->nheld + 1) * sizeof *h);
        if (h) {
            call->held = h;
            h[call->nheld].status = status;
            h[call->nheld].ms = ms;
            h[call->nheld].trace_id = trace ? strdup(trace) : NULL;
            call->nheld++;
            call->held_ms += ms;
            return;
        }
    }
    flush_held(call);
    e2b_log_request(call->method, call->path, status, ms, trace,
                    err ? e2b_error_message(err) : NULL);
}

static void flush_summary(e2b_client *c)
{
    if (c->pending_summary)
        e2b_logf("%s", c->pending_summary);
    free(c->pending_summary);
    c->pending_summary = NULL;
}

/* Held until the callback has run: a dashboard refresh asks the metrics of the running
 * sandboxes from the list's callback, and that call's line joins the summary. */
static void log_unchanged(e2b_api_call *call)
{
    flush_summary(call->c);
    call->c->pending_summary =
        e2b_strfmt("%s %s unchanged: %zu page%s, %ld ms", call->method, call->path, call->nheld,
                   call->nheld == 1 ? "" : "s", call->held_ms);
    for (size_t i = 0; i < call->nheld; i++)
        free(call->held[i].trace_id);
    call->nheld = 0;
}

/* A metrics call's line after the summary it took: one line when it went well. */
static void log_with_summary(e2b_api_call *call, const e2b_http_response *r,
                             const e2b_error *err)
{
    long status = r ? r->status : 0, ms = r ? r->ms : 0;
    const char *trace = r ? r->trace_id : NULL;
    if (!err && (status == call->ok[0] || status == call->ok[1]))
        e2b_logf("%s; %s %s %ld %ldms%s%s", call->summary, call->method, call->path, status, ms,
                 trace ? " trace=" : "", trace ? trace : "");
    else {
        e2b_logf("%s", call->summary);
        e2b_log_request(call->method, call->path, status, ms, trace,
                        err ? e2b_error_message(err) : NULL);
    }
    free(call->summary);
    call->summary = NULL;
}

/* ---- report_unchanged lists: compare the pages with the last list's ---- */

static int memo_page_same(const e2b_api_call *call, size_t k, const char *body, size_t len)
{
    const e2b_client *c = call->c;
    return c->memo.query && strcmp(c->memo.query, call->memo_query) == 0 && k < c->memo.n &&
           c->memo.lens[k] == len && memcmp(c->memo.bodies[k], body, len) == 0;
}

/* Page i of this list: its own copy, or (NULL) the memo's identical page. */
static const char *kept_page(const e2b_api_call *call, size_t i, size_t *len)
{
    if (call->pages[i]) {
        *len = call->page_lens[i];
        return call->pages[i];
    }
    *len = call->c->memo.lens[i];
    return call->c->memo.bodies[i];
}

/* Parses the pages kept so far (up to, not including, page upto) into the list. */
static e2b_error *parse_kept_pages(e2b_api_call *call, size_t upto)
{
    void *unused;
    for (size_t i = 0; i < upto; i++) {
        size_t len;
        const char *body = kept_page(call, i, &len);
        e2b_error *err = parse_body(call, body, len, &unused);
        if (err)
            return err;
    }
    return NULL;
}

/* One page of a report_unchanged list: a page equal to the memo's is only noted (no copy,
 * no parse); once one differs, the earlier pages are parsed from the memo and every page
 * from then on is parsed and kept. */
static e2b_error *memo_page(e2b_api_call *call, const e2b_http_response *r, void **result)
{
    const char *body = r->body ? r->body : "";
    size_t len = r->body ? r->body_len : 0;
    char **pages = realloc(call->pages, (call->npages + 1) * sizeof *pages);
    if (pages)
        call->pages = pages;
    size_t *lens = realloc(call->page_lens, (call->npages + 1) * sizeof *lens);
    if (lens)
        call->page_lens = lens;
    if (!pages || !lens)
        return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    size_t k = call->npages;
    *result = NULL;
    if (!call->diverged && memo_page_same(call, k, body, len)) {
        call->pages[k] = NULL;
        call->page_lens[k] = len;
        call->npages++;
        return NULL;
    }
    char *copy = malloc(len + 1);
    if (!copy)
        return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    memcpy(copy, body, len);
    copy[len] = '\0';
    call->pages[k] = copy;
    call->page_lens[k] = len;
    call->npages++;
    if (!call->diverged) {
        call->diverged = 1;
        e2b_error *err = parse_kept_pages(call, k);
        if (err)
            return err;
    }
    return parse_result(call, r, result);
}

/* The last page of a report_unchanged list arrived: either nothing changed (an empty list
 * marked unchanged) or the list is parsed whole and its pages become the memo. */
static e2b_error *memo_finish(e2b_api_call *call)
{
    e2b_client *c = call->c;
    if (!call->diverged && c->memo.query && strcmp(c->memo.query, call->memo_query) == 0 &&
        call->npages == c->memo.n) {
        call->slist->unchanged = 1;
        return NULL;
    }
    if (!call->diverged) { /* fewer pages than before, or no memo yet */
        e2b_error *err = parse_kept_pages(call, call->npages);
        if (err)
            return err;
    }
    /* The new memo takes this list's pages; a page that was the memo's moves over. */
    for (size_t i = 0; i < call->npages; i++) {
        if (!call->pages[i]) {
            call->pages[i] = c->memo.bodies[i];
            c->memo.bodies[i] = NULL;
        }
    }
    memo_clear(c);
    c->memo.query = call->memo_query;
    c->memo.bodies = call->pages;
    c->memo.lens = call->page_lens;
    c->memo.n = call->npages;
    call->memo_query = NULL;
    call->pages = NULL;
    call->page_lens = NULL;
    call->npages = 0;
    return NULL;
}

/* "no answer after 2 s (http_timeout is 2 s)": what a user can act on. */
static const char *timeout_detail(const e2b_api_call *call, const e2b_http_response *r,
                                  char *buf, size_t n)
{
    long waited = r && r->ms > 0 ? r->ms : call->timeout_ms;
    snprintf(buf, n, "no answer after %ld s (http_timeout is %ld s)", (waited + 500) / 1000,
             call->c->timeout_ms / 1000);
    return buf;
}

static void on_http_done(void *ud, const e2b_http_response *r, const e2b_error *herr)
{
    e2b_api_call *call = ud;
    char detail[120];
    e2b_error *err = NULL;
    void *result = NULL;
    call->req = NULL;
    if (herr && herr->kind == E2B_ERR_TIMEOUT) /* say how long, and which setting */
        err = e2b_error_network(E2B_ERR_TIMEOUT, herr->host,
                                timeout_detail(call, r, detail, sizeof detail));
    else if (herr)
        err = e2b_error_copy(herr);
    else if (call->cancelled)
        err = e2b_error_new(E2B_ERR_CANCELLED, NULL);
    else if (r->status != call->ok[0] && r->status != call->ok[1])
        err = e2b_http_status_error(r, call->not_found);
    else if (call->memo_query)
        err = memo_page(call, r, &result);
    else
        err = parse_result(call, r, &result);
    if (call->memo_query) /* a report_unchanged list writes its own log lines */
        log_page(call, r, herr, !err && !call->diverged);
    else if (call->summary)
        log_with_summary(call, r, herr);

    /* X-Total-Running counts before pagination: the first page's value is the one. */
    if (!err && call->kind == R_SANDBOX_LIST && call->slist->total_running < 0)
        call->slist->total_running = r->total_running;
    if (!err && call->kind == R_JSON_PAGES && r->next_token) {
        err = follow_token(call, r->next_token);
        char *t = err ? NULL : e2b_encode_uri_component(r->next_token);
        free(call->query);
        call->query = t ? e2b_strfmt("%s%snextToken=%s", call->page_query ? call->page_query : "",
                                     call->page_query ? "&" : "", t)
                        : NULL;
        free(t);
        if (!err)
            err = call->query ? send_page(call) : e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        if (!err)
            return; /* the next page calls back */
    }
    if (!err && (call->kind == R_SANDBOX_LIST || call->kind == R_SECRET_LIST) && r->next_token) {
        size_t have = call->kind == R_SANDBOX_LIST ? call->slist->count : call->seclist->count;
        if (!call->list_query.max_items || have < call->list_query.max_items)
            err = follow_token(call, r->next_token);
        if (!err && (!call->list_query.max_items || have < call->list_query.max_items)) {
            free(call->query);
            call->query = call->kind == R_SANDBOX_LIST
                              ? e2b_api_list_query_string(&call->list_query, r->next_token)
                              : NULL;
            if (call->kind == R_SECRET_LIST) {
                char *t = e2b_encode_uri_component(r->next_token);
                call->query = t ? e2b_strfmt("limit=%d&nextToken=%s", PAGE_LIMIT, t) : NULL;
                free(t);
            }
            err = call->query ? send_page(call) : e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
            if (!err)
                return; /* the next page calls back */
        }
    }
    if (!err && call->kind == R_SANDBOX_LIST && call->memo_query) {
        err = memo_finish(call);
        if (!err && call->slist->unchanged)
            log_unchanged(call);
        else
            flush_held(call);
    } else {
        flush_held(call);
    }
    if (!err && call->kind == R_SANDBOX_LIST) {
        if (e2b_sandbox_list_classify(call->slist, call->workspace_keys) < 0)
            err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    }
    if (!err && call->kind == R_SANDBOX_LIST) {
        result = call->slist;
        call->slist = NULL;
    } else if (!err && call->kind == R_SECRET_LIST) {
        result = call->seclist;
        call->seclist = NULL;
    } else if (!err && call->kind == R_JSON_PAGES) {
        result = call->jpages;
        call->jpages = NULL;
    }
    if (err) {
        e2b_error_set_action(err, "%s", call->action);
        if (err->kind != E2B_ERR_CANCELLED)
            e2b_logf("error: %s", e2b_error_message(err));
    }
    e2b_client *c = call->c;
    deliver(call, err ? NULL : result, r ? r->status : 0, err);
    flush_summary(c); /* no metrics call took it */
    e2b_error_free(err);
    call_free(call);
}

static e2b_error *send_page(e2b_api_call *call)
{
    e2b_client *c = call->c;
    char *url = e2b_strfmt("%s%s%s%s", c->api_url, call->path, call->query ? "?" : "",
                    call->query ? call->query : "");
    const char *headers[] = {c->key_header, "Accept: application/json",
                             call->body ? "Content-Type: application/json" : NULL, NULL};
    e2b_http_options o = {
        .method = call->method,
        .url = url,
        .headers = headers,
        .body = call->body,
        .body_len = call->body ? strlen(call->body) : 0,
        .timeout_ms = call->timeout_ms,
        .retry_429 = 1,
        .retry_503 = call->retry_503,
        .log_path = call->path,
        .max_body = 32u * 1024u * 1024u,
        .log_by_caller = call->memo_query != NULL || call->summary != NULL,
    };
    e2b_error *err = NULL;
    if (!url)
        return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    call->req = e2b_http_start(c->loop, &o, on_http_done, call, &err);
    free(url);
    return call->req ? NULL : err;
}

/* Starts the first request; on failure frees the call and returns NULL with *errp set. */
static e2b_api_call *launch(e2b_api_call *call, e2b_error **errp)
{
    e2b_error *err;
    if (errp)
        *errp = NULL;
    if (!call) {
        if (errp)
            *errp = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        return NULL;
    }
    if (call->kind == R_METRICS_BULK && call->c->pending_summary) {
        call->summary = call->c->pending_summary;
        call->c->pending_summary = NULL;
    } else {
        flush_summary(call->c); /* before this call's own line */
    }
    err = send_page(call);
    if (err) {
        if (call->summary)
            e2b_logf("%s", call->summary);
        e2b_error_set_action(err, "%s", call->action);
        call_free(call);
        if (errp)
            *errp = err;
        else
            e2b_error_free(err);
        return NULL;
    }
    return call;
}

static e2b_api_call *invalid(e2b_error **errp, const char *action, const char *what)
{
    if (errp) {
        *errp = e2b_error_new(E2B_ERR_INVALID, "%s", what);
        e2b_error_set_action(*errp, "%s", action);
    }
    return NULL;
}

void e2b_api_cancel(e2b_api_call *call)
{
    if (!call || call->cancelled)
        return;
    call->cancelled = 1;
    if (call->req)
        e2b_http_cancel(call->req);
}

/* A request body's text; the tree is wiped (a secret's value, a create's envVars), and the
 * text is wiped with the call. */
static char *json_text(json_t *j)
{
    char *s = e2b_json_dumps_wiped(j, JSON_COMPACT);
    e2b_json_wipe_decref(j);
    return s;
}

json_t *e2b_api_create_body(const e2b_create_params *p)
{
    json_t *b;
    if (!p->template_id || !*p->template_id)
        return NULL;
    b = json_object();
    json_object_set_new(b, "templateID", json_string(p->template_id));
    if (p->timeout_s > 0)
        json_object_set_new(b, "timeout", json_integer(p->timeout_s));
    if (p->metadata && p->metadata->count)
        json_object_set_new(b, "metadata", e2b_metadata_to_json(p->metadata));
    if (p->env_vars && p->env_vars->count)
        json_object_set_new(b, "envVars", e2b_metadata_to_json(p->env_vars));
    if (p->auto_pause)
        json_object_set_new(b, "autoPause", json_true());
    if (p->allow_internet_access >= 0)
        json_object_set_new(b, "allow_internet_access", json_boolean(p->allow_internet_access));
    if (p->network)
        json_object_set_new(b, "network", json_deep_copy(p->network));
    return b;
}

e2b_api_call *e2b_api_create(e2b_client *c, const e2b_create_params *p, e2b_api_sandbox_fn fn,
                             void *ud, e2b_error **err)
{
    json_t *body = e2b_api_create_body(p);
    e2b_api_call *call;
    if (!body)
        return invalid(err, "creating a sandbox", "no template given");
    call = call_new(c, R_SANDBOX, "POST", strdup("/v2/sandboxes"),
                    e2b_strfmt("creating a sandbox from template %s", p->template_id), 201, 201,
                    (void (*)(void))fn, ud);
    if (call && !(call->body = json_text(body))) {
        call_free(call);
        call = NULL;
    } else if (!call) {
        json_decref(body);
    }
    return launch(call, err);
}

e2b_api_call *e2b_api_list(e2b_client *c, const e2b_list_query *q, e2b_api_list_fn fn, void *ud,
                           e2b_error **err)
{
    e2b_api_call *call = call_new(c, R_SANDBOX_LIST, "GET", strdup("/v2/sandboxes"),
                                  strdup("listing sandboxes"), 200, 200, (void (*)(void))fn, ud);
    if (call) {
        call->list_query = *q;
        call->slist = calloc(1, sizeof *call->slist);
        call->workspace_keys = strdup(q->workspace_keys ? q->workspace_keys : c->workspace_keys);
        for (size_t i = 0; q->metadata && i < q->metadata->count; i++)
            if (e2b_metadata_set(&call->list_metadata, q->metadata->items[i].key,
                                 q->metadata->items[i].value) < 0)
                call->workspace_keys = (free(call->workspace_keys), NULL);
        call->list_query.metadata = &call->list_metadata;
        call->list_query.workspace_keys = NULL;
        if (call->slist)
            call->slist->total_running = -1;
        call->query = e2b_api_list_query_string(&call->list_query, NULL);
        int memo_bad = 0;
        /* One at a time: the pages of a running one may point into the memo. */
        if (q->report_unchanged && !q->max_items && call->query && !c->memo.busy) {
            memo_bad = !(call->memo_query = strdup(call->query));
            call->memo_owner = c->memo.busy = !memo_bad;
        }
        if (!call->slist || !call->workspace_keys || !call->query || memo_bad) {
            call_free(call);
            call = NULL;
        }
    }
    return launch(call, err);
}

static int bad_id(const char *id)
{
    return !id || !*id;
}

e2b_api_call *e2b_api_get(e2b_client *c, const char *id, e2b_api_sandbox_fn fn, void *ud,
                          e2b_error **err)
{
    char *s;
    e2b_api_call *call;
    if (bad_id(id))
        return invalid(err, "looking up a sandbox", "no sandbox id given");
    s = seg(id);
    call = call_new(c, R_SANDBOX, "GET", s ? e2b_strfmt("/sandboxes/%s", s) : NULL,
                    e2b_strfmt("looking up sandbox %s", id), 200, 200, (void (*)(void))fn, ud);
    if (call)
        call->not_found = e2b_strfmt("no sandbox with id %s", id);
    free(s);
    return launch(call, err);
}

e2b_api_call *e2b_api_kill(e2b_client *c, const char *id, e2b_api_status_fn fn, void *ud,
                           e2b_error **err)
{
    char *s;
    e2b_api_call *call;
    if (bad_id(id))
        return invalid(err, "killing a sandbox", "no sandbox id given");
    s = seg(id);
    call = call_new(c, R_NONE, "DELETE", s ? e2b_strfmt("/sandboxes/%s", s) : NULL,
                    e2b_strfmt("killing sandbox %s", id), 204, 200, (void (*)(void))fn, ud);
    if (call) {
        call->not_found = e2b_strfmt("no sandbox with id %s", id);
        call->retry_503 = 1; /* DELETE is idempotent: a busy node is worth a few more tries */
    }
    free(s);
    return launch(call, err);
}

e2b_api_call *e2b_api_pause(e2b_client *c, const char *id, e2b_api_status_fn fn, void *ud,
                            e2b_error **err)
{
    char *s;
    e2b_api_call *call;
    if (bad_id(id))
        return invalid(err, "pausing a sandbox", "no sandbox id given");
    s = seg(id);
    call = call_new(c, R_NONE, "POST", s ? e2b_strfmt("/sandboxes/%s/pause", s) : NULL,
                    e2b_strfmt("pausing sandbox %s", id), 204, 200, (void (*)(void))fn, ud);
    if (call) {
        call->not_found = e2b_strfmt("no sandbox with id %s", id);
        call->body = strdup("{}");
        call->retry_503 = 1;
        if (call->timeout_ms < PAUSE_TIMEOUT_MS)
            call->timeout_ms = PAUSE_TIMEOUT_MS;
    }
    free(s);
    return launch(call, err);
}

e2b_api_call *e2b_api_connect(e2b_client *c, const char *id, long timeout_s,
                              e2b_api_sandbox_fn fn, void *ud, e2b_error **err)
{
    char *s;
    e2b_api_call *call;
    json_t *b = json_object();
    if (bad_id(id)) {
        json_decref(b);
        return invalid(err, "connecting to a sandbox", "no sandbox id given");
    }
    if (timeout_s > 0)
        json_object_set_new(b, "timeout", json_integer(timeout_s));
    s = seg(id);
    call = call_new(c, R_SANDBOX, "POST", s ? e2b_strfmt("/v2/sandboxes/%s/connect", s) : NULL,
                    e2b_strfmt("connecting to sandbox %s", id), 200, 201, (void (*)(void))fn, ud);
    if (call) {
        call->not_found = e2b_strfmt("no sandbox with id %s (killed or expired)", id);
        call->body = json_text(b);
        call->retry_503 = 1;
        if (call->timeout_ms < PAUSE_TIMEOUT_MS)
            call->timeout_ms = PAUSE_TIMEOUT_MS; /* a resume can take a while */
    } else {
        json_decref(b);
    }
    free(s);
    return launch(call, err);
}

e2b_api_call *e2b_api_set_timeout(e2b_client *c, const char *id, long timeout_s,
                                  e2b_api_status_fn fn, void *ud, e2b_error **err)
{
    char *s;
    e2b_api_call *call;
    if (bad_id(id))
        return invalid(err, "setting a sandbox timeout", "no sandbox id given");
    if (timeout_s < 0 || timeout_s > 2147483647L)
        return invalid(err, "setting a sandbox timeout", "the timeout is out of range");
    s = seg(id);
    call = call_new(c, R_NONE, "POST", s ? e2b_strfmt("/sandboxes/%s/timeout", s) : NULL,
                    e2b_strfmt("setting the timeout of sandbox %s", id), 204, 200, (void (*)(void))fn,
                    ud);
    if (call) {
        call->not_found = e2b_strfmt("no sandbox with id %s", id);
        call->body = e2b_strfmt("{\"timeout\":%ld}", timeout_s);
    }
    free(s);
    return launch(call, err);
}

e2b_api_call *e2b_api_set_network(e2b_client *c, const char *id, const json_t *network,
                                  int allow_internet_access, e2b_api_status_fn fn, void *ud,
                                  e2b_error **err)
{
    if (bad_id(id))
        return invalid(err, "changing a sandbox's network", "no sandbox id given");
    char *s = seg(id);
    e2b_api_call *call = call_new(c, R_NONE, "PUT", s ? e2b_strfmt("/sandboxes/%s/network", s) : NULL,
                                  e2b_strfmt("changing the network of sandbox %s", id), 204, 200,
                                  (void (*)(void))fn, ud);
    if (call) {
        call->not_found = e2b_strfmt("no sandbox with id %s", id);
        json_t *b = network ? json_deep_copy(network) : json_object();
        if (b && allow_internet_access >= 0)
            json_object_set_new(b, "allow_internet_access", json_boolean(allow_internet_access));
        call->body = b ? json_dumps(b, JSON_COMPACT) : NULL;
        json_decref(b);
    }
    free(s);
    return launch(call, err);
}

e2b_api_call *e2b_api_metrics(e2b_client *c, const char *id, int64_t start, int64_t end,
                              e2b_api_metrics_fn fn, void *ud, e2b_error **err)
{
    char *s;
    e2b_api_call *call;
    if (bad_id(id))
        return invalid(err, "reading sandbox metrics", "no sandbox id given");
    s = seg(id);
    call = call_new(c, R_METRICS, "GET", s ? e2b_strfmt("/sandboxes/%s/metrics", s) : NULL,
                    e2b_strfmt("reading the metrics of sandbox %s", id), 200, 200, (void (*)(void))fn,
                    ud);
    if (call) {
        call->not_found = e2b_strfmt("no sandbox with id %s", id);
        if (start > 0 && end > 0)
            call->query = e2b_strfmt("start=%lld&end=%lld", (long long)start, (long long)end);
        else if (start > 0)
            call->query = e2b_strfmt("start=%lld", (long long)start);
        else if (end > 0)
            call->query = e2b_strfmt("end=%lld", (long long)end);
    }
    free(s);
    return launch(call, err);
}

e2b_api_call *e2b_api_metrics_bulk(e2b_client *c, const char *const *ids, size_t n,
                                   e2b_api_metrics_fn fn, void *ud, e2b_error **err)
{
    sbuf b = {0};
    e2b_api_call *call;
    if (n == 0 || n > BULK_METRICS_MAX)
        return invalid(err, "reading sandbox metrics",
                       "between 1 and 100 sandbox ids can be asked for at once");
    sb_add(&b, "sandbox_ids=");
    for (size_t i = 0; i < n; i++) {
        if (bad_id(ids[i])) {
            e2b_buf_clear(&b);
            return invalid(err, "reading sandbox metrics", "an empty sandbox id");
        }
        if (i)
            sb_add(&b, ",");
        sb_take(&b, seg(ids[i]));
    }
    call = call_new(c, R_METRICS_BULK, "GET", strdup("/sandboxes/metrics"),
                    e2b_strfmt("reading the metrics of %zu sandboxes", n), 200, 200, (void (*)(void))fn,
                    ud);
    if (call && !(call->query = sb_done(&b))) {
        call_free(call);
        call = NULL;
    } else if (!call) {
        e2b_buf_clear(&b);
    }
    return launch(call, err);
}

e2b_api_call *e2b_api_logs(e2b_client *c, const char *id, const e2b_logs_query *q,
                           e2b_api_logs_fn fn, void *ud, e2b_error **err)
{
    char *s;
    e2b_api_call *call;
    sbuf b = {0};
    if (bad_id(id))
        return invalid(err, "reading sandbox logs", "no sandbox id given");
    if (q && q->cursor_ms > 0)
        sb_take(&b, e2b_strfmt("&cursor=%lld", (long long)q->cursor_ms));
    if (q && q->direction) {
        sb_add(&b, "&direction=");
        sb_take(&b, e2b_encode_uri_component(q->direction));
    }
    if (q && q->level) {
        sb_add(&b, "&level=");
        sb_take(&b, e2b_encode_uri_component(q->level));
    }
    if (q && q->limit > 0)
        sb_take(&b, e2b_strfmt("&limit=%d", q->limit));
    if (q && q->search) {
        sb_add(&b, "&search=");
        sb_take(&b, e2b_encode_uri_component(q->search));
    }
    s = seg(id);
    call = call_new(c, R_LOGS, "GET", s ? e2b_strfmt("/v2/sandboxes/%s/logs", s) : NULL,
                    e2b_strfmt("reading the logs of sandbox %s", id), 200, 200, (void (*)(void))fn, ud);
    free(s);
    if (call) {
        char *qs = sb_done(&b);
        call->not_found = e2b_strfmt("no sandbox with id %s", id);
        if (qs && *qs)
            call->query = strdup(qs + 1); /* drop the leading '&' */
        free(qs);
    } else {
        e2b_buf_clear(&b);
    }
    return launch(call, err);
}

/* ---- secrets ---- */

e2b_api_call *e2b_api_secrets_list(e2b_client *c, e2b_api_secret_list_fn fn, void *ud,
                                   e2b_error **err)
{
    e2b_api_call *call = call_new(c, R_SECRET_LIST, "GET", strdup("/secrets"),
                                  strdup("listing secrets"), 200, 200, (void (*)(void))fn, ud);
    if (call) {
        call->seclist = calloc(1, sizeof *call->seclist);
        call->query = e2b_strfmt("limit=%d", PAGE_LIMIT);
        if (!call->seclist || !call->query) {
            call_free(call);
            call = NULL;
        }
    }
    return launch(call, err);
}

static char *secret_body(const char *name, const char *value, const e2b_metadata *md)
{
    json_t *b = json_object();
    if (name)
        json_object_set_new(b, "name", json_string(name));
    json_object_set_new(b, "value", json_string(value));
    if (md)
        json_object_set_new(b, "metadata", e2b_metadata_to_json(md));
    return json_text(b);
}

e2b_api_call *e2b_api_secret_create(e2b_client *c, const char *name, const char *value,
                                    const e2b_metadata *metadata, e2b_api_secret_fn fn, void *ud,
                                    e2b_error **err)
{
    e2b_api_call *call;
    if (!name || !*name || !value)
        return invalid(err, "creating a secret", "a secret needs a name and a value");
    call = call_new(c, R_SECRET, "POST", strdup("/secrets"), e2b_strfmt("creating secret %s", name), 201,
                    200, (void (*)(void))fn, ud);
    if (call && !(call->body = secret_body(name, value, metadata))) {
        call_free(call);
        call = NULL;
    }
    return launch(call, err);
}

static e2b_api_call *secret_call(e2b_client *c, result_kind kind, const char *method,
                                 const char *name, const char *verb, long ok1, long ok2,
                                 void (*fn)(void), void *ud)
{
    char *s = seg(name);
    e2b_api_call *call = call_new(c, kind, method, s ? e2b_strfmt("/secrets/%s", s) : NULL,
                                  e2b_strfmt("%s secret %s", verb, name), ok1, ok2, fn, ud);
    free(s);
    if (call)
        call->not_found = e2b_strfmt("no secret named %s", name);
    return call;
}

e2b_api_call *e2b_api_secret_get(e2b_client *c, const char *name_or_id, e2b_api_secret_fn fn,
                                 void *ud, e2b_error **err)
{
    if (bad_id(name_or_id))
        return invalid(err, "reading a secret", "no secret name given");
    return launch(secret_call(c, R_SECRET, "GET", name_or_id, "reading", 200, 200,
                              (void (*)(void))fn, ud),
                  err);
}

e2b_api_call *e2b_api_secret_update(e2b_client *c, const char *name_or_id, const char *value,
                                    const e2b_metadata *metadata, e2b_api_secret_fn fn, void *ud,
                                    e2b_error **err)
{
    e2b_api_call *call;
    if (bad_id(name_or_id) || !value)
        return invalid(err, "updating a secret", "a secret needs a name and a value");
    call = secret_call(c, R_SECRET, "POST", name_or_id, "updating", 200, 201, (void (*)(void))fn,
                       ud);
    if (call && !(call->body = secret_body(NULL, value, metadata))) {
        call_free(call);
        call = NULL;
    }
    return launch(call, err);
}

e2b_api_call *e2b_api_secret_delete(e2b_client *c, const char *name_or_id, e2b_api_status_fn fn,
                                    void *ud, e2b_error **err)
{
    if (bad_id(name_or_id))
        return invalid(err, "deleting a secret", "no secret name given");
    return launch(secret_call(c, R_NONE, "DELETE", name_or_id, "deleting", 204, 200,
                              (void (*)(void))fn, ud),
                  err);
}

/* ---- plain JSON calls (api_json.h) ---- */

const char *e2b_client_workspace_keys(const e2b_client *c)
{
    return c->workspace_keys;
}

e2b_api_call *e2b_api_json_call(e2b_client *c, const e2b_json_call *jc, e2b_api_json_fn fn, void *ud,
                                e2b_error **err)
{
    e2b_api_call *call = call_new(c, jc->paged ? R_JSON_PAGES : R_JSON, jc->method, strdup(jc->path),
                                  strdup(jc->action), jc->ok1, jc->ok2 ? jc->ok2 : jc->ok1, (void (*)(void))fn,
                                  ud);
    if (call) {
        int bad = 0;
        if (jc->not_found)
            bad |= !(call->not_found = strdup(jc->not_found));
        if (jc->body)
            bad |= !(call->body = json_dumps(jc->body, JSON_COMPACT));
        if (jc->query)
            bad |= !(call->query = strdup(jc->query)) || !(call->page_query = strdup(jc->query));
        if (jc->paged)
            bad |= !(call->jpages = json_array());
        if (jc->timeout_ms > call->timeout_ms)
            call->timeout_ms = jc->timeout_ms;
        call->retry_503 = jc->retry_503;
        if (bad) {
            call_free(call);
            call = NULL;
        }
    }
    return launch(call, err);
}
