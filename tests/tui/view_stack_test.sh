#!/usr/bin/env bash
# Issue 30 item 3: panes stack as k9s's do. Esc (and q) on a pane returns to the pane it
# was opened from, not to the list: Detail -> l (Log) -> Esc is Detail again, Detail -> O
# (Operations) -> q is Detail again; the list is the bottom: Esc on Detail shows it, and
# q there quits. A tab switch (:boxes) closes every pane.
. "$(dirname "$0")/common.sh"
e2b_local_start || t_finish
sbx_create base running 600 name=stacked && id=$SBX_ID

dash_start 100 24
tmux_type 3
dash_check "the sandbox is listed" "stacked"
tmux_type d
dash_check_line "d opens Detail" 2 "DETAIL"
tmux_type l
dash_check_line "l from Detail opens its Log" 2 "LOG  stacked"
tmux_keys Escape
dash_check_line "Esc returns to Detail, where the Log came from" 2 "DETAIL"
dash_check "with the sandbox's details" "$id"
tmux_type O
dash_check_line "O from Detail opens Operations" 2 "OPERATIONS"
tmux_type q
dash_check_line "q on Operations returns to Detail" 2 "DETAIL"
tmux_keys Escape
dash_check_line "Esc on Detail returns to the list" 2 "NAME"
dash_check_line "the list's row counter shows" 24 "1/1"
tmux_type d
dash_check_line "Detail again" 2 "DETAIL"
tmux_type l
dash_check_line "and its Log" 2 "LOG  stacked"
tmux_type :boxes
tmux_keys Enter
dash_check_line "a tab switch (:boxes) closes every pane" 2 "NAME"
tmux_type 3
t_not_contains "no pane is left below it" "$(tmux_capture | sed -n 2p)" "DETAIL"
dash_quit "q on the list quits"
t_finish
