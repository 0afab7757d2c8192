/* Blocking forms of core's asynchronous calls (tests only; core has none: one-shot modes
 * e2b_wait for the callback). Results go into *out (caller clears/frees); each returns NULL
 * or the error (caller frees). They run the loop: never from a loop callback. */
#ifndef E2B_TEST_SYNC_CALLS_H
#define E2B_TEST_SYNC_CALLS_H

#include "core/e2b/api.h"
#include "core/e2b/envd.h"
#include "core/net/http.h"

/* The request on loop (NULL: a private loop) to its end; *resp gets a copy of the response
 * (free with e2b_http_response_clear; zeroed when none arrived). */
e2b_error *t_http_perform(e2b_loop *loop, const e2b_http_options *opts, e2b_http_response *resp);

/* ---- the API ---- */

e2b_error *t_api_create(e2b_client *c, const e2b_create_params *p, e2b_sandbox *out);
e2b_error *t_api_list(e2b_client *c, const e2b_list_query *q, e2b_sandbox_list *out);
e2b_error *t_api_get(e2b_client *c, const char *id, e2b_sandbox *out);
e2b_error *t_api_kill(e2b_client *c, const char *id);
e2b_error *t_api_pause(e2b_client *c, const char *id);
/* *resumed = 1 when the sandbox was paused (201), 0 when it was running (200); may be NULL. */
e2b_error *t_api_connect(e2b_client *c, const char *id, long timeout_s, e2b_sandbox *out,
                         int *resumed);
e2b_error *t_api_set_timeout(e2b_client *c, const char *id, long timeout_s);
e2b_error *t_api_metrics(e2b_client *c, const char *id, int64_t start, int64_t end,
                         e2b_metric_list *out);
e2b_error *t_api_metrics_bulk(e2b_client *c, const char *const *ids, size_t n,
                              e2b_metric_list *out);
e2b_error *t_api_logs(e2b_client *c, const char *id, const e2b_logs_query *q, e2b_log_list *out);
e2b_error *t_api_secrets_list(e2b_client *c, e2b_secret_list *out);
e2b_error *t_api_secret_create(e2b_client *c, const char *name, const char *value,
                               const e2b_metadata *metadata, e2b_secret *out);
e2b_error *t_api_secret_get(e2b_client *c, const char *name_or_id, e2b_secret *out);
e2b_error *t_api_secret_update(e2b_client *c, const char *name_or_id, const char *value,
                               const e2b_metadata *metadata, e2b_secret *out);
e2b_error *t_api_secret_delete(e2b_client *c, const char *name_or_id);

/* ---- envd ---- */

e2b_error *t_envd_upload(e2b_envd *ev, const e2b_upload *up);
e2b_error *t_envd_download(e2b_envd *ev, const char *path, e2b_http_write_fn write, void *write_ud,
                           int gzip);

/* Runs a process to its end, collecting up to max_output bytes of stdout and stderr each
 * (more is counted but dropped). */
typedef struct t_process_result {
    uint32_t pid;
    int exit_code;
    int exited;
    char *out; /* NUL-terminated */
    size_t out_len, out_total;
    char *err; /* NUL-terminated */
    size_t err_len, err_total;
} t_process_result;
e2b_error *t_envd_run(e2b_envd *ev, const e2b_process_spec *spec, size_t max_output,
                      t_process_result *out);
void t_process_result_clear(t_process_result *r);

e2b_error *t_envd_process_list(e2b_envd *ev, e2b_process_list *out);
/* signal: "SIGTERM" or "SIGKILL". */
e2b_error *t_envd_send_signal(e2b_envd *ev, uint32_t pid, const char *signal);
e2b_error *t_envd_send_input(e2b_envd *ev, uint32_t pid, const void *data, size_t len);
e2b_error *t_envd_close_stdin(e2b_envd *ev, uint32_t pid);

e2b_error *t_envd_stat(e2b_envd *ev, const char *path, e2b_entry *out);
/* *created = 0 when the directory already existed (not an error); may be NULL. */
e2b_error *t_envd_make_dir(e2b_envd *ev, const char *path, int *created);
e2b_error *t_envd_list_dir(e2b_envd *ev, const char *path, int depth, e2b_entry_list *out);
e2b_error *t_envd_remove(e2b_envd *ev, const char *path);

#endif
