/* The per-box agent watch (core/agent/watch.h): health -> event stream -> snapshot, events
 * applied at once, the snapshot taken again (debounced) when an event may have changed the
 * state, reconnection with backoff. The pure bookkeeping on the status is watch_state.c.
 *
 * The quiet look: a turn can end with no event at all (v2, 1.18.33: a turn interrupted
 * before its first step, e.g. while the provider's request waits, says nothing after
 * session.next.prompted), and no event would ever ask again: the box stayed "working" with
 * its server idle. So while working or retrying with the stream up and no event for
 * QUIET_MIN_MS, one snapshot; the next after twice the silence, up to QUIET_MAX_MS. Never
 * while events flow (each one restarts the count) nor while idle, waiting or paused. */
#include "core/agent/watch_internal.h"

#include <stdlib.h>
#include <string.h>

#define BACKOFF_MIN_MS 500
#define BACKOFF_MAX_MS 30000
#define STABLE_STREAM_MS 30000 /* a stream up this long resets the backoff */
#define DEBOUNCE_MS 40
#define SNAP_RETRY_MIN_MS 1000
#define SNAP_RETRY_MAX_MS 30000
#define QUIET_MIN_MS 5000
#define QUIET_MAX_MS 60000

static void connect_start(e2b_agent_watch *w);
static void snapshot_start(e2b_agent_watch *w);
static void quiet_arm(e2b_agent_watch *w);

void watch_changed(e2b_agent_watch *w)
{
    watch_derive(w);
    quiet_arm(w);
    if (w->on_change && !w->freeing)
        w->on_change(w->ud);
}

/* ---- the quiet look ---- */

static bool quiet_wanted(const e2b_agent_watch *w)
{
    return !w->freeing && !w->paused && w->stream &&
           (w->st.state == E2B_AGENT_WORKING || w->st.state == E2B_AGENT_RETRYING);
}

static void quiet_stop(e2b_agent_watch *w)
{
    if (w->quiet_timer)
        e2b_loop_timer_cancel(w->loop, w->quiet_timer);
    w->quiet_timer = 0;
    w->quiet_ms = 0;
}

static void on_quiet_timer(void *ud)
{
    e2b_agent_watch *w = ud;
    w->quiet_timer = 0;
    if (!quiet_wanted(w)) {
        w->quiet_ms = 0;
        return;
    }
    long silent = (long)(e2b_now_ms() - w->quiet_from_ms);
    if (silent >= w->quiet_ms) {
        /* silent this long while working: does the server still say so? */
        watch_snapshot_soon(w, 0);
        w->quiet_from_ms = e2b_now_ms();
        w->quiet_ms = w->quiet_ms * 2 > QUIET_MAX_MS ? QUIET_MAX_MS : w->quiet_ms * 2;
        silent = 0;
    }
    /* an event came since: the count goes on from it (no timer work per event) */
    w->quiet_timer = e2b_loop_timer_add(w->loop, w->quiet_ms - silent, on_quiet_timer, w);
}

static void quiet_arm(e2b_agent_watch *w)
{
    if (!quiet_wanted(w)) {
        quiet_stop(w);
        return;
    }
    if (w->quiet_timer)
        return;
    if (!w->quiet_ms) {
        w->quiet_ms = QUIET_MIN_MS;
        w->quiet_from_ms = e2b_now_ms();
    }
    w->quiet_timer = e2b_loop_timer_add(w->loop, w->quiet_ms, on_quiet_timer, w);
}

/* ---- reconnecting ---- */

static void on_retry_timer(void *ud)
{
    e2b_agent_watch *w = ud;
    w->retry_timer = 0;
    connect_start(w);
}

static void schedule_reconnect(e2b_agent_watch *w)
{
    if (w->paused || w->freeing || w->retry_timer)
        return;
    long delay = w->backoff_ms;
    w->backoff_ms = w->backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : w->backoff_ms * 2;
    w->retry_timer = e2b_loop_timer_add(w->loop, delay, on_retry_timer, w);
}

