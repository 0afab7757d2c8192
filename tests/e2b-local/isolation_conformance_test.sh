#!/usr/bin/env bash
# Sandboxes are real and isolated (issue 3): the same absolute path holds different files
# in two sandboxes and on the host, processes of one sandbox are invisible in another, two
# sandboxes listen on the same port, a background server survives its stream being closed
# and is reached through the port proxy (Host: <port>-<id>.<domain> and the headers), the
# proxy streams both ways, answers 502 when paused/closed, and pause really freezes.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/e2b_sdk.sh"

if ! e2bl_start "$T_TMP/state"; then t_fail "iso: e2b-local starts" "no listening line"; t_finish; fi
e2bl_create || { t_fail "iso: create" "status $E2BL_STATUS $E2BL_BODY"; t_finish; }
A=$SBX_ID ATOK=$SBX_TOKEN
e2bl_create || { t_fail "iso: create" "status $E2BL_STATUS"; t_finish; }
B=$SBX_ID BTOK=$SBX_TOKEN
MARK=iso-mark-$$-$RANDOM
# The in-box server script has a name of this run (not the mark: A alone carries that),
# so the checks for leftover processes see this run's only, not another test run's.
SRVPATH=/home/user/srv-$$-$RANDOM.py

# proxy PORT ID PATH [curl args]: a request to a sandbox port through the Host form.
proxy() {
    local port=$1 id=$2 path=$3; shift 3
    _e2bl_curl -H "Host: $port-$id.$E2BL_DOMAIN" "$@" "$E2BL_URL$path"
}
# detach ID TOKEN JSON: Process/Start, read the start event, close the stream at once.
detach() {
    python3 "$E2BL_CONNECT_PY" stream --port "$E2BL_PORT" --sandbox "$1" --token "$2" \
        --close-after-start --body "$3" | sed -n 's/^MSG //p' | head -n1 | jq -r '.event.start.pid // empty'
}
proxy_ok() { proxy "$@"; [ "$E2BL_STATUS" = 200 ]; }

# --- the same absolute path: two sandboxes and the host ---
SAME=$T_TMP/iso/same.txt
mkdir -p "$T_TMP/iso" && printf host >"$SAME"
e2bl_envd "$A" "$ATOK" POST "/files?path=$SAME" -H 'Content-Type: application/octet-stream' --data-binary in-A
e2bl_envd "$B" "$BTOK" POST "/files?path=$SAME" -H 'Content-Type: application/octet-stream' --data-binary in-B
e2bl_envd "$A" "$ATOK" GET "/files?path=$SAME"; a=$E2BL_BODY
e2bl_envd "$B" "$BTOK" GET "/files?path=$SAME"; b=$E2BL_BODY
t_eq "iso: one absolute path, three files (A, B, host)" "$a $b $(cat "$SAME")" "in-A in-B host"
e2bl_run "$A" "$ATOK" "cat $SAME; echo made-by-A > $T_TMP/iso/cmd.txt; echo root > /$MARK.txt"
t_eq "iso: a process in A sees A's file" "$RUN_OUT" in-A
if [ ! -e "$T_TMP/iso/cmd.txt" ] && [ ! -e "/$MARK.txt" ]; then t_pass "iso: writes by a process in A (even at /) never reach the host"
else t_fail "iso: writes by a process in A (even at /) never reach the host" "host has $T_TMP/iso/cmd.txt or /$MARK.txt"; rm -f "/$MARK.txt"; fi
e2bl_run "$B" "$BTOK" "cat $T_TMP/iso/cmd.txt /$MARK.txt 2>&1 | head -c 200; true"
t_not_contains "iso: B does not see A's files" "$RUN_OUT" made-by-A
e2bl_run "$A" "$ATOK" "touch /usr/$MARK 2>/dev/null && echo writable; command -v git python3 tar bash | wc -l"
t_eq "iso: /usr is the host's, read-only, with git, python3, tar, bash" "$RUN_OUT" 4
e2bl_run "$A" "$ATOK" "for d in /home/user /tmp /; do touch \$d/w-$MARK && echo ok; done"
t_eq "iso: /home/user and /tmp are writable by user" "$(printf '%s\n' "$RUN_OUT" | head -n2 | paste -sd,)" "ok,ok"

