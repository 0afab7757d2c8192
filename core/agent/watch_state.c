/* The watch's bookkeeping on the status: events and snapshots applied, the state derived.
 * No I/O here (the calls are in watch.c); everything stored is bounded. */
#include "core/agent/watch_internal.h"

#include "core/agent/activity.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int64_t watch_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool same(const char *a, const char *b)
{
    return a && b && !strcmp(a, b);
}

static void set_str(char **dst, const char *src)
{
    char *n = src ? strdup(src) : NULL;
    free(*dst);
    *dst = n;
}

/* ---- what runs ---- */

static e2b_oc_active *active_find(e2b_agent_watch *w, const char *sid)
{
    for (size_t i = 0; i < w->nactive; i++)
        if (same(w->active[i].session_id, sid))
            return &w->active[i];
    return NULL;
}

static void active_set(e2b_agent_watch *w, const char *sid, e2b_oc_run run, int attempt,
                       const char *msg, int64_t next_ms)
{
    if (!sid)
        return;
    e2b_oc_active *a = active_find(w, sid);
    if (run == E2B_OC_IDLE) {
        if (!a)
            return;
        free(a->session_id);
        free(a->message);
        *a = w->active[--w->nactive];
        return;
    }
    if (!a) {
        if (w->nactive >= E2B_AGENT_SESSIONS_MAX)
            return;
        e2b_oc_active *g = realloc(w->active, (w->nactive + 1) * sizeof *g);
        if (!g)
            return;
        w->active = g;
        a = &w->active[w->nactive];
        memset(a, 0, sizeof *a);
        if (!(a->session_id = strdup(sid)))
            return;
        w->nactive++;
    }
    a->run = run;
    a->attempt = attempt;
    a->next_ms = next_ms;
    set_str(&a->message, msg);
}

static void active_clear(e2b_agent_watch *w)
{
    for (size_t i = 0; i < w->nactive; i++) {
        free(w->active[i].session_id);
        free(w->active[i].message);
    }
    free(w->active);
    w->active = NULL;
    w->nactive = 0;
}

/* ---- sessions ---- */

static e2b_agent_session *session_find(e2b_agent_status *st, const char *sid)
{
    for (size_t i = 0; i < st->nsessions; i++)
        if (same(st->sessions[i].id, sid))
            return &st->sessions[i];
    return NULL;
}

static void session_touch(e2b_agent_status *st, const char *sid, const char *title, int64_t at)
{
    if (!sid)
        return;
    e2b_agent_session *s = session_find(st, sid);
    if (!s) {
        if (st->nsessions >= E2B_AGENT_SESSIONS_MAX) {
            e2b_agent_session_clear(&st->sessions[st->nsessions - 1]); /* the oldest */
            st->nsessions--;
        }
        e2b_agent_session *g = realloc(st->sessions, (st->nsessions + 1) * sizeof *g);
        if (!g)
            return;
        st->sessions = g;
        memmove(&g[1], &g[0], st->nsessions * sizeof *g);
        s = &g[0];
        memset(s, 0, sizeof *s);
        s->id = strdup(sid);
        s->title = strdup(title ? title : "");
        if (!s->id || !s->title) {
            e2b_agent_session_clear(s);
            memmove(&g[0], &g[1], st->nsessions * sizeof *g);
            return;
        }
        st->nsessions++;
    } else if (title) {
        set_str(&s->title, title);
    }
    if (at > s->updated_ms)
        s->updated_ms = at;
}

static void session_remove(e2b_agent_status *st, const char *sid)
{
    e2b_agent_session *s = session_find(st, sid);
    if (!s)
        return;
    size_t i = (size_t)(s - st->sessions);
    e2b_agent_session_clear(s);
    memmove(&st->sessions[i], &st->sessions[i + 1], (st->nsessions - i - 1) * sizeof *s);
    st->nsessions--;
}

/* ---- requests ---- */

static e2b_agent_request *request_find(e2b_agent_status *st, const char *id)
{
    for (size_t i = 0; i < st->nrequests; i++)
        if (same(st->requests[i].id, id))
            return &st->requests[i];
    return NULL;
}

