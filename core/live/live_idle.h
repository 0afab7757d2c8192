/* Idle boxes sleep (live_idle.c; README "What keeps a box awake"): a box of this machine
 * whose agent has been idle with nothing pending for idle_minutes (config, default 15, 0
 * never) is paused by a running dashboard, or by `e2b-tui --keepalive` (the same model with
 * no screen). A paused sandbox is not billed; m, a, --prompt and --attach resume it first.
 *
 * What keeps a box awake: a turn running, a request waiting for the user, a retry, a box
 * operation of this dashboard on it (up, attach, pull, ...), a port forward this dashboard
 * holds open to it, and any agent activity (each event restarts the count). What does not:
 * a terminal attached from another process while the agent is idle, a --tunnel or --forward
 * of another process, a dev server running in the box. The count starts at the latest of
 * the last turn's end, the last agent activity, and when this model saw the idle spell
 * begin (its watch started, or the box was resumed): idle time nobody here saw never
 * counts.
 *
 * Zero CPU between: one timer, set for the earliest box due. Changes come as
 * E2B_LIVE_AGENTS (the row's "pauses in 4m"). */
#ifndef E2B_LIVE_IDLE_H
#define E2B_LIVE_IDLE_H

#include "core/agent/agent.h"
#include "core/live/live.h"

/* When (wall clock ms) a box with status st pauses, given idle_ms and when this model
 * first saw it idle (seen_idle_ms, 0 unknown); 0 when it does not (not idle, something
 * pending, idle_ms 0). Pure. */
int64_t e2b_live_idle_due(const e2b_agent_status *st, int64_t seen_idle_ms, long idle_ms);
/* When (wall clock ms) the box shown as sandbox_id will be paused, or 0 (not counting). */
int64_t e2b_live_idle_pause_at(const e2b_live *m, const char *sandbox_id);
/* Turns the headless model m into a keeper (--keepalive): the refresh cycle and the agent
 * watches run as in the dashboard, and idle boxes are paused, until the loop stops. */
void e2b_live_keepalive(e2b_live *m);
/* Wall clock ms. */
int64_t e2b_live_wall_ms(void);

#endif