# --- processes: pid namespace and Process/List ---
apid=$(detach "$A" "$ATOK" "{\"process\":{\"cmd\":\"/bin/sleep\",\"args\":[\"300\"],\"envs\":{\"M\":\"$MARK\"}},\"tag\":\"$MARK\"}")
t_ok "iso: a detached sleep started in A" test -n "$apid"
e2bl_run "$A" "$ATOK" "grep -l $MARK /proc/[0-9]*/environ 2>/dev/null | wc -l"
t_eq "iso: A sees its own process in /proc" "$RUN_OUT" 1
# (with the count of B's own processes the scan read: a /proc it cannot read shows nothing)
e2bl_run "$B" "$BTOK" "echo \$(cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c '^PATH=') \$(grep -l $MARK /proc/[0-9]*/environ 2>/dev/null | wc -l)"
t_ok "iso: B's /proc scan read B's own processes" test "${RUN_OUT%% *}" -ge 1
t_eq "iso: B's /proc does not show A's process (pid namespace)" "${RUN_OUT#* }" 0
e2bl_rpc "$B" "$BTOK" process.Process/List '{}'
t_eq "iso: B's Process/List does not show A's process" "$(e2bl_jq --arg m "$MARK" '[.processes[]? | select(.tag==$m)] | length')" 0
e2bl_rpc "$A" "$ATOK" process.Process/List '{}'
t_eq "iso: A's Process/List shows it" "$(e2bl_jq --arg m "$MARK" '[.processes[]? | select(.tag==$m) | .pid] | length')" 1
e2bl_rpc "$B" "$BTOK" process.Process/SendSignal "{\"process\":{\"pid\":$apid},\"signal\":\"SIGNAL_SIGKILL\"}"
e2bl_rpc "$A" "$ATOK" process.Process/List '{}'
t_eq "iso: B cannot signal A's process" "$(e2bl_jq --arg m "$MARK" '[.processes[]? | select(.tag==$m)] | length')" 1

# --- a background python3 -m http.server survives its stream being closed ---
e2bl_envd "$A" "$ATOK" POST "/files?path=/home/user/www/hello.txt" -H 'Content-Type: application/octet-stream' --data-binary hello-from-A
hpid=$(detach "$A" "$ATOK" '{"process":{"cmd":"/usr/bin/python3","args":["-m","http.server","8123","--bind","0.0.0.0","--directory","/home/user/www"]},"tag":"web"}')
if e2bl_poll 20 proxy_ok 8123 "$A" /hello.txt && [ "$E2BL_BODY" = hello-from-A ]; then
    t_pass "iso: python3 -m http.server keeps serving after its stream closed (Host: 8123-<id>.<domain>)"
else t_fail "iso: python3 -m http.server keeps serving after its stream closed (Host: 8123-<id>.<domain>)" "status $E2BL_STATUS $E2BL_BODY (pid $hpid)"; fi
_e2bl_curl -H "E2b-Sandbox-Id: $A" -H "E2b-Sandbox-Port: 8123" "$E2BL_URL/hello.txt"
t_eq "iso: the proxy also routes by E2b-Sandbox-Id/E2b-Sandbox-Port" "$E2BL_STATUS $E2BL_BODY" "200 hello-from-A"
proxy 8124 "$A" /hello.txt
t_eq "iso: a closed port is 502 with the proxy's JSON body" "$E2BL_STATUS $(e2bl_jq .code)" "502 502"
proxy 8123 inosuchsandbox0000 /hello.txt
t_eq "iso: an unknown sandbox is 502 with the proxy's JSON body" "$E2BL_STATUS $(e2bl_jq .code)" "502 502"

# --- two sandboxes on the same port; streaming both ways through the proxy ---
SRV=$E2B_TUI_ROOT/tests/e2b-local/sdk/sandbox_server.py
for s in A B; do
    id=${!s}; tokv=${s}TOK; tok=${!tokv}
    e2bl_envd "$id" "$tok" POST "/files?path=$SRVPATH" -H 'Content-Type: application/octet-stream' --data-binary @"$SRV"
    detach "$id" "$tok" "{\"process\":{\"cmd\":\"/usr/bin/python3\",\"args\":[\"$SRVPATH\",\"4096\",\"$s\"]}}" >/dev/null
