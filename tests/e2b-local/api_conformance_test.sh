#!/usr/bin/env bash
# Control-plane conformance of e2b-local, checked with curl against the protocol reference
# (§1): auth, the Error body, create/detail fields, pause/connect/kill state changes and
# their status codes, timeout, metrics, logs, network, templates, secrets, the request log.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/e2b_sdk.sh"

if ! e2bl_start "$T_TMP/state"; then t_fail "api: e2b-local starts" "no listening line"; t_finish; fi

# is_error_body STATUS: the last body is {"code": STATUS, "message": non-empty string}.
is_error_body() {
    e2bl_jq -e --argjson s "$1" '(.code == $s) and (.message | type == "string" and length > 0)' >/dev/null
}
# expect_error NAME STATUS: checks the status and the Error body of the last call.
expect_error() {
    if [ "$E2BL_STATUS" = "$2" ] && is_error_body "$2"; then t_pass "$1"; else
        t_fail "$1" "status $E2BL_STATUS body $(printf '%s' "$E2BL_BODY" | head -c 200), want $2 with {code:$2,message}"; fi
}
# rfc3339_epoch TEXT: seconds since the epoch, or nothing when TEXT is not RFC 3339.
rfc3339_epoch() {
    python3 -c 'import sys,datetime
s=sys.argv[1]
try:
    print(int(datetime.datetime.fromisoformat(s.replace("Z","+00:00")).timestamp()))
except Exception: pass' "$1"
}

# --- authentication ---
e2bl_api_nokey GET /v2/sandboxes
expect_error "api: missing X-API-KEY is 401 with the Error body" 401
e2bl_api_nokey GET /v2/sandboxes -H "X-API-KEY: e2b_wrong_key"
expect_error "api: wrong X-API-KEY is 401 with the Error body" 401
e2bl_api_nokey POST /v2/sandboxes -H "X-API-KEY: ${E2BL_KEY}x" -H 'Content-Type: application/json' \
    --data-binary '{"templateID":"base"}'
expect_error "api: create with a wrong key is 401" 401
e2bl_api_nokey GET /secrets -H "X-API-KEY: "
expect_error "api: empty X-API-KEY on /secrets is 401" 401
e2bl_api GET /v2/sandboxes
t_eq "api: a rejected create created nothing" "$E2BL_STATUS $(e2bl_jq 'length')" "200 0"

# --- create ---
e2bl_create '{"templateID":"base","metadata":{"who":"api","n":"1"},"timeout":120,"envVars":{"A":"1"}}'
t_eq "api: create answers 201" "$E2BL_STATUS" 201
A=$SBX_ID ATOK=$SBX_TOKEN
created=$E2BL_BODY
if jtest "$created" '(.sandboxID|type=="string" and length>0) and .templateID=="base"
    and (.envdVersion|test("^[0-9]+\\.[0-9]+\\.[0-9]+")) and (.envdAccessToken|type=="string" and length>=8)' >/dev/null; then
    t_pass "api: create body has sandboxID, templateID, envdVersion, envdAccessToken"
else t_fail "api: create body has sandboxID, templateID, envdVersion, envdAccessToken" "$created"; fi
ver=$(printf '%s' "$created" | jq -r .envdVersion)
if printf '%s\n%s\n' 0.1.0 "$ver" | sort -C -V; then t_pass "api: envdVersion is at least 0.1.0 (else the SDK kills the sandbox)"
else t_fail "api: envdVersion is at least 0.1.0 (else the SDK kills the sandbox)" "$ver"; fi
ct=$(e2bl_header Content-Type)
t_contains "api: create answers application/json" "$ct" "application/json"

e2bl_create '{"templateID":"opencode"}'
t_eq "api: the opencode template exists" "$E2BL_STATUS $(e2bl_jq .templateID)" "201 opencode"
OC=$SBX_ID

e2bl_api POST /v2/sandboxes -H 'Content-Type: application/json' --data-binary '{"templateID":'
expect_error "api: malformed JSON on create is 400" 400

# --- detail ---
e2bl_api GET "/sandboxes/$A"
detail=$E2BL_BODY
t_eq "api: GET /sandboxes/{id} is 200" "$E2BL_STATUS" 200
if jtest "$detail" --arg id "$A" '.sandboxID==$id and .templateID=="base" and .state=="running"
    and (.cpuCount|type=="number") and (.memoryMB|type=="number") and (.envdVersion|type=="string")
    and .metadata=={"who":"api","n":"1"}' >/dev/null; then
    t_pass "api: detail has id, template, state, cpuCount, memoryMB, envdVersion, metadata"
