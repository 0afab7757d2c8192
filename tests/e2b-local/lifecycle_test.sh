#!/usr/bin/env bash
# Lifecycle of e2b-local sandboxes: timeouts (pause or kill), a restart of the server
# (state kept, running sandboxes come back paused and resume cold), SIGTERM hygiene, and
# 1,000 sandboxes costing no process.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
E2B_LOCAL_IDLE_HOLDER_MS=1000 e2b_local_start || t_finish

# holders ID: how many bwrap processes serve that sandbox (2 while its namespaces exist).
holders() { pgrep -f "bwrap.*roots/$1 " | wc -l; }

# --- idle sandboxes cost no process -----------------------------------------------------------
el_create || t_finish; I1=$EL_ID; TI1=$EL_TOKEN
el_run "$I1" "$TI1" 'true' >/dev/null
el_create || t_finish; I2=$EL_ID
el_run "$I2" "$EL_TOKEN" 'setsid sleep 60 >/dev/null 2>&1 < /dev/null &' >/dev/null
for _ in $(seq 100); do [ "$(holders "$I1")" = 0 ] && break; sleep 0.1; done
t_eq "an idle sandbox's namespaces stop" "$(holders "$I1")" 0
t_eq "a sandbox with a detached process keeps them" "$(holders "$I2")" 2
out=$(el_run "$I1" "$TI1" 'echo again')
t_contains "a process starts again after the holder stopped" "$out" "stdout again"

# poll_state ID WANT: waits up to 10 s until GET shows state WANT (or "gone" for 404).
poll_state() {
    local i code st
    for ((i = 0; i < 100; i++)); do
        code=$(el_req GET "/sandboxes/$1")
        st=$([ "$code" = 404 ] && echo gone || el_json .state)
        [ "$st" = "$2" ] && { echo "$st"; return; }
        sleep 0.1
    done
    echo "$st"
}

# --- timeouts -----------------------------------------------------------------------------
el_create '{"timeout":1,"autoPause":true}' || t_finish; TP=$EL_ID
el_create '{"timeout":1}' || t_finish; TK=$EL_ID
t_eq "timeout with autoPause pauses the sandbox" "$(poll_state "$TP" paused)" paused
t_eq "timeout without autoPause kills the sandbox" "$(poll_state "$TK" gone)" gone
t_ok "a killed sandbox's files are removed" test ! -e "$E2B_LOCAL_STATE/roots/$TK"

# --- restart ---------------------------------------------------------------------------------
el_create '{"timeout":3600,"metadata":{"keep":"me"}}' || t_finish; R=$EL_ID; TR=$EL_TOKEN
el_create '{"timeout":3600}' || t_finish; PZ=$EL_ID; TPZ=$EL_TOKEN
echo "running one" >"$T_TMP/r.txt"; echo "paused one" >"$T_TMP/p.txt"
el_envd "$R" "$TR" POST /files -F "file=@$T_TMP/r.txt;filename=/home/user/work/r.txt" >/dev/null
el_envd "$PZ" "$TPZ" POST /files -F "file=@$T_TMP/p.txt;filename=/home/user/work/p.txt" >/dev/null
LONG="sleep 3000.$$"   # unique on a machine shared with other test runs
el_run "$R" "$TR" "exec $LONG" '{"tag":"long"}' -m 1 >/dev/null 2>&1
el_req POST "/sandboxes/$PZ/pause" >/dev/null
el_req POST /secrets '{"name":"kept","value":"v-123"}' >/dev/null
t_eq "a process runs before the restart" "$(pgrep -f "$LONG" | wc -l)" 1
e2b_local_stop
t_eq "SIGTERM: the server exits 0" "$?" 0
t_eq "SIGTERM: no sandbox process is left" "$(pgrep -f "$LONG|bwrap.*$E2B_LOCAL_STATE" | wc -l)" 0
e2b_local_start || t_finish
el_req GET "/sandboxes/$R" >/dev/null
t_eq "a running sandbox comes back paused" "$(el_json .state)" paused
t_eq "its metadata is kept" "$(el_json .metadata.keep)" me
el_req GET "/sandboxes/$PZ" >/dev/null
t_eq "a paused sandbox stays paused" "$(el_json .state)" paused
t_eq "secrets are kept" "$(el_req GET /secrets/kept)" 200
t_eq "connect resumes it (201)" "$(el_req POST "/v2/sandboxes/$PZ/connect" '{}')" 201
t_eq "the token is the same after a restart" "$(el_json .envdAccessToken)" "$TPZ"
el_envd "$PZ" "$TPZ" GET '/files?path=/home/user/work/p.txt' >/dev/null
t_eq "a paused sandbox's files survive the restart" "$(cat "$EL_BODY_FILE")" "paused one"
el_req POST "/v2/sandboxes/$R/connect" '{}' >/dev/null
el_envd "$R" "$TR" GET '/files?path=/home/user/work/r.txt' >/dev/null
t_eq "a running sandbox's files survive the restart" "$(cat "$EL_BODY_FILE")" "running one"
el_rpc "$R" "$TR" process.Process/List '{}' >/dev/null
t_eq "it resumes cold: no process" "$(el_json '.processes | length')" 0
out=$(el_run "$R" "$TR" 'cat /home/user/work/r.txt')
t_contains "processes start again after a cold resume" "$out" "stdout running one"

# --- scale: 1,000 sandboxes, no process each -------------------------------------------------
cfg=$T_TMP/create.cfg
for ((i = 0; i < 1000; i++)); do
    printf 'url = "%s/v2/sandboxes"\nrequest = "POST"\nheader = "X-API-KEY: %s"\nheader = "Content-Type: application/json"\ndata = "{\\"metadata\\":{\\"batch\\":\\"k\\"}}"\noutput = "/dev/null"\nwrite-out = "%%{http_code}\\n"\n' \
        "$E2B_LOCAL_URL" "$E2B_LOCAL_KEY"
    [ "$i" -lt 999 ] && echo next
done >"$cfg"
start=$(date +%s%N)
created=$(curl -s -K "$cfg" | grep -c '^201$')
ms=$((($(date +%s%N) - start) / 1000000))
echo "created 1000 sandboxes in $ms ms"
t_eq "1,000 sandboxes are created" "$created" 1000
t_ok "creating 1,000 sandboxes takes seconds, not minutes (${ms} ms < 60000)" test "$ms" -lt 60000
t_eq "sandboxes without processes cost no process (only R has a holder: bwrap and its pid 1)" "$(pgrep -f "bwrap.*$E2B_LOCAL_STATE" | wc -l)" 2
start=$(date +%s%N)
el_req GET '/v2/sandboxes?limit=100' >/dev/null
ms=$((($(date +%s%N) - start) / 1000000))
echo "listed a page of 1000+ sandboxes in $ms ms"
t_eq "listing 1,000 sandboxes pages at 100" "$(el_json length)" 100
t_eq "X-Total-Running counts them all" "$(el_header X-Total-Running)" 1002
e2b_local_stop
t_eq "SIGTERM with 1,000 sandboxes: exit 0" "$?" 0
t_eq "no process is left behind" "$(pgrep -f "bwrap.*$E2B_LOCAL_STATE" | wc -l)" 0
t_finish