done
e2bl_poll 20 proxy_ok 4096 "$A" /name; an=$E2BL_BODY
e2bl_poll 20 proxy_ok 4096 "$B" /name; bn=$E2BL_BODY
t_eq "iso: two sandboxes both listen on port 4096" "$an $bn" "A B"

head -c 3000000 /dev/urandom >"$T_TMP/up.bin"
want=$(sha256sum "$T_TMP/up.bin" | cut -d' ' -f1)
proxy 4096 "$A" /sha256 -X POST -H 'Expect:' -H 'Content-Type: application/octet-stream' --data-binary @"$T_TMP/up.bin"
t_eq "iso: a 3 MB request body passes through the proxy intact" "$E2BL_BODY" "$want"
# curl sends "Expect: 100-continue" for bodies over 1 MB, as many HTTP clients do.
E2BL_CURL_MAX=5 proxy 4096 "$A" /sha256 -X POST -H 'Content-Type: application/octet-stream' --data-binary @"$T_TMP/up.bin"
t_eq "iso: ... also with Expect: 100-continue" "$E2BL_STATUS $E2BL_BODY" "200 $want"

curl -sS -N --max-time 25 -H "Host: 4096-$A.$E2BL_DOMAIN" "$E2BL_URL/stream" >"$T_TMP/stream.out" 2>&1 &
cpid=$!
if e2bl_poll 10 grep -q first "$T_TMP/stream.out"; then
    t_pass "iso: the proxy forwards a response chunk before the response ends (event streams work)"
else t_fail "iso: the proxy forwards a response chunk before the response ends (event streams work)" "nothing within 10 s: $(head -c 200 "$T_TMP/stream.out")"; fi
e2bl_envd "$A" "$ATOK" POST "/files?path=/tmp/stream-go" -H 'Content-Type: application/octet-stream' --data-binary go
wait "$cpid"
t_eq "iso: the stream then completes" "$(cat "$T_TMP/stream.out")" $'first\nsecond'

# --- allowPublicTraffic false: ports need the traffic token ---
e2bl_create '{"templateID":"base","network":{"allowPublicTraffic":false}}'
C=$SBX_ID CTOK=$SBX_TOKEN
ttok=$(e2bl_jq -r '.trafficAccessToken // empty')
t_ok "iso: a private sandbox gets a trafficAccessToken" test -n "$ttok"
e2bl_envd "$C" "$CTOK" POST "/files?path=$SRVPATH" -H 'Content-Type: application/octet-stream' --data-binary @"$SRV"
detach "$C" "$CTOK" "{\"process\":{\"cmd\":\"/usr/bin/python3\",\"args\":[\"$SRVPATH\",\"4096\",\"C\"]}}" >/dev/null
e2bl_poll 20 proxy_ok 4096 "$C" /name -H "e2b-traffic-access-token: $ttok"
t_eq "iso: with e2b-traffic-access-token the private port answers" "$E2BL_STATUS $E2BL_BODY" "200 C"
proxy 4096 "$C" /name
t_eq "iso: without it the proxy answers 403 JSON" "$E2BL_STATUS $(e2bl_jq .code)" "403 403"
proxy 4096 "$C" /name -H "e2b-traffic-access-token: wrong$ttok"
t_eq "iso: a wrong traffic token is 403" "$E2BL_STATUS" 403
e2bl_envd "$C" "$CTOK" GET /health
t_eq "iso: envd never needs the traffic token" "$E2BL_STATUS" 204
e2bl_api DELETE "/sandboxes/$C"

