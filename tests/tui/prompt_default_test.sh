#!/usr/bin/env bash
# Issue 30 item 1 and the costly actions: a prompt's default is shown selected and the
# first character typed replaces it (the fork count, the up form's hours, the snapshot
# name, a second filter, a second Log search), Backspace clears it, an arrow keeps it to be
# edited; a fork of more than 3 and an up of more hours than the config's ask first
# (default No) and say what they would make; at most 3 forks start without a question.
. "$(dirname "$0")/common.sh"
e2b_local_start || t_finish
sbx_create base running 600 e2b-tui=box e2b-tui.name=demo && id=$SBX_ID
mkdir -p "$T_TMP/notgit"
# prompt_is TEXT: the prompt line (the last one) ends with TEXT (its cursor "_").
prompt_is() { dash_check_line "$1" '$' "$2"; }

DASH_CWD=$T_TMP/notgit dash_start 100 24
dash_check "the box is listed" "demo"
tmux_type F
prompt_is "F offers 2 copies" "(1-100): 2"
tmux_type 2
prompt_is "typing 2 replaces the default: 2, not 22" "(1-100): 2_"
tmux_keys Escape
dash_check "Esc cancels" "fork: cancelled"

tmux_type F
tmux_keys BSpace
prompt_is "Backspace clears the default" "(1-100): _"
tmux_type 9
tmux_keys Enter
dash_check "9 copies ask first" "Fork demo into 9 boxes (demo-2, demo-3, ...)"
tmux_keys Enter
dash_check "Enter answers No" "fork: cancelled"
t_not_contains "nothing is forked" "$(tmux_capture)" "forking"

tmux_type F
tmux_keys Right
tmux_type 1
prompt_is "an arrow keeps the default to edit it: 21" "(1-100): 21_"
tmux_keys Escape

tmux_type S
tmux_type snap1
prompt_is "a snapshot name replaces the box's" "(empty: the box's): snap1_"
tmux_keys Escape

tmux_type /de
tmux_keys Enter
dash_check "the filter is kept" "filter: de"
tmux_type /
tmux_type mo
prompt_is "a second filter replaces the first" "/mo_"
tmux_keys Escape

tmux_type u
dash_check "u asks the name" "up: box name"
tmux_type x1
tmux_keys Enter
dash_check "then the template" "up: template"
tmux_keys Enter
prompt_is "then the hours, the config's by default" "up: hours (1-24): 1"
tmux_type 2
prompt_is "typing 2 into the hours gives 2, not 12" "up: hours (1-24): 2_"
tmux_keys Enter
dash_check "more hours than the config's ask first" "Start box x1 for 2 hours (the config's hours: 1)"
tmux_keys Escape
dash_check "Esc answers No" "up: cancelled"
dash_quit "quits"

# The Log pane's search: a second / replaces the last search.
dash_start 100 24
tmux_type 3
dash_check "the box is listed" "demo"
tmux_type l
dash_check "the Log pane opens" "LOG  demo"
tmux_type /listening
tmux_keys Enter
tmux_type /
prompt_is "the search offers the last one" "search the log: listening"
tmux_type zzz
prompt_is "typing replaces it: zzz, not listeningzzz" "search the log: zzz_"
tmux_keys Escape
tmux_type q
dash_check "q closes the Log pane" "1/1"
dash_quit "quits after the search"
t_finish
