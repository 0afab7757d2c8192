#include "core/live/live_server_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/box/box.h"
#include "core/e2b/envd.h"
#include "core/live/live_internal.h"
#include "core/util/buf.h"
#include "core/util/log.h"
#include "core/util/overlap.h"
#include "core/util/sanitize.h"

enum {
    SERVER_LOG_LINES = 5000,
    HISTORY_BYTES = 64 * 1024,
    SEEN_BYTES = 16 * 1024,        /* raw tail of what was shown, to find the gap later */
    LIVE_BUFFER_MAX = 1024 * 1024, /* live bytes kept while the history is on its way */
    BACKOFF_FIRST_S = 1,
    BACKOFF_MAX_S = 30,
};

struct e2b_live_server_log {
    e2b_live *m;
    char id[128];
    struct e2b_live_lines lines;
    char status[320];
    bool status_error;
    bool gone; /* the sandbox no longer exists: no more attempts */

    /* Requests in flight; the struct is freed when closed and none is left. */
    int pending;
    bool closed;
    e2b_api_call *get_call;
    e2b_envd *envd;
    e2b_http_request *stream, *history;
    uint64_t retry_timer;
    uint64_t history_timer; /* starts the history outside the stream's callback */
    int backoff_s;

    /* The current attempt. */
    bool started;       /* the stream's start event arrived */
    bool ended;         /* its end event arrived */
    char exit_text[96]; /* "status 1", "signal: killed" */
    bool history_asked, history_done;
    bool attempt_waiting; /* an attempt waits for the previous history to finish */
    e2b_buf hist;         /* the history's bytes */
    e2b_buf live;         /* live bytes while the history is on its way */
    bool live_overflow;

    /* The raw tail of everything shown (for the gap after a reconnection). */
    char seen[SEEN_BYTES];
    size_t slen;
    bool shown_any;
};

static void attempt(struct e2b_live_server_log *s);

