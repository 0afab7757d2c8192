#!/usr/bin/env bash
# Control plane of e2b-local over HTTP: auth, create/list/get/kill, pagination, metadata
# filters, pause/connect, timeout, metrics, logs, network, templates, secrets.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
e2b_local_start || t_finish

# --- auth ----------------------------------------------------------------------------------
code=$(curl -s -o "$EL_BODY_FILE" -w '%{http_code}' "$E2B_LOCAL_URL/v2/sandboxes")
t_eq "missing X-API-KEY is 401" "$code" 401
t_eq "401 carries the Error body" "$(el_json .code)" 401
code=$(curl -s -o "$EL_BODY_FILE" -w '%{http_code}' -H 'X-API-KEY: wrong' "$E2B_LOCAL_URL/v2/sandboxes")
t_eq "wrong X-API-KEY is 401" "$code" 401
t_contains "401 message says what is wrong" "$(el_json .message)" "API key"

# --- create / get -----------------------------------------------------------------------------
code=$(el_req POST /v2/sandboxes '{"templateID":"opencode","timeout":600,"metadata":{"e2b-tui":"box","e2b-tui.name":"demo"},"envVars":{"FOO":"bar"},"autoPause":true}')
t_eq "create answers 201" "$code" 201
ID=$(el_json .sandboxID)
t_eq "create returns the template" "$(el_json .templateID)" opencode
t_eq "create returns envdVersion" "$(el_json .envdVersion)" 0.5.7
t_eq "create returns a 32-char envd token" "$(el_json '.envdAccessToken | length')" 32
t_eq "create returns the domain" "$(el_json .domain)" "localhost:$E2B_LOCAL_PORT"
code=$(el_req GET "/sandboxes/$ID")
t_eq "get answers 200" "$code" 200
t_eq "get shows metadata" "$(el_json '.metadata["e2b-tui.name"]')" demo
t_eq "get shows lifecycle pause" "$(el_json .lifecycle.onTimeout)" pause
t_eq "get shows state running" "$(el_json .state)" running
t_eq "endAt is startedAt + timeout" "$(el_json '(.endAt | sub("\\.[0-9]+Z$"; "Z") | fromdate) - (.startedAt | sub("\\.[0-9]+Z$"; "Z") | fromdate)')" 600
code=$(el_req POST /v2/sandboxes '{"templateID":"no-such-template"}')
t_eq "unknown template is 404" "$code" 404
code=$(el_req POST /v2/sandboxes '{"templateID":"base","metadata":{"a":1}}')
t_eq "non-string metadata is 400" "$code" 400
code=$(el_req POST /v2/sandboxes 'not json')
t_eq "a body that is not JSON is 400" "$code" 400
code=$(el_req GET /sandboxes/inosuchsandbox)
t_eq "get of an unknown id is 404" "$code" 404

# --- templates --------------------------------------------------------------------------------
code=$(el_req GET /templates)
t_eq "templates answers 200" "$code" 200
t_eq "built-in templates are listed" "$(el_json '[.[].templateID] | sort')" '["base","opencode"]'

# --- pause / connect / timeout ---------------------------------------------------------------
t_eq "pause answers 204" "$(el_req POST "/sandboxes/$ID/pause")" 204
t_eq "pause of a paused sandbox is 409" "$(el_req POST "/sandboxes/$ID/pause")" 409
el_req GET "/sandboxes/$ID" >/dev/null
t_eq "a paused sandbox says paused" "$(el_json .state)" paused
t_eq "connect resumes a paused sandbox with 201" "$(el_req POST "/v2/sandboxes/$ID/connect" '{"timeout":100}')" 201
t_eq "connect returns the same envd token" "$(el_json '.envdAccessToken | length')" 32
el_req GET "/sandboxes/$ID" >/dev/null
t_eq "connected sandbox is running" "$(el_json .state)" running
end1=$(el_json .endAt)
t_eq "connect to a running sandbox is 200" "$(el_req POST "/v2/sandboxes/$ID/connect" '{"timeout":10}')" 200
el_req GET "/sandboxes/$ID" >/dev/null
t_eq "connect never shortens the timeout" "$(el_json .endAt)" "$end1"
t_eq "set timeout answers 204" "$(el_req POST "/sandboxes/$ID/timeout" '{"timeout":3600}')" 204
el_req GET "/sandboxes/$ID" >/dev/null
t_eq "set timeout moves endAt" "$(el_json '((.endAt | sub("\\.[0-9]+Z$"; "Z") | fromdate) - now) / 60 | round')" 60
t_eq "timeout without a body is 400" "$(el_req POST "/sandboxes/$ID/timeout")" 400
t_eq "pause of an unknown id is 404" "$(el_req POST /sandboxes/inope/pause)" 404
t_eq "connect of an unknown id is 404" "$(el_req POST /v2/sandboxes/inope/connect '{}')" 404

