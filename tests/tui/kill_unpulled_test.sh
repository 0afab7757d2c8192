#!/usr/bin/env bash
# K's question says whether the box has work not pulled home (issue 19 item 13), against
# e2b-local with the fixture project and real git in the box: it opens at once saying
# "checking for unpulled work..." (the look is held up on purpose) and follows the answer:
# none for a box nobody changed, the file for an uncommitted one (p pulls it from the
# question), none after the pull, the commit and file after a new commit, and "unknown"
# for a paused box, which is not resumed to look; y kills it.
. "$(dirname "$0")/common.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/lib/faults.sh"
box_setup || t_finish
export TERM=tmux-256color LANG=C.UTF-8

box_tui --up dk
box_setup_rc "up dk" 0
id=$(box_sandbox_of dk)
DASH_CWD=$BOX_REPO dash_start 120 32
dash_check "the box is listed" "dk "

# The look in the box is held up 8 s: the question must not wait for it.
fault_set '{"kind":"delay","delayMs":8000,"path":"process.Process/Start","count":1}'
tmux_type K
dash_check "K asks at once, saying it is checking" "checking for unpulled work..." 6
dash_check "it names what goes with the box" "password go for good" 6
dash_check "the answer follows: nothing unpulled in an unchanged box" "no unpulled work in dk"
t_not_contains "the checking line is replaced" "$(tmux_capture)" "checking for unpulled"
tmux_keys Escape
dash_check "Esc keeps the box" "Kill sandbox: cancelled"

# An uncommitted file in the box: the question says so and p pulls it home.
box_exec "$id" "cd '$BOX_REPO' && echo made-in-the-box > new-in-box.txt" >/dev/null
tmux_type K
dash_check "an uncommitted file is unpulled work" "dk has unpulled work: 1 file changed"
t_contains "it offers the pull first and the kill anyway" "$(tmux_capture)" "p: pull its work first (into branch e2b/dk); y: kill anyway."
tmux_type p
dash_check "p in the question pulls the box" "pulled dk into branch e2b/dk" 60
t_eq "the file is home" "$(git -C "$BOX_REPO" show e2b/dk:new-in-box.txt)" "made-in-the-box"

# After the pull: nothing to warn about.
tmux_type K
dash_check "after the pull: no unpulled work" "no unpulled work in dk: all of it is in e2b/dk"
tmux_keys Escape
dash_check "Esc again" "Kill sandbox: cancelled"

# A new commit after the pull: warned again, counted since the pull.
box_exec "$id" "cd '$BOX_REPO' && echo later > later.txt && git add later.txt && git -c user.name=t -c user.email=t@t commit -qm later" >/dev/null
tmux_type K
dash_check "a commit after the pull is unpulled work" "dk has unpulled work: 1 file changed, 1 commit since the"
tmux_keys Escape
dash_check "Esc once more" "Kill sandbox: cancelled"

# A paused box: unknown, and it stays paused; y kills it.
tmux_type s
dash_check "s pauses the box" "paused"
t_eq "the box is paused on the server" "$(sbx_state "$id")" paused
log=$E2B_LOCAL_STATE/e2b-local.log
before=$(grep -c "$id/\(connect\|resume\)" "$log")
t_ok "the request log shows this box's connects (so a resume would show)" test "$before" -gt 0
tmux_type K
dash_check "a paused box's work is unknown" "dk: paused: unpulled work unknown"
t_eq "the paused box was not resumed to look" "$(grep -c "$id/\(connect\|resume\)" "$log")" "$before"
t_eq "it is still paused" "$(sbx_state "$id")" paused
tmux_type y
dash_check "y kills it" "box dk killed" 30
t_eq "gone on the server" "$(sbx_state "$id")" gone
t_ok "its record is removed" test ! -e "$XDG_STATE_HOME/e2b-tui/boxes/dk.json"
dash_quit "quits"
t_finish
