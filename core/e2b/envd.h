/* envd, the daemon inside a sandbox (reference §2): files, processes (Connect-JSON streams)
 * and the filesystem service, asynchronous on the loop (wait with e2b_wait, core/net/loop.h).
 *
 *   e2b_envd *ev = e2b_envd_new(loop, &cfg, &sandbox, NULL, &err);  // sandbox from create/connect
 *   e2b_envd_upload(ev, &(e2b_upload){.path = "/tmp/x", .data = p, .len = n}, done, ud, &err);
 *   e2b_envd_process_start(ev, &spec, on_event, on_end, ud, &err);
 *   e2b_envd_free(ev);
 *
 * URL: E2B_SANDBOX_URL, else https://sandbox.<domain> for E2B's own domains, else
 * <scheme>://49983-<id>.<domain> (core/e2b/config.h). Every request carries X-Access-Token (when the
 * sandbox has one), E2b-Sandbox-Id and E2b-Sandbox-Port; Connect calls also carry
 * "Authorization: Basic base64(<user>:)" when a user is given. envd calls are never retried.
 *
 * Callbacks run exactly once per started call on the loop thread; err and replies are
 * borrowed (valid during the call). The returned request handle can be passed to
 * e2b_http_cancel until the done callback ran. */
#ifndef E2B_ENVD_H
#define E2B_ENVD_H

#include "core/e2b/config.h"
#include "core/util/error.h"
#include "core/net/http.h"
#include "core/net/loop.h"
#include "core/e2b/objects.h"
#include "core/e2b/process_event.h"

#include <jansson.h>
#include <stdint.h>

#define E2B_ENVD_PORT 49983

typedef struct e2b_envd e2b_envd;

/* sb needs sandbox_id; envd_access_token and domain are used when present. user: the process
 * user ("user", "root"), NULL = the template's default. Copies what it needs. */
e2b_envd *e2b_envd_new(e2b_loop *loop, const e2b_config *cfg, const e2b_sandbox *sb,
                       const char *user, e2b_error **err);
void e2b_envd_free(e2b_envd *ev);
/* The loop its calls run on (to e2b_wait for them). */
e2b_loop *e2b_envd_loop(e2b_envd *ev);

/* Done callbacks. */
typedef void (*e2b_envd_done_fn)(void *ud, const e2b_error *err);
/* reply: the unary RPC's JSON response (borrowed), NULL on error. */
typedef void (*e2b_envd_json_fn)(void *ud, const json_t *reply, const e2b_error *err);

/* ---- files ---- */

typedef struct e2b_upload {
    const char *path;      /* destination in the sandbox (required) */
    const void *data;      /* from memory ... */
    size_t len;
    e2b_http_read_fn read; /* ... or streamed from a callback */
    void *read_ud;
    int64_t size;          /* with read: -1 = unknown */
    int octet_stream;      /* 1: raw body to POST /files?path= (envd >= 0.5.7); 0: multipart */
    int gzip;              /* octet_stream only: compress on the fly (Content-Encoding: gzip) */
    e2b_http_progress_fn progress;
    void *progress_ud;
} e2b_upload;

e2b_http_request *e2b_envd_upload(e2b_envd *ev, const e2b_upload *up, e2b_envd_done_fn done,
                                  void *ud, e2b_error **err);
/* Streams the file at path to write (2xx only). gzip: ask for a compressed transfer (decoded
 * before write sees it). A missing file is E2B_ERR_NOT_FOUND. */
e2b_http_request *e2b_envd_download(e2b_envd *ev, const char *path, e2b_http_write_fn write,
                                    void *write_ud, int gzip, e2b_envd_done_fn done, void *ud,
                                    e2b_error **err);

/* ---- processes ---- */

typedef struct e2b_process_spec {
    const char *cmd;          /* e.g. "/bin/bash" */
    const char *const *args;  /* NULL-terminated, may be NULL */
    const e2b_metadata *envs; /* may be NULL */
    const char *cwd;          /* NULL = the user's home */
    const char *tag;          /* NULL = none */
    int stdin_open;           /* 1: keep a stdin pipe (SendInput / CloseStdin) */
    long timeout_ms;          /* Connect-Timeout-Ms = the process's lifetime; 0 = no limit */
} e2b_process_spec;

/* The Start request body (exposed for tests). New reference. */
json_t *e2b_envd_start_body(const e2b_process_spec *spec);

/* Starts a process and streams its events (start, stdout, stderr, end, keepalive) to
 * on_event; done runs when the stream ended: NULL after a clean end-of-stream, else the
 * error (dropped stream, Connect error, HTTP status). To detach (leave the process running),
 * call e2b_http_cancel on the handle after the start event. */
e2b_http_request *e2b_envd_process_start(e2b_envd *ev, const e2b_process_spec *spec,
                                         e2b_process_event_fn on_event, e2b_envd_done_fn done,
                                         void *ud, e2b_error **err);
/* Re-attaches to a running process by pid (tag NULL) or by tag. */
e2b_http_request *e2b_envd_process_connect(e2b_envd *ev, uint32_t pid, const char *tag,
                                           e2b_process_event_fn on_event, e2b_envd_done_fn done,
                                           void *ud, e2b_error **err);

/* A unary Connect call: service "process.Process" or "filesystem.Filesystem", method "List",
 * request JSON (borrowed). */
e2b_http_request *e2b_envd_rpc(e2b_envd *ev, const char *service, const char *method,
                               const json_t *request, e2b_envd_json_fn done, void *ud,
                               e2b_error **err);

typedef struct e2b_process_info {
    uint32_t pid;
    char *tag;  /* may be NULL */
    char *cmd;  /* may be NULL */
    char **args; /* NULL-terminated, may be NULL */
    char *cwd;  /* may be NULL */
} e2b_process_info;

typedef struct e2b_process_list {
    e2b_process_info *items;
    size_t count;
} e2b_process_list;

e2b_error *e2b_process_list_from_json(const json_t *reply, e2b_process_list *out);
void e2b_process_list_clear(e2b_process_list *list);

typedef enum e2b_file_type {
    E2B_FILE_UNKNOWN = 0,
    E2B_FILE_FILE,
    E2B_FILE_DIRECTORY,
    E2B_FILE_SYMLINK,
} e2b_file_type;

typedef struct e2b_entry {
    char *name;
    char *path;
    e2b_file_type type;
    int64_t size;
    uint32_t mode;
    char *permissions; /* may be NULL */
    char *owner, *group; /* may be NULL */
    time_t modified;
    char *symlink_target; /* may be NULL */
} e2b_entry;

typedef struct e2b_entry_list {
    e2b_entry *items;
    size_t count;
} e2b_entry_list;

/* {"entry":{...}} (Stat, MakeDir) and {"entries":[...]} (ListDir). */
e2b_error *e2b_entry_from_reply(const json_t *reply, e2b_entry *out);
e2b_error *e2b_entry_list_from_reply(const json_t *reply, e2b_entry_list *out);
void e2b_entry_clear(e2b_entry *e);
void e2b_entry_list_clear(e2b_entry_list *list);

#endif