else t_fail "api: detail has id, template, state, cpuCount, memoryMB, envdVersion, metadata" "$detail"; fi
st=$(rfc3339_epoch "$(printf '%s' "$detail" | jq -r .startedAt)")
en=$(rfc3339_epoch "$(printf '%s' "$detail" | jq -r .endAt)")
if [ -n "$st" ] && [ -n "$en" ] && [ $((en - st)) -ge 115 ] && [ $((en - st)) -le 125 ]; then
    t_pass "api: startedAt/endAt are RFC 3339 and 120 s apart"
else t_fail "api: startedAt/endAt are RFC 3339 and 120 s apart" "startedAt/endAt $(printf '%s' "$detail" | jq -c '[.startedAt,.endAt]')"; fi
e2bl_api GET /sandboxes/inosuchsandbox0000
expect_error "api: detail of an unknown id is 404" 404

e2bl_api GET /v2/sandboxes
t_not_contains "api: the list never returns the envd access token" "$E2BL_BODY" "$ATOK"

# --- timeout ---
e2bl_api POST "/sandboxes/$A/timeout" -H 'Content-Type: application/json' --data-binary '{"timeout":30}'
t_eq "api: POST /sandboxes/{id}/timeout is 204" "$E2BL_STATUS" 204
e2bl_api GET "/sandboxes/$A"
left=$(( $(rfc3339_epoch "$(e2bl_jq .endAt)") - $(date +%s) ))
if [ "$left" -ge 20 ] && [ "$left" -le 35 ]; then t_pass "api: timeout 30 moves endAt to now + 30 s"
else t_fail "api: timeout 30 moves endAt to now + 30 s" "endAt is $left s away"; fi
e2bl_api POST /sandboxes/inosuchsandbox0000/timeout -H 'Content-Type: application/json' --data-binary '{"timeout":30}'
expect_error "api: timeout of an unknown id is 404" 404

# --- pause / connect / kill ---
e2bl_api POST "/sandboxes/$A/pause" -H 'Content-Type: application/json' --data-binary '{}'
t_eq "api: pause is 204" "$E2BL_STATUS" 204
e2bl_api GET "/sandboxes/$A"
t_eq "api: a paused sandbox shows state paused" "$E2BL_STATUS $(e2bl_jq .state)" "200 paused"
e2bl_api POST "/sandboxes/$A/pause"
expect_error "api: pausing a paused sandbox is 409" 409
e2bl_api POST "/v2/sandboxes/$A/connect" -H 'Content-Type: application/json' --data-binary '{"timeout":60}'
t_eq "api: connect to a paused sandbox is 201 (resumed)" "$E2BL_STATUS" 201
if e2bl_jq -e --arg id "$A" '.sandboxID==$id and (.envdAccessToken|type=="string" and length>0) and (.envdVersion|length>0)' >/dev/null; then
    t_pass "api: connect returns the Sandbox object with a token"
else t_fail "api: connect returns the Sandbox object with a token" "$E2BL_BODY"; fi
ATOK=$(e2bl_jq .envdAccessToken)
e2bl_api GET "/sandboxes/$A"
t_eq "api: after connect the sandbox is running" "$(e2bl_jq .state)" running
e2bl_api POST "/sandboxes/$A/timeout" -H 'Content-Type: application/json' --data-binary '{"timeout":200}'
e2bl_api POST "/v2/sandboxes/$A/connect" -H 'Content-Type: application/json' --data-binary '{"timeout":10}'
t_eq "api: connect to a running sandbox is 200" "$E2BL_STATUS" 200
e2bl_api GET "/sandboxes/$A"
left=$(( $(rfc3339_epoch "$(e2bl_jq .endAt)") - $(date +%s) ))
if [ "$left" -ge 180 ]; then t_pass "api: connect never shortens the lifetime"
else t_fail "api: connect never shortens the lifetime" "endAt is $left s away after timeout 200 then connect 10"; fi
e2bl_api POST /v2/sandboxes/inosuchsandbox0000/connect -H 'Content-Type: application/json' --data-binary '{}'
expect_error "api: connect to an unknown id is 404" 404
e2bl_api POST /sandboxes/inosuchsandbox0000/pause
expect_error "api: pause of an unknown id is 404" 404

