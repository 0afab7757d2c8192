#!/usr/bin/env bash
# Issue 30 item 11: ctrl-o copies the selected sandbox's id or name (a box's server URL
# too) to the clipboard with OSC 52 and says what it copied; here the clipboard is tmux's
# (set-clipboard on: tmux takes the sequence into a paste buffer, as it hands it on to the
# outer terminal). Esc copies nothing.
. "$(dirname "$0")/common.sh"
e2b_local_start || t_finish
sbx_create base running 600 name=copied-one && id=$SBX_ID
buffer() { tm show-buffer 2>/dev/null; }
buffer_is() { [ "$(buffer)" = "$1" ]; }

dash_start 120 24
tm set-option -g set-clipboard on >/dev/null
tmux_type 3
dash_check "the sandbox is listed" "copied-one"
tmux_keys C-o
dash_check "ctrl-o asks what to copy" "copy: i the sandbox id, n the name, u the server URL"
tmux_type i
dash_check "it says what it copied" "copied the sandbox id to the clipboard: $id"
if t_wait_until 10 buffer_is "$id"; then t_pass "the clipboard holds the id"; else t_fail "the clipboard holds the id" "[$(buffer)]"; fi
tmux_keys C-o
tmux_type n
dash_check "n copies the name" "copied the name to the clipboard: copied-one"
if t_wait_until 10 buffer_is copied-one; then t_pass "the clipboard holds the name"; else t_fail "the clipboard holds the name" "[$(buffer)]"; fi
tmux_keys C-o
tmux_type u
dash_check "u on a sandbox that is no box says why not" "copy: no server URL"
tmux_keys C-o
tmux_keys Escape
dash_check_gone "Esc copies nothing and the question goes" "copy: i the sandbox id"
t_eq "the clipboard still holds the name" "$(buffer)" copied-one
tmux_type d
dash_check_line "in Detail" 2 "DETAIL"
tmux_keys C-o
tmux_type i
dash_check "ctrl-o works in Detail too" "copied the sandbox id to the clipboard: $id"
tmux_keys Escape
dash_quit "quits"
t_finish