static void server_down(e2b_agent_watch *w, const e2b_error *err)
{
    w->reached = false;
    w->down = true;
    free(w->st.error);
    w->st.error = err ? e2b_agent_text(e2b_error_message(err), strlen(e2b_error_message(err)),
                                       E2B_AGENT_DETAIL_MAX, false, false)
                      : NULL;
}

/* ---- the stream ---- */

static void on_event(void *ud, const e2b_oc_event *ev)
{
    e2b_agent_watch *w = ud;
    if (!w->reached) {
        w->reached = true;
        w->down = false;
    }
    w->st.stream_up = true;
    w->quiet_from_ms = e2b_now_ms();
    if (w->quiet_ms > QUIET_MIN_MS)
        w->quiet_ms = QUIET_MIN_MS; /* events flow again: the shortest silence asks next */
    unsigned need = watch_apply_event(w, ev);
    /* never a request from inside the stream's own write callback (curl does not allow
     * adding one there): through a timer, at once */
    if (need & WATCH_SNAPSHOT_NOW)
        watch_snapshot_soon(w, 0);
    else if (need & WATCH_SNAPSHOT)
        watch_snapshot_soon(w, DEBOUNCE_MS);
    watch_changed(w);
}

static void on_stream_end(void *ud, const e2b_error *err)
{
    e2b_agent_watch *w = ud;
    w->stream = NULL;
    if (watch_cb_enter(w))
        return;
    w->st.stream_up = false;
    w->synced = false;
    if (w->snap_timer) {
        /* a later snapshot (a retry's, up to 30 s away) gives way to the one that comes
         * with the next stream */
        e2b_loop_timer_cancel(w->loop, w->snap_timer);
        w->snap_timer = 0;
    }
    w->snap_retry_ms = 0;
    if (w->paused) {
        watch_changed(w);
        return;
    }
    if (e2b_now_ms() - w->stream_opened_ms >= STABLE_STREAM_MS)
        w->backoff_ms = BACKOFF_MIN_MS;
    if (err && err->kind == E2B_ERR_AUTH)
        server_down(w, err);
    schedule_reconnect(w);
    watch_changed(w);
}

static void open_stream(e2b_agent_watch *w)
{
    e2b_error *err = NULL;
    w->stream_opened_ms = e2b_now_ms();
    w->stream = e2b_oc_events(w->client, on_event, on_stream_end, w, &err);
    if (w->stream)
        w->outstanding++;
    if (!w->stream) {
        server_down(w, err);
        e2b_error_free(err);
        schedule_reconnect(w);
        watch_changed(w);
        return;
    }
    if (w->st.reconnects || w->opened_once)
        w->st.reconnects++;
    w->opened_once = true;
    /* the snapshot comes with server.connected (the first frame), so that what happened
     * before the stream is read after it is open */
}

static void on_health(void *ud, e2b_oc_result *res, const e2b_error *err)
{
    e2b_agent_watch *w = ud;
    w->health_call = NULL;
    if (watch_cb_enter(w) || w->paused)
        return;
    if (err || !res->healthy) {
        e2b_error *e = err ? NULL : e2b_error_new(E2B_ERR_SERVER, "the agent's server says it is not healthy");
        server_down(w, err ? err : e);
        e2b_error_free(e);
        schedule_reconnect(w);
        watch_changed(w);
        return;
    }
    w->reached = true;
    w->down = false;
    free(w->st.error);
    w->st.error = NULL;
    open_stream(w);
    watch_changed(w);
}

static void connect_start(e2b_agent_watch *w)
{
    if (w->paused || w->freeing || w->health_call || w->stream)
        return;
    e2b_error *err = NULL;
    w->health_call = e2b_oc_health(w->client, on_health, w, &err);
    if (w->health_call)
        w->outstanding++;
    if (!w->health_call) {
        server_down(w, err);
        e2b_error_free(err);
        schedule_reconnect(w);
        watch_changed(w);
    }
}

/* ---- the snapshot ---- */

/* The snapshot's last parts, one after the other, before the status is complete: the
 * active session's todo list (v1, when it changed), then its newest messages (once per active
 * session: watch_on_snap_recent). Returns true when one was started. */
