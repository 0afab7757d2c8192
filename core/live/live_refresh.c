/* The refresh: the sandbox list (all pages), the metrics of the running sandboxes on the
 * screen, and the secrets, on one timer that is set again when the list has answered. */
#include "core/live/live_internal.h"

#include <stdlib.h>
#include <time.h>
#include <string.h>

#include "core/util/log.h"

enum { METRICS_MAX = 100 }; /* the bulk call's limit */

void live_refresh_start(e2b_live *m);
void live_refresh_stop(e2b_live *m);

static void on_timer(void *ud);

static void schedule(e2b_live *m)
{
    if (m->timer)
        e2b_loop_timer_cancel(m->loop, m->timer);
    m->timer = e2b_loop_timer_add(m->loop, e2b_live_refresh_ms(m), on_timer, m);
}

/* ---- metrics ---- */

static void on_metrics(void *ud, e2b_metric_list *ml, const e2b_error *err)
{
    e2b_live *m = ud;
    if (m->closing) {
        e2b_metric_list_free(ml);
        return;
    }
    m->metrics_call = NULL;
    if (err) {
        /* Metrics are extra: log it, keep the figures (the list's own errors are shown). */
        e2b_logf("metrics: %s", e2b_error_message(err));
        return;
    }
    e2b_metric_list_clear(&m->metrics);
    m->metrics = *ml;
    ml->items = NULL;
    ml->count = 0;
    e2b_metric_list_free(ml);
    live_metrics_sort(&m->metrics);
    live_notify(m, E2B_LIVE_METRICS);
}

static void start_metrics(e2b_live *m)
{
    if (m->metrics_call || !m->ids_fn)
        return;
    const char *ids[METRICS_MAX];
    size_t n = m->ids_fn(m->ids_ud, ids, METRICS_MAX);
    if (!n)
        return;
    e2b_error *err = NULL;
    m->metrics_call = e2b_api_metrics_bulk(m->client, ids, n, on_metrics, m, &err);
    if (!m->metrics_call) {
        e2b_logf("metrics: %s", err ? e2b_error_message(err) : "not started");
        e2b_error_free(err);
    }
}

void e2b_live_set_metrics_source(e2b_live *m, e2b_live_ids_fn fn, void *ud)
{
    m->ids_fn = fn;
    m->ids_ud = ud;
}

/* ---- the list ---- */

static void on_list(void *ud, e2b_sandbox_list *list, const e2b_error *err)
{
    e2b_live *m = ud;
    if (m->closing) {
        e2b_sandbox_list_free(list);
        return;
    }
    m->list_call = NULL;
    schedule(m);
    if (err) {
        if (!m->listed_once)
            m->list_failed = true;
        m->list_stale = m->listed_once;
        live_notice(m, E2B_LIVE_ERROR, "%s", e2b_error_message(err));
        live_notify(m, E2B_LIVE_SANDBOXES);
        return;
    }
    m->listed_at = time(NULL);
    if (m->list_stale) {
        m->list_stale = false;
        live_notify(m, E2B_LIVE_SANDBOXES); /* current again: the views say so */
    }
    if (list->unchanged && m->listed_once) {
        /* Byte for byte the last reply: nothing to parse, compare or draw. */
        e2b_sandbox_list_free(list);
        if (m->agents_resync)
            live_agents_sync(m);
        start_metrics(m);
        return;
    }
    char changes[400];
    int nchanges = m->listed_once ? live_changes_text(&m->sandboxes, list, changes,
                                                      sizeof changes)
                                  : 0;
    e2b_sandbox_list_clear(&m->sandboxes);
    m->sandboxes = *list;
    list->items = NULL;
    list->count = 0;
    e2b_sandbox_list_free(list);
    m->listed_once = true;
    live_agents_sync(m);
    live_notify(m, E2B_LIVE_SANDBOXES);
    if (nchanges)
        live_notice(m, E2B_LIVE_CHANGE, "%s", changes);
    start_metrics(m);
}

/* ---- secrets ---- */

static void on_secrets(void *ud, e2b_secret_list *list, const e2b_error *err)
{
    e2b_live *m = ud;
    if (m->closing) {
        e2b_secret_list_free(list);
        return;
    }
    m->secrets_call = NULL;
    if (err) {
        /* Told when they are being looked at; the sandbox list reports the rest. */
        if (m->secrets_shown)
            live_notice(m, E2B_LIVE_ERROR, "%s", e2b_error_message(err));
        return;
    }
    e2b_secret_list_clear(&m->secrets);
    m->secrets = *list;
    list->items = NULL;
    list->count = 0;
    e2b_secret_list_free(list);
    m->secrets_arrived = true;
    live_notify(m, E2B_LIVE_SECRETS);
}

static void start_secrets(e2b_live *m)
{
    if (m->secrets_call || !m->client)
        return;
    e2b_error *err = NULL;
    m->secrets_call = e2b_api_secrets_list(m->client, on_secrets, m, &err);
    e2b_error_free(err);
    m->secrets_listed_once = true;
}

/* ---- the cycle ---- */

static void start_cycle(e2b_live *m)
{
    e2b_error *err = NULL;
    if (!m->list_call) {
        e2b_list_query q = {.workspace_keys = m->cfg.workspace_keys, .report_unchanged = 1};
        m->list_call = e2b_api_list(m->client, &q, on_list, m, &err);
        if (!m->list_call) {
            live_notice(m, E2B_LIVE_ERROR, "%s", err ? e2b_error_message(err) : "cannot list");
            e2b_error_free(err);
            schedule(m);
        }
    }
    /* Secrets: once at the start (the view then opens filled), later only while shown, so
     * the other views' refresh costs no request for them. */
    if (!m->secrets_listed_once || m->secrets_shown)
        start_secrets(m);
}

static void on_timer(void *ud)
{
    e2b_live *m = ud;
    m->timer = 0;
    start_cycle(m);
}

void live_refresh_start(e2b_live *m)
{
    start_cycle(m);
}

void live_refresh_stop(e2b_live *m)
{
    if (m->timer)
        e2b_loop_timer_cancel(m->loop, m->timer);
    m->timer = 0;
}

void e2b_live_refresh_now(e2b_live *m)
{
    if (!m->client || m->closing)
        return;
    if (m->timer) {
        e2b_loop_timer_cancel(m->loop, m->timer);
        m->timer = 0;
    }
    start_cycle(m);
}

void e2b_live_show_secrets(e2b_live *m, bool shown)
{
    m->secrets_shown = shown;
    if (shown && m->client)
        start_secrets(m);
}
