#!/usr/bin/env bash
# Issue 30 item 4: the Templates pane's header names the keys that work there, from the key
# map: x deletes, C is the GC (it said "G: GC", and G is the last row); a key rebound in
# the config shows as bound.
. "$(dirname "$0")/common.sh"
e2b_local_start || t_finish

dash_start 140 30
tmux_type T
dash_check "T opens the Templates pane" "TEMPLATES"
dash_check_line "its header names C for the GC" 2 "x: delete, C: GC, Esc: back"
t_not_contains "not G" "$(tmux_capture | sed -n 2p)" "G: GC"
tmux_keys Escape
dash_quit "quits"

mkdir -p "$XDG_CONFIG_HOME/e2b-tui"
printf 'key.template-gc = ctrl-t\n' >>"$XDG_CONFIG_HOME/e2b-tui/config"
dash_start 140 30
tmux_type T
dash_check_line "a rebound GC key shows as bound" 2 "x: delete, ctrl-t: GC"
tmux_keys Escape
dash_quit "quits after the rebound key"
t_finish