static bool snapshot_tail(e2b_agent_watch *w, bool todos, bool again)
{
    const char *sid = w->st.session_id;
    bool recent = sid && !(w->recent_sid && !strcmp(w->recent_sid, sid));
    if (!sid || (!todos && !recent))
        return false;
    e2b_error *err = NULL;
    int slot = todos ? SNAP_TODOS : SNAP_RECENT;
    w->snap_calls[slot] = todos ? e2b_oc_todos(w->client, sid, watch_on_snap_todos, w, &err)
                                : e2b_oc_recent(w->client, sid, watch_on_snap_recent, w, &err);
    e2b_error_free(err);
    if (!todos) {
        free(w->recent_sid); /* asked once for this session, whatever it answers */
        w->recent_sid = strdup(sid);
    }
    if (!w->snap_calls[slot])
        return todos && snapshot_tail(w, false, again);
    w->outstanding++;
    w->snap_pending = 1;
    w->snap_tail = true;
    w->snap_again = again;
    return true;
}

static void snapshot_part_done(e2b_agent_watch *w)
{
    if (--w->snap_pending > 0)
        return;
    bool again = w->snap_again;
    if (w->snap_tail) {
        /* a last part came (or failed): the next, or the snapshot is complete */
        w->snap_tail = false;
        w->snap_again = false;
        if (snapshot_tail(w, false, again)) {
            watch_changed(w);
            return;
        }
        w->synced = true;
        watch_changed(w);
        if (again)
            snapshot_start(w);
        return;
    }
    w->snap_again = false;
    if (w->snap_failed && w->stream) {
        /* a call refused or timed out (a busy server) while the stream is up: what the
         * stream did not say is still unknown, and no event may ask again: again later */
        w->snap_retry_ms = w->snap_retry_ms ? w->snap_retry_ms * 2 : SNAP_RETRY_MIN_MS;
        if (w->snap_retry_ms > SNAP_RETRY_MAX_MS)
            w->snap_retry_ms = SNAP_RETRY_MAX_MS;
        watch_snapshot_soon(w, w->snap_retry_ms);
    }
    if (!w->snap_failed) {
        w->snap_retry_ms = 0;
        unsigned need = watch_apply_snapshot(w);
        if (need & WATCH_SETTLE)
            watch_settle(w);
        if (snapshot_tail(w, need & WATCH_SNAPSHOT_TODOS, again)) {
            watch_snapshot_clear(w);
            watch_changed(w);
            return;
        }
        w->synced = true;
    }
    watch_snapshot_clear(w);
    watch_changed(w);
    if (again && w->snap_pending == 0)
        snapshot_start(w);
}

#define SNAP_CB(name, idx, field)                                                       \
    static void name(void *ud, e2b_oc_result *res, const e2b_error *err)                \
    {                                                                                   \
        e2b_agent_watch *w = ud;                                                        \
        w->snap_calls[idx] = NULL;                                                      \
        if (watch_cb_enter(w))                                                          \
            return;                                                                     \
        if (err) {                                                                      \
            w->snap_failed = true;                                                      \
        } else {                                                                        \
            field;                                                                      \
        }                                                                               \
        snapshot_part_done(w);                                                          \
    }

SNAP_CB(on_snap_active, SNAP_ACTIVE, {
    w->snap.active = res->active;
    w->snap.nactive = res->nactive;
    res->active = NULL;
    res->nactive = 0;
})
SNAP_CB(on_snap_perms, SNAP_PERMS, {
    w->snap.perms = res->requests;
    w->snap.nperms = res->nrequests;
    res->requests = NULL;
    res->nrequests = 0;
})
SNAP_CB(on_snap_questions, SNAP_QUESTIONS, {
    w->snap.questions = res->requests;
    w->snap.nquestions = res->nrequests;
    res->requests = NULL;
    res->nrequests = 0;
})
SNAP_CB(on_snap_sessions, SNAP_SESSIONS, {
    w->snap.sessions = res->sessions;
    w->snap.nsessions = res->nsessions;
    w->snap.usage = res->usage;
    w->snap.today = res->today;
    w->snap.have_sessions = true;
    res->sessions = NULL;
    res->nsessions = 0;
})