static void set_status(struct e2b_live_server_log *s, bool error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_status(struct e2b_live_server_log *s, bool error, const char *fmt, ...)
{
    char raw[sizeof s->status];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    /* It carries text from the network (envd's end status, error messages). */
    char *safe = e2b_sanitize_display(raw, strlen(raw), 0);
    snprintf(s->status, sizeof s->status, "%s", safe ? safe : "");
    free(safe);
    s->status_error = error;
    live_notify(s->m, E2B_LIVE_LOGS);
}

static void free_attempt(struct e2b_live_server_log *s)
{
    e2b_buf_clear(&s->hist);
    e2b_buf_clear(&s->live);
    s->hist = s->live = (e2b_buf){0}; /* a failed add of the last attempt is forgotten too */
    s->live_overflow = false;
}

static void destroy(struct e2b_live_server_log *s)
{
    free_attempt(s);
    e2b_envd_free(s->envd);
    e2b_live_lines_clear(&s->lines);
    free(s);
}

/* A callback's first words: true when the follower is closed (and frees it when it was the
 * last request). */
static bool finished_closed(struct e2b_live_server_log *s)
{
    s->pending--;
    if (!s->closed && !s->m->closing)
        return false;
    if (s->closed && s->pending == 0)
        destroy(s);
    return true;
}

/* Shows bytes and remembers their tail. */
static void show(struct e2b_live_server_log *s, const char *data, size_t len)
{
    if (!len)
        return;
    e2b_live_lines_feed(&s->lines, data, len);
    s->shown_any = true;
    if (len >= SEEN_BYTES) {
        memcpy(s->seen, data + len - SEEN_BYTES, SEEN_BYTES);
        s->slen = SEEN_BYTES;
    } else {
        size_t keep = s->slen + len > SEEN_BYTES ? SEEN_BYTES - len : s->slen;
        memmove(s->seen, s->seen + s->slen - keep, keep);
        memcpy(s->seen + keep, data, len);
        s->slen = keep + len;
    }
    live_notify(s->m, E2B_LIVE_LOGS);
}

/* ---- retries ---- */

static void on_retry(void *ud)
{
    struct e2b_live_server_log *s = ud;
    s->retry_timer = 0;
    attempt(s);
}

/* Schedules the next attempt; returns the delay in seconds (for the status text). */
static int schedule_retry(struct e2b_live_server_log *s)
{
    int delay = s->backoff_s ? s->backoff_s : BACKOFF_FIRST_S;
    s->backoff_s = delay * 2 > BACKOFF_MAX_S ? BACKOFF_MAX_S : delay * 2;
    if (s->retry_timer)
        e2b_loop_timer_cancel(s->m->loop, s->retry_timer);
    s->retry_timer = e2b_loop_timer_add(s->m->loop, delay * 1000L, on_retry, s);
    return delay;
}

void e2b_live_server_log_retry_now(struct e2b_live_server_log *s)
{
    if (!s || s->gone || s->get_call || s->stream)
        return;
    if (s->retry_timer) {
        e2b_loop_timer_cancel(s->m->loop, s->retry_timer);
        s->retry_timer = 0;
    }
    s->backoff_s = 0;
    attempt(s);
}

/* ---- the history and the merge with the live bytes ---- */

/* The history arrived (or failed): shows what it adds, then the live bytes it does not
 * already hold. */
static void merge_history(struct e2b_live_server_log *s, bool ok)
{
    s->history_done = true;
    const char *h = s->hist.data ? s->hist.data : "";
    size_t hlen = s->hist.failed ? 0 : s->hist.len;
    if (ok && hlen) {
        size_t from = 0;
        bool cut = false;
        if (s->shown_any) {
            from = e2b_live_lines_resume_offset(s->seen, s->slen, h, hlen);
            if (from == (size_t)-1) {
                e2b_live_lines_add(&s->lines, "[... more output than the last 64 KiB was missed "
                                         "while disconnected ...]");
                from = 0;
                cut = true;
            }
        } else {
            cut = hlen >= HISTORY_BYTES; /* the file is longer: its first line is cut */
        }
        if (cut) {
            const char *nl = memchr(h + from, '\n', hlen - from);
            from = nl ? (size_t)(nl - h) + 1 : hlen;
        }
        show(s, h + from, hlen - from);
    }
    size_t skip =
        ok ? e2b_overlap_suffix_prefix(h, hlen, s->live.data ? s->live.data : "", s->live.len) : 0;
    if (s->live_overflow)
        e2b_live_lines_add(&s->lines, "[... output dropped while the history was read ...]");
    if (s->live.data)
        show(s, s->live.data + skip, s->live.len - skip);
    free_attempt(s);
}

static int on_history_event(void *ud, const e2b_process_event *ev)
{
    struct e2b_live_server_log *s = ud;
    if (s->closed)
        return 1;
    if ((ev->type == E2B_PROC_STDOUT) && s->hist.len < 2 * HISTORY_BYTES)
        e2b_buf_add(&s->hist, ev->data, ev->len);
    return 0;
}

static void on_history_done(void *ud, const e2b_error *err)
{
    struct e2b_live_server_log *s = ud;
    s->history = NULL;
    if (finished_closed(s))
        return;
    if (err)
        e2b_logf("log: history of %s: %s", s->id, e2b_error_message(err));
    merge_history(s, !err);
    if (s->attempt_waiting) {
        s->attempt_waiting = false;
        attempt(s);
    }
}

static void start_history(struct e2b_live_server_log *s)
{
    if (s->history_asked)
        return;
    s->history_asked = true;
    char script[200];
    snprintf(script, sizeof script, "tail -c %d -- %s 2>/dev/null; exit 0", HISTORY_BYTES,
             E2B_BOX_SERVER_LOG);
    const char *args[] = {"-c", script, NULL};
    e2b_process_spec spec = {.cmd = "/bin/bash", .args = args, .timeout_ms = 30000};
    e2b_error *err = NULL;
    s->history = e2b_envd_process_start(s->envd, &spec, on_history_event, on_history_done, s, &err);
    if (!s->history) {
        e2b_logf("log: history of %s: %s", s->id, err ? e2b_error_message(err) : "not started");
        e2b_error_free(err);
        merge_history(s, false);
        return;
    }
    s->pending++;
}

static void on_history_timer(void *ud)
{
    struct e2b_live_server_log *s = ud;
    s->history_timer = 0;
    start_history(s);
}

/* ---- the live stream ---- */

static int on_stream_event(void *ud, const e2b_process_event *ev)
{
    struct e2b_live_server_log *s = ud;
    if (s->closed)
        return 1;
    switch (ev->type) {
    case E2B_PROC_START:
        s->started = true;
        s->backoff_s = 0;
        s->exit_text[0] = '\0';
        set_status(s, false, "live: the server's output as it prints");
        /* Connected first, history second: what is printed in between is in both, and the
         * merge drops the copy. (A new request may not start inside a transfer's callback.) */
        if (!s->history_timer)
            s->history_timer = e2b_loop_timer_add(s->m->loop, 0, on_history_timer, s);
        break;
    case E2B_PROC_STDOUT:
    case E2B_PROC_STDERR:
        if (s->history_done) {
            show(s, (const char *)ev->data, ev->len);
        } else if (s->live.len + ev->len <= LIVE_BUFFER_MAX) {
            if (e2b_buf_add(&s->live, ev->data, ev->len) != 0)
                s->live_overflow = true;
        } else {
            s->live_overflow = true;
        }
        break;
    case E2B_PROC_END:
        s->ended = true;
        if (ev->exited)
            snprintf(s->exit_text, sizeof s->exit_text, "status %d", ev->exit_code);
        else
            snprintf(s->exit_text, sizeof s->exit_text, "%s",
                     ev->status && *ev->status ? ev->status : "killed");
        break;
    default:
        break;
    }
    return 0;
}

static void on_stream_done(void *ud, const e2b_error *err)
{
    struct e2b_live_server_log *s = ud;
    s->stream = NULL;
    if (finished_closed(s))
        return;
    /* The server is not running (or the stream broke before it started): the history still
     * tells what it said. */
    if (s->history_timer) {
        e2b_loop_timer_cancel(s->m->loop, s->history_timer);
        s->history_timer = 0;
    }
    if (!s->history_asked && s->envd)
        start_history(s);
    int delay = schedule_retry(s);
    if (s->ended) {
        set_status(s, true, "server exited (%s) — a starts it again; checking in %d s",
                   s->exit_text, delay);
    } else if (err && err->kind == E2B_ERR_NOT_FOUND && err->http_status == 502) {
        set_status(s, true, "sandbox not running (paused, killed or timed out) — checking in %d s",
                   delay);
    } else if (err && (err->kind == E2B_ERR_NOT_FOUND ||
                       (err->e2b_error_code && strcmp(err->e2b_error_code, "not_found") == 0))) {
        if (s->exit_text[0])
            set_status(s, true, "server exited (%s) — a starts it again; checking in %d s",
                       s->exit_text, delay);
        else
            set_status(s, true, "the server is not running — a starts it; checking in %d s", delay);
    } else {
        set_status(s, true, "connection lost (%s) — retrying in %d s",
                   err ? e2b_error_message(err) : "the stream ended", delay);
    }
}

/* ---- an attempt: the sandbox first, then the stream ---- */

static void on_sandbox(void *ud, e2b_sandbox *sb, long status, const e2b_error *err)
{
    struct e2b_live_server_log *s = ud;
    (void)status;
    s->get_call = NULL;
    if (finished_closed(s)) {
        e2b_sandbox_free(sb);
        return;
    }
    if (err && err->kind == E2B_ERR_NOT_FOUND) {
        s->gone = true;
        set_status(s, true, "the sandbox is gone (killed or timed out) — Esc closes the log");
        e2b_sandbox_free(sb);
        return;
    }
    if (err || !sb) {
        int delay = schedule_retry(s);
        set_status(s, true, "cannot reach E2B (%s) — retrying in %d s",
                   err ? e2b_error_message(err) : "no reply", delay);
        e2b_sandbox_free(sb);
        return;
    }
    if (sb->state != E2B_STATE_RUNNING) {
        int delay = schedule_retry(s);
        set_status(s, true, "sandbox %s — r resumes it; checking again in %d s",
                   e2b_sandbox_state_name(sb->state), delay);
        e2b_sandbox_free(sb);
        return;
    }
    e2b_error *e = NULL;
    e2b_envd_free(s->envd);
    s->envd = e2b_envd_new(s->m->loop, &s->m->cfg, sb, NULL, &e);
    e2b_sandbox_free(sb);
    if (s->envd)
        s->stream = e2b_envd_process_connect(s->envd, 0, E2B_BOX_SERVER_TAG, on_stream_event,
                                             on_stream_done, s, &e);
    if (!s->stream) {
        int delay = schedule_retry(s);
        set_status(s, true, "cannot follow the server (%s) — retrying in %d s",
                   e ? e2b_error_message(e) : "out of memory", delay);
        e2b_error_free(e);
        return;
    }
    s->pending++;
}

static void attempt(struct e2b_live_server_log *s)
{
    if (s->closed || s->gone || s->get_call || s->stream)
        return;
    if (s->history) {
        s->attempt_waiting = true;
        return;
    }
    free_attempt(s);
    s->started = s->ended = false;
    s->history_asked = s->history_done = false;
    if (!s->shown_any && !s->status[0])
        set_status(s, false, "connecting to the box's server...");
    e2b_error *err = NULL;
    s->get_call = e2b_api_get(s->m->client, s->id, on_sandbox, s, &err);
    if (!s->get_call) {
        int delay = schedule_retry(s);
        set_status(s, true, "%s — retrying in %d s", err ? e2b_error_message(err) : "no request",
                   delay);
        e2b_error_free(err);
        return;
    }
    s->pending++;
}

/* ---- the interface ---- */

struct e2b_live_server_log *e2b_live_server_log_open(e2b_live *m, const char *sandbox_id)
{
    struct e2b_live_server_log *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->m = m;
    snprintf(s->id, sizeof s->id, "%s", sandbox_id);
    e2b_live_lines_init(&s->lines, SERVER_LOG_LINES);
    attempt(s);
    return s;
}

void e2b_live_server_log_close(struct e2b_live_server_log *s)
{
    if (!s)
        return;
    s->closed = true;
    if (s->retry_timer)
        e2b_loop_timer_cancel(s->m->loop, s->retry_timer);
    s->retry_timer = 0;
    if (s->history_timer)
        e2b_loop_timer_cancel(s->m->loop, s->history_timer);
    s->history_timer = 0;
    if (s->get_call)
        e2b_api_cancel(s->get_call);
    if (s->stream)
        e2b_http_cancel(s->stream);
    if (s->history)
        e2b_http_cancel(s->history);
    if (s->pending == 0)
        destroy(s);
}

struct e2b_live_lines *e2b_live_server_log_lines(struct e2b_live_server_log *s)
{
    return &s->lines;
}

const char *e2b_live_server_log_status(const struct e2b_live_server_log *s, bool *error)
{
    if (error)
        *error = s->status_error;
    return s->status;
}