static void request_add(e2b_agent_status *st, const e2b_agent_request *r)
{
    if (request_find(st, r->id) || st->nrequests >= E2B_AGENT_REQUESTS_MAX)
        return;
    e2b_agent_status tmp = {.requests = (e2b_agent_request *)r, .nrequests = 1};
    e2b_agent_status copy;
    if (e2b_agent_status_copy(&copy, &tmp))
        return;
    e2b_agent_request *g = realloc(st->requests, (st->nrequests + 1) * sizeof *g);
    if (!g) {
        e2b_agent_status_clear(&copy);
        return;
    }
    st->requests = g;
    g[st->nrequests] = copy.requests[0];
    if (!g[st->nrequests].asked_ms)
        g[st->nrequests].asked_ms = watch_wall_ms();
    st->nrequests++;
    free(copy.requests);
    copy.requests = NULL;
    copy.nrequests = 0;
    e2b_agent_status_clear(&copy);
}

static void request_remove(e2b_agent_status *st, const char *id)
{
    e2b_agent_request *r = request_find(st, id);
    if (!r)
        return;
    size_t i = (size_t)(r - st->requests);
    e2b_agent_request_clear(r);
    memmove(&st->requests[i], &st->requests[i + 1], (st->nrequests - i - 1) * sizeof *r);
    st->nrequests--;
}

void e2b_agent_watch_note(e2b_agent_watch *w, const char *session_id, const char *text)
{
    static unsigned long seq; /* the note's key: one entry a note (UI thread only) */
    char key[32];
    snprintf(key, sizeof key, "note-%lu", ++seq);
    e2b_agent_activity *a = e2b_activity_get(&w->st, E2B_AGENT_ACT_NOTE, session_id, key);
    if (!a)
        return;
    /* a note is one line: flattened first, then kept in the activity block */
    a->at_ms = watch_wall_ms();
    char *t = e2b_agent_text(text, text ? strlen(text) : 0, E2B_AGENT_DETAIL_MAX, false, false);
    if (t) {
        e2b_activity_text(&w->st, a, t, true);
        free(t);
    }
    e2b_activity_bound(&w->st);
}

static bool is_user_message(e2b_agent_watch *w, const char *mid)
{
    for (size_t i = 0; mid && i < WATCH_USER_MSGS; i++)
        if (same(w->user_msgs[i], mid))
            return true;
    return false;
}

/* ---- todos ---- */

void watch_set_todos(e2b_agent_watch *w, const char *sid, e2b_agent_todo *todos, size_t n)
{
    e2b_agent_status *st = &w->st;
    if (st->session_id && sid && !same(st->session_id, sid)) {
        for (size_t i = 0; i < n; i++)
            e2b_agent_todo_clear(&todos[i]);
        free(todos);
        return;
    }
    for (size_t i = 0; i < st->ntodos; i++)
        e2b_agent_todo_clear(&st->todos[i]);
    free(st->todos);
    st->todo_done = 0;
    st->todo_total = (unsigned)n;
    for (size_t i = 0; i < n; i++)
        if (same(todos[i].status, "completed"))
            st->todo_done++;
    while (n > E2B_AGENT_TODOS_MAX)
        e2b_agent_todo_clear(&todos[--n]);
    st->todos = todos;
    st->ntodos = n;
    set_str(&w->todo_session, sid ? sid : st->session_id);
}

static void todos_clear(e2b_agent_watch *w)
{
    watch_set_todos(w, NULL, NULL, 0);
    free(w->todo_session);
    w->todo_session = NULL;
}

/* ---- events ---- */

/* Types whose families are known and harmless when not handled (anything else may be a
 * release's new name for a state change: it triggers a snapshot). */
static bool harmless(const char *type)
{
    static const char *const prefixes[] = {
        "server.", "catalog.", "plugin.", "reference.", "integration.", "lsp.", "file.",
        "message.", "session.next.", "session.diff", "session.compacted", "installation.",
        "vcs.", "project.", "mcp.", "tui.", "pty.", "command.", "storage.", "ide.",
    };
    if (!type)
        return true;
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (!strncmp(type, prefixes[i], strlen(prefixes[i])))
            return true;
    return false;
}

static bool v2(const e2b_agent_watch *w)
{
    return w->st.api == 2;
}

