#!/usr/bin/env bash
# Fault injection of e2b-local (issue 3): the next N calls (optionally matching a path)
# answer 429 with Retry-After, 500, 503, a delay of M ms, a truncated body, or a stream
# that drops after K bytes. Each fault is checked on the wire with curl or our Connect
# client, and the 429 one also with the published SDK, whose retry rule (reference §1.3)
# must make Sandbox.list succeed after two 429s.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/e2b_sdk.sh"

if ! e2bl_start "$T_TMP/state"; then t_fail "fault: e2b-local starts" "no listening line"; t_finish; fi
e2bl_create || { t_fail "fault: create" "status $E2BL_STATUS $E2BL_BODY"; t_finish; }
A=$SBX_ID ATOK=$SBX_TOKEN

# --- 429 with Retry-After, for the next 2 calls on one path ---
if fault_inject 429 2 /v2/sandboxes retry_after=1; then t_pass "fault: 429 fault accepted"
else t_fail "fault: 429 fault accepted" "$FAULT_WHY"; fi
e2bl_api GET /secrets
t_eq "fault: a fault bound to a path leaves other paths alone" "$E2BL_STATUS" 200
e2bl_api GET /v2/sandboxes
t_eq "fault: 429 with the Error body" "$E2BL_STATUS $(e2bl_jq .code)" "429 429"
t_eq "fault: 429 carries Retry-After in whole seconds" "$(e2bl_header Retry-After)" 1
e2bl_api GET /v2/sandboxes
t_eq "fault: the second call is also 429" "$E2BL_STATUS" 429
e2bl_api GET /v2/sandboxes
t_eq "fault: after N calls the path answers normally" "$E2BL_STATUS" 200

# --- 500 and 503 (one call each, any path) ---
fault_inject 500 1 || t_fail "fault: 500 fault accepted" "$FAULT_WHY"
e2bl_api GET "/sandboxes/$A"
t_eq "fault: 500 with the Error body" "$E2BL_STATUS $(e2bl_jq .code) $(e2bl_jq '.message|length>0')" "500 500 true"
e2bl_api GET "/sandboxes/$A"
t_eq "fault: the call after a single 500 is normal" "$E2BL_STATUS $(e2bl_jq -r .sandboxID)" "200 $A"
fault_inject 503 1 /pause || t_fail "fault: 503 fault accepted" "$FAULT_WHY"
e2bl_api POST "/sandboxes/$A/pause"
t_eq "fault: 503 on pause with the Error body" "$E2BL_STATUS $(e2bl_jq .code)" "503 503"
e2bl_api GET "/sandboxes/$A"
t_eq "fault: a 503 pause left the sandbox running" "$(e2bl_jq -r .state)" running

fault_inject 500 1 /files || t_fail "fault: envd 500 fault accepted" "$FAULT_WHY"
e2bl_envd "$A" "$ATOK" GET "/files?path=/etc/passwd"
t_eq "fault: faults also hit envd calls" "$E2BL_STATUS" 500
e2bl_envd "$A" "$ATOK" GET "/files?path=/etc/passwd"
t_contains "fault: ... once" "$E2BL_STATUS $E2BL_BODY" "200 root:"

# --- delay ---
fault_inject delay 1 /v2/sandboxes delay_ms=1500 || t_fail "fault: delay fault accepted" "$FAULT_WHY"
t0=$(date +%s%N)
e2bl_api GET /v2/sandboxes
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
if [ "$E2BL_STATUS" = 200 ] && [ "$ms" -ge 1400 ]; then t_pass "fault: a 1500 ms delay delays and then answers normally"
else t_fail "fault: a 1500 ms delay delays and then answers normally" "status $E2BL_STATUS after $ms ms"; fi
t0=$(date +%s%N)
e2bl_api GET /v2/sandboxes
ms2=$(( ($(date +%s%N) - t0) / 1000000 ))
if [ "$ms2" -lt 1400 ]; then t_pass "fault: only the next call is delayed"; else t_fail "fault: only the next call is delayed" "$ms2 ms"; fi

