#!/usr/bin/env bash
# Snapshot and fork from the dashboard (issue 17), against e2b-local with the fixture
# project: S on a box asks the snapshot's name and records it, F asks how many forks and
# makes boxes main-2 and main-3 with records of their own; p on a fork's row (its metadata
# still names the parent) pulls that fork, not the parent, into e2b/main-2.
. "$(dirname "$0")/common.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish
export TERM=tmux-256color LANG=C.UTF-8
box_tui --up main
box_rc "up" 0 || t_abort "up failed"
id=$(box_sandbox_of main)

DASH_CWD=$BOX_REPO dash_start 140 30
tmux_wait "main " >/dev/null
tmux_type S
dash_check "S asks the snapshot's name, the box's by default" "snapshot: name (empty: the box's): main"
tmux_keys C-u
tmux_type from-dash
tmux_keys Enter
dash_check "the snapshot is made and told" "snapshot from-dash of box main: local/e2b-tui-from-dash:default" 60
t_eq "its record names the box" "$(jq -r .box "$XDG_STATE_HOME/e2b-tui/snapshots/from-dash.json")" main

tmux_type F
dash_check "F asks how many forks" "fork: how many copies (1-100): 2"
tmux_keys Enter
dash_check "the forks are made and told" "forked box main into 2 boxes" 90
for f in main-2 main-3; do
    t_ok "$f has a record" test -s "$XDG_STATE_HOME/e2b-tui/boxes/$f.json"
done
fid=$(box_sandbox_of main-2)
box_exec "$fid" "cd '$BOX_REPO' && echo fork-work >forked.txt" >/dev/null
dash_quit "quits"

# The dashboard acts on a fork's row by its sandbox id: the record for that id is the box.
DASH_CWD=$BOX_REPO dash_start 140 30
tmux_wait "main " >/dev/null
rows=$(tmux_capture | grep -c ' main ')
t_ok "the forks are listed (three rows)" test "$rows" -ge 3
# only the fork's row: the filter by its sandbox id
tmux_type /
tmux_type "$fid"
tmux_keys Enter
dash_check_gone "the filter leaves the fork's row alone" "$id"
tmux_type p
dash_check "p on the fork's row pulls the fork" "pulled main-2 into branch e2b/main-2" 60
t_eq "its work came home" "$(git -C "$BOX_REPO" show e2b/main-2:forked.txt)" fork-work
dash_quit "quits after the pull"
t_finish
