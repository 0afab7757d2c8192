/* A turn owed: a prompt the server accepted is owed a turn until a watch sees one run and end
 * (the box's record keeps the mark: core/box/records.h turn_owed_ms). An idle box says nothing
 * while a turn is owed: its turn may start late (a loaded server, a queued prompt), and --wait
 * must not take the last turn's end for this one. This is the rule alone (no I/O): the mark's
 * keeper is core/live/live_owed.c.
 *
 * The evidence that the owed turn ran, any one of:
 *   - the caller's watch saw the box in a turn (working, waiting, retrying) since the mark, and
 *     it is idle now (the watch holds "working" until the turn's end is read);
 *   - the watch saw a turn start at or after the mark (turn_started_ms: this machine's clock,
 *     like the mark) and it is idle now;
 *   - the active session (the owed one, when known) is idle and its newest message, as the
 *     server stored it, is an assistant's answer with a known end created at or after the mark
 *     minus E2B_TURN_OWED_DRIFT_MS (the box's clock may be a little behind this machine's; the
 *     user's own message, still unanswered, is no evidence).
 * A mark older than E2B_TURN_OWED_MAX_MS with no turn seen (and none running) is lost: the
 * prompt never started a turn. */
#ifndef E2B_TURN_OWED_H
#define E2B_TURN_OWED_H

#include "core/agent/agent.h"

#include <stdbool.h>
#include <stdint.h>

#define E2B_TURN_OWED_DRIFT_MS 3000            /* clock skew allowed between here and the box */
#define E2B_TURN_OWED_MAX_MS (10 * 60 * 1000)  /* a mark with no turn seen is dropped after */

typedef enum e2b_turn_owed_verdict {
    E2B_TURN_OWED_NONE = 0, /* nothing is owed */
    E2B_TURN_OWED_WAIT,     /* owed, not seen yet: an idle box is not done */
    E2B_TURN_OWED_SEEN,     /* the owed turn ran and ended: the mark goes */
    E2B_TURN_OWED_LOST,     /* no turn within E2B_TURN_OWED_MAX_MS: the mark goes (said) */
} e2b_turn_owed_verdict;

/* The verdict on a mark made at owed_ms (0: none) for owed_session ("" or NULL: not known),
 * given the watch's status st (NULL: none yet) and whether it is synced, whether the caller's
 * watch saw the box in a turn since the mark (busy_seen), at now_ms (wall clock). */
e2b_turn_owed_verdict e2b_turn_owed_judge(int64_t owed_ms, const char *owed_session,
                                          bool busy_seen, const e2b_agent_status *st,
                                          bool synced, int64_t now_ms);

#endif
