/* The E2B control-plane REST API (reference §1), asynchronous on the loop. One-shot modes
 * start a call and wait for its callback with e2b_wait (core/net/loop.h).
 *
 *   e2b_client *c = e2b_client_new(loop, &cfg, &err);   // err: no API key
 *   e2b_api_list(c, &(e2b_list_query){0}, on_list, ui, &err);
 *   ...
 *   static void on_list(void *ud, e2b_sandbox_list *list, const e2b_error *err)
 *   { ... use list (classified), then e2b_sandbox_list_free(list); }
 *
 * Callbacks run exactly once per started call, on the loop thread. A result handed to a
 * callback belongs to the callback (free it with the matching *_free; it is NULL on error).
 * err is borrowed (valid during the call; e2b_error_copy keeps it) and says what was being
 * done ("pausing sandbox i123: ..."); e2b_error_set_action on a copy can name the box.
 * A start function returns NULL and sets *err (no callback) only when the call could not be
 * started at all (bad arguments, out of memory).
 *
 * Never logged: the API key, request bodies (secret values), response bodies. */
#ifndef E2B_API_H
#define E2B_API_H

#include "core/e2b/config.h"
#include "core/util/error.h"
#include "core/net/loop.h"
#include "core/e2b/objects.h"

#include <jansson.h>
#include <stdint.h>

typedef struct e2b_client e2b_client;
typedef struct e2b_api_call e2b_api_call;

/* A client for cfg's API URL and key (copied). loop may be NULL: a private loop is made (for
 * one-shot modes). Fails with E2B_ERR_AUTH when no API key is configured. */
e2b_client *e2b_client_new(e2b_loop *loop, const e2b_config *cfg, e2b_error **err);
/* Cancels nothing: end or finish calls first (their callbacks still run from the loop). */
void e2b_client_free(e2b_client *c);
e2b_loop *e2b_client_loop(e2b_client *c);
/* Every API call's total timeout is cfg->http_timeout_s (the config's http_timeout or
 * E2B_TUI_HTTP_TIMEOUT; pause and resume use at least 120 s). A timed-out call's error says
 * how long it waited and names http_timeout. */

/* Cancels a call that has not called back yet; its callback then runs with E2B_ERR_CANCELLED. */
void e2b_api_cancel(e2b_api_call *call);

/* ---- callbacks ---- */

/* status: the HTTP status (connect: 200 already running, 201 resumed). */
typedef void (*e2b_api_sandbox_fn)(void *ud, e2b_sandbox *sb, long status, const e2b_error *err);
typedef void (*e2b_api_list_fn)(void *ud, e2b_sandbox_list *list, const e2b_error *err);
typedef void (*e2b_api_status_fn)(void *ud, long status, const e2b_error *err);
typedef void (*e2b_api_metrics_fn)(void *ud, e2b_metric_list *metrics, const e2b_error *err);
typedef void (*e2b_api_logs_fn)(void *ud, e2b_log_list *logs, const e2b_error *err);
typedef void (*e2b_api_secret_fn)(void *ud, e2b_secret *secret, const e2b_error *err);
typedef void (*e2b_api_secret_list_fn)(void *ud, e2b_secret_list *list, const e2b_error *err);

/* ---- sandboxes ---- */

typedef struct e2b_create_params {
    const char *template_id;      /* required */
    long timeout_s;               /* 0 = server default (300 s) */
    const e2b_metadata *metadata; /* may be NULL */
    const e2b_metadata *env_vars; /* may be NULL */
    int auto_pause;               /* 1 = pause instead of kill on timeout */
    int allow_internet_access;    /* -1 = omit, 0/1 */
    const json_t *network;        /* the "network" object (§1.13), borrowed; may be NULL */
} e2b_create_params;

/* Builds the create body (exposed for tests). New reference; NULL when template_id is missing. */
json_t *e2b_api_create_body(const e2b_create_params *p);

e2b_api_call *e2b_api_create(e2b_client *c, const e2b_create_params *p, e2b_api_sandbox_fn fn,
                             void *ud, e2b_error **err);

enum {
    E2B_LIST_RUNNING = 1,
    E2B_LIST_PAUSED = 2,
};

typedef struct e2b_list_query {
    unsigned states;              /* E2B_LIST_* bits; 0 = both (the parameter is omitted) */
    const e2b_metadata *metadata; /* exact-match filters, AND-ed; may be NULL */
    size_t max_items;             /* stop after this many (whole pages); 0 = all pages */
    const char *workspace_keys;   /* for classification; NULL = the default */
    /* 1 (a refresh loop): the client keeps the pages of its last such list, and when every
     * page comes back byte for byte the same the callback gets an empty list with unchanged
     * set, parsing nothing (the caller keeps what it had). One such memo per client, used
     * by one list at a time (a second one meanwhile is an ordinary list); not with
     * max_items. */
    int report_unchanged;
} e2b_list_query;