# --- metrics and logs ---
e2bl_api GET "/sandboxes/$A/metrics"
if [ "$E2BL_STATUS" = 200 ] && e2bl_jq -e 'type=="array" and all(.[]; (.timestampUnix|type=="number")
        and (.cpuCount|type=="number") and (.memTotal|type=="number") and (.cpuUsedPct|type=="number"))' >/dev/null; then
    t_pass "api: GET /sandboxes/{id}/metrics is an array of SandboxMetric"
else t_fail "api: GET /sandboxes/{id}/metrics is an array of SandboxMetric" "status $E2BL_STATUS $E2BL_BODY"; fi
e2bl_api GET /sandboxes/inosuchsandbox0000/metrics
expect_error "api: metrics of an unknown id is 404" 404
e2bl_api GET "/sandboxes/metrics?sandbox_ids=$A,$OC"
if [ "$E2BL_STATUS" = 200 ] && e2bl_jq -e --arg a "$A" '(.sandboxes|type=="object") and
        ((.sandboxes|length)==0 or (.sandboxes[$a].cpuCount|type=="number"))' >/dev/null; then
    t_pass "api: GET /sandboxes/metrics answers {sandboxes:{id:metric}}"
else t_fail "api: GET /sandboxes/metrics answers {sandboxes:{id:metric}}" "status $E2BL_STATUS $E2BL_BODY"; fi
ids=$(seq -f 'i%g' 1 101 | paste -sd, -)
e2bl_api GET "/sandboxes/metrics?sandbox_ids=$ids"
expect_error "api: more than 100 sandbox_ids is 400" 400
e2bl_api GET "/v2/sandboxes/$A/logs"
if [ "$E2BL_STATUS" = 200 ] && e2bl_jq -e '.logs|type=="array"' >/dev/null; then
    t_pass "api: GET /v2/sandboxes/{id}/logs answers {logs:[...]}"
else t_fail "api: GET /v2/sandboxes/{id}/logs answers {logs:[...]}" "status $E2BL_STATUS $E2BL_BODY"; fi
e2bl_api GET /v2/sandboxes/inosuchsandbox0000/logs
expect_error "api: logs of an unknown id is 404" 404

# --- network rules are stored and returned ---
e2bl_create '{"templateID":"base","network":{"allowOut":["api.example.com"],"denyOut":["0.0.0.0/0"],"rules":{"api.example.com":[{"transform":{"headers":{"Authorization":"Bearer ${e2b.secrets.k}"}}}]}}}'
N=$SBX_ID
e2bl_api GET "/sandboxes/$N"
if e2bl_jq -e '.network.allowOut==["api.example.com"] and .network.denyOut==["0.0.0.0/0"]' >/dev/null; then
    t_pass "api: network from create is returned by GET /sandboxes/{id}"
else t_fail "api: network from create is returned by GET /sandboxes/{id}" "$E2BL_BODY"; fi
e2bl_api PUT "/sandboxes/$N/network" -H 'Content-Type: application/json' --data-binary '{"allowOut":["10.1.2.3"]}'
t_eq "api: PUT /sandboxes/{id}/network is 204" "$E2BL_STATUS" 204
e2bl_api GET "/sandboxes/$N"
if e2bl_jq -e '.network.allowOut==["10.1.2.3"] and ((.network.denyOut // []) | length == 0)' >/dev/null; then
    t_pass "api: PUT network replaces the whole egress config"
else t_fail "api: PUT network replaces the whole egress config" "$E2BL_BODY"; fi
e2bl_api PUT /sandboxes/inosuchsandbox0000/network -H 'Content-Type: application/json' --data-binary '{}'
expect_error "api: PUT network of an unknown id is 404" 404

# --- templates ---
e2bl_api GET /templates
for t in base opencode; do
    if [ "$E2BL_STATUS" = 200 ] && e2bl_jq -e --arg t "$t" 'type=="array" and any(.[]; .templateID==$t or ((.aliases // []) | index($t)) != null)' >/dev/null; then
        t_pass "api: GET /templates lists $t"
    else t_fail "api: GET /templates lists $t" "status $E2BL_STATUS $(printf '%s' "$E2BL_BODY" | head -c 300)"; fi
done

