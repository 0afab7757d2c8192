#include "core/live/live_sandbox_log.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/live/live_internal.h"

enum {
    E2B_LOG_LINES = 5000,
    PAGE = 1000,
    BOUNDARY_MAX = 256, /* entries remembered at the newest millisecond */
};

struct e2b_live_sandbox_log {
    e2b_live *m;
    char id[128];
    struct e2b_live_lines lines;
    char error[300];
    bool active, closed, replied;
    e2b_api_call *call;
    uint64_t timer;
    int64_t last_ms;                   /* newest timestamp shown, 0 = none yet */
    uint64_t boundary[BOUNDARY_MAX];   /* hashes of the entries shown at last_ms */
    int nboundary;
};

static void fetch(struct e2b_live_sandbox_log *e);

static void on_timer(void *ud)
{
    struct e2b_live_sandbox_log *e = ud;
    e->timer = 0;
    fetch(e);
}

static void schedule(struct e2b_live_sandbox_log *e)
{
    if (e->active && !e->timer && !e->closed)
        e->timer = e2b_loop_timer_add(e->m->loop, e2b_live_refresh_ms(e->m), on_timer, e);
}

static uint64_t entry_hash(const e2b_log_entry *x)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a over level, message and fields */
    const char *parts[2] = {x->level ? x->level : "", x->message ? x->message : ""};
    for (int p = 0; p < 2; p++) {
        for (const char *c = parts[p]; *c; c++)
            h = (h ^ (unsigned char)*c) * 1099511628211ull;
        h = (h ^ 0xff) * 1099511628211ull;
    }
    for (size_t i = 0; i < x->fields.count; i++) {
        for (const char *c = x->fields.items[i].key; *c; c++)
            h = (h ^ (unsigned char)*c) * 1099511628211ull;
        for (const char *c = x->fields.items[i].value; *c; c++)
            h = (h ^ (unsigned char)*c) * 1099511628211ull;
    }
    return h;
}

/* Shows x unless it was shown already (older than the cursor, or at its millisecond). */
static void take(struct e2b_live_sandbox_log *e, const e2b_log_entry *x)
{
    int64_t ms = (int64_t)x->timestamp * 1000 + x->timestamp_ms;
    uint64_t h = entry_hash(x);
    if (ms < e->last_ms)
        return;
    if (ms == e->last_ms) {
        for (int i = 0; i < e->nboundary; i++)
            if (e->boundary[i] == h)
                return;
    } else {
        e->last_ms = ms;
        e->nboundary = 0;
    }
    if (e->nboundary < BOUNDARY_MAX)
        e->boundary[e->nboundary++] = h;
    struct tm tm;
    char when[16] = "";
    if (gmtime_r(&x->timestamp, &tm))
        strftime(when, sizeof when, "%H:%M:%S", &tm);
    size_t n = strlen(when) + (x->level ? strlen(x->level) : 0) +
               (x->message ? strlen(x->message) : 0) + 16;
    char *raw = malloc(n);
    if (!raw)
        return;
    snprintf(raw, n, "%s %-5s %s", when, x->level ? x->level : "", x->message ? x->message : "");
    e2b_live_lines_add(&e->lines, raw); /* sanitised there */
    free(raw);
}

static void on_logs(void *ud, e2b_log_list *logs, const e2b_error *err)
{
    struct e2b_live_sandbox_log *e = ud;
    e->call = NULL;
    if (e->closed || e->m->closing) {
        e2b_log_list_free(logs);
        if (e->closed) {
            e2b_live_lines_clear(&e->lines);
            free(e);
        }
        return;
    }
    bool first = !e->replied;
    size_t count = 0;
    if (err) {
        snprintf(e->error, sizeof e->error, "E2B logs: %s", e2b_error_message(err));
    } else {
        e->error[0] = '\0';
        e->replied = true;
        count = logs->count;
        /* The first page came newest first. */
        for (size_t i = 0; i < count; i++)
            take(e, &logs->items[first ? count - 1 - i : i]);
    }
    e2b_log_list_free(logs);
    live_notify(e->m, E2B_LIVE_LOGS);
    /* A full forward page: more is waiting now. */
    if (!err && !first && count >= PAGE)
        fetch(e);
    else
        schedule(e);
}

static void fetch(struct e2b_live_sandbox_log *e)
{
    if (!e->m->client || e->call || e->closed)
        return;
    e2b_logs_query q = {.direction = "forward", .limit = PAGE, .cursor_ms = e->last_ms};
    if (!e->replied)
        q = (e2b_logs_query){.direction = "backward", .limit = PAGE};
    e2b_error *err = NULL;
    e->call = e2b_api_logs(e->m->client, e->id, &q, on_logs, e, &err);
    if (!e->call) {
        snprintf(e->error, sizeof e->error, "E2B logs: %s",
                 err ? e2b_error_message(err) : "no request");
        e2b_error_free(err);
        schedule(e);
    }
}

struct e2b_live_sandbox_log *e2b_live_sandbox_log_open(e2b_live *m, const char *sandbox_id)
{
    struct e2b_live_sandbox_log *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->m = m;
    snprintf(e->id, sizeof e->id, "%s", sandbox_id);
    e2b_live_lines_init(&e->lines, E2B_LOG_LINES);
    return e;
}

void e2b_live_sandbox_log_set_active(struct e2b_live_sandbox_log *e, bool active)
{
    e->active = active;
    if (!active) {
        if (e->timer)
            e2b_loop_timer_cancel(e->m->loop, e->timer);
        e->timer = 0;
        return;
    }
    if (e->timer) {
        e2b_loop_timer_cancel(e->m->loop, e->timer);
        e->timer = 0;
    }
    fetch(e);
}

void e2b_live_sandbox_log_close(struct e2b_live_sandbox_log *e)
{
    if (!e)
        return;
    e->closed = true;
    if (e->timer)
        e2b_loop_timer_cancel(e->m->loop, e->timer);
    e->timer = 0;
    if (e->call) {
        e2b_api_cancel(e->call); /* freed by its callback */
        return;
    }
    e2b_live_lines_clear(&e->lines);
    free(e);
}

struct e2b_live_lines *e2b_live_sandbox_log_lines(struct e2b_live_sandbox_log *e)
{
    return &e->lines;
}

const char *e2b_live_sandbox_log_error(const struct e2b_live_sandbox_log *e)
{
    return e->error;
}

bool e2b_live_sandbox_log_loading(const struct e2b_live_sandbox_log *e)
{
    return !e->replied;
}