unsigned watch_apply_event(e2b_agent_watch *w, const e2b_oc_event *ev)
{
    e2b_agent_status *st = &w->st;
    unsigned need = 0;
    int64_t now = watch_wall_ms();
    const char *sid = ev->session_id;
    if (ev->at_ms > 0 && ev->kind != E2B_OC_EV_SESSION)
        st->last_event_ms = ev->at_ms;
    switch (ev->kind) {
    case E2B_OC_EV_CONNECTED:
        return WATCH_SNAPSHOT_NOW; /* not activity */
    case E2B_OC_EV_PROMPT: /* v2: the user's prompt, where its turn begins */
        if (ev->message_id) {
            e2b_agent_activity *a = e2b_activity_get(st, E2B_AGENT_ACT_PROMPT, sid, ev->message_id);
            if (a) {
                a = e2b_activity_text(st, a, ev->text ? ev->text : "", true);
                a->at_ms = now;
            }
        }
        /* a turn begins: */
        /* fall through */
    case E2B_OC_EV_BUSY:
        active_set(w, sid, E2B_OC_BUSY, 0, NULL, 0);
        w->end_clear = false; /* a step begins */
        if (same(w->ended_sid, sid))
            set_str(&w->ended_sid, NULL);
        break;
    case E2B_OC_EV_IDLE:
        active_set(w, sid, E2B_OC_IDLE, 0, NULL, 0);
        break;
    case E2B_OC_EV_RETRY:
        active_set(w, sid, E2B_OC_RETRY, ev->attempt, ev->text, ev->next_ms);
        break;
    case E2B_OC_EV_SESSION:
        session_touch(st, sid, ev->text, ev->at_ms ? ev->at_ms : now);
        break;
    case E2B_OC_EV_SESSION_GONE:
        session_remove(st, sid);
        active_set(w, sid, E2B_OC_IDLE, 0, NULL, 0);
        break;
    case E2B_OC_EV_USER_MESSAGE:
        if (ev->message_id && !is_user_message(w, ev->message_id)) {
            set_str(&w->user_msgs[w->user_next], ev->message_id);
            w->user_next = (w->user_next + 1) % WATCH_USER_MSGS;
        }
        return 0;
    case E2B_OC_EV_TEXT: {
        /* v1: a text part of the user's message is the prompt (where its turn begins) */
        bool prompt = is_user_message(w, ev->message_id);
        if (prompt && (!ev->whole || !ev->key))
            return 0;
        e2b_agent_activity *a =
            e2b_activity_get(st, prompt ? E2B_AGENT_ACT_PROMPT : E2B_AGENT_ACT_TEXT, sid, ev->key);
        if (a) {
            a = e2b_activity_text(st, a, ev->text, ev->whole);
            a->at_ms = now;
        }
        break;
    }
    case E2B_OC_EV_TOOL: {
        e2b_agent_activity *a = e2b_activity_get(st, E2B_AGENT_ACT_TOOL, sid, ev->key);
        if (a) {
            if (ev->tool && *ev->tool)
                set_str(&a->tool, ev->tool);
            if (ev->state)
                set_str(&a->state, ev->state);
            if (ev->text && *ev->text)
                a = e2b_activity_text(st, a, ev->text, true);
            a->at_ms = now;
        }
        if (v2(w) && same(ev->state, "error")) {
            need |= WATCH_SNAPSHOT; /* a rejected v2 turn ends here, without step.ended */
            w->settle_tries = 0;
        }
        break;
    }
    case E2B_OC_EV_STEP_ENDED:
        /* a turn whose last step says "stop" ended done: its end needs no read */
        w->end_clear = ev->finish && !same(ev->finish, "tool-calls") && !same(ev->finish, "error");
        if (ev->message_id)
            set_str(&w->step_msg, ev->message_id);
        if (ev->have_usage) {
            st->have_usage = true;
            st->tokens_input = ev->tokens_input;
            st->tokens_output = ev->tokens_output;
            st->tokens_reasoning = ev->tokens_reasoning;
            st->cost = ev->cost;
            st->have_step_cost = ev->usage.have_cost;
            /* the turn's sum, and the box's until the next snapshot says the server's own */
            e2b_agent_usage_add(&st->turn, &ev->usage);
            e2b_agent_usage_add(&st->total, &ev->usage);
            int64_t day = e2b_agent_day_start(now); /* a new day begins its own figure */
            if (st->today.day_ms != day)
                st->today = (e2b_agent_day){.day_ms = day};
            e2b_agent_usage_add(&st->today.usage, &ev->usage);
        }
        if (v2(w) && !same(ev->finish, "tool-calls")) {
            /* v2 says no "idle": the turn ended here; the snapshot confirms it */
            active_set(w, sid, E2B_OC_IDLE, 0, NULL, 0);
            set_str(&w->ended_sid, sid);
            w->ended_at = e2b_now_ms();
            need |= WATCH_SNAPSHOT;
            w->settle_tries = 0;
        }
        break;
    case E2B_OC_EV_FAILED: {
        if (same(ev->finish, "aborted")) {
            w->turn_interrupted = true;
        } else {
            w->turn_failed = true;
            set_str(&st->error, ev->text);
        }
        char key[E2B_AGENT_TEXT_MAX + 8];
        snprintf(key, sizeof key, "error/%s", sid ? sid : "");
        e2b_agent_activity *a = e2b_activity_get(st, E2B_AGENT_ACT_ERROR, sid, key);
        if (a) {
            a = e2b_activity_text(st, a, ev->text, true);
            a->at_ms = now;
        }
        if (v2(w)) {
            need |= WATCH_SNAPSHOT;
            w->settle_tries = 0;
        }
        break;
    }
    case E2B_OC_EV_ASKED:
        if (ev->request)
            request_add(st, ev->request);
        break;
    case E2B_OC_EV_REPLIED:
        request_remove(st, ev->request_id);
        if (same(ev->text, "reject")) {
            w->turn_interrupted = true;
            if (v2(w)) {
                need |= WATCH_SNAPSHOT;
                w->settle_tries = 0;
            }
        }
        break;
    case E2B_OC_EV_TODOS: {
        e2b_agent_status tmp = {.todos = (e2b_agent_todo *)ev->todos, .ntodos = ev->ntodos};
        e2b_agent_status copy;
        if (e2b_agent_status_copy(&copy, &tmp) == 0) {
            watch_set_todos(w, sid, copy.todos, copy.ntodos);
            copy.todos = NULL;
            copy.ntodos = 0;
            e2b_agent_status_clear(&copy);
        }
        break;
    }
    default:
        if (!harmless(ev->type))
            need |= WATCH_SNAPSHOT;
        return need;
    }
    if (sid && ev->kind != E2B_OC_EV_SESSION_GONE && ev->kind != E2B_OC_EV_SESSION)
        session_touch(st, sid, NULL, 0);
    e2b_activity_bound(st);
    st->last_activity_ms = now;
    return need;
}

