#!/usr/bin/env bash
# The dashboard under faults: every fault kind of e2b-local on the list refresh and on the
# stop action (s), and e2b-local restarted (stopped, then started again on the same port and
# state directory) while the dashboard refreshes. Each time: the status line names the
# problem, the UI keeps answering keys, and the list recovers by itself once the server is
# back (a sandbox made meanwhile shows up without any key).
. "$(dirname "$0")/common.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/lib/faults.sh"
box_setup || t_finish
export TERM=tmux-256color LANG=C.UTF-8

box_tui --up fd
box_setup_rc "up fd" 0
id=$(box_sandbox_of fd)

# keys_alive NAME: the help overlay opens on ? and closes on Escape.
keys_alive() {
    tmux_type '?'
    dash_check "$1: keys respond (help opens)" "Help: Boxes"
    tmux_keys Escape
    dash_check_gone "$1: keys respond (help closes)" "Help: Boxes"
}

# wait_faults_used: until e2b-local's fault queue is empty (the refreshes used them up).
wait_faults_used() {
    local i
    for i in $(seq 200); do [ "$(fault_left)" = 0 ] && return 0; sleep 0.1; done
    return 1
}

DASH_CWD=$BOX_REPO dash_start 120 30 -- --refresh 1
dash_check "the box is listed" "fd "

# ---- each fault kind on the list refresh ----
#   kind      what the status line says
while read -r kind says; do
    [ -n "$kind" ] || continue
    fault_set "{\"kind\":\"$kind\",\"path\":\"/v2/sandboxes\",\"count\":2}"
    dash_check "list refresh, $kind: the status line says so" "$says"
    keys_alive "list refresh, $kind"
    dash_check "list refresh, $kind: the rows stay" "fd "
    t_ok "list refresh, $kind: the faults were used" wait_faults_used
    sbx_create base running 600 "e2b-tui=box" "e2b-tui.name=new-$kind"
    dash_check "list refresh, $kind: recovers by itself" "new-$kind"
    el_req DELETE "/sandboxes/$SBX_ID" >/dev/null
done <<'EOF'
500      E2B server error 500
503      temporarily busy (503)
truncate broke off
drop     broke off
EOF
# 429 with Retry-After is waited out: no error, the list goes on; the refresh slows down by
# the Retry-After and the status line says so (issue 16).
fault_set '{"kind":"429","path":"/v2/sandboxes","count":1,"retryAfter":1}'
t_ok "list refresh, 429: the fault was used" wait_faults_used
dash_check "list refresh, 429: the status line says the refresh slows down" "asked to slow down (HTTP 429)"
sbx_create base running 600 "e2b-tui=box" "e2b-tui.name=new-429"
dash_check "list refresh, 429: the list goes on" "new-429"
t_not_contains "list refresh, 429: no error shown" "$(tmux_capture)" "rate limit"
el_req DELETE "/sandboxes/$SBX_ID" >/dev/null
# A slow reply (below the request timeout) is just waited for.
fault_set '{"kind":"delay","path":"/v2/sandboxes","count":1,"delayMs":2500}'
t_ok "list refresh, delay: the fault was used" wait_faults_used
keys_alive "list refresh, delay"
sbx_create base running 600 "e2b-tui=box" "e2b-tui.name=new-delay"
dash_check "list refresh, delay: the list goes on" "new-delay"
el_req DELETE "/sandboxes/$SBX_ID" >/dev/null

# ---- each fault kind on s (stop) ----
#   kind      rc-like outcome   what the status line says
while read -r kind outcome says; do
    [ -n "$kind" ] || continue
    [ "$(sbx_state "$id")" = running ] || el_req POST "/v2/sandboxes/$id/connect" '{}' >/dev/null
    dash_check_gone "stop, $kind: the list shows fd running" "paused "
    fault_set "{\"kind\":\"$kind\",\"path\":\"/pause\",\"retryAfter\":1}"
    tmux_wait "fd " >/dev/null
    tmux_type s
    dash_check "stop, $kind: the status line says so" "$says"
    t_ok "stop, $kind: the fault was used" wait_faults_used
    keys_alive "stop, $kind"
    if [ "$outcome" = paused ]; then
        t_eq "stop, $kind: the box is paused (retried)" "$(sbx_state "$id")" paused
    else
        t_eq "stop, $kind: the box still runs" "$(sbx_state "$id")" running
    fi
done <<'EOF'
429      paused  fd paused
500      running E2B server error 500
503      paused  fd paused
truncate paused  fd paused
EOF
fault_clear

# ---- e2b-local restarted during the refreshes ----
port=$E2B_LOCAL_PORT
e2b_local_stop
dash_check "server gone: the status line says it cannot reach it" "cannot reach"
keys_alive "server gone"
# The port must be free before it is taken again: nothing listening on it or using it as its
# own end of a connection (TIME-WAIT does not count: the server binds with SO_REUSEADDR).
port_free() { [ -z "$(ss -H -t -a -n exclude time-wait "( sport = :$port )")" ]; }
t_wait_until 30 port_free ||
    t_fail "port $port is free for the restart" "$(ss -H -t -a -n -p "( sport = :$port )" | head -c 400)"
e2b_local_start --listen "127.0.0.1:$port"
# e2b_local_start passes --listen 127.0.0.1:0 first; the later one wins.
t_eq "the server came back on the same port" "$E2B_LOCAL_PORT" "$port"
sbx_create base running 600 "e2b-tui=box" "e2b-tui.name=after-restart"
dash_check "server back: the list recovers by itself" "after-restart"
dash_check "server back: the box is still listed" "fd "
keys_alive "server back"
dash_quit "quits after the faults"
box_tui --kill fd
t_finish
