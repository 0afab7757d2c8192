#!/usr/bin/env bash
# The terminal handoff for attach (tui/term/term.c term_run_foreground), driven through
# tests/tui/term_driver.c in tmux: the child gets the normal screen, keys typed while it
# runs are dropped (not taken as commands), a resize during the child is picked up, keypad
# mode is restored, the screen is repainted and the child's exit status comes back.
. "$(dirname "$0")/common.sh"
driver=$TEST_B/tests/tui/term_driver

log=$T_TMP/driver.log
tmux_start 100 24 "DRIVER_LOG=$(printf %q "$log") $(printf %q "$driver") sh -c 'echo CHILD RUNNING; echo CHILD-STDERR >&2; sleep 3; exit 7'"
dash_check "the driver starts" "DRIVER READY 100x24"
tmux_type e
dash_check "the driver wrote to stderr" "wrote to stderr"
t_not_contains "stderr does not garble the screen while curses is active" "$(tmux_capture)" "DRIVER-STDERR"
t_contains "stderr went to the log file instead" "$(cat "$log")" "DRIVER-STDERR"
tmux_type a
dash_check "the child runs on the normal screen" "CHILD RUNNING"
dash_check "the child's stderr is the terminal again" "CHILD-STDERR"
dash_check_format "the child has the normal screen, not the alternate one" '#{alternate_on}' 0
tmux_type 'xqz'  # typed while the child runs: must not reach the driver (q would quit)
tmux_resize 70 20
dash_check "after the child, the driver is back with its status" "DRIVER BACK status=7"
dash_check "the resize during the child was picked up" "size=70x20"
t_not_contains "the child's output is gone: the screen was repainted" "$(tmux_capture)" "CHILD RUNNING"
dash_check_format "the driver is on the alternate screen again" '#{alternate_on}' 1
tmux_keys Up
dash_check "keys typed during the child were dropped; keypad mode is back (Up is one key)" "key up"
t_not_contains "no typeahead leaked into the driver" "$(tmux_capture)" "key x"
tmux_type q
if tmux_wait_format '#{pane_dead}' 1 2>/dev/null; then t_pass "q quits the driver"; else t_fail "q quits the driver" "still running"; fi
t_finish
