#!/usr/bin/env bash
# Issue 19 item 12: up from the dashboard checks each answer when it is given and keeps it
# on an error (a bad name, a name in use, hours out of range, a directory that is not a
# git project), shows the real default name (the branch feat/x as feat-x), and takes the
# project directory as a fourth answer (the --dir of the one-shot mode): from a directory
# that is no git project, naming the project there makes the box.
. "$(dirname "$0")/common.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish
export TERM=tmux-256color LANG=C.UTF-8
git -C "$BOX_REPO" checkout -qb feat/x || t_abort "no branch"
mkdir -p "$T_TMP/notgit" "$XDG_STATE_HOME/e2b-tui/boxes"
# A record of this name exists: the name is in use on this machine.
printf '{"version":1,"name":"taken","sandbox_id":"inone"}\n' >"$XDG_STATE_HOME/e2b-tui/boxes/taken.json"
chmod 600 "$XDG_STATE_HOME/e2b-tui/boxes/taken.json"

DASH_CWD=$BOX_REPO dash_start 160 30
tmux_type u
dash_check "the name prompt shows the real default name" "up: box name (empty: feat-x): "
tmux_type 'bad name'
tmux_keys Enter
dash_check "a bad name is refused at once" "'bad name' is not a valid box name"
dash_check_line "with a valid form offered" '$' "perhaps bad-name"
dash_check_line "the answer is kept" '$' "bad name_"
tmux_keys C-u
tmux_type taken
tmux_keys Enter
dash_check "a name in use is refused at once" "a box named taken already exists on this machine"
dash_check_line "still the name question" '$' "up: box name"
tmux_keys Escape
dash_check "Esc cancels" "up: cancelled"
dash_quit "quits after the checks"

# Ended (ctrl-c) while up's first question is open: the form and its probe go cleanly.
DASH_CWD=$BOX_REPO dash_start 160 30
tmux_type u
tmux_wait "up: box name" >/dev/null
tmux_keys C-c
dash_check "ctrl-c with the up form open ends the dashboard cleanly" "rc=130"

DASH_CWD=$T_TMP/notgit dash_start 160 30
tmux_type u
dash_check "outside a git project the name prompt says so" "this directory is no git project"
tmux_type fromdir
tmux_keys Enter
dash_check "then the template" "up: template"
tmux_keys Enter
dash_check "then the hours" "up: hours (1-24): "
tmux_keys C-u
tmux_type 99
tmux_keys Enter
dash_check "hours out of range are refused at once" "give a whole number of hours from 1 to 24; up: hours"
dash_check_line "the hours are kept" '$' "99_"
tmux_keys C-u
tmux_type 1
tmux_keys Enter
dash_check "then the project directory" "up: project directory (empty: the current one)"
tmux_keys Enter
dash_check "the current directory is refused: no git project" "; up: project directory"
dash_check_line "with the reason" '$' "git"
t_eq "nothing was made on the server" "$(el_req GET /v2/sandboxes >/dev/null; el_json 'length')" 0
tmux_type "$BOX_REPO"
tmux_keys Enter
dash_check "the project given as the fourth answer makes the box" "box fromdir is up" 90
t_eq "its record names that project" "$(jq -r .dir "$XDG_STATE_HOME/e2b-tui/boxes/fromdir.json")" "$BOX_REPO"
id=$(box_sandbox_of fromdir)
dash_quit "quits after up"
[ -n "$id" ] && el_req DELETE "/sandboxes/$id" >/dev/null
t_finish
