/* The refresh: the sandbox list, the metrics of the running sandboxes on the screen, and
 * the secrets, on one timer that is set again when the list has answered. What is listed
 * follows what is shown: the box sandboxes only (one metadata query, a page whatever the
 * team's size) unless a view of every sandbox is open; the other rows keep their last known
 * state meanwhile, so such a view opens with them at once and is refreshed then. */
#include "core/live/live_internal.h"

#include <stdlib.h>
#include <time.h>
#include <string.h>

#include "core/util/log.h"

enum { METRICS_MAX = 100 }; /* the bulk call's limit */

void live_refresh_start(e2b_live *m);
void live_refresh_stop(e2b_live *m);

static void on_timer(void *ud);

/* How long a 429 keeps slowing the refresh down after the last one. */
enum { SLOW_AFTER_429_MS = 60000 };

/* The next refresh: after the interval, and while E2B rate-limits (a 429 answer to any of
 * the loop's requests in the last minute) its Retry-After later again. The status line
 * says so when it starts. */
static void schedule(e2b_live *m)
{
    if (m->is_headless) /* one list when asked, no cycle */
        return;
    if (m->timer)
        e2b_loop_timer_cancel(m->loop, m->timer);
    long delay = e2b_live_refresh_ms(m), retry_ms;
    int64_t at;
    unsigned long n = e2b_loop_429s(m->loop, &retry_ms, &at);
    if (n && e2b_now_ms() - at < SLOW_AFTER_429_MS) {
        delay += retry_ms;
        if (n != m->seen_429 && !m->slowed)
            live_notice(m, E2B_LIVE_INFO,
                        "E2B asked to slow down (HTTP 429): refreshing every %ld s instead "
                        "of %ld s for a minute",
                        delay / 1000, e2b_live_refresh_ms(m) / 1000);
        m->slowed = true;
    } else {
        m->slowed = false;
    }
    m->seen_429 = n;
    m->timer = e2b_loop_timer_add(m->loop, delay, on_timer, m);
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

/* A boxes-only reply: the boxes are its own, every other row is kept as last known. The
 * reply's items and the kept ones move into the model's list (nothing is copied). */
static int merge_boxes(e2b_live *m, e2b_sandbox_list *boxes)
{
    size_t keep = 0;
    for (size_t i = 0; i < m->sandboxes.count; i++)
        keep += m->sandboxes.items[i].kind != E2B_KIND_BOX;
    if (!keep)
        return 0; /* nothing to keep: the reply is the list */
    e2b_sandbox *items = realloc(boxes->items, (boxes->count + keep) * sizeof *items);
    if (!items)
        return -1;
    boxes->items = items;
    for (size_t i = 0; i < m->sandboxes.count; i++) {
        if (m->sandboxes.items[i].kind == E2B_KIND_BOX)
            continue;
        items[boxes->count++] = m->sandboxes.items[i];
        memset(&m->sandboxes.items[i], 0, sizeof m->sandboxes.items[i]);
        m->sandboxes.items[i].kind = E2B_KIND_BOX; /* moved: cleared as an empty box */
    }
    return 0;
}

/* The changes a reply brings; a boxes-only one against the boxes only (the other rows were
 * not asked about: they are not gone). */
static int changes_text(e2b_live *m, const e2b_sandbox_list *reply, char *buf, size_t bufsz)
{
    if (!m->listing_boxes)
        return live_changes_text(&m->sandboxes, reply, buf, bufsz);
    e2b_sandbox_list old = {.items = malloc((m->sandboxes.count + 1) * sizeof *old.items)};
    if (!old.items)
        return 0;
    for (size_t i = 0; i < m->sandboxes.count; i++)
        if (m->sandboxes.items[i].kind == E2B_KIND_BOX)
            old.items[old.count++] = m->sandboxes.items[i]; /* borrowed, read only */
    int n = live_changes_text(&old, reply, buf, bufsz);
    free(old.items);
    return n;
}

/* The list's waiter (e2b_live_then) hears its end. */
static void list_done(e2b_live *m, const e2b_error *err)
{
    e2b_live_end *e = m->list_end;
    m->list_end = NULL;
    live_end(e, err, 0);
}

static void on_list(void *ud, e2b_sandbox_list *list, const e2b_error *err)
{
    e2b_live *m = ud;
    if (m->closing) {
        e2b_sandbox_list_free(list);
        return;
    }
    m->list_call = NULL;
    schedule(m);
    if (m->refresh_after_list) { /* a view of every sandbox opened meanwhile */
        m->refresh_after_list = false;
        if (m->listing_boxes) {
            e2b_loop_timer_cancel(m->loop, m->timer);
            m->timer = e2b_loop_timer_add(m->loop, 0, on_timer, m);
        }
    }
    if (err) {
        if (!m->listed_once)
            m->list_failed = true;
        m->list_stale = m->listed_once;
        live_notice(m, E2B_LIVE_ERROR, "%s", e2b_error_message(err));
        live_notify(m, E2B_LIVE_SANDBOXES);
        list_done(m, err);
        return;
    }
    m->listed_at = time(NULL);
    if (m->list_stale) {
        m->list_stale = false;
        live_notify(m, E2B_LIVE_SANDBOXES); /* current again: the views say so */
    }
    m->list_complete = !m->listing_boxes && !err;
    if (list->unchanged && m->listed_once) {
        /* Byte for byte the last reply: nothing to parse, compare or draw, unless a record
         * came or went meanwhile (another process's --up or --fork). */
        e2b_sandbox_list_free(list);
        if (!live_records_sync(m) && m->agents_resync)
            live_agents_sync(m);
        live_gone_look(m);
        start_metrics(m);
        list_done(m, NULL);
        return;
    }
    /* The reply's boxes as this machine's records name them, before they are compared. */
    live_records_look(m);
    if (e2b_box_identify(&m->records, list, m->cfg.workspace_keys) < 0) {
        e2b_sandbox_list_free(list);
        live_notice(m, E2B_LIVE_ERROR, "out of memory");
        live_end_fail(m->list_end, E2B_ERR_INTERNAL, "out of memory");
        m->list_end = NULL;
        return;
    }
    char changes[400];
    int nchanges = m->listed_once ? changes_text(m, list, changes, sizeof changes) : 0;
    if (m->listing_boxes && m->listed_once && merge_boxes(m, list) < 0) {
        e2b_sandbox_list_free(list);
        live_notice(m, E2B_LIVE_ERROR, "out of memory");
        live_end_fail(m->list_end, E2B_ERR_INTERNAL, "out of memory");
        m->list_end = NULL;
        return;
    }
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
    live_gone_look(m);
    start_metrics(m);
    list_done(m, NULL);
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
    e2b_live_end *waiter = m->secrets_end;
    m->secrets_end = NULL;
    if (err) {
        live_end(waiter, err, 0);
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
    live_end(waiter, NULL, 0);
}

static void start_secrets(e2b_live *m, e2b_live_end *waiter)
{
    if (m->secrets_call || !m->client) {
        if (m->client) /* on its way: its end is not this waiter's */
            live_end_fail(waiter, E2B_ERR_INTERNAL, "the secrets are being listed already");
        else
            live_end_fail(waiter, E2B_ERR_AUTH, "no API key (set E2B_API_KEY)");
        return;
    }
    e2b_error *err = NULL;
    m->secrets_call = e2b_api_secrets_list(m->client, on_secrets, m, &err);
    if (m->secrets_call)
        m->secrets_end = waiter;
    else
        live_end(waiter, err, 0);
    e2b_error_free(err);
    m->secrets_listed_once = true;
}

/* ---- the cycle ---- */

static void start_cycle(e2b_live *m)
{
    e2b_error *err = NULL;
    e2b_live_end *waiter = live_then_take(m);
    if (!m->list_call) {
        e2b_metadata boxes = {0};
        /* Headless, a list is asked once: no reply is kept to compare the next with. */
        e2b_list_query q = {.workspace_keys = m->cfg.workspace_keys,
                            .report_unchanged = !m->is_headless};
        m->listing_boxes = !m->all_shown &&
                           e2b_metadata_set(&boxes, E2B_META_APP, E2B_META_APP_BOX) == 0;
        if (m->listing_boxes)
            q.metadata = &boxes;
        m->list_call = e2b_api_list(m->client, &q, on_list, m, &err);
        e2b_metadata_clear(&boxes);
        if (!m->list_call) {
            live_notice(m, E2B_LIVE_ERROR, "%s", err ? e2b_error_message(err) : "cannot list");
            if (err)
                live_end(waiter, err, 0);
            else
                live_end_fail(waiter, E2B_ERR_INTERNAL, "cannot list");
            waiter = NULL;
            e2b_error_free(err);
            schedule(m);
        }
    }
    if (m->list_call && waiter)
        m->list_end = waiter;
    /* Secrets: once at the start (the view then opens filled), later only while shown, so
     * the other views' refresh costs no request for them. */
    if (!m->secrets_listed_once || m->secrets_shown)
        start_secrets(m, NULL);
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
    if (!m->client || m->closing) {
        live_end_fail(live_then_take(m), E2B_ERR_AUTH, "no API key (set E2B_API_KEY)");
        return;
    }
    if (m->timer) {
        e2b_loop_timer_cancel(m->loop, m->timer);
        m->timer = 0;
    }
    start_cycle(m);
}

void e2b_live_show_secrets(e2b_live *m, bool shown)
{
    m->secrets_shown = shown;
    e2b_live_end *waiter = shown ? live_then_take(m) : NULL;
    if (shown)
        start_secrets(m, waiter);
}

void e2b_live_show_all(e2b_live *m, bool shown)
{
    bool was = m->all_shown;
    m->all_shown = shown;
    /* Opened: its rows are the last known ones; fresh ones come with this refresh. A list of
     * boxes only that is on its way would not bring them: the next one starts at its end. */
    if (shown && !was && m->client && !m->closing && !m->list_call)
        e2b_live_refresh_now(m);
    else if (shown && !was)
        m->refresh_after_list = true;
}

bool e2b_live_list_complete(const e2b_live *m)
{
    return m->list_complete;
}
