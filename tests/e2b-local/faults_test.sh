#!/usr/bin/env bash
# Fault injection of e2b-local: 429 with Retry-After, 500, 503, delay, truncated body,
# dropped stream; path matching, counts, listing and clearing; faults from the environment.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
E2B_LOCAL_FAULTS='[{"kind":"503","path":"/templates"}]' e2b_local_start || t_finish

t_eq "a fault from E2B_LOCAL_FAULTS applies" "$(el_req GET /templates)" 503
t_eq "... once" "$(el_req GET /templates)" 200

fault() { curl -s -o "$EL_BODY_FILE" -w '%{http_code}' -X POST --data-binary "$1" "$E2B_LOCAL_URL/_e2b-local/faults"; }

t_eq "queueing a fault answers 201" "$(fault '{"kind":"429","count":2,"path":"/v2/sandboxes","retryAfter":7}')" 201
t_eq "an unknown kind is 400" "$(fault '{"kind":"418"}')" 400
t_eq "a request not matching the path is untouched" "$(el_req GET /templates)" 200
t_eq "first matching call is 429" "$(el_req GET /v2/sandboxes)" 429
t_eq "429 carries Retry-After" "$(el_header Retry-After)" 7
t_eq "429 carries the Error body" "$(el_json .code)" 429
t_eq "second matching call is 429" "$(el_req GET /v2/sandboxes)" 429
t_eq "the third call goes through" "$(el_req GET /v2/sandboxes)" 200

fault '{"kind":"500"}' >/dev/null
t_eq "500 without a path hits the next request" "$(el_req GET /templates)" 500
t_eq "500 carries the Error body" "$(el_json .message | grep -c injected)" 1
fault '{"kind":"503","count":3}' >/dev/null
curl -s "$E2B_LOCAL_URL/_e2b-local/faults" >"$EL_BODY_FILE"
t_eq "queued faults are listed" "$(el_json '.[0].kind + " " + (.[0].count | tostring)')" "503 3"
t_eq "DELETE clears them" "$(curl -s -o /dev/null -w '%{http_code}' -X DELETE "$E2B_LOCAL_URL/_e2b-local/faults")" 204
t_eq "nothing is injected after clearing" "$(el_req GET /templates)" 200

fault '{"kind":"delay","delayMs":1200,"path":"/templates"}' >/dev/null
start=$(date +%s%N)
code=$(el_req GET /templates)
ms=$((($(date +%s%N) - start) / 1000000))
t_eq "a delayed request still answers" "$code" 200
t_ok "the delay is applied (${ms} ms >= 1200)" test "$ms" -ge 1200

el_req GET /templates >/dev/null
full=$(stat -c %s "$EL_BODY_FILE")
fault '{"kind":"truncate","path":"/templates","afterBytes":10}' >/dev/null
curl -s -o "$T_TMP/cut" -H "X-API-KEY: $E2B_LOCAL_KEY" "$E2B_LOCAL_URL/templates"
rc=$?
t_eq "a truncated body makes the client fail (curl 18: partial file)" "$rc" 18
t_eq "only afterBytes bytes arrive" "$(stat -c %s "$T_TMP/cut")" 10
t_ok "the full body is longer ($full bytes)" test "$full" -gt 10

el_create || t_finish
fault '{"kind":"drop","path":"/process.Process/Start","afterBytes":40}' >/dev/null
out=$(el_run "$EL_ID" "$EL_TOKEN" 'echo one; sleep 0.5; echo two; sleep 0.5; echo three > /tmp/done' 2>/dev/null)
t_contains "a dropped stream delivers what came before the drop" "$out" "start "
t_contains "... and then breaks off mid-envelope" "$out" "incomplete envelope"
t_not_contains "... without the end of the stream" "$out" "eos"
for _ in $(seq 50); do [ -f "$E2B_LOCAL_STATE/roots/$EL_ID/tmp/done" ] && break; sleep 0.1; done
t_ok "the process ran on to its end regardless" test -f "$E2B_LOCAL_STATE/roots/$EL_ID/tmp/done"
fault '{"kind":"503","path":"/files"}' >/dev/null
t_eq "envd calls can fail too" "$(el_envd "$EL_ID" "$EL_TOKEN" GET '/files?path=/etc/passwd')" 503
t_eq "... and work again after" "$(el_envd "$EL_ID" "$EL_TOKEN" GET '/files?path=/etc/passwd')" 200
t_finish
