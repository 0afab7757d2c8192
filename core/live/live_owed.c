/* A turn owed (core/agent/turn_owed.h): a prompt sent through the model and accepted by the
 * server marks the box's record (turn_owed_ms, turn_owed_session); each change of the box's
 * watch judges the mark, and the watch that sees the owed turn end (the dashboard, --wait,
 * --watch, --keepalive: whichever model watches the box) clears it, as it drops one lost
 * (no turn within E2B_TURN_OWED_MAX_MS; a notice says so). A record is read, changed and
 * written whole (records.h: atomic); a mark is cleared only when the file still holds the one
 * judged (a newer prompt's stays). The model's copies (its list, the agent's) follow at once. */
#include "core/live/live_internal.h"

#include "core/box/records.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void set_copy(e2b_box_record *r, int64_t ms, const char *session)
{
    if (!r)
        return;
    r->turn_owed_ms = ms;
    snprintf(r->turn_owed_session, sizeof r->turn_owed_session, "%s",
             session && strlen(session) < sizeof r->turn_owed_session ? session : "");
}

/* Writes the mark (ms > 0) or clears it (ms 0: only when the file still holds was_ms). */
static e2b_error *record_owed(e2b_live *m, const char *name, const char *sandbox_id,
                              int64_t ms, const char *session, int64_t was_ms)
{
    e2b_box_record rec = {0};
    e2b_error *e = e2b_box_record_read(m->cfg.records_dir, name, &rec);
    if (!e && (ms > 0 || rec.turn_owed_ms == was_ms)) {
        set_copy(&rec, ms, session);
        e = e2b_box_record_write(m->cfg.records_dir, &rec, 0);
    }
    if (!e && (ms > 0 || rec.turn_owed_ms == 0)) {
        set_copy((e2b_box_record *)e2b_box_record_list_find(&m->records, name), ms, session);
        set_copy(live_agent_record(m, sandbox_id), ms, session);
    }
    e2b_box_record_clear(&rec);
    return e;
}

/* The mark was judged (v: seen or lost): the model forgets it and the record is cleared of
 * it (when the file still holds it); every copy of the model's then says none. */
static void owed_settle(e2b_live *m, const char *sandbox_id, struct live_owed *o, int64_t was,
                        e2b_turn_owed_verdict v)
{
    const e2b_box_record *r = live_agent_record(m, sandbox_id);
    char name[128];
    snprintf(name, sizeof name, "%s", r->name);
    o->verdict = v;
    o->gone_ms = was;
    o->ms = 0;
    o->busy = false;
    e2b_error *e = record_owed(m, name, sandbox_id, 0, NULL, was);
    if (e) {
        live_notice(m, E2B_LIVE_ERROR, "%s: its record could not be cleared of the turn owed: %s",
                    name, e2b_error_message(e));
        e2b_error_free(e);
    }
    set_copy(live_agent_record(m, sandbox_id), 0, NULL); /* judged: not again here */
}

void live_owed_mark(e2b_live *m, const char *sandbox_id, int64_t sent_ms, const char *session_id)
{
    struct live_owed *o = live_agent_owed(m, sandbox_id);
    const e2b_box_record *r = live_agent_record(m, sandbox_id);
    if (!o || !r || !r->name)
        return;
    char name[128];
    snprintf(name, sizeof name, "%s", r->name);
    e2b_error *e = record_owed(m, name, sandbox_id, sent_ms, session_id, 0);
    if (e) { /* the prompt went: only --wait's wait for its turn is weaker (the grace) */
        live_notice(m, E2B_LIVE_ERROR, "%s: the prompt went, but its record could not say "
                                       "a turn is owed: %s", name, e2b_error_message(e));
        e2b_error_free(e);
        return;
    }
    /* a turn running now goes on into the prompt (queued or steered into it) */
    const e2b_agent_status *st = e2b_live_agent(m, sandbox_id);
    o->ms = sent_ms;
    o->busy = st && e2b_agent_state_in_turn(st->state);
    o->verdict = E2B_TURN_OWED_WAIT;
    live_owed_judge(m, sandbox_id);
}

void live_owed_end(e2b_live *m, const char *sandbox_id)
{
    struct live_owed *o = live_agent_owed(m, sandbox_id);
    const e2b_box_record *r = live_agent_record(m, sandbox_id);
    if (!o || !r || !r->name || !r->turn_owed_ms)
        return;
    owed_settle(m, sandbox_id, o, r->turn_owed_ms, E2B_TURN_OWED_SEEN);
}

void live_owed_take(e2b_live *m, const char *sandbox_id, const e2b_box_record *r)
{
    struct live_owed *o = live_agent_owed(m, sandbox_id);
    e2b_box_record *copy = live_agent_record(m, sandbox_id);
    if (!o || !copy || !r || r->turn_owed_ms == copy->turn_owed_ms)
        return;
    set_copy(copy, r->turn_owed_ms, r->turn_owed_session);
    live_owed_judge(m, sandbox_id);
}

void live_owed_judge(e2b_live *m, const char *sandbox_id)
{
    struct live_owed *o = live_agent_owed(m, sandbox_id);
    const e2b_box_record *r = live_agent_record(m, sandbox_id);
    if (!o || !r || !r->name)
        return;
    if (r->turn_owed_ms != o->ms) { /* a new mark (or none): judged afresh */
        if (o->ms && !r->turn_owed_ms) { /* another process's watch saw its turn end */
            o->verdict = E2B_TURN_OWED_SEEN;
            o->gone_ms = o->ms;
        }
        o->ms = r->turn_owed_ms;
        o->busy = false;
        if (o->ms)
            o->verdict = E2B_TURN_OWED_WAIT;
    }
    if (!o->ms)
        return;
    const e2b_agent_status *st = e2b_live_agent(m, sandbox_id);
    if (st && e2b_agent_state_in_turn(st->state))
        o->busy = true;
    e2b_turn_owed_verdict v =
        e2b_turn_owed_judge(o->ms, r->turn_owed_session, o->busy, st,
                            e2b_live_agent_synced(m, sandbox_id), wall_ms());
    if (v != E2B_TURN_OWED_SEEN && v != E2B_TURN_OWED_LOST)
        return;
    char name[128];
    snprintf(name, sizeof name, "%s", r->name);
    int64_t was = o->ms;
    owed_settle(m, sandbox_id, o, was, v);
    if (v == E2B_TURN_OWED_LOST)
        live_notice(m, E2B_LIVE_ERROR,
                    "%s: the prompt sent %lld min ago never started a turn: no longer waited "
                    "for", name, (long long)((wall_ms() - was) / 60000));
}

e2b_turn_owed_verdict e2b_live_agent_owed(e2b_live *m, const char *sandbox_id,
                                          int64_t *owed_ms)
{
    live_owed_judge(m, sandbox_id);
    struct live_owed *o = live_agent_owed(m, sandbox_id);
    if (owed_ms)
        *owed_ms = o ? (o->ms ? o->ms : o->gone_ms) : 0;
    if (!o)
        return E2B_TURN_OWED_NONE;
    return o->ms ? E2B_TURN_OWED_WAIT : o->verdict;
}