# --- kill ---
e2bl_api DELETE "/sandboxes/$A"
t_eq "api: kill is 204" "$E2BL_STATUS" 204
e2bl_api GET "/sandboxes/$A"
expect_error "api: detail after kill is 404" 404
e2bl_api DELETE "/sandboxes/$A"
expect_error "api: a second kill is 404" 404
e2bl_api POST "/v2/sandboxes/$A/connect" -H 'Content-Type: application/json' --data-binary '{}'
expect_error "api: connect after kill is 404" 404
e2bl_api GET /v2/sandboxes
if e2bl_jq -e --arg a "$A" 'all(.[]; .sandboxID != $a)' >/dev/null; then t_pass "api: a killed sandbox leaves the list"
else t_fail "api: a killed sandbox leaves the list" "$E2BL_BODY"; fi
e2bl_api POST "/sandboxes/$OC/pause"
e2bl_api DELETE "/sandboxes/$OC"
t_eq "api: killing a paused sandbox is 204" "$E2BL_STATUS" 204

# --- secrets ---
SECRET_VALUE="sk-api-conformance-$RANDOM$RANDOM-value"
e2bl_api POST /secrets -H 'Content-Type: application/json' \
    --data-binary "{\"name\":\"openai-key\",\"value\":\"$SECRET_VALUE\",\"metadata\":{\"env\":\"test\"}}"
sec=$E2BL_BODY
t_eq "api: POST /secrets is 201" "$E2BL_STATUS" 201
if jtest "$sec" '(.secretID|type=="string" and length>0) and .name=="openai-key" and .currentVersion==1
        and .metadata=={"env":"test"} and (.createdAt|type=="string") and (.updatedAt|type=="string")' >/dev/null; then
    t_pass "api: the Secret object has secretID, name, currentVersion 1, metadata, dates"
else t_fail "api: the Secret object has secretID, name, currentVersion 1, metadata, dates" "$sec"; fi
SID=$(printf '%s' "$sec" | jq -r .secretID)
t_not_contains "api: create never returns the secret value" "$sec" "$SECRET_VALUE"
e2bl_api POST /secrets -H 'Content-Type: application/json' --data-binary '{"name":"openai-key","value":"x"}'
expect_error "api: a duplicate secret name is 409" 409
e2bl_api POST /secrets -H 'Content-Type: application/json' --data-binary '{"name":"bad{name}","value":"x"}'
expect_error "api: a secret name with braces is 400" 400
e2bl_api POST /secrets -H 'Content-Type: application/json' --data-binary '{"name":"no-meta","value":"y"}'
t_eq "api: metadata is always present (empty object) on a secret" "$(e2bl_jq -c .metadata)" "{}"
e2bl_api POST /secrets -H 'Content-Type: application/json' --data-binary '{"name":"third","value":"z"}'
e2bl_api GET '/secrets?limit=2'
t_eq "api: GET /secrets?limit=2 gives a page of 2" "$E2BL_STATUS $(e2bl_jq length)" "200 2"
tok=$(e2bl_header X-Next-Token)
page1=$(e2bl_jq -c '[.[].name]')
if [ -n "$tok" ]; then
    e2bl_api GET "/secrets?limit=2&nextToken=$(jq -rn --arg t "$tok" '$t|@uri')"
    all=$(jq -cn --argjson a "$page1" --argjson b "$(e2bl_jq -c '[.[].name]')" '$a+$b|sort')
    t_eq "api: secrets paginate with X-Next-Token, no duplicates" "$all $(e2bl_header X-Next-Token)" '["no-meta","openai-key","third"] '
else t_fail "api: secrets paginate with X-Next-Token, no duplicates" "no X-Next-Token on a page of 2 of 3"; fi
e2bl_api GET /secrets
t_not_contains "api: the secret list never returns values" "$E2BL_BODY" "$SECRET_VALUE"
e2bl_api GET /secrets/openai-key
t_eq "api: GET /secrets/{name}" "$E2BL_STATUS $(e2bl_jq .secretID)" "200 $SID"
e2bl_api GET "/secrets/$SID"
t_eq "api: GET /secrets/{id}" "$E2BL_STATUS $(e2bl_jq .name)" "200 openai-key"
e2bl_api POST /secrets/openai-key -H 'Content-Type: application/json' \
    --data-binary "{\"value\":\"$SECRET_VALUE-2\",\"metadata\":{\"env\":\"prod\"}}"
