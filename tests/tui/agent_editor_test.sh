#!/usr/bin/env bash
# Issue 38 items 5 and 8 in the dashboard, against the real OpenCode server (v2) and the
# scripted model in an e2b-local box, at 80x24 and 160 columns:
#   - the message editor has a cursor: Up then typing inserts where it is, and a long line
#     wraps with the cursor still shown;
#   - a box's approval rules are marked in its row ([auto N], [YES-ALL]) and listed in
#     Detail, as another process changes them.
. "$(dirname "$0")/common.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/lib/agent.sh"
agent_setup 2 || t_abort "the box could not be set up"
export TERM=tmux-256color LANG=C.UTF-8
box_tui --up feat --approve edit
box_rc "a box with a rule is up" 0 || t_abort "the box did not come up"

DASH_CWD=$BOX_REPO dash_start 80 24 -- --refresh 1
TMUX_WAIT_SECONDS=120 dash_check "the agent is reached: idle" "idle"
dash_check "the row marks its rule" "[auto 1]"

# ---- the editor's cursor ----
tmux_type m
dash_check "m opens the message editor" "Message to feat"
tmux_type "first line"
tmux_keys Enter
tmux_type "second"
tmux_keys Up
tmux_type "X"
dash_check "Up, then typing: inserted at the cursor, which moved" " first X_line"
t_ok "the second line is as it was" sh -c "tmux -S '$TMUX_SOCKET' -f /dev/null capture-pane -p -t t | grep -q '^ second *$'"
tmux_keys Down End
long=$(printf 'word%02d ' $(seq 1 20))
tmux_type " $long"
dash_check "a long line wraps: its end is shown, with the cursor" "word20 _"
dash_check "and its start on the row above" "second word01"
tmux_resize 160 24
tmux_keys Left
dash_check "at 160 columns it is one row, the cursor one back" "second word01 word02"
dash_check "the cursor moved left" "word20_"
tmux_keys Escape
dash_check_gone "Esc cancels the message" "Message to feat"

# ---- the rules as another process changes them ----
box_tui --approve feat --yes-all
box_rc "yes-all from the command line" 0
dash_check "the row says YES-ALL" "[YES-ALL]"
tmux_resize 160 44
tmux_type d
dash_check "Detail lists it" "YES-ALL: every permission request"
dash_check "and the rule" "edit"
tmux_keys Escape
box_tui --revoke feat yes-all
box_tui --revoke feat edit
dash_check_gone "revoked: the row has no marker" "[auto"
dash_quit "quits cleanly"
box_tui --kill feat --force
t_finish