/* The query string of one page, encoded exactly as the SDK does (state comma-joined; metadata
 * percent-encoded three times; limit=100; nextToken when given). New string. */
char *e2b_api_list_query_string(const e2b_list_query *q, const char *next_token);
/* Percent-encoding as JavaScript's encodeURIComponent / URLSearchParams do (exposed for tests). */
char *e2b_encode_uri_component(const char *s);
char *e2b_encode_form_component(const char *s);

/* All pages of GET /v2/sandboxes, classified. */
e2b_api_call *e2b_api_list(e2b_client *c, const e2b_list_query *q, e2b_api_list_fn fn, void *ud,
                           e2b_error **err);
e2b_api_call *e2b_api_get(e2b_client *c, const char *id, e2b_api_sandbox_fn fn, void *ud,
                          e2b_error **err);
/* 404 comes back as E2B_ERR_NOT_FOUND ("no sandbox with id ..."); 503 is retried a few times. */
e2b_api_call *e2b_api_kill(e2b_client *c, const char *id, e2b_api_status_fn fn, void *ud,
                           e2b_error **err);
/* 409 (already paused) comes back as E2B_ERR_CONFLICT; 503 is retried a few times. */
e2b_api_call *e2b_api_pause(e2b_client *c, const char *id, e2b_api_status_fn fn, void *ud,
                            e2b_error **err);
/* Resumes a paused sandbox or extends a running one's timeout; the sandbox carries the envd
 * token and domain. 503 is retried a few times. timeout_s 0 = server default. */
e2b_api_call *e2b_api_connect(e2b_client *c, const char *id, long timeout_s,
                              e2b_api_sandbox_fn fn, void *ud, e2b_error **err);
e2b_api_call *e2b_api_set_timeout(e2b_client *c, const char *id, long timeout_s,
                                  e2b_api_status_fn fn, void *ud, e2b_error **err);
/* PUT /sandboxes/{id}/network: replaces the whole egress config of a running sandbox
 * (network: the §1.13 object, borrowed, NULL = none; allow_internet_access -1 omit, 0/1).
 * 404 is E2B_ERR_NOT_FOUND, 409 (not running) E2B_ERR_CONFLICT. */
e2b_api_call *e2b_api_set_network(e2b_client *c, const char *id, const json_t *network,
                                  int allow_internet_access, e2b_api_status_fn fn, void *ud,
                                  e2b_error **err);
/* start/end: unix seconds, 0 = omit. */
e2b_api_call *e2b_api_metrics(e2b_client *c, const char *id, int64_t start, int64_t end,
                              e2b_api_metrics_fn fn, void *ud, e2b_error **err);
/* The latest metric of up to 100 sandboxes (sandbox_id set in each). */
e2b_api_call *e2b_api_metrics_bulk(e2b_client *c, const char *const *ids, size_t n,
                                   e2b_api_metrics_fn fn, void *ud, e2b_error **err);

typedef struct e2b_logs_query {
    int64_t cursor_ms;     /* 0 = omit */
    const char *direction; /* "forward" | "backward" | NULL */
    const char *level;     /* "debug" | "info" | "warn" | "error" | NULL */
    int limit;             /* 0 = omit */
    const char *search;    /* NULL = omit */
} e2b_logs_query;

e2b_api_call *e2b_api_logs(e2b_client *c, const char *id, const e2b_logs_query *q,
                           e2b_api_logs_fn fn, void *ud, e2b_error **err);

/* ---- secrets ---- */

e2b_api_call *e2b_api_secrets_list(e2b_client *c, e2b_api_secret_list_fn fn, void *ud,
                                   e2b_error **err);
/* value is sent once and never logged or kept. metadata may be NULL. */
e2b_api_call *e2b_api_secret_create(e2b_client *c, const char *name, const char *value,
                                    const e2b_metadata *metadata, e2b_api_secret_fn fn, void *ud,
                                    e2b_error **err);
e2b_api_call *e2b_api_secret_get(e2b_client *c, const char *name_or_id, e2b_api_secret_fn fn,
                                 void *ud, e2b_error **err);
/* metadata NULL = keep the secret's metadata. */
e2b_api_call *e2b_api_secret_update(e2b_client *c, const char *name_or_id, const char *value,
                                    const e2b_metadata *metadata, e2b_api_secret_fn fn, void *ud,
                                    e2b_error **err);
e2b_api_call *e2b_api_secret_delete(e2b_client *c, const char *name_or_id, e2b_api_status_fn fn,
                                    void *ud, e2b_error **err);

#endif
