#!/usr/bin/env bash
# Issue 30 item 9: the screen is clean after attach. The child runs on the normal screen
# and its last lines (OpenCode's "Continue opencode -s ses_...") would stay there, under
# the shell's prompt, once the dashboard ends, naming a session of a box the user left:
# they are wiped when the child ends, the lines before the dashboard are kept. Driven
# through tests/tui/term_driver.c (tui/term/term.c's handoff, as attach uses it).
. "$(dirname "$0")/common.sh"
driver=$TEST_B/tests/tui/term_driver

for cols in 80 160; do
    tmux_shell "$cols" 24
    tmux_run "clear; echo '[before the driver]'; DRIVER_LOG=/dev/null $(printf %q "$driver") sh -c 'echo CHILD RUNNING; echo Continue opencode -s ses_parting'; echo rc=\$?"
    dash_check "at $cols columns the driver starts" "DRIVER READY"
    tmux_type a
    dash_check "at $cols columns the child ran and the driver is back" "DRIVER BACK status=0"
    t_not_contains "at $cols columns the dashboard's screen has none of the child's lines" "$(tmux_capture)" "CHILD RUNNING"
    tmux_type q
    dash_check "at $cols columns the driver ends" "rc=0"
    screen=$(tmux_capture)
    t_not_contains "at $cols columns the child's parting line is gone from the shell's screen" "$screen" "Continue opencode -s ses_parting"
    t_not_contains "at $cols columns and its other lines" "$screen" "CHILD RUNNING"
    t_contains "at $cols columns what was there before stays" "$screen" "[before the driver]"
done
t_finish
