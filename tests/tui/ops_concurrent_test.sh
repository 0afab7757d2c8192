#!/usr/bin/env bash
# Several box operations at once (issue 14): an up of one box runs while another box is
# pulled; the status line counts them, the Operations pane (o) lists both with their steps,
# ctrl-x there cancels the selected one (the up: its sandbox is killed, no record), and the
# other (the pull) finishes with its branch. A second operation on a box that has one
# running is refused with a message; an attach that is ready while the pull runs waits
# for it before it takes the terminal. Delay faults on envd's /files hold the up's upload and
# the pull's download, so both are seen running; nothing waits on a fixed time.
. "$(dirname "$0")/common.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish
records=$XDG_STATE_HOME/e2b-tui/boxes

# The box to pull: made one-shot, with work of its own in the box; and one to attach.
box_tui --up first
box_rc "the first box is up" 0 || t_abort "the box did not come up"
box_tui --up other
box_rc "the other box is up" 0
first=$(box_sandbox_of first)
box_exec "$first" "cd '$BOX_REPO' && echo from-first > first.txt && git add first.txt && git -c user.name=t -c user.email=t@t commit -qm 'work in first'" >/dev/null

DASH_CWD=$BOX_REPO dash_start 150 30
tmux_wait "first " >/dev/null
# The up of a second box, held at its upload (it is cancelled long before the delay ends).
el_req POST /_e2b-local/faults '{"kind":"delay","path":"/files","method":"POST","delayMs":60000}' >/dev/null
tmux_type u
dash_check "u asks for the box name" "up: box name"
tmux_type second
tmux_keys Enter
dash_check "then the template" "up: template"
tmux_keys Enter
dash_check "then the hours" "up: hours"
tmux_keys Enter
dash_check "then the project directory" "up: project directory"
tmux_keys Enter
dash_check "the up is uploading" "up second: uploading"

# Meanwhile p pulls the first box, its download held too.
el_req POST /_e2b-local/faults '{"kind":"delay","path":"/files","method":"GET","delayMs":30000}' >/dev/null
tmux_type /first
tmux_keys Enter
tmux_type p
dash_check "the status line counts two operations" "2 operations running"
tmux_type K
dash_check "K asks about the box being pulled" "Kill sandbox"
tmux_type y
dash_check "a second operation on the same box is refused" "pull first is still running on this box"
t_eq "the box being pulled still runs" "$(sbx_state "$first")" running

tmux_type O
dash_check "O opens the Operations pane" "OPERATIONS  2 running"
dash_check_row "it lists the up with its step" " second " "uploading"
dash_check_row "and the pull" " first " "pull"
# The first row is the oldest: the up. ctrl-x cancels the selected one.
tmux_keys Home C-x
dash_check "ctrl-x in the pane cancels the selected up" "up second: cancelled"
dash_check "the pane lists only the pull then" "OPERATIONS  1 running"

# An attach made ready while the pull runs waits for it before it takes the terminal (the
# loop, and so the pull's transfer, would stop while the attach command runs).
tmux_keys Escape Escape
tmux_type /other
tmux_keys Enter
tmux_type a
dash_check "a ready attach waits for the other operation" "attach other: ready: waits for the other operations"
t_eq "the pull has not finished yet" "$(git -C "$BOX_REPO" rev-parse -q --verify e2b/first)" ""
TMUX_WAIT_SECONDS=120 dash_check "once the pull is done the attach takes the terminal and returns" "back from other"
t_contains "the pull finished: its branch holds the box's work" "$(git -C "$BOX_REPO" log --format=%s e2b/first 2>&1)" "work in first"
tmux_type O
dash_check "the pane is empty at the end" "No box operation is running"
left=
end=$((SECONDS + 60))
while [ "$SECONDS" -le "$end" ]; do
    el_req GET /v2/sandboxes >/dev/null
    left=$(el_json '[.[] | select(.metadata["e2b-tui.name"] == "second")] | length')
    [ "$left" = 0 ] && break
    sleep 0.2
done
t_eq "no sandbox of the cancelled up is left" "$left" 0
t_ok "no record of the cancelled box" test ! -e "$records/second.json"
tmux_keys Escape
dash_quit "quits after the operations"
t_finish
