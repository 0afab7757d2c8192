#!/usr/bin/env bash
# The ENDS column counts down (once a second in the last ten minutes) while a running
# sandbox has time left, says "expired" when it runs out, and then the clock stops (no more
# wake-ups).
. "$(dirname "$0")/common.sh"

switches() {
    awk '/^(voluntary|nonvoluntary)_ctxt_switches/ { n += $2 } END { print n }' "/proc/$1/status"
}

e2b_local_start || t_finish
sbx_create base running 6 name=ending-soon
sbx_create base paused 60 name=paused-one
# A refresh far away: the countdown is the dashboard's own clock, not the server's.
dash_start 100 20 -- --refresh 3600
tmux_type 3
dash_check "a running sandbox shows its time left in seconds" "0:0"
first=$(tmux_capture | grep ending-soon)
dash_check "it counts down to expired" "expired"
t_not_contains "the time left changed on screen before that" "$first" "expired"
t_contains "a paused sandbox shows paused, not a countdown" "$(tmux_capture | grep paused-one)" "paused"
pid=$(tmux_dashboard_pid)
a=$(switches "$pid"); sleep 2; b=$(switches "$pid")
t_eq "after the last countdown the dashboard sleeps (no wake-ups)" "$((b - a))" 0
dash_quit "quits after the countdown"
t_finish
