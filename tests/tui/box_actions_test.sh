#!/usr/bin/env bash
# Box actions from the dashboard through the boxes' step machines, against e2b-local with
# the fixture project, the real OpenCode server and the stand-in opencode2 client: u (name,
# template, hours) starts a box with a progress line, p pulls it home as e2b/main, a hands
# the terminal to the attach command (password only in its environment) and shows a non-zero
# exit, K kills the box with its record. Each effect is checked on the server or in the
# repository.
. "$(dirname "$0")/common.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish
export TERM=tmux-256color LANG=C.UTF-8

DASH_CWD=$BOX_REPO dash_start 120 30
tmux_type u
dash_check "u asks for the box name" "up: box name"
tmux_keys Enter
dash_check "then the template (config's default)" "up: template (or a snapshot): opencode"
tmux_keys Enter
dash_check "then the hours" "up: hours (1-24): 1"
tmux_keys BSpace
tmux_type 2
tmux_keys Enter
dash_check "more hours than the config's are asked about" "Start box main for 2 hours (the config's hours: 1)"
tmux_type y
dash_check "then the project directory" "up: project directory"
tmux_keys Enter
dash_check "the status line shows the running step" "up (current branch):"
dash_check "up finishes" "box main is up" 90
id=$(box_sandbox_of main)
t_ok "the box's record names its sandbox" test -n "$id"
el_req GET "/sandboxes/$id" >/dev/null
t_eq "the server has the box (metadata)" "$(el_json '.metadata["e2b-tui.name"]')" main
dash_check "the box is listed" "main "

# Work in the box, then p pulls it home.
box_exec "$id" "cd '$BOX_REPO' && echo from-the-box > boxfile.txt && git add boxfile.txt && git -c user.name=t -c user.email=t@t commit -qm 'work in the box'" >/dev/null
tmux_type p
dash_check "p pulls the box's work as a branch" "pulled main into branch e2b/main"
t_contains "the branch holds the box's commit" "$(git -C "$BOX_REPO" log --format=%s e2b/main)" "work in the box"
t_eq "and its file" "$(git -C "$BOX_REPO" show e2b/main:boxfile.txt)" "from-the-box"

# a: the attach command gets the terminal; its exit status comes back.
tmux_type a
dash_check "a hands the terminal to the attach command and returns" "back from main"
t_not_contains "the password is not on screen" "$(tmux_capture)" "OPENCODE_SERVER_PASSWORD="
dash_quit "quits after attach"
FAKE_ATTACH_EXIT=7 DASH_CWD=$BOX_REPO dash_start 120 30 FAKE_ATTACH_EXIT=7
tmux_wait "main " >/dev/null
tmux_type a
dash_check "a non-zero exit holds the child's screen" "press Enter to return"
tmux_keys Enter
dash_check "a non-zero exit is shown" "the attach command exited with status 7"

# K on a box: says what goes with it and offers the pull first (p), then kills it.
box_exec "$id" "cd '$BOX_REPO' && echo late > late.txt && git add late.txt && git -c user.name=t -c user.email=t@t commit -qm 'late work'" >/dev/null
tmux_type K
dash_check "K asks first" "Kill box"
dash_check "it says the password goes too" "password"
dash_check "it offers the pull first" "p: pull its work first"
tmux_type p
dash_check "p in the question pulls the box first" "pulled main into branch e2b/main"
t_contains "the late work is home" "$(git -C "$BOX_REPO" log --format=%s e2b/main)" "late work"
t_eq "the box still exists after the pull" "$(sbx_state "$id")" running
tmux_type K
dash_check "K asks again" "Kill box"
tmux_type y
dash_check "the box is killed" "box main killed"
t_eq "gone on the server" "$(sbx_state "$id")" gone
t_ok "its record is removed" test ! -e "$XDG_STATE_HOME/e2b-tui/boxes/main.json"
dash_quit "quits after the box actions"
t_finish