t_eq "api: update is 200 with version 2 and replaced metadata" "$E2BL_STATUS $(e2bl_jq -c '[.currentVersion,.metadata]')" '200 [2,{"env":"prod"}]'
e2bl_api POST /secrets/no-such-secret -H 'Content-Type: application/json' --data-binary '{"value":"v"}'
expect_error "api: update of an unknown secret is 404" 404
# At rest: the values may only live in files nobody else can read.
bad="" held=0
while IFS= read -r f; do
    held=$((held + 1))
    mode=$(stat -c %a "$f")
    [ "$mode" = 600 ] || bad="$bad $f($mode)"
done < <(grep -rlF -- "$SECRET_VALUE" "$E2BL_STATE")
t_ok "api: the scan finds the secret value at rest in the state dir" test "$held" -ge 1
t_eq "api: secret values are only in 0600 files of the state dir" "$bad" ""
e2bl_api DELETE /secrets/openai-key
t_eq "api: DELETE /secrets/{name} is 204" "$E2BL_STATUS" 204
e2bl_api DELETE /secrets/openai-key
expect_error "api: a second delete is 404" 404
e2bl_api GET "/secrets/$SID"
expect_error "api: a deleted secret is 404" 404

# --- the request log ---
logs=$(find "$E2BL_STATE" -maxdepth 2 -type f -name '*log*' 2>/dev/null)
if [ -n "$logs" ] && grep -q '/v2/sandboxes' $logs; then t_pass "api: requests are logged to a file in the state dir"
else t_fail "api: requests are logged to a file in the state dir" "no *log* file naming /v2/sandboxes under the state dir"; fi
leaked=""
for needle in "$E2BL_KEY" "$SECRET_VALUE" "$ATOK"; do
    [ -n "$needle" ] && [ -n "$logs" ] && grep -qF -- "$needle" $logs && leaked="$leaked ${needle:0:6}..."
done
if [ -n "$logs" ] && [ -z "$leaked" ]; then
    t_pass "api: the request log holds no API key, token or secret value"
else t_fail "api: the request log holds no API key, token or secret value" "found$leaked in $logs"; fi

# --- timeout expiry: autoPause pauses, otherwise kill ---
e2bl_create '{"templateID":"base","timeout":1,"autoPause":true,"metadata":{"exp":"pause"}}'; EP=$SBX_ID
e2bl_api GET "/sandboxes/$EP"
t_eq "api: lifecycle shows onTimeout pause" "$(e2bl_jq '.lifecycle.onTimeout')" pause
e2bl_create '{"templateID":"base","timeout":1,"metadata":{"exp":"kill"}}'; EK=$SBX_ID
e2bl_api GET "/sandboxes/$EK"
t_eq "api: lifecycle defaults to onTimeout kill" "$(e2bl_jq '.lifecycle.onTimeout')" kill
expired_paused() { e2bl_api GET "/sandboxes/$EP"; [ "$(e2bl_jq -r .state)" = paused ]; }
expired_killed() { e2bl_api GET "/sandboxes/$EK"; [ "$E2BL_STATUS" = 404 ]; }
if e2bl_poll 20 expired_paused; then t_pass "api: timeout expiry with autoPause pauses"
else t_fail "api: timeout expiry with autoPause pauses" "state $(e2bl_jq -r .state) 20 s after a 1 s timeout"; fi
if e2bl_poll 20 expired_killed; then t_pass "api: timeout expiry without autoPause kills"
else t_fail "api: timeout expiry without autoPause kills" "status $E2BL_STATUS 20 s after a 1 s timeout"; fi
e2bl_api POST "/v2/sandboxes/$EP/connect" -H 'Content-Type: application/json' --data-binary '{"timeout":60}'
t_eq "api: an auto-paused sandbox resumes with connect (201)" "$E2BL_STATUS" 201

# Last, because it once crashed the server (FINDINGS.md).
e2bl_api POST /v2/sandboxes -H 'Content-Type: application/json' --data-binary '{"templateID":"no-such-template-xyz"}'
if { [ "$E2BL_STATUS" = 400 ] || [ "$E2BL_STATUS" = 404 ]; } && is_error_body "$E2BL_STATUS"; then
    t_pass "api: unknown template is a 400/404 Error"
else t_fail "api: unknown template is a 400/404 Error" "status $E2BL_STATUS body $E2BL_BODY"; fi
e2bl_api GET /v2/sandboxes
t_eq "api: the server still answers after an unknown template" "$E2BL_STATUS" 200

if e2bl_stop; then t_pass "api: e2b-local stops on SIGTERM"; else t_fail "api: e2b-local stops on SIGTERM" "still running after 15 s"; fi
t_finish
