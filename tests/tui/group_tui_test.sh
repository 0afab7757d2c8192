#!/usr/bin/env bash
# A group of attempts in the dashboard (issue 34): the Boxes view's GROUP column shows each
# member's group with its summary ("g: 2/2 done, 1 passing") at 80x24 and wider, the tests
# run in every member whose turn ends although no Compare pane is open (the dashboard's
# model takes the evidence and keeps it beside the records), = on a member's row opens the
# group's Compare pane (and on a box of no group says so), and K in Compare kills the
# members not pulled, naming them, after the unpulled-work check (nothing while none is
# pulled). Real binary, e2b-local, the real OpenCode server, the scripted model, tmux.
. "$(dirname "$0")/try_common.sh"

box_tui --up solo
box_rc "a box of no group" 0
box_tui --up g --try 2 --prompt "Write the answer." --models mock/m1,mock/m2
box_rc "the group is made" 0 || t_abort "no group: $(cat "$BOX_ERR")"
id2=$(box_sandbox_of g-2)

# 80x24: nobody has taken the members' evidence; the dashboard does, Compare closed.
DASH_CWD=$BOX_REPO dash_start 80 24 -- --refresh 1
dash_check "the members are listed" "g-2 " 60
dash_check_row "80 columns: g-1's GROUP cell has the group's summary (tests run by the dashboard)" \
    "g-1 " "g: 2/2 done, 1 passing" 120
dash_check_row "g-2 shows the same group" "g-2 " "g: 2/2 done, 1 pass"
t_ok "the evidence was taken with no Compare pane open, and kept" t_wait_until 60 test -f "$BOXES/.evidence/g-2.json"
t_eq "g-2's kept result" "$(jq -r .test "$BOXES/.evidence/g-2.json" 2>/dev/null)" fail
t_ok "no line is wider than 80 columns" sh -c "! tmux -S '$TMUX_SOCKET' capture-pane -p -t t | awk 'length > 80' | grep -q ."
solo_no_group() { tmux_capture | grep -Eq '^solo .* -$'; }
t_ok "a box of no group says -" t_wait_until 20 solo_no_group

# = on a box of no group, then on a member.
tmux_type /
tmux_type solo
tmux_keys Enter
tmux_keys Escape
dash_check_gone "Esc clears the filter" "filter: solo"
tmux_type =
dash_check "= on a box of no group says so" "compare: solo is in no group of attempts"
tmux_type /
tmux_type g-2
tmux_keys Enter
tmux_keys Escape
dash_check_gone "Esc clears the filter" "filter: g-2"
tmux_type =
dash_check "= on a member opens its group's Compare pane" "COMPARE  g  2/2 done, 1 passing"
dash_check_row "80 columns: g-2 fails its tests in Compare" "g-2 " "fail"
tmux_type c
dash_check "the member = was pressed on is selected (c opens g-2's Changes)" "CHANGES  g-2 ($id2)"
tmux_keys Escape
dash_check "Esc comes back to Compare" "COMPARE  g  2/2 done, 1 passing"
dash_check_row "with its last test line (cut at the edge)" "g-2 " "answer.txt is"

# K before any member is pulled: nothing goes.
tmux_type K
dash_check "K with no member pulled says nothing is killed" "No member of group g is pulled yet" 60
tmux_type y
dash_check "y kills nothing and says why" "nothing killed: no member of g pulled"
t_ok "g-2's record is still there" test -e "$BOXES/g-2.json"

# p pulls g-1 as e2b/g; then K names g-2 and keeps g-1.
tmux_type k
tmux_type p
dash_check "p pulls g-1 as the group's branch" "pulling member g-1 of group g as branch e2b/g"
t_ok "e2b/g is made" t_wait_until 60 git -C "$BOX_REPO" rev-parse -q --verify e2b/g
sleep 1
tmux_type K
dash_check "K names the member not pulled" "Kill g-2 (group g, not pulled)?" 60
dash_check "with what it would lose" "g-2 has unpulled work"
dash_check "and the member kept" "Kept (work in e2b/g): g-1."
tmux_type y
dash_check "y kills it, naming it" "killing g-2 (of g, not pulled)"
t_ok "g-2's record is gone" t_wait_until 60 test ! -e "$BOXES/g-2.json"
g2_gone() { [ "$(el_req GET "/sandboxes/$id2")" = 404 ]; }
t_ok "g-2's sandbox is gone" t_wait_until 30 g2_gone
t_ok "g-1 stays" test -e "$BOXES/g-1.json"
dash_check "the summary follows" "COMPARE  g  1/1 done, 1 passing"
tmux_keys Escape
tmux_keys Escape

# Wider: the GROUP column has room beside every other one.
tmux_resize 160 30
dash_check_row "160 columns: GROUP beside the rest" "g-1 " "g: 1/1 done, 1 passing"
dash_check_line "the header has GROUP" 2 "GROUP"
# Narrow: GROUP yields as the other columns do; NAME and ID stay whole.
tmux_resize 60 24
dash_check_line_gone "60 columns: GROUP yields" 2 "GROUP"
dash_check_row "NAME and ID stay whole" "g-1 " "$(box_sandbox_of g-1)"
tmux_resize 80 24
dash_check_row "80 columns again: GROUP is back" "g-1 " "g: 1/1 done, 1 passing"
dash_quit "the dashboard ends"
for b in g-1 solo; do box_tui --kill "$b" --force; done
t_finish