/* ---- the snapshot ---- */

unsigned watch_apply_snapshot(e2b_agent_watch *w)
{
    e2b_agent_status *st = &w->st;
    struct watch_snapshot *s = &w->snap;
    unsigned need = 0;
    active_clear(w);
    w->active = s->active;
    w->nactive = s->nactive;
    s->active = NULL;
    s->nactive = 0;
    if (w->ended_sid && e2b_now_ms() - w->ended_at < 3000)
        active_set(w, w->ended_sid, E2B_OC_IDLE, 0, NULL, 0); /* the end event is newer */

    /* the pending requests: the server's list, keeping when each was first seen */
    size_t n = s->nperms + s->nquestions;
    e2b_agent_request *reqs = n ? calloc(n, sizeof *reqs) : NULL;
    size_t k = 0;
    for (size_t i = 0; reqs && i < s->nperms; i++)
        reqs[k++] = s->perms[i];
    for (size_t i = 0; reqs && i < s->nquestions; i++)
        reqs[k++] = s->questions[i];
    if (reqs || !n) {
        int64_t now = watch_wall_ms();
        for (size_t i = 0; i < k; i++) {
            e2b_agent_request *old = request_find(st, reqs[i].id);
            reqs[i].asked_ms = old && old->asked_ms ? old->asked_ms : now;
        }
        for (size_t i = 0; i < st->nrequests; i++)
            e2b_agent_request_clear(&st->requests[i]);
        free(st->requests);
        st->requests = reqs;
        st->nrequests = k;
        free(s->perms);
        free(s->questions);
        s->perms = s->questions = NULL;
        s->nperms = s->nquestions = 0;
    }

    if (s->have_sessions) {
        for (size_t i = 0; i < st->nsessions; i++)
            e2b_agent_session_clear(&st->sessions[i]);
        free(st->sessions);
        st->sessions = s->sessions;
        st->nsessions = s->nsessions;
        /* v1's session list has each session's totals; 1.18.33's v2 list says 0 tokens
         * for sessions whose messages used some: there the steps seen are the figures */
        if (!v2(w)) {
            st->total = s->usage;
            st->today = s->today;
        }
        s->sessions = NULL;
        s->nsessions = 0;
        s->have_sessions = false;
    }
    char *before = st->session_id ? strdup(st->session_id) : NULL;
    watch_derive(w);
    w->snapped = true; /* later changes are seen, not found by a look */
    /* a process that saw no event yet: the server's time of the active session's last change */
    for (size_t i = 0; st->session_id && i < st->nsessions; i++)
        if (same(st->sessions[i].id, st->session_id) && st->sessions[i].updated_ms > st->last_activity_ms)
            st->last_activity_ms = st->sessions[i].updated_ms;
    if (!same(before, st->session_id) || (st->session_id && !same(w->todo_session, st->session_id))) {
        if (!same(w->todo_session, st->session_id))
            todos_clear(w);
        if (st->session_id && !v2(w))
            need |= WATCH_SNAPSHOT_TODOS;
    }
    free(before);
    if (!w->synced && st->state == E2B_AGENT_IDLE && !w->in_turn && st->session_id)
        watch_end_want(w, WATCH_END_PAST); /* (re)connected: how did the last turn end? */
    if (w->nactive && w->settle_tries >= 0 && w->in_turn)
        need |= WATCH_SETTLE;
    return need;
}

