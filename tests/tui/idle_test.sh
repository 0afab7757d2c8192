#!/usr/bin/env bash
# Idle means no wake-ups at all: once what start-up brought is done, the dashboard's process
# is not scheduled (its context-switch counters stay still for seconds), also after a flash
# message expired. (No fixed window right after start-up: on a loaded machine the first
# replies may come late; a periodic timer never gives a quiet window.)
. "$(dirname "$0")/common.sh"

# Against a real server with a long refresh: between refreshes nothing wakes it.
e2b_local_start || t_finish
dash_start 100 24 -- --refresh 600
pid=$(tmux_dashboard_pid)
if [ -z "$pid" ]; then t_fail "dashboard pid found" "none"; t_finish; fi
tmux_wait_line 24 "q quit" >/dev/null
dash_quiet "idle: 3 s in a row without a wake-up" "$pid" 3

# A flash message expires by a timer; after it is gone the process sleeps again.
tmux_type x
tmux_wait "does not apply here" >/dev/null
tmux_wait_gone "does not apply here" 30 >/dev/null
dash_quiet "after a flash expired: 3 s in a row without a wake-up" "$pid" 3
dash_check_line "the flash was cleared by the timer, not by a key" '$' "q quit"
dash_quit "quits after idling"
t_finish
