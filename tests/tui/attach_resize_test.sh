#!/usr/bin/env bash
# Resize during a real attach handoff: a (attach) runs the attach command (the stand-in
# opencode2 client, against the real server) in the foreground; while it runs the tmux
# window is resized and keys are typed; when it exits the dashboard is redrawn at the new
# size, the typed keys are dropped (q would have quit, x would have been reported) and the
# Log pane still works.
. "$(dirname "$0")/common.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish
export TERM=tmux-256color LANG=C.UTF-8

box_tui --up
box_setup_rc "a box is up" 0

DASH_CWD=$BOX_REPO dash_start 120 30 FAKE_ATTACH_SLEEP=4
dash_check "the box is listed" "main "
tmux_type a
dash_check "the attach command runs in the foreground" "opencode2 attached"
dash_check_format "the child has the normal screen" '#{alternate_on}' 0
tmux_type 'xq'
tmux_resize 90 24
dash_check "the dashboard is back after the child" "back from main"
# The frame read below is the one drawn for 24 rows (the resize may reach the dashboard
# after its first frame when the machine is loaded).
dash_check_line "the status line is the last of 24" 24 "1/1"
dash_check_format "the dashboard is on the alternate screen again" '#{alternate_on}' 1
dash_check_format "the pane is 90x24" '#{pane_width}x#{pane_height}' "90x24"
# (the screen is read once the frame for 90 columns is there, not right after the keys)
tabs_for_90() { local t; t=$(tmux_capture | sed -n 1p); [ "${#t}" -ge 89 ] && [ "${#t}" -le 90 ]; }
t_wait_until 10 tabs_for_90
screen=$(tmux_capture)
t_not_contains "the child's output was painted over" "$screen" "opencode2 attached"
# Drawn for 90 columns: the version ends the tabs line at column 90 and the status line
# (with the row counter at its right end) is the 24th line.
tabs=$(printf '%s\n' "$screen" | sed -n 1p)
# (tmux drops the trailing space after the version: 89 or 90 characters.)
t_ok "the tabs line is laid out for 90 columns (${#tabs})" test "${#tabs}" -ge 89 -a "${#tabs}" -le 90
t_contains "with the version at its right end" "${tabs: -14}" "e2b-tui"
status=$(printf '%s\n' "$screen" | sed -n 24p)
t_ok "the status line is laid out for 90 columns (${#status})" test "${#status}" -ge 89 -a "${#status}" -le 90
t_contains "with the row counter at its right end" "${status: -5}" "1/1"
t_not_contains "typed x was dropped, not taken as a key" "$screen" "key x does nothing"
t_not_contains "typed q was dropped (the dashboard still runs)" "$screen" "rc="
# The dashboard keeps working at the new size (only All has the KIND column; the tabs line
# always shows every tab's name, so it cannot tell which one is shown).
tmux_type 3
dash_check "the UI answers after the handoff" "KIND"
tmux_resize 100 28
tmux_type 1
dash_check_gone "and after another resize" "KIND"
dash_check_line "the status line moved to line 28" 28 "1/1"
dash_quit "quits after the handoff"
t_finish
