#!/usr/bin/env bash
# Issue 30 item 11: the Log pane's search says which match of how many ("2/5", as less and
# k9s do), in its header and the status line, and n / N move through the matches.
. "$(dirname "$0")/common.sh"
e2b_local_start || t_finish
sbx_create base running 600 name=searched && id=$SBX_ID
# Lifecycle events: created, then paused and resumed twice (five "sandbox" lines).
for i in 1 2; do
    [ "$(el_req POST "/sandboxes/$id/pause")" = 204 ] || t_fail "pause $i" "$(head -c 300 "$EL_BODY_FILE")"
    el_req POST "/sandboxes/$id/resume" '{"timeout":600}' >/dev/null || t_fail "resume $i" "$(head -c 300 "$EL_BODY_FILE")"
done
el_req GET "/v2/sandboxes/$id/logs" >/dev/null
t_eq "e2b-local logged five lifecycle events" "$(el_json '[.logs[] | select(.message | test("^sandbox"))] | length')" 5

dash_start 120 24
tmux_type 3
dash_check "the sandbox is listed" "searched"
tmux_type l
dash_check "its E2B logs" "sandbox resumed"
tmux_type /sandbox
tmux_keys Enter
dash_check "the first match of five" "match 1 of 5 (n next, N previous)"
dash_check_line "the header says 1/5" 2 "/sandbox 1/5"
tmux_type n
dash_check_line "n: 2/5" 2 "/sandbox 2/5"
tmux_type n
dash_check_line "n again: 3/5" 2 "/sandbox 3/5"
tmux_type N
dash_check_line "N: back to 2/5" 2 "/sandbox 2/5"
tmux_type /
tmux_type paused
tmux_keys Enter
dash_check_line "a new search counts again: 1/2" 2 "/paused 1/2"
tmux_keys Escape
dash_quit "quits"
t_finish