# --- network, logs, metrics ------------------------------------------------------------------
t_eq "network PUT of a domain without 0.0.0.0/0 in denyOut is 400 (as E2B)" "$(el_req PUT "/sandboxes/$ID/network" '{"allowOut":["api.anthropic.com"]}')" 400
t_eq "network PUT answers 204" "$(el_req PUT "/sandboxes/$ID/network" '{"allowOut":["api.anthropic.com"],"denyOut":["0.0.0.0/0"],"rules":{"api.anthropic.com":[{"transform":{"headers":{"x-api-key":"${e2b.secrets.anthropic}"}}}]}}')" 204
el_req GET "/sandboxes/$ID" >/dev/null
t_eq "network rules are stored and returned" "$(el_json '.network.rules["api.anthropic.com"][0].transform.headers["x-api-key"]')" '${e2b.secrets.anthropic}'
t_eq "logs v2 answers 200" "$(el_req GET "/v2/sandboxes/$ID/logs")" 200
t_contains "logs record the pause" "$(el_json '[.logs[].message]')" "sandbox paused"
t_eq "metrics answers 200" "$(el_req GET "/sandboxes/$ID/metrics")" 200
t_eq "metrics has memTotal" "$(el_json '.[0].memTotal')" $((512 * 1024 * 1024))
t_eq "bulk metrics answers 200" "$(el_req GET "/sandboxes/metrics?sandbox_ids=$ID,inope")" 200
t_eq "bulk metrics keyed by id" "$(el_json '.sandboxes | keys')" "[\"$ID\"]"
ids=$(seq -s, -f "i%g" 101)
t_eq "bulk metrics over 100 ids is 400" "$(el_req GET "/sandboxes/metrics?sandbox_ids=$ids")" 400

# --- metadata filters --------------------------------------------------------------------------
el_create '{"metadata":{"k":"a=b&c","owner":"x y+z"}}'; F1=$EL_ID
el_create '{"metadata":{"k":"a=b","owner":"x y+z"}}'; F2=$EL_ID
# The SDK's encoding: encodeURIComponent per key/value, URLSearchParams, then the query value.
mdq() {
    jq -r -n '[$ARGS.positional[] | capture("^(?<k>[^=]*)=(?<v>.*)$") | "\(.k | @uri | @uri)=\(.v | @uri | @uri)"]
              | join("&") | @uri' --args "$@"
}
el_req GET "/v2/sandboxes?metadata=$(mdq 'k=a=b&c')" >/dev/null
t_eq "filter value with = and & matches exactly one" "$(el_json '[.[].sandboxID]')" "[\"$F1\"]"
el_req GET "/v2/sandboxes?metadata=$(mdq 'owner=x y+z')" >/dev/null
t_eq "filter value with space and + matches both" "$(el_json '[.[].sandboxID] | sort')" "$(jq -c -n '$ARGS.positional | sort' --args "$F1" "$F2")"
el_req GET "/v2/sandboxes?metadata=$(mdq 'owner=x y+z' 'k=a=b')" >/dev/null
t_eq "two filter pairs are AND-ed" "$(el_json '[.[].sandboxID]')" "[\"$F2\"]"
t_eq "a pair without = is 400" "$(el_req GET '/v2/sandboxes?metadata=novalue')" 400

# --- kill ---------------------------------------------------------------------------------------
t_eq "kill answers 204" "$(el_req DELETE "/sandboxes/$F2")" 204
t_eq "killed sandbox is gone (404)" "$(el_req GET "/sandboxes/$F2")" 404
t_eq "kill again is 404" "$(el_req DELETE "/sandboxes/$F2")" 404
t_ok "kill removes the sandbox's files" test ! -e "$E2B_LOCAL_STATE/roots/$F2"

# --- pagination across 250 sandboxes ---------------------------------------------------------
cfg=$T_TMP/create.cfg
for ((i = 0; i < 250; i++)); do
    printf 'url = "%s/v2/sandboxes"\nrequest = "POST"\nheader = "X-API-KEY: %s"\nheader = "Content-Type: application/json"\ndata = "{\\"metadata\\":{\\"batch\\":\\"p250\\"}}"\noutput = "/dev/null"\nwrite-out = "%%{http_code}\\n"\nnext\n' \
        "$E2B_LOCAL_URL" "$E2B_LOCAL_KEY"