/* The active session's newest messages: what a process that looked mid-turn (or after it)
 * did not see happen: v2's usage of the last step that ended (its session list has no
 * figures in 1.18.33), when the turn began, the last activity, since when a request waits;
 * each only where this process has no better figure of its own. */
void watch_on_snap_recent(void *ud, e2b_oc_result *res, const e2b_error *err)
{
    e2b_agent_watch *w = ud;
    w->snap_calls[SNAP_RECENT] = NULL;
    if (watch_cb_enter(w))
        return;
    e2b_agent_status *st = &w->st;
    bool ours = !err && st->session_id && w->recent_sid && !strcmp(st->session_id, w->recent_sid);
    /* a step that ended meanwhile (its event) is newer than what the server stored */
    if (ours && e2b_oc_api(w->client) == 2 && !st->have_usage && res->step.have_tokens) {
        st->have_usage = true;
        st->tokens_input = res->step.input;
        st->tokens_output = res->step.output;
        st->tokens_reasoning = res->step.reasoning;
        st->have_step_cost = res->step.have_cost;
        st->cost = res->step.have_cost ? res->step.cost_usd : 0;
    }
    if (ours && res->activity_ms > st->last_activity_ms)
        st->last_activity_ms = res->activity_ms;
    bool in_turn = e2b_agent_state_in_turn(st->state);
    /* the turn found running (or over) by the look: it began with its user message */
    if (ours && res->user_ms && ((in_turn && w->turn_looked) || (!in_turn && !st->turn_started_ms)))
        st->turn_started_ms = res->user_ms;
    e2b_agent_request *r = st->nrequests ? &st->requests[0] : NULL;
    if (ours && r && res->tool_wait_ms && r->session_id && !strcmp(r->session_id, st->session_id) &&
        res->tool_wait_ms < r->asked_ms && res->tool_wait_ms >= res->user_ms)
        r->asked_ms = res->tool_wait_ms; /* the tool call it waits on began then */
    if (ours && w->state_looked) {
        int64_t since = st->state == E2B_AGENT_WAITING && r ? r->asked_ms
                        : in_turn ? st->turn_started_ms : 0;
        if (since && since < st->state_since_ms)
            st->state_since_ms = since;
    }
    snapshot_part_done(w);
}

void watch_on_snap_todos(void *ud, e2b_oc_result *res, const e2b_error *err)
{
    e2b_agent_watch *w = ud;
    w->snap_calls[SNAP_TODOS] = NULL;
    if (watch_cb_enter(w))
        return;
    if (!err && e2b_oc_api(w->client) == 1) {
        watch_set_todos(w, w->st.session_id, res->todos, res->ntodos);
        res->todos = NULL;
        res->ntodos = 0;
    }
    snapshot_part_done(w);
}

static void snapshot_start(e2b_agent_watch *w)
{
    if (w->freeing || w->paused)
        return;
    if (w->snap_timer) {
        e2b_loop_timer_cancel(w->loop, w->snap_timer);
        w->snap_timer = 0;
    }
    if (w->snap_pending) {
        w->snap_again = true;
        return;
    }
    w->snap_failed = false;
    e2b_oc_call *(*const fns[])(e2b_oc_client *, e2b_oc_done_fn, void *, e2b_error **) = {
        e2b_oc_active_sessions, e2b_oc_permissions, e2b_oc_questions, e2b_oc_sessions};
    e2b_oc_done_fn cbs[] = {on_snap_active, on_snap_perms, on_snap_questions, on_snap_sessions};
    w->snap_pending = 1; /* held until every call started */
    for (int i = 0; i < 4; i++) {
        e2b_error *err = NULL;
        w->snap_pending++;
        w->snap_calls[i] = fns[i](w->client, cbs[i], w, &err);
        if (w->snap_calls[i])
            w->outstanding++;
        if (!w->snap_calls[i]) {
            w->snap_pending--;
            w->snap_failed = true;
            e2b_error_free(err);
        }
    }
    snapshot_part_done(w);
}