# --- pause freezes, the proxy answers 502, connect thaws ---
detach "$A" "$ATOK" '{"process":{"cmd":"/bin/bash","args":["-c","while :; do date +%s.%N >> /home/user/ticks; sleep 0.05; done"]}}' >/dev/null
e2bl_poll 10 e2bl_run_ok "$A" "$ATOK" 'test -s /home/user/ticks'
e2bl_api POST "/sandboxes/$A/pause"
t_eq "iso: pause with running processes is 204" "$E2BL_STATUS" 204
t1=$(date +%s.%N)
proxy 8123 "$A" /hello.txt
t_eq "iso: the proxy answers 502 JSON for a paused sandbox" "$E2BL_STATUS $(e2bl_jq .code)" "502 502"
e2bl_envd "$A" "$ATOK" GET /health
t_eq "iso: envd of a paused sandbox is 502" "$E2BL_STATUS" 502
proxy 4096 "$B" /name
t_eq "iso: pausing A leaves B serving" "$E2BL_STATUS $E2BL_BODY" "200 B"
sleep 1.5   # the pause window whose absence of ticks is checked below
t2=$(date +%s.%N)
e2bl_api POST "/v2/sandboxes/$A/connect" -H 'Content-Type: application/json' --data-binary '{}'
t_eq "iso: connect resumes (201)" "$E2BL_STATUS" 201
ATOK=$(e2bl_jq -r .envdAccessToken)
e2bl_poll 10 e2bl_run_ok "$A" "$ATOK" 'true'
e2bl_envd "$A" "$ATOK" GET "/files?path=/home/user/ticks"
during=$(printf '%s\n' "$E2BL_BODY" | awk -v a="$t1" -v b="$t2" '$1 > a + 0.3 && $1 < b { n++ } END { print n + 0 }')
t_eq "iso: no process ran while paused (no ticks in the pause window)" "$during" 0
if e2bl_poll 10 proxy_ok 8123 "$A" /hello.txt && [ "$E2BL_BODY" = hello-from-A ]; then
    t_pass "iso: after connect the same server process answers again (thawed, not restarted)"
else t_fail "iso: after connect the same server process answers again (thawed, not restarted)" "status $E2BL_STATUS"; fi
e2bl_rpc "$A" "$ATOK" process.Process/List '{}'
t_eq "iso: the web server keeps its pid across pause" "$(e2bl_jq --argjson p "${hpid:-0}" '[.processes[]? | select(.pid==$p)] | length')" 1

# --- kill removes processes and files ---
e2bl_envd "$A" "$ATOK" POST "/files?path=/home/user/unique.txt" -H 'Content-Type: application/octet-stream' --data-binary "content-$MARK-A"
t_ok "iso: before the kill the file is in the state dir" grep -rqF -- "content-$MARK-A" "$E2BL_STATE"
e2bl_api DELETE "/sandboxes/$A"
t_eq "iso: kill is 204" "$E2BL_STATUS" 204
proxy 8123 "$A" /hello.txt
t_eq "iso: the proxy answers 502 after kill" "$E2BL_STATUS" 502
gone() { [ -z "$(e2bl_pids_with "$MARK")" ] && [ -d "$E2BL_STATE" ] && ! grep -rqF -- "content-$MARK-A" "$E2BL_STATE"; }
if e2bl_poll 10 gone; then t_pass "iso: kill leaves no process and no file of the sandbox"
else t_fail "iso: kill leaves no process and no file of the sandbox" "pids: $(e2bl_pids_with "$MARK" | paste -sd' ')"; fi
proxy 4096 "$B" /name
t_eq "iso: killing A leaves B serving" "$E2BL_STATUS $E2BL_BODY" "200 B"

if e2bl_stop; then t_pass "iso: e2b-local stops on SIGTERM"; else t_fail "iso: e2b-local stops on SIGTERM" "still running after 15 s"; fi
# The kernel tears a pid namespace down asynchronously: allow it a bounded moment.
no_srv() { [ -z "$(e2bl_pids_with "$SRVPATH")" ]; }
if e2bl_poll 5 no_srv; then t_pass "iso: no sandbox process survives SIGTERM"
else t_fail "iso: no sandbox process survives SIGTERM" "left: $(for p in $(e2bl_pids_with "$SRVPATH"); do ps -o pid=,ppid=,stat=,cmd= -p $p; done | head -c 600)"; fi
t_finish
