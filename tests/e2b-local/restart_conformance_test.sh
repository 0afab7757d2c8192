#!/usr/bin/env bash
# State survives a restart of e2b-local (issue 3): a paused sandbox keeps its files and
# metadata; a running one comes back paused and resumes cold (files kept, processes gone);
# secrets stay. Resource hygiene: SIGTERM leaves no sandbox process and no mount behind.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/e2b_sdk.sh"

STATE=$T_TMP/state
MARK=restart-mark-$$-$RANDOM
if ! e2bl_start "$STATE"; then t_fail "restart: e2b-local starts" "no listening line"; t_finish; fi

detach() {
    python3 "$E2BL_CONNECT_PY" stream --port "$E2BL_PORT" --sandbox "$1" --token "$2" \
        --close-after-start --body "$3" | sed -n 's/^MSG //p' | head -n1 | jq -r '.event.start.pid // empty'
}
put() { e2bl_envd "$1" "$2" POST "/files?path=$3" -H 'Content-Type: application/octet-stream' --data-binary "$4"; }
mounts_under() { grep -F -- " $1" /proc/self/mountinfo | wc -l; }

e2bl_create '{"templateID":"base","metadata":{"role":"paused-one"}}'; P=$SBX_ID PTOK=$SBX_TOKEN
e2bl_create '{"templateID":"base","metadata":{"role":"running-one"},"timeout":600}'; R=$SBX_ID RTOK=$SBX_TOKEN
e2bl_create '{"templateID":"base","metadata":{"role":"killed-one"}}'; K=$SBX_ID KTOK=$SBX_TOKEN
put "$P" "$PTOK" /home/user/p.txt "paused-$MARK"
put "$R" "$RTOK" /home/user/r.txt "running-$MARK"
put "$K" "$KTOK" /home/user/k.txt "killed-$MARK"
e2bl_run "$P" "$PTOK" "mkdir -p /home/user/deep/er && echo via-process > /home/user/deep/er/x"
detach "$P" "$PTOK" "{\"process\":{\"cmd\":\"/bin/sleep\",\"args\":[\"600\"],\"envs\":{\"M\":\"$MARK-p\"}}}" >/dev/null
rpid=$(detach "$R" "$RTOK" "{\"process\":{\"cmd\":\"/bin/sleep\",\"args\":[\"600\"],\"envs\":{\"M\":\"$MARK-r\"}},\"tag\":\"survivor\"}")
e2bl_api POST "/sandboxes/$P/pause"
t_eq "restart: pause before the restart" "$E2BL_STATUS" 204
e2bl_api DELETE "/sandboxes/$K"
e2bl_api POST /secrets -H 'Content-Type: application/json' --data-binary '{"name":"kept-secret","value":"v-'"$MARK"'","metadata":{"a":"b"}}'
t_eq "restart: secret created" "$E2BL_STATUS" 201

host_pids=$(e2bl_pids_with "$MARK" | paste -sd' ')
t_ok "restart: the sandbox processes are visible on the host before SIGTERM" test -n "$host_pids"

# --- SIGTERM: no process, no mount left ---
if e2bl_stop; then t_pass "restart: SIGTERM stops e2b-local within 15 s"; else t_fail "restart: SIGTERM stops e2b-local within 15 s" "had to SIGKILL"; fi
t_eq "restart: e2b-local exits 0 on SIGTERM" "$E2BL_LAST_EXIT" 0
nothing_left() { [ -z "$(e2bl_pids_with "$MARK")" ]; }
if e2bl_poll 5 nothing_left; then t_pass "restart: no sandbox process survives SIGTERM (running or paused)"
else t_fail "restart: no sandbox process survives SIGTERM (running or paused)" "left: $(e2bl_pids_with "$MARK" | paste -sd' ')"; fi
t_eq "restart: no mount under the state dir is left" "$(mounts_under "$STATE")" 0
t_eq "restart: no process has its root in the state dir" "$(e2bl_pids_rooted_in "$STATE" | paste -sd' ')" ""

