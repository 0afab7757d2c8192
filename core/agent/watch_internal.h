/* Private to core/agent/watch*.c: the watch's struct and the helpers its files share. */
#ifndef E2B_AGENT_WATCH_INTERNAL_H
#define E2B_AGENT_WATCH_INTERNAL_H

#include "core/agent/watch.h"

enum { SNAP_ACTIVE, SNAP_PERMS, SNAP_QUESTIONS, SNAP_SESSIONS, SNAP_TODOS, SNAP_RECENT, SNAP_N };

/* What an event or a snapshot asks for next (watch_apply_*). */
enum {
    WATCH_SNAPSHOT = 1u << 0,       /* a snapshot soon (debounced) */
    WATCH_SNAPSHOT_NOW = 1u << 1,   /* a snapshot at once (the stream just opened) */
    WATCH_SNAPSHOT_TODOS = 1u << 2, /* the active session's todo list (v1) */
    WATCH_SETTLE = 1u << 3,         /* a turn seemed to end but the server still says busy */
};

struct watch_snapshot {
    e2b_oc_active *active;
    size_t nactive;
    e2b_agent_request *perms, *questions;
    size_t nperms, nquestions;
    e2b_agent_session *sessions;
    size_t nsessions;
    e2b_agent_usage usage; /* the sessions' sum */
    e2b_agent_day today;   /* and today's part of it */
    bool have_sessions;
};

struct watch_cmd;

#define WATCH_USER_MSGS 8

struct e2b_agent_watch {
    e2b_loop *loop;
    e2b_oc_client *client;
    e2b_agent_watch_fn on_change;
    void *ud;
    e2b_agent_status st;

    bool paused, freeing;
    unsigned outstanding;    /* callbacks still to come (the husk waits for them) */
    bool reached;            /* the server answered since the last failure */
    bool down;               /* it failed to answer */
    bool opened_once;
    bool synced;

    e2b_oc_call *health_call;
    e2b_oc_stream *stream;
    int64_t stream_opened_ms;
    uint64_t retry_timer;
    long backoff_ms;

    /* the snapshot */
    e2b_oc_call *snap_calls[SNAP_N];
    int snap_pending;
    bool snap_failed, snap_again;
    bool snap_tail;          /* the snapshot's last part: the active session's todo list
                              * (v1) or its last step's usage (v2) */
    char *recent_sid;        /* the session whose newest messages were read */
    bool snapped;            /* a snapshot was applied: later changes are seen happen */
    bool turn_looked, state_looked; /* the turn / the state was found by the first look (its
                                       start time is when we looked, not when it began) */
    uint64_t snap_timer;
    long snap_retry_ms;      /* the wait before a failed snapshot is taken again (0: none failed) */
    int64_t snap_due_ms;     /* when snap_timer fires (monotonic) */
    struct watch_snapshot snap;
    uint64_t settle_timer;
    int settle_tries;
    /* the quiet look (watch.c): while working with the stream up and silent, a snapshot */
    uint64_t quiet_timer;
    long quiet_ms;           /* the silence that asks next (doubles, bounded) */
    int64_t quiet_from_ms;   /* the last event (monotonic) */

    /* what the server says runs (snapshot, then events) */
    e2b_oc_active *active;
    size_t nactive;
    /* the turn being watched */
    bool in_turn, turn_failed, turn_interrupted;
    char *todo_session;      /* whose list st.todos is */
    char *user_msgs[WATCH_USER_MSGS]; /* v1: recent user message ids */
    size_t user_next;

    struct watch_cmd *cmds;  /* commands in flight */
    /* the end of a turn, read from its session's newest message (watch_end.c) */
    int end_want;            /* WATCH_END_LIVE / WATCH_END_PAST: a read is due, or 0 */
    bool end_again;          /* the read in flight is of an older question: read again */
    bool end_got;            /* LIVE: read; watch_derive may now tell the turn's end */
    bool end_clear;          /* the last step ended "stop" and nothing failed: no read needed */
    char *step_msg;          /* the message of the last step that ended */
    e2b_agent_end end_result;
    char *end_error;
    char *end_msg;           /* the message whose end is told (a later read of it is no news) */
    e2b_oc_call *end_call;
    uint64_t end_timer;
    int end_tries;           /* reads again of a message whose end is not written yet */

    /* v2: the session whose turn an event said ended (step ended with "stop"), and when
     * (monotonic ms): a snapshot just after may still say running; the event is trusted */
    char *ended_sid;
    int64_t ended_at;
};

/* watch.c */
void watch_snapshot_soon(e2b_agent_watch *w, long delay_ms);
void watch_on_snap_todos(void *ud, e2b_oc_result *res, const e2b_error *err);
void watch_on_snap_recent(void *ud, e2b_oc_result *res, const e2b_error *err);
/* A callback's first call: false to go on; true when the watch is being freed (the callback
 * must return at once; the last one frees the husk). */
bool watch_cb_enter(e2b_agent_watch *w);
void watch_release(e2b_agent_watch *w);

/* watch_state.c: the status's bookkeeping (no I/O) */
unsigned watch_apply_event(e2b_agent_watch *w, const e2b_oc_event *ev);
unsigned watch_apply_snapshot(e2b_agent_watch *w);
/* Derives st.state and the turn's end from what is known. */
void watch_derive(e2b_agent_watch *w);
/* A turn's end awaited: schedules a later snapshot (bounded tries). Returns false (the
 * snapshot is not to be taken again at once). */
bool watch_settle(e2b_agent_watch *w);
/* Takes todos (ownership) as session_id's list; kept only when it is the active session. */
void watch_set_todos(e2b_agent_watch *w, const char *session_id, e2b_agent_todo *todos,
                     size_t n);
void watch_snapshot_clear(e2b_agent_watch *w);
void watch_state_free(e2b_agent_watch *w);
int64_t watch_wall_ms(void);

/* watch_end.c: how a turn ended, from its newest message */
enum { WATCH_END_LIVE = 1, /* the watch saw the turn end (its state is held until read) */
       WATCH_END_PAST = 2  /* after a (re)connect: the turn that ended before we looked */ };
void watch_end_want(e2b_agent_watch *w, int mode);
void watch_end_stop(e2b_agent_watch *w);
void watch_end_free(e2b_agent_watch *w);

/* watch.c: derives the state and tells the owner */
void watch_changed(e2b_agent_watch *w);

/* watch_cmd.c */
void watch_cmds_cancel(e2b_agent_watch *w);

#endif
