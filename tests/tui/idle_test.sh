#!/usr/bin/env bash
# Idle means no wake-ups at all: while nothing happens the dashboard's process is not
# scheduled (its context-switch counters stay still), also after a flash message expired.
. "$(dirname "$0")/common.sh"

switches() {
    awk '/^(voluntary|nonvoluntary)_ctxt_switches/ { n += $2 } END { print n }' "/proc/$1/status"
}

# Against a real server with a long refresh: between refreshes nothing wakes it.
e2b_local_start || t_finish
dash_start 100 24 -- --refresh 600
pid=$(tmux_dashboard_pid)
if [ -z "$pid" ]; then t_fail "dashboard pid found" "none"; t_finish; fi
# Let the first frame settle (bounded: the status line is the last thing drawn).
tmux_wait_line 24 "q quit" >/dev/null
a=$(switches "$pid"); sleep 2; b=$(switches "$pid")
t_eq "idle for 2 s: no wake-ups" "$((b - a))" 0

# A flash message expires by a timer; after it is gone the process sleeps again.
tmux_type x
tmux_wait "does not apply here" >/dev/null
tmux_wait_gone "does not apply here" 30 >/dev/null
a=$(switches "$pid"); sleep 2; b=$(switches "$pid")
t_eq "after a flash expired: no wake-ups" "$((b - a))" 0
t_contains "the flash was cleared by the timer, not by a key" "$(tmux_capture | tail -n 1)" "q quit"
dash_quit "quits after idling"
t_finish