# --- truncated body ---
fault_inject truncate 1 "/sandboxes/$A" || t_fail "fault: truncate fault accepted" "$FAULT_WHY"
curl -sS -o "$T_TMP/trunc" -H "X-API-KEY: $E2BL_KEY" "$E2BL_URL/sandboxes/$A" 2>"$T_TMP/trunc.err"
rc=$?
if [ "$rc" -ne 0 ] || ! jtest "$(cat "$T_TMP/trunc")" .; then
    t_pass "fault: a truncated body is not valid JSON or fails the transfer (curl $rc)"
else t_fail "fault: a truncated body is not valid JSON or fails the transfer" "got a complete body: $(head -c 200 "$T_TMP/trunc")"; fi
e2bl_api GET "/sandboxes/$A"
t_eq "fault: the call after a truncated one is whole" "$E2BL_STATUS $(e2bl_jq -r .sandboxID)" "200 $A"

# --- a stream dropped after K bytes ---
fault_inject drop 1 process.Process/Start after_bytes=40 || t_fail "fault: drop fault accepted" "$FAULT_WHY"
e2bl_stream "$A" "$ATOK" '{"process":{"cmd":"/bin/bash","args":["-c","for i in $(seq 50); do echo line $i; done"]}}'
if [ "$E2BL_STREAM_RC" = 3 ] && printf '%s\n' "$E2BL_STREAM" | grep -qE '^ERROR (incomplete envelope|stream ended without)'; then
    t_pass "fault: a dropped stream ends without the end-of-stream envelope"
else t_fail "fault: a dropped stream ends without the end-of-stream envelope" "rc $E2BL_STREAM_RC: $(printf '%s' "$E2BL_STREAM" | tail -n 3 | tr '\n' ' ')"; fi
e2bl_run "$A" "$ATOK" 'echo whole'
t_eq "fault: the next stream is whole again" "$RUN_OUT $RUN_EXIT" "whole 0"

# --- the SDK retries 429 + Retry-After by itself (reference §1.3) ---
if e2b_sdk_install; then
    fault_inject 429 2 /v2/sandboxes retry_after=1 || t_fail "fault: 429 fault accepted (SDK)" "$FAULT_WHY"
    out=$(E2B_API_URL=$E2BL_URL E2B_SANDBOX_URL=$E2BL_URL E2B_DOMAIN=$E2BL_DOMAIN E2B_API_KEY=$E2BL_KEY \
        E2B_SDK_DIR=$E2B_SDK_DIR timeout 60 node -e '
const { Sandbox } = require(require("path").resolve(process.env.E2B_SDK_DIR, "node_modules", "e2b"));
const t0 = Date.now();
Sandbox.list().nextItems().then((items) => console.log(`ok ${items.length} ${Date.now() - t0}`),
    (err) => console.log(`error ${err.name}: ${err.message}`));' 2>&1)
    case "$out" in
    "ok 1 "*) [ "${out##* }" -ge 1900 ] && t_pass "fault: the SDK waits Retry-After twice and then lists" ||
        t_fail "fault: the SDK waits Retry-After twice and then lists" "succeeded after only ${out##* } ms" ;;
    *) t_fail "fault: the SDK waits Retry-After twice and then lists" "$out" ;;
    esac
    fault_inject 503 1 /v2/sandboxes || t_fail "fault: 503 fault accepted (SDK)" "$FAULT_WHY"
    out=$(E2B_API_URL=$E2BL_URL E2B_API_KEY=$E2BL_KEY E2B_SDK_DIR=$E2B_SDK_DIR timeout 60 node -e '
const e2b = require(require("path").resolve(process.env.E2B_SDK_DIR, "node_modules", "e2b"));
e2b.Sandbox.list().nextItems().then(() => console.log("ok"),
    (err) => console.log(err instanceof e2b.ServiceBusyError ? "busy" : `other ${err.name}: ${err.message}`));' 2>&1)
    t_eq "fault: the SDK maps an injected 503 to ServiceBusyError" "$out" busy
else t_fail "fault: the SDK for the retry check" "$E2B_SDK_WHY"; fi

if e2bl_stop; then t_pass "fault: e2b-local stops on SIGTERM"; else t_fail "fault: e2b-local stops on SIGTERM" "still running after 15 s"; fi
t_finish
