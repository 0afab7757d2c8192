#!/usr/bin/env bash
# The ENDS column counts down (once a second in the last ten minutes) while a running
# sandbox has time left, says "expired" when it runs out, and then the clock stops (no more
# wake-ups).
. "$(dirname "$0")/common.sh"

e2b_local_start || t_finish
# 20 s: time enough for the first frame on a loaded machine, short enough to watch it end.
sbx_create base running 20 name=ending-soon
sbx_create base paused 60 name=paused-one
# A refresh far away: the countdown is the dashboard's own clock, not the server's.
dash_start 100 20 -- --refresh 3600
tmux_type 3
# left: the seconds the row shows (m:ss under ten minutes), empty when it shows none.
left() {
    local t
    t=$(tmux_capture | grep ending-soon | grep -o -E '(^| )[0-9]:[0-5][0-9]( |$)' | head -n 1 | tr -d ' ')
    [ -n "$t" ] && echo $((10#${t%%:*} * 60 + 10#${t#*:}))
}
first=
shows_seconds() { first=$(left); [ -n "$first" ]; }
t_ok "a running sandbox shows its time left in seconds" t_wait_until 20 shows_seconds
counted_down() { local now; now=$(left); [ -n "$now" ] && [ "$now" -lt "${first:-0}" ]; }
t_ok "the time left counts down on screen (from ${first:-none} s)" t_wait_until 10 counted_down
if tmux_wait expired 40 2>"$T_TMP/wait.err"; then
    t_pass "it counts down to expired"
else
    t_fail "it counts down to expired" "$(tail -c 1500 "$T_TMP/wait.err")"
fi
dash_check_row "a paused sandbox shows paused, not a countdown" paused-one "paused"
pid=$(tmux_dashboard_pid)
dash_quiet "after the last countdown the dashboard sleeps (3 s without a wake-up)" "$pid" 3
dash_quit "quits after the countdown"
t_finish
