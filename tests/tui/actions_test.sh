#!/usr/bin/env bash
# Actions on the selected sandbox through core against e2b-local: s pauses, r resumes,
# e extends the timeout by the hours asked, l shows the sandbox's E2B logs; each effect is
# checked on the server. --readonly refuses them and changes nothing.
. "$(dirname "$0")/common.sh"

e2b_local_start || t_finish
sbx_create base running 600 name=target-one && id=$SBX_ID

dash_start 120 30
tmux_type 3
dash_check "the sandbox is listed" "target-one"
tmux_type s
dash_check "s on a team sandbox asks first" "Stop sandbox"
tmux_type y
dash_check "s pauses it" "target-one paused"
t_eq "paused on the server" "$(sbx_state "$id")" paused
dash_check "the row shows the new state" "paused "
tmux_type r
dash_check "r resumes it" "target-one resumed"
t_eq "running on the server" "$(sbx_state "$id")" running
tmux_type r
dash_check "r on a running one only extends" "was already running"
tmux_type e
dash_check "e on a team sandbox asks first" "Extend sandbox"
tmux_type y
dash_check "e asks for hours" "extend: hours from now (1-24): 1"
tmux_keys BSpace
tmux_type 'x'
tmux_keys Enter
dash_check "a bad number is refused" "give a whole number of hours from 1 to 24"
tmux_type e
tmux_wait "Extend sandbox" >/dev/null
tmux_type y
tmux_wait "extend: hours" >/dev/null
tmux_keys BSpace
tmux_type 3
tmux_keys Enter
dash_check "e 3 extends it" "target-one now ends in 3 hours"
el_req GET "/sandboxes/$id" >/dev/null
left=$(( $(date -d "$(el_json .endAt)" +%s) - $(date +%s) ))
t_ok "the server's end time is about 3 hours away ($left s)" test "$left" -gt 10000 -a "$left" -le 10800
dash_check "the ENDS column shows it" "2h 59m"
tmux_type l
dash_check "l opens the E2B logs" "LOG  target-one"
dash_check "the logs show the sandbox's events" "paused"
tmux_keys Escape
dash_check_gone "Esc closes the log pane" "LOG  target-one"
dash_quit "quits after the actions"

dash_start 120 30 -- --readonly
tmux_type 3
tmux_wait "target-one" >/dev/null
tmux_type s
dash_check "read-only: s is refused" "stop: disabled in read-only mode"
t_eq "read-only: still running on the server" "$(sbx_state "$id")" running
dash_quit "quits (read-only)"
t_finish
