/* A turn owed: the rule that says whether it was seen (turn_owed.h). */
#include "core/agent/turn_owed.h"

#include <string.h>

e2b_turn_owed_verdict e2b_turn_owed_judge(int64_t owed_ms, const char *owed_session,
                                          bool busy_seen, const e2b_agent_status *st,
                                          bool synced, int64_t now_ms)
{
    if (owed_ms <= 0)
        return E2B_TURN_OWED_NONE;
    bool in_turn = st && e2b_agent_state_in_turn(st->state);
    if (st && !in_turn && synced && st->state == E2B_AGENT_IDLE &&
        st->last_end != E2B_AGENT_END_NONE) {
        if (busy_seen || st->turn_started_ms >= owed_ms)
            return E2B_TURN_OWED_SEEN;
        /* the server's own record of the answer: only the owed session's (when known) */
        bool same = !owed_session || !*owed_session ||
                    (st->session_id && !strcmp(st->session_id, owed_session));
        if (same && st->reply_created_ms > 0 &&
            st->reply_created_ms >= owed_ms - E2B_TURN_OWED_DRIFT_MS)
            return E2B_TURN_OWED_SEEN;
    }
    if (!in_turn && !busy_seen && now_ms - owed_ms > E2B_TURN_OWED_MAX_MS)
        return E2B_TURN_OWED_LOST;
    return E2B_TURN_OWED_WAIT;
}
