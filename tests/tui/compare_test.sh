#!/usr/bin/env bash
# The dashboard's Compare pane of a group of attempts (issue 34): `:compare g` after
# `--up g --try 2 --models mock/m1,mock/m2` (the real OpenCode server, the scripted model:
# m1's answer passes the project's test_command, m2's fails it) shows the group's summary,
# one row per member with its model, diff and test result (the tests run in each member by
# the dashboard's model once its turn has ended), and p pulls the selected member as the
# group's branch e2b/g, saying which member it was.
. "$(dirname "$0")/try_common.sh"

box_tui --up g --try 2 --prompt "Write the answer." --models mock/m1,mock/m2
box_rc "the group is made" 0 || t_abort "no group: $(cat "$BOX_ERR")"
box_tui --wait g-1 --timeout 120
box_rc "g-1's turn ends" 0
box_tui --wait g-2 --timeout 120
box_rc "g-2's turn ends" 0

DASH_CWD=$BOX_REPO dash_start 190 30 -- --refresh 1
dash_check "both members are listed" "g-2 " 60
tmux_type ":compare nosuch"
tmux_keys Enter
dash_check "an unknown group is said" "no group nosuch on this machine"
tmux_type ":compare g"
tmux_keys Enter
dash_check "the Compare pane opens with the group's summary" "COMPARE  g  2/2 done, 1 passing" 90
dash_check_row "g-1 (mock/m1) passes its tests" "g-1 " "pass"
dash_check_row "g-1's model" "g-1 " "mock/m1"
dash_check_row "g-2 (mock/m2) fails them" "g-2 " "fail"
dash_check_row "g-2's last test line" "g-2 " "answer.txt is not good"
dash_check_row "the cost is unknown for now" "g-1 " "unknown"
t_ok "the box's OSC title sequence did not reach the terminal" test "$(tm display-message -p -t t '#{pane_title}')" != pwned
tmux_type j
tmux_type c
dash_check "c opens the selected member's Changes pane (g-2, after j)" "CHANGES  g-2 ($(box_sandbox_of g-2))"
dash_check "its changes list the agent's file" "answer.txt"
tmux_keys Escape
dash_check "Esc comes back to the Compare pane" "COMPARE  g  2/2 done, 1 passing"
tmux_type k
tmux_type p
dash_check "p says which member is pulled as the group's branch" "pulling member g-1 of group g as branch e2b/g"
t_ok "e2b/g is made" t_wait_until 60 git -C "$BOX_REPO" rev-parse -q --verify e2b/g
t_eq "e2b/g holds g-1's answer" "$(git -C "$BOX_REPO" show e2b/g:answer.txt 2>/dev/null)" "good"
tmux_keys Escape
dash_quit "the dashboard ends"
for b in g-1 g-2; do box_tui --kill "$b" --force; done
t_finish
