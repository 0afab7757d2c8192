#!/usr/bin/env bash
# Snapshot and fork from the dashboard (issue 17), against e2b-local with the fixture
# project: S on a box asks the snapshot's name and records it, F asks how many forks and
# makes boxes main-2 and main-3 with records of their own, listed under those names (their
# metadata still names the parent); p on a fork's row pulls that fork into e2b/main-2.
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
# each row by its record's name (a fork's metadata names its parent): main-2, main-3
for f in main-2 main-3; do
    dash_check_row "the fork's row is called $f" "$(box_sandbox_of $f)" "$f "
done
parent_row_plain() { ! tmux_capture | grep -F -- "$id" | grep -q 'main-'; }
t_ok "the parent's row is main (no fork's name)" parent_row_plain
# only the fork's row: the filter by its sandbox id
tmux_type /
tmux_type "$fid"
tmux_keys Enter
dash_check_gone "the filter leaves the fork's row alone" "$id"
tmux_type p
dash_check "p on the fork's row pulls the fork" "pulled main-2 into branch e2b/main-2" 60
t_eq "its work came home" "$(git -C "$BOX_REPO" show e2b/main-2:forked.txt)" fork-work
tmux_keys Escape
# u with a snapshot's name as the template: the box starts from it, sending only the delta
printf 'after the snapshot\n' >"$BOX_REPO/src/after.txt"
tmux_type u
dash_check "u asks the name" "up: box name"
tmux_type from-snap
tmux_keys Enter
dash_check "the template prompt offers a snapshot" "up: template (or a snapshot): opencode"
tmux_keys C-u
tmux_type from-dash
tmux_keys Enter
dash_check "then the hours" "up: hours"
tmux_keys Enter
dash_check "then the project directory" "up: project directory"
tmux_keys Enter
dash_check "the box is up from the snapshot, with only the delta sent" "box from-snap is up (a attaches); from snapshot from-dash: sent only what differs" 90
sid=$(box_sandbox_of from-snap)
t_eq "its files include the new one" "$(cat "$(box_root "$sid")$BOX_REPO/src/after.txt")" "after the snapshot"
el_req GET "/sandboxes/$sid" >/dev/null
t_eq "it was made from the snapshot's template" "$(el_json .templateID)" "$(el_req GET /snapshots >/dev/null; el_req GET /templates >/dev/null; el_json '[.[] | select(.aliases == ["e2b-tui-from-dash"]) | .templateID][0]')"
dash_quit "quits after the pull"
t_finish
