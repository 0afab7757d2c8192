#!/usr/bin/env bash
# Issue 19 item 20: the ':' line completes with Tab (the command, then a sandbox name),
# goes back through its history with Up, takes a unique prefix and any case, names the
# candidates of an ambiguous prefix, and runs the actions on a sandbox by name (:kill NAME
# asks first like K; :stop NAME; :up opens up's questions).
. "$(dirname "$0")/common.sh"
e2b_local_start || t_finish
sbx_create base running 600 name=cmd-target && id=$SBX_ID
sbx_create base running 600 name=other-one

dash_start 120 30
tmux_type 3
dash_check "listed" "cmd-target"

tmux_type ':wor'
tmux_keys Tab
dash_check "Tab completes the command" ":workspaces_"
tmux_keys Enter
dash_check "the completed command runs" "No workspaces"
tmux_type ':ALL'
tmux_keys Enter
dash_check "commands are case-insensitive" "cmd-target"
dash_check_line "the All tab is shown" 2 "KIND"
tmux_type ':secr'
tmux_keys Enter
# (Every tab's name is on the tabs line and NAME heads All too: only Secrets has HOSTS.)
dash_check "a unique prefix is enough" "HOSTS"
dash_check_line "the Secrets tab is shown" 2 "HOSTS"
tmux_type ':'
tmux_keys Up
dash_check "Up brings back the last command" ":secr_"
tmux_keys Up
dash_check "Up again: the one before" ":ALL_"
tmux_keys Down
dash_check "Down goes forward" ":secr_"
tmux_keys Escape
tmux_type ':s'
tmux_keys Tab
dash_check "Tab on a shared prefix shows the candidates" "secrets stop"
tmux_keys Escape

# Actions by name, with the name completed by Tab.
tmux_type ':stop cmd-t'
tmux_keys Tab
dash_check "Tab completes the sandbox name" ":stop cmd-target_"
tmux_keys Enter
dash_check ":stop NAME asks first (not this machine's box)" "Stop sandbox"
tmux_type y
dash_check ":stop NAME pauses that sandbox" "cmd-target paused"
t_eq "paused on the server" "$(sbx_state "$id")" paused
tmux_type ':kill cmd-target'
tmux_keys Enter
dash_check ":kill NAME asks like K" "Kill sandbox \"cmd-target\""
tmux_keys Enter
dash_check "No keeps it" "Kill sandbox: cancelled"
t_eq "still there" "$(sbx_state "$id")" paused
tmux_type ':kill nosuch'
tmux_keys Enter
dash_check "an unknown name is told" ":kill: no sandbox called nosuch"
tmux_type ':up'
tmux_keys Enter
dash_check ":up opens up's questions" "up: box name"
tmux_keys Escape
tmux_type ':quit now'
tmux_keys Enter
dash_check "a command that takes no argument says so" ":quit takes no argument"
tmux_type ':q'
tmux_keys Enter
dash_check ":q quits" "rc=0"
t_finish