static void on_snap_timer(void *ud)
{
    e2b_agent_watch *w = ud;
    w->snap_timer = 0;
    snapshot_start(w);
}

void watch_snapshot_soon(e2b_agent_watch *w, long delay_ms)
{
    if (w->freeing || w->paused)
        return;
    if (w->snap_timer) {
        /* one pending: it stands unless this one is due sooner (a retry's may be 30 s away) */
        if (w->snap_pending || e2b_now_ms() + delay_ms >= w->snap_due_ms)
            return;
        e2b_loop_timer_cancel(w->loop, w->snap_timer);
        w->snap_timer = 0;
    }
    if (w->snap_pending) {
        w->snap_again = true;
        return;
    }
    w->snap_due_ms = e2b_now_ms() + delay_ms;
    w->snap_timer = e2b_loop_timer_add(w->loop, delay_ms, on_snap_timer, w);
}

/* ---- lifecycle ---- */

e2b_agent_watch *e2b_agent_watch_new(e2b_loop *loop, const e2b_oc_config *oc,
                                     e2b_agent_watch_fn on_change, void *ud, e2b_error **err)
{
    e2b_agent_watch *w = calloc(1, sizeof *w);
    if (!w) {
        if (err)
            *err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        return NULL;
    }
    w->client = e2b_oc_new(loop, oc, err);
    if (!w->client) {
        free(w);
        return NULL;
    }
    w->loop = loop;
    w->on_change = on_change;
    w->ud = ud;
    w->backoff_ms = BACKOFF_MIN_MS;
    w->settle_tries = 5; /* none until an event suggests a turn ended */
    w->st.api = e2b_oc_api(w->client);
    connect_start(w);
    return w;
}

static void stop_all(e2b_agent_watch *w)
{
    if (w->retry_timer)
        e2b_loop_timer_cancel(w->loop, w->retry_timer);
    if (w->snap_timer)
        e2b_loop_timer_cancel(w->loop, w->snap_timer);
    if (w->settle_timer)
        e2b_loop_timer_cancel(w->loop, w->settle_timer);
    w->retry_timer = w->snap_timer = w->settle_timer = 0;
    quiet_stop(w);
    e2b_oc_cancel(w->health_call);
    for (int i = 0; i < SNAP_N; i++)
        e2b_oc_cancel(w->snap_calls[i]);
    e2b_oc_stream_close(w->stream);
    watch_end_stop(w);
}

void e2b_agent_watch_free(e2b_agent_watch *w)
{
    if (!w)
        return;
    w->freeing = true;
    stop_all(w);
    watch_cmds_cancel(w);
    watch_snapshot_clear(w);
    e2b_agent_status_clear(&w->st);
    watch_state_free(w);
    watch_end_free(w);
    /* the cancelled calls call back later from the loop and hold w as their ud: w stays
     * (a husk) until the last of them has ended (watch_cb_enter) */
    if (w->outstanding == 0)
        watch_release(w);
}

void watch_release(e2b_agent_watch *w)
{
    e2b_oc_free(w->client);
    free(w);
}

bool watch_cb_enter(e2b_agent_watch *w)
{
    w->outstanding--;
    if (!w->freeing)
        return false;
    if (w->outstanding == 0)
        watch_release(w);
    return true;
}

const e2b_agent_status *e2b_agent_watch_status(const e2b_agent_watch *w) { return &w->st; }
bool e2b_agent_watch_synced(const e2b_agent_watch *w)
{
    return w->synced && !w->end_want; /* and how the last turn ended is read */
}
e2b_oc_client *e2b_agent_watch_client(const e2b_agent_watch *w) { return w->client; }

void e2b_agent_watch_set_paused(e2b_agent_watch *w, bool paused)
{
    if (w->paused == paused)
        return;
    w->paused = paused;
    if (paused) {
        stop_all(w);
        w->synced = false;
        w->st.stream_up = false;
    } else {
        w->backoff_ms = BACKOFF_MIN_MS;
        connect_start(w);
    }
    watch_changed(w);
}

