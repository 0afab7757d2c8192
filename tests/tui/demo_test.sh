#!/usr/bin/env bash
# make demo (tests/demo.sh): the sample rows appear, and after q the server is stopped and
# its temporary directory removed.
. "$(dirname "$0")/common.sh"

mkdir -p "$T_TMP/demo-tmp"
tmux_shell 120 30
tmux_run "TMPDIR=$(printf %q "$T_TMP/demo-tmp") E2B_TUI_BIN=$(printf %q "$E2B_TUI_BIN") E2B_LOCAL_BIN=$(printf %q "$E2B_LOCAL_BIN") $(printf %q "$E2B_TUI_ROOT/tests/demo.sh"); echo demo-rc=\$?"
dash_check "the demo shows the sample box" "demo-box"
dash_check "and the paused box" "paused-box"
tmux_type 2
dash_check "the sample workspace" "demo-workspace"
tmux_type 3
dash_check "all sample sandboxes" "1/5"
t_contains "the others are there" "$(tmux_capture)" "batch-job"
state=$(ls -d "$T_TMP"/demo-tmp/e2b-tui-demo.*/state 2>/dev/null)
t_ok "the demo's state is in a temporary directory" test -n "$state"
tmux_type q
dash_check "quitting ends the demo" "demo-rc=0"
t_eq "the temporary directory is removed" "$(ls -A "$T_TMP/demo-tmp")" ""
t_eq "no e2b-local is left running" "$(pgrep -f -- "$T_TMP/demo-tmp" | wc -l)" 0
t_finish