done >"$cfg"
created=$(curl -s -K "$cfg" | grep -c '^201$')
t_eq "250 sandboxes created" "$created" 250
el_req POST "/sandboxes/$F1/pause" >/dev/null
seen=$T_TMP/seen; : >"$seen"
token=; pages=0; total_running=
while :; do
    q="metadata=$(mdq batch=p250)&limit=100"
    [ -n "$token" ] && q="$q&nextToken=$token"
    code=$(el_req GET "/v2/sandboxes?$q")
    [ "$code" = 200 ] || break
    pages=$((pages + 1))
    [ -z "$total_running" ] && total_running=$(el_header X-Total-Running)
    el_json '.[].sandboxID' >>"$seen"
    token=$(el_header X-Next-Token)
    [ -z "$token" ] && break
    [ "$pages" -gt 5 ] && break
done
t_eq "250 sandboxes come in 3 pages" "$pages" 3
t_eq "every sandbox is listed once" "$(sort -u "$seen" | grep -c .)/$(grep -c . "$seen")" "250/250"
t_eq "X-Total-Running counts the filtered running sandboxes" "$total_running" 250
el_req GET "/v2/sandboxes?limit=100&order=asc&metadata=$(mdq batch=p250)" >/dev/null
asc_first=$(el_json '.[0].startedAt < .[-1].startedAt')
t_eq "order=asc lists oldest first" "$asc_first" true
tok=$(el_header X-Next-Token)
t_eq "a token is bound to its order" "$(el_req GET "/v2/sandboxes?order=desc&nextToken=$tok")" 400
t_eq "order must be asc or desc" "$(el_req GET '/v2/sandboxes?order=up')" 400
el_req GET "/v2/sandboxes?state=paused" >/dev/null
t_eq "state=paused lists only paused sandboxes" "$(el_json '[.[].state] | unique')" '["paused"]'
t_eq "state=paused has no X-Total-Running" "$(el_header X-Total-Running)" ""
t_eq "an invalid state is 400" "$(el_req GET '/v2/sandboxes?state=sleeping')" 400

# --- secrets -------------------------------------------------------------------------------------
t_eq "secret create answers 201" "$(el_req POST /secrets '{"name":"Anthropic","value":"sk-test-VALUE-123","metadata":{"provider":"anthropic"}}')" 201
SID=$(el_json .secretID)
t_eq "secret names are lower-cased" "$(el_json .name)" anthropic
t_eq "secret starts at version 1" "$(el_json .currentVersion)" 1
t_not_contains "create never returns the value" "$(cat "$EL_BODY_FILE")" "sk-test-VALUE-123"
t_eq "duplicate secret name is 409" "$(el_req POST /secrets '{"name":"anthropic","value":"x"}')" 409
t_eq "a name with braces is 400" "$(el_req POST /secrets '{"name":"a{b}","value":"x"}')" 400
t_eq "secret get by name answers 200" "$(el_req GET /secrets/anthropic)" 200
t_eq "get by name finds the id" "$(el_json .secretID)" "$SID"
t_eq "secret update answers 200" "$(el_req POST "/secrets/$SID" '{"value":"sk-test-NEW-456"}')" 200
t_eq "update bumps the version" "$(el_json .currentVersion)" 2
t_eq "secret list answers 200" "$(el_req GET /secrets)" 200
t_eq "list shows the secret" "$(el_json '[.[].name]')" '["anthropic"]'
t_not_contains "list never returns a value" "$(cat "$EL_BODY_FILE")" "sk-test"
t_eq "secrets file is 0600" "$(stat -c %a "$E2B_LOCAL_STATE/secrets.json")" 600
t_not_contains "the request log holds no secret" "$(cat "$E2B_LOCAL_STATE/e2b-local.log")" "sk-test"
t_eq "secret delete answers 204" "$(el_req DELETE "/secrets/$SID")" 204
t_eq "deleted secret is 404" "$(el_req GET "/secrets/$SID")" 404
t_eq "delete again is 404" "$(el_req DELETE "/secrets/$SID")" 404

# --- request log -------------------------------------------------------------------------------
t_contains "requests are logged in the state dir" "$(cat "$E2B_LOCAL_STATE/e2b-local.log")" "POST /v2/sandboxes 201"
t_finish