static void on_settle(void *ud)
{
    e2b_agent_watch *w = ud;
    w->settle_timer = 0;
    watch_snapshot_soon(w, 0);
}

bool watch_settle(e2b_agent_watch *w)
{
    /* only after an event that suggested the turn ended (v2): a few later looks, then the
     * events are trusted again */
    if (!v2(w) || w->settle_tries >= 5 || w->settle_timer)
        return false;
    long delay = 150L << w->settle_tries;
    w->settle_tries++;
    w->settle_timer = e2b_loop_timer_add(w->loop, delay, on_settle, w);
    return false;
}

/* ---- the derived state ---- */

void watch_derive(e2b_agent_watch *w)
{
    e2b_agent_status *st = &w->st;
    bool any_busy = false, any_retry = false;
    const e2b_oc_active *retry = NULL;
    const char *busy_sid = NULL;
    for (size_t i = 0; i < w->nactive; i++) {
        if (w->active[i].run == E2B_OC_RETRY) {
            any_retry = true;
            retry = &w->active[i];
        }
        if (w->active[i].run != E2B_OC_IDLE) {
            any_busy = true;
            if (!busy_sid || same(w->active[i].session_id, st->session_id))
                busy_sid = w->active[i].session_id;
        }
    }
    for (size_t i = 0; i < st->nsessions; i++) {
        const e2b_oc_active *a = active_find(w, st->sessions[i].id);
        st->sessions[i].busy = a && a->run != E2B_OC_IDLE;
    }
    /* the active session: the busy one, else the one with a pending request, else the
     * current one while it exists, else the most recently updated */
    const char *sid = busy_sid;
    if (!sid && st->nrequests)
        sid = st->requests[0].session_id;
    if (!sid && st->session_id && session_find(st, st->session_id))
        sid = st->session_id;
    if (!sid && st->nsessions)
        sid = st->sessions[0].id;
    if (!same(sid, st->session_id)) {
        char *n = sid ? strdup(sid) : NULL;
        free(st->session_id);
        st->session_id = n;
        /* another session is the active one (ctrl-n): the old one's list is not its list */
        if (w->todo_session && !same(w->todo_session, sid))
            todos_clear(w);
    }
    const e2b_agent_session *cur = st->session_id ? session_find(st, st->session_id) : NULL;
    set_str(&st->session_title, cur ? cur->title : st->session_id ? "" : NULL);

    e2b_agent_state s;
    if (w->paused)
        s = E2B_AGENT_PAUSED;
    else if (!w->reached)
        s = w->down ? E2B_AGENT_SERVER_DOWN : E2B_AGENT_UNKNOWN;
    else if (st->nrequests)
        s = E2B_AGENT_WAITING;
    else if (any_retry)
        s = E2B_AGENT_RETRYING;
    else if (any_busy)
        s = E2B_AGENT_WORKING;
    else
        s = E2B_AGENT_IDLE;
    if (s == E2B_AGENT_RETRYING && retry) {
        set_str(&st->retry_message, retry->message);
        st->retry_attempt = retry->attempt;
        st->retry_next_ms = retry->next_ms;
    } else if (s != E2B_AGENT_RETRYING) {
        set_str(&st->retry_message, NULL);
        st->retry_attempt = 0;
        st->retry_next_ms = 0;
    }
    bool busy_now = e2b_agent_state_in_turn(s);
    if (busy_now && !w->in_turn) {
        w->in_turn = true;
        w->turn_looked = !w->snapped;
        st->turn_started_ms = watch_wall_ms();
        st->last_turn = st->turn;
        memset(&st->turn, 0, sizeof st->turn);
        if (!w->turn_failed)
            set_str(&st->error, NULL);
        w->turn_interrupted = false;
        w->end_clear = false;
    }
    if (busy_now && w->end_got)
        w->end_got = false; /* read before the server said busy again: not this turn's end */
    bool clear = w->end_clear && !w->turn_failed && !w->turn_interrupted;
    if (s == E2B_AGENT_IDLE && w->in_turn && !w->end_got && !clear) {
        /* the turn seems over, and the events do not say plainly how (a reject, an interrupt,
         * a failure, or a snapshot ahead of the stream): "working" until its message says
         * (watch_end.c) */
        watch_end_want(w, WATCH_END_LIVE);
        s = E2B_AGENT_WORKING;
    } else if (s == E2B_AGENT_IDLE && w->in_turn) {
        w->in_turn = false;
        e2b_agent_end seen = w->turn_failed ? E2B_AGENT_END_FAILED
                           : w->turn_interrupted ? E2B_AGENT_END_INTERRUPTED : E2B_AGENT_END_DONE;
        /* the message is the truth; the events stand when it said nothing */
        st->last_end = w->end_result != E2B_AGENT_END_NONE ? w->end_result : seen;
        if (w->end_result == E2B_AGENT_END_FAILED && w->end_error)
            set_str(&st->error, w->end_error);
        else if (st->last_end != E2B_AGENT_END_FAILED)
            set_str(&st->error, NULL);
        st->idle_since_ms = watch_wall_ms();
        if (clear && !w->end_got && w->step_msg)
            set_str(&w->end_msg, w->step_msg); /* a later read of it is no news */
        w->turn_failed = w->turn_interrupted = false;
        w->end_got = w->end_clear = false;
        w->end_result = E2B_AGENT_END_NONE;
        w->settle_tries = 5; /* nothing more to wait for */
    }
    /* idle and no turn seen: idle_since_ms stays 0 (unknown) until the last message says */
    if (s == E2B_AGENT_IDLE && w->turn_failed && !w->in_turn) {
        /* a failure reported after the idle (v1 may order them so) */
        st->last_end = E2B_AGENT_END_FAILED;
        w->turn_failed = false;
    }
    if (s != st->state || !st->state_since_ms) {
        w->state_looked = !w->snapped;
        /* idle: since the turn's end when it is known (a process that just looked) */
        st->state_since_ms = s == E2B_AGENT_IDLE && st->idle_since_ms ? st->idle_since_ms
                                                                       : watch_wall_ms();
    }
    st->state = s;
}

void watch_snapshot_clear(e2b_agent_watch *w)
{
    struct watch_snapshot *s = &w->snap;
    for (size_t i = 0; i < s->nactive; i++) {
        free(s->active[i].session_id);
        free(s->active[i].message);
    }
    free(s->active);
    for (size_t i = 0; i < s->nperms; i++)
        e2b_agent_request_clear(&s->perms[i]);
    free(s->perms);
    for (size_t i = 0; i < s->nquestions; i++)
        e2b_agent_request_clear(&s->questions[i]);
    free(s->questions);
    for (size_t i = 0; i < s->nsessions; i++)
        e2b_agent_session_clear(&s->sessions[i]);
    free(s->sessions);
    memset(s, 0, sizeof *s);
}

void watch_state_free(e2b_agent_watch *w)
{
    active_clear(w);
    free(w->ended_sid);
    w->ended_sid = NULL;
    free(w->step_msg);
    w->step_msg = NULL;
    free(w->todo_session);
    w->todo_session = NULL;
    free(w->recent_sid);
    w->recent_sid = NULL;
    for (size_t i = 0; i < WATCH_USER_MSGS; i++) {
        free(w->user_msgs[i]);
        w->user_msgs[i] = NULL;
    }
}
