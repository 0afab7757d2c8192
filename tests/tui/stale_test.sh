#!/usr/bin/env bash
# Issue 19 item 14: with the API unreachable the list says it is stale (since when, how
# old) and its rows are drawn dim with their countdowns stopped, until a refresh succeeds.
. "$(dirname "$0")/common.sh"
. "$E2B_TUI_ROOT/tests/lib/faults.sh"
e2b_local_start || t_finish
sbx_create base running 600 name=stale-one
sbx_create base running 600 name=stale-two

dash_start 120 30 -- --refresh 1
tmux_type 3
dash_check "the sandbox is listed" "stale-one"
t_not_contains "no stale banner while the list is current" "$(tmux_capture)" "STALE"
fault_set '{"kind":"500","path":"/v2/sandboxes","count":1000}'
dash_check "a failed refresh marks the list stale" "STALE: E2B cannot be reached; this is the list of"
dash_check_match "the banner says when the last good list came" 'list of [0-9]{2}:[0-9]{2}:[0-9]{2} \([0-9]+s ago\)'
ends1=$(tmux_capture | grep stale-one | grep -Eo '[0-9]+:[0-9]{2} *$')
sleep 2.5
ends2=$(tmux_capture | grep stale-one | grep -Eo '[0-9]+:[0-9]{2} *$')
t_eq "the countdown stops while stale (not shown as current)" "$ends2" "$ends1"
rows_dim() { tmux_capture -e | grep -E "stale-(one|two)" | grep -Eq '\[2m|38;5;245'; }
t_ok "the rows are drawn dim (not as current data)" t_wait_until "$TMUX_WAIT_SECONDS" rows_dim
fault_clear
dash_check_gone "the banner goes once a refresh succeeds" "STALE"
dash_quit "quits"
t_finish