# --- restart on the same state dir ---
if ! e2bl_start "$STATE"; then t_fail "restart: e2b-local restarts on the same state" "no listening line"; t_finish; fi
e2bl_api GET "/sandboxes/$P"
t_eq "restart: the paused sandbox is still paused, metadata kept" "$E2BL_STATUS $(e2bl_jq -r '.state, .metadata.role' | paste -sd' ')" "200 paused paused-one"
e2bl_api GET "/sandboxes/$R"
t_eq "restart: the running sandbox comes back paused" "$E2BL_STATUS $(e2bl_jq -r '.state, .metadata.role' | paste -sd' ')" "200 paused running-one"
e2bl_api GET "/sandboxes/$K"
t_eq "restart: the killed sandbox stays gone" "$E2BL_STATUS" 404
e2bl_api GET /v2/sandboxes
t_eq "restart: the list has exactly the two survivors" "$(e2bl_jq -r '[.[].sandboxID]|sort|join(" ")')" "$(printf '%s\n' "$P" "$R" | sort | paste -sd' ')"
e2bl_api GET /secrets/kept-secret
t_eq "restart: secrets survive" "$E2BL_STATUS $(e2bl_jq -c .metadata)" '200 {"a":"b"}'
t_eq "restart: nothing was started for paused sandboxes" "$(e2bl_pids_with "$MARK" | paste -sd' ')" ""

e2bl_api POST "/v2/sandboxes/$P/connect" -H 'Content-Type: application/json' --data-binary '{}'
t_eq "restart: connect to the paused sandbox is 201" "$E2BL_STATUS" 201
PTOK=$(e2bl_jq -r .envdAccessToken)
e2bl_envd "$P" "$PTOK" GET /files?path=/home/user/p.txt
t_eq "restart: the paused sandbox's uploaded file is kept" "$E2BL_STATUS $E2BL_BODY" "200 paused-$MARK"
e2bl_run "$P" "$PTOK" "cat /home/user/deep/er/x"
t_eq "restart: a file a process wrote is kept" "$RUN_OUT" via-process

e2bl_api POST "/v2/sandboxes/$R/connect" -H 'Content-Type: application/json' --data-binary '{}'
t_eq "restart: connect to the formerly running sandbox is 201" "$E2BL_STATUS" 201
RTOK=$(e2bl_jq -r .envdAccessToken)
e2bl_envd "$R" "$RTOK" GET /files?path=/home/user/r.txt
t_eq "restart: it resumes cold with its files" "$E2BL_STATUS $E2BL_BODY" "200 running-$MARK"
e2bl_rpc "$R" "$RTOK" process.Process/List '{}'
t_eq "restart: ... and without its old processes" "$E2BL_STATUS $(e2bl_jq '[.processes[]? | select(.tag=="survivor" or .pid=='"${rpid:-0}"')] | length')" "200 0"
e2bl_run "$R" "$RTOK" 'echo alive'
t_eq "restart: new processes run after a cold resume" "$RUN_OUT" alive

e2bl_create '{"templateID":"base"}'
t_eq "restart: new sandboxes can be created after a restart" "$E2BL_STATUS" 201
t_not_contains "restart: new ids do not collide with restored ones" "$P $R $K" "$SBX_ID"

t_ok "restart: before the kill the paused sandbox's files are in the state dir" grep -rqF -- "paused-$MARK" "$STATE"
e2bl_api DELETE "/sandboxes/$P"
gone() { [ -d "$STATE" ] && ! grep -rqF -- "paused-$MARK" "$STATE"; }
if e2bl_poll 10 gone; then t_pass "restart: kill deletes the paused sandbox's files"
else t_fail "restart: kill deletes the paused sandbox's files" "still in $(grep -rlF -- "paused-$MARK" "$STATE" | head -n3)"; fi

# A second stop with live processes again: everything goes.
detach "$R" "$RTOK" "{\"process\":{\"cmd\":\"/bin/sleep\",\"args\":[\"600\"],\"envs\":{\"M\":\"$MARK-2\"}}}" >/dev/null
e2bl_stop
if e2bl_poll 5 nothing_left; then t_pass "restart: the second SIGTERM leaves no process either"
else t_fail "restart: the second SIGTERM leaves no process either" "left: $(e2bl_pids_with "$MARK" | paste -sd' ')"; fi
t_eq "restart: no mount left after the second stop" "$(mounts_under "$STATE")" 0
t_finish
