/* How a turn ended, read from its session's newest message (e2b_oc_last_turn): the events
 * alone cannot always say (a v2 interrupt is a "failed" step, a snapshot may see the turn
 * over before the stream brings the reject), and a process that starts after the turn never
 * saw them. Two reads:
 *   LIVE  the watch saw the turn end: watch_derive holds the state "working" until the
 *         message is read, so the end is told once, and right (done, interrupted, failed
 *         with the error; the user's message still the newest: interrupted before a step);
 *         a failed read falls back to what the events said.
 *   PAST  after each (re)connect, when idle: the end of the turn that ended before the watch
 *         looked, with the server's time of it (the user's message still the newest:
 *         interrupted); the status is not synced until it is read.
 * One request at a time (one message: bounded by E2B_AGENT_MESSAGE_BYTES), started from a
 * timer (never from inside the stream's own callback); a message whose end is not stored yet
 * is read again a few times, 250 ms apart. */
#include "core/agent/watch_internal.h"

#include <stdlib.h>
#include <string.h>

#define END_TRIES 4      /* reads again of an end not written yet ... */
#define END_AGAIN_MS 250 /* ... this far apart (then the events' end stands) */

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

static void on_end_timer(void *ud);

static void end_apply(e2b_agent_watch *w, int mode, const e2b_oc_result *res)
{
    e2b_agent_status *st = &w->st;
    if (mode == WATCH_END_LIVE) {
        w->end_got = true;
        w->end_result = res ? res->end : E2B_AGENT_END_NONE;
        /* the turn is over and no answer began: stopped before its first step (a v2
         * interrupt then says nothing); a failure the events told stands */
        if (res && res->unanswered && !w->turn_failed)
            w->end_result = E2B_AGENT_END_INTERRUPTED;
        set_str(&w->end_error, res ? res->error : NULL);
        if (res && res->message_id)
            set_str(&w->end_msg, res->message_id);
        if (res && res->end != E2B_AGENT_END_NONE && res->created_ms > 0)
            w->st.reply_created_ms = res->created_ms; /* an answer: a turn owed may be it */
        return;
    }
    /* PAST: only news, and only while no turn is watched. Read while the server is idle,
     * a newest message that is still the user's is a turn stopped before its first step. */
    e2b_agent_end end = !res ? E2B_AGENT_END_NONE
                             : res->end == E2B_AGENT_END_NONE && res->unanswered
                                 ? E2B_AGENT_END_INTERRUPTED
                                 : res->end;
    if (end == E2B_AGENT_END_NONE || w->in_turn || same(w->end_msg, res->message_id))
        return;
    set_str(&w->end_msg, res->message_id);
    st->last_end = end;
    if (!res->unanswered && res->end != E2B_AGENT_END_NONE && res->created_ms > 0)
        st->reply_created_ms = res->created_ms; /* the user's own message is no answer */
    set_str(&st->error, end == E2B_AGENT_END_FAILED ? res->error : NULL);
    if (res->ended_ms > 0) {
        st->idle_since_ms = res->ended_ms;
        if (st->state == E2B_AGENT_IDLE)
            st->state_since_ms = res->ended_ms; /* idle since the turn's end */
    }
}

static void on_last_turn(void *ud, e2b_oc_result *res, const e2b_error *err)
{
    e2b_agent_watch *w = ud;
    w->end_call = NULL;
    if (watch_cb_enter(w))
        return;
    int mode = w->end_want;
    if (w->end_again && !w->paused) {
        w->end_again = false;
        w->end_want = 0;
        watch_end_want(w, mode); /* the question changed while this read was on its way */
        return;
    }
    w->end_again = false;
    if (!err && res->unfinished && w->end_tries < END_TRIES && !w->paused) {
        /* the server stores the turn's end a moment after it says so: read again soon */
        w->end_tries++;
        w->end_timer = e2b_loop_timer_add(w->loop, END_AGAIN_MS, on_end_timer, w);
        if (w->end_timer)
            return;
    }
    w->end_tries = 0;
    w->end_want = 0;
    end_apply(w, mode, err ? NULL : res);
    watch_changed(w);
}

static void on_end_timer(void *ud)
{
    e2b_agent_watch *w = ud;
    w->end_timer = 0;
    if (w->freeing || w->end_call || !w->end_want)
        return;
    e2b_error *err = NULL;
    if (w->st.session_id && !w->paused)
        w->end_call = e2b_oc_last_turn(w->client, w->st.session_id, on_last_turn, w, &err);
    e2b_error_free(err);
    if (w->end_call) {
        w->outstanding++;
        return;
    }
    /* nothing to read (no session) or it could not start: what the events said stands */
    int mode = w->end_want;
    w->end_want = 0;
    end_apply(w, mode, NULL);
    watch_changed(w);
}

void watch_end_want(e2b_agent_watch *w, int mode)
{
    if (w->freeing || w->end_want == WATCH_END_LIVE || w->end_want == mode)
        return;
    if (w->end_call)
        w->end_again = true; /* a PAST read in flight: LIVE needs a read after the end */
    w->end_want = mode;
    if (!w->end_call && !w->end_timer)
        w->end_timer = e2b_loop_timer_add(w->loop, 0, on_end_timer, w);
}

void watch_end_stop(e2b_agent_watch *w)
{
    if (w->end_timer)
        e2b_loop_timer_cancel(w->loop, w->end_timer);
    w->end_timer = 0;
    w->end_tries = 0;
    e2b_oc_cancel(w->end_call); /* its callback applies nothing known: the events' end */
    if (!w->end_call && w->end_want) {
        int mode = w->end_want;
        w->end_want = 0;
        end_apply(w, mode, NULL);
    }
}

void watch_end_free(e2b_agent_watch *w)
{
    free(w->end_error);
    free(w->end_msg);
    w->end_error = w->end_msg = NULL;
}
