#!/usr/bin/env bash
# Idle with the Log pane open on a box: the server's stream is one more transfer in core's
# loop and nothing polls. With a long refresh the dashboard wakes about as often as it does
# on the list (the ENDS countdown once a second; curl's check of the stream's speed at most
# once a second): a poll of the stream or of the logs would be tens of wake-ups more.
# The server prints on demand (tests/fixtures/opencode_misbehaving): the real one cannot be
# told to print a line after the idle time.
. "$(dirname "$0")/common.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish
box_misbehaving_server
export TERM=tmux-256color LANG=C.UTF-8

# window: the dashboard's context switches in 3 s.
window() { local a b; a=$(switches "$pid"); sleep 3; b=$(switches "$pid"); echo $((b - a)); }
# Polled, not a fixed window after a change: what opening or closing the pane does once
# (the history, a redraw) may come late on a loaded machine; a poll of the stream would
# keep every window tens of wake-ups above the list's.
calm() { n=$(window); [ "$n" -le $((list + 4)) ]; }

box_tui --up
box_rc "a box is up" 0 || t_abort "the box did not come up"
DASH_CWD=$BOX_REPO dash_start 120 30 -- --refresh 600
dash_check "the box is listed" "main "
pid=$(tmux_dashboard_pid)
if [ -z "$pid" ]; then t_fail "dashboard pid found" "none"; t_finish; fi
# The list's own rate: the quieter of two windows (start-up work waited out).
list=$(window) n=$(window)
[ "$n" -lt "$list" ] && list=$n
tmux_type l
dash_check "the pane streams" "live: the server's output"
t_wait_until 30 calm
t_ok "streaming adds at most one wake-up a second (list $list, pane $n in 3 s)" \
    test "$n" -le $((list + 4))
# Still live after the idle time: the stream was not dropped for being quiet.
printf 'after-idle-line\n' >>"$(box_root "$(box_sandbox_of main)")/tmp/fake-server-say"
dash_check "a line after the idle time arrives" "after-idle-line"
tmux_keys Escape
dash_check_gone "Esc closes the pane" "[server output"
t_wait_until 30 calm
t_ok "closing the pane ends the stream's wake-ups ($n in 3 s)" test "$n" -le $((list + 4))
dash_quit "quits after idling with the pane"
t_finish
