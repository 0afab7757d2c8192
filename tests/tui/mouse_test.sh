#!/usr/bin/env bash
# Mouse: off by default (text selection keeps working), on with --mouse: a press on a tab
# switches the view, a press on a row selects it, the wheel moves the cursor.
. "$(dirname "$0")/common.sh"

# mouse BUTTON COL ROW: an X10 mouse report (what tmux-256color's kmous announces), as the
# terminal would send it; COL and ROW count from 0.
mouse() { tmux_type "$(printf '\033[M%b%b%b' "\\$(printf %03o $((32 + $1)))" \
    "\\$(printf %03o $((33 + $2)))" "\\$(printf %03o $((33 + $3)))")"; }

e2b_local_start || t_finish
for i in 1 2 3 4 5; do sbx_create base running 3600 "name=name-$i"; done

dash_start 100 24
t_eq "mouse reporting is off by default" "$(tm display-message -p -t t '#{mouse_any_flag}')" 0
mouse 0 24 0
mouse 3 24 0
# unparsed, the report's bytes are keys: its row byte on row 0 is '!' (the Needs-you pane),
# which Esc leaves for the view it came from: Boxes, unless the press changed tabs
sleep 1
tmux_keys Escape
sleep 1
tmux_type '?'
dash_check "without --mouse a press on a tab does nothing" "Help: Boxes"
tmux_keys Escape
dash_check_gone "Esc closes the help" "Help: Boxes"
dash_quit "quits (mouse off)"

dash_start 100 24 -- --mouse
dash_check_format "--mouse turns mouse reporting on" '#{mouse_any_flag}' 1
# " 1 Boxes " takes columns 0-8, a gap, " 2 Workspaces " 10-23, a gap, then " 3 All ...".
mouse 0 27 0
mouse 3 27 0
dash_check "a press on the third tab opens All sandboxes" "name-5"
tmux_type '?'
dash_check "the view really is All sandboxes" "Help: All sandboxes"
tmux_keys Escape
mouse 0 10 4
mouse 3 10 4
dash_check "a press on the third row selects it" "3/5"
mouse 65 10 4
dash_check "the wheel moves the cursor down" "4/5"
mouse 64 10 4
dash_check "and up" "3/5"
dash_quit "quits (mouse on)"
dash_check_format "mouse reporting is off again after quitting" '#{mouse_any_flag}' 0
t_finish
