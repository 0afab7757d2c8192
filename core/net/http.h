/* HTTP requests on the loop's one curl multi handle (core/net/loop.h).
 *
 *   e2b_http_options o = {.method = "GET", .url = url, .headers = hdrs,
 *                         .timeout_ms = 30000, .retry_429 = 1};
 *   e2b_http_request *r = e2b_http_start(loop, &o, on_done, ctx);   // never blocks
 *   ... e2b_http_cancel(r) at any time before on_done ran ...
 *
 *   e2b_wait(loop, &done);                      // one-shot modes: on_done sets done = 1
 *
 * The done callback runs exactly once per started request, on the loop thread, from
 * e2b_loop_run_once (never from inside e2b_http_start or e2b_http_cancel). A non-2xx status
 * is NOT an error at this level (the caller decides what a 404 means; see
 * e2b_http_status_error); errors are transport failures, timeouts, cancellation, oversize
 * bodies and the streaming callbacks' own errors.
 *
 * Retries: with retry_429, a 429 whose Retry-After is a plain integer of seconds is retried
 * after exactly that delay, at most 3 times and never past the request's deadline (the SDK's
 * rule); with retry_503 (pause, connect, kill), a 503 is retried at most 3 times (after
 * Retry-After when it is an integer, else 1 s, 2 s, 4 s). Requests with a streaming body are
 * never retried. Nothing else is retried (a create must never run twice). */
#ifndef E2B_HTTP_H
#define E2B_HTTP_H

#include "core/util/error.h"
#include "core/net/loop.h"

#include <stddef.h>
#include <stdint.h>

typedef struct e2b_http_request e2b_http_request;

typedef struct e2b_http_response {
    long status;          /* 0 when no response arrived */
    char *body;           /* NUL-terminated; NULL when streamed to write_body */
    size_t body_len;
    char *trace_id;       /* X-E2B-Trace-ID, or NULL */
    char *next_token;     /* X-Next-Token, or NULL (also NULL when empty) */
    long total_running;   /* X-Total-Running, or -1 */
    char *content_type;   /* or NULL */
    long ms;              /* from start to the end of the last attempt */
    int attempts;         /* 1 + retries */
    int http_version;     /* 1 for HTTP/1.x, 2 for HTTP/2, 0 unknown */
    long new_connections; /* connections opened for the last attempt (0 = one was reused) */
} e2b_http_response;

/* Streams a request body: copy up to size bytes into buf and return how many (0 = the end).
 * Return -1 with *err set to fail the request with that error. */
typedef long (*e2b_http_read_fn)(void *ud, char *buf, size_t size, e2b_error **err);
/* Receives the body of a 2xx response as it arrives. Return NULL to go on, or an error to
 * stop the request with it (ownership passes to the request). */
typedef e2b_error *(*e2b_http_write_fn)(void *ud, const char *data, size_t len);
/* Progress in bytes (totals 0 when unknown). Return non-zero to cancel the request. */
typedef int (*e2b_http_progress_fn)(void *ud, int64_t dl_now, int64_t dl_total, int64_t ul_now,
                                    int64_t ul_total);
/* resp and err are borrowed: valid only during the call (use e2b_error_copy to keep err).
 * err is NULL when a response (any status) arrived. */
typedef void (*e2b_http_done_fn)(void *ud, const e2b_http_response *resp, const e2b_error *err);

/* One part of a multipart/form-data body: from memory (data/len) or from read (size bytes, -1
 * = unknown). */
typedef struct e2b_http_part {
    const char *name;     /* form field name, e.g. "file" */
    const char *filename; /* may be NULL */
    const char *content_type; /* may be NULL */
    const void *data;
    size_t len;
    e2b_http_read_fn read;
    void *read_ud;
    int64_t size;
} e2b_http_part;

typedef struct e2b_http_options {
    const char *method; /* "GET", "POST", "PUT", "DELETE"; NULL = GET */
    const char *url;
    const char *const *headers; /* NULL-terminated "Name: value" lines (copied), or NULL */

    /* Body (one of): bytes (copied), a read callback, or multipart parts (data not copied:
     * must live until done). */
    const void *body;
    size_t body_len;
    e2b_http_read_fn read_body;
    void *read_ud;
    int64_t body_size; /* with read_body: -1 = unknown (chunked) */
    const e2b_http_part *parts;
    size_t nparts;

    /* Response body: streamed to write_body (2xx only; other statuses are buffered for the
     * error message) or buffered up to max_body bytes (0 = 64 MiB). */
    e2b_http_write_fn write_body;
    void *write_ud;
    size_t max_body;

    int accept_gzip; /* ask for a compressed response (decoded before write_body sees it) */

    long connect_timeout_ms; /* 0 = 10 s */
    long timeout_ms;         /* total per attempt, 0 = none (streams, uploads, downloads) */
    long low_speed_time_s;   /* abort below 1 byte/s for this long; 0 = 60 s when no total
                                timeout, else off */
    int retry_429;
    int retry_503;

    e2b_http_progress_fn progress;
    void *progress_ud;

    /* For the log only: never put secrets here. NULL = the URL's path. */
    const char *log_path;
    /* The caller writes this request's log line itself (e.g. one summary line for all the
     * pages of an unchanged list); retried attempts are still logged here. */
    int log_by_caller;
} e2b_http_options;

/* Starts a request. Returns the handle, or NULL when it could not even be set up (done is
 * then NOT called and *err says why; err may be NULL). */
e2b_http_request *e2b_http_start(e2b_loop *loop, const e2b_http_options *opts,
                                 e2b_http_done_fn done, void *ud, e2b_error **err);

/* Cancels a request whose done callback has not run yet: done then runs (from the loop)
 * with an E2B_ERR_CANCELLED error. Safe from any loop-thread callback, including the
 * request's own streaming callbacks. */
void e2b_http_cancel(e2b_http_request *req);

void e2b_http_response_clear(e2b_http_response *resp);

/* An error for a response whose status is not the expected one (see e2b_error_from_http). */
e2b_error *e2b_http_status_error(const e2b_http_response *resp, const char *not_found_text);

/* Whether s is a plain non-negative integer of at most 2147483 seconds (SDK rule). */
int e2b_http_retry_after_seconds(const char *s, long *seconds);

#endif
