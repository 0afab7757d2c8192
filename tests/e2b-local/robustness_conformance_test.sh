#!/usr/bin/env bash
# Bad and hostile input must get a clear error, never a crash and never a write outside the
# sandbox: path traversal and symlinks through the envd file calls, malformed Connect
# envelopes and JSON, unimplemented calls, oversized bodies, and concurrent clients.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/e2b_sdk.sh"

if ! e2bl_start "$T_TMP/state"; then t_fail "robust: e2b-local starts" "no listening line"; t_finish; fi
e2bl_create || { t_fail "robust: create" "status $E2BL_STATUS $E2BL_BODY"; t_finish; }
A=$SBX_ID ATOK=$SBX_TOKEN
alive() { e2bl_api GET /v2/sandboxes; [ "$E2BL_STATUS" = 200 ]; }

# --- a sandbox's file calls never reach the host ---
HOSTDIR=$T_TMP/hostdir
mkdir -p "$HOSTDIR" && printf keep >"$HOSTDIR/keep"
e2bl_run "$A" "$ATOK" "ln -s $HOSTDIR /home/user/escape && ln -s / /home/user/rootlink && ln -s $HOSTDIR/keep /home/user/keeplink && echo ok"
t_eq "robust: symlinks to host paths made inside the sandbox" "$RUN_OUT" ok
put() { e2bl_envd "$A" "$ATOK" POST "/files?path=$(jq -rn --arg p "$1" '$p|@uri')" -H 'Content-Type: application/octet-stream' --data-binary "$2"; }
put /home/user/escape/pwned1 x
put /home/user/rootlink$HOSTDIR/pwned2 x
put "/../../../../..$HOSTDIR/pwned3" x
put "../../../..$HOSTDIR/pwned4" x
put /home/user/keeplink overwritten
e2bl_envd "$A" "$ATOK" POST /files -F "file=@$HOSTDIR/keep;filename=/home/user/escape/pwned5"
e2bl_envd "$A" "$ATOK" POST /files -F "file=@$HOSTDIR/keep;filename=../../../../..$HOSTDIR/pwned6"
e2bl_rpc "$A" "$ATOK" filesystem.Filesystem/MakeDir "{\"path\":\"/home/user/escape/pwned7\"}"
e2bl_rpc "$A" "$ATOK" filesystem.Filesystem/Move "{\"source\":\"/home/user/escape/keep\",\"destination\":\"/home/user/stolen\"}"
e2bl_rpc "$A" "$ATOK" filesystem.Filesystem/Remove "{\"path\":\"/home/user/rootlink$HOSTDIR/keep\"}"
e2bl_rpc "$A" "$ATOK" filesystem.Filesystem/Remove "{\"path\":\"/../../../..$HOSTDIR/keep\"}"
t_eq "robust: no write, move or remove through symlinks or .. reaches the host" \
    "$(ls "$HOSTDIR" | paste -sd' ') $(cat "$HOSTDIR/keep" 2>/dev/null)" "keep keep"
e2bl_envd "$A" "$ATOK" GET "/files?path=$(jq -rn --arg p "/home/user/rootlink$HOSTDIR/keep" '$p|@uri')"
t_not_contains "robust: reading through a symlink to / shows the sandbox's view, not the host's file" "$E2BL_STATUS $E2BL_BODY" "200 keep"
e2bl_envd "$A" "$ATOK" GET "/files?path=/../../sandboxes/$A.json"
t_not_contains "robust: .. cannot climb out of the sandbox root into the state dir" "$E2BL_BODY" "envdAccessToken"
e2bl_rpc "$A" "$ATOK" filesystem.Filesystem/ListDir '{"path":"/../../.."}'
t_not_contains "robust: ListDir of /../../.. lists the sandbox root, not the state dir" "$E2BL_BODY" '"roots"'
t_ok "robust: the server is alive after the traversal attempts" alive

# --- malformed requests ---
e2bl_envd "$A" "$ATOK" POST /process.Process/Start -H 'Content-Type: application/connect+json' \
    -H 'Connect-Protocol-Version: 1' --data-binary $'\x00\x00\x00\x01\x00{"process"'
if [ "$E2BL_STATUS" != 200 ] || [[ "$E2BL_BODY" == *error* ]]; then t_pass "robust: an envelope whose length exceeds the body is an error"
else t_fail "robust: an envelope whose length exceeds the body is an error" "status $E2BL_STATUS"; fi
e2bl_envd "$A" "$ATOK" POST /process.Process/Start -H 'Content-Type: application/connect+json' \
    -H 'Connect-Protocol-Version: 1' --data-binary $'\x00\x00\x00\x00\x05nope!'
if [ "$E2BL_STATUS" != 200 ] || [[ "$E2BL_BODY" == *error* ]]; then t_pass "robust: a non-JSON envelope payload is an error"
else t_fail "robust: a non-JSON envelope payload is an error" "status $E2BL_STATUS"; fi
e2bl_rpc "$A" "$ATOK" process.Process/List '{"unterminated'
t_eq "robust: malformed unary JSON is 400 invalid_argument" "$E2BL_STATUS $(e2bl_jq .code)" "400 invalid_argument"
e2bl_rpc "$A" "$ATOK" process.Process/NoSuchMethod '{}'
if [ "$E2BL_STATUS" = 404 ] || [ "$(e2bl_jq .code)" = unimplemented ]; then t_pass "robust: an unknown RPC method is 404/unimplemented"
else t_fail "robust: an unknown RPC method is 404/unimplemented" "status $E2BL_STATUS $E2BL_BODY"; fi
e2bl_stream "$A" "$ATOK" '{"process":{"cmd":"/bin/bash","args":["-i"]},"pty":{"size":{"cols":80,"rows":24}}}' --max-seconds 10
if printf '%s\n' "$E2BL_STREAM" | grep -qE 'unimplemented|"pty"|STATUS [45]'; then t_pass "robust: a PTY Start is answered (data or unimplemented), not hung"
else t_fail "robust: a PTY Start is answered (data or unimplemented), not hung" "$(printf '%s' "$E2BL_STREAM" | head -c 300)"; fi
e2bl_stream "$A" "$ATOK" '{"process":{"cmd":"/bin/cat"},"stdin":false}' --max-seconds 10
t_eq "robust: stdin false gives /dev/null (cat ends at once)" "$(printf '%s\n' "$E2BL_STREAM" | sed -n 's/^END //p')" "{}"
e2bl_api POST /v2/sandboxes -H 'Content-Type: application/json' --data-binary '["not","an","object"]'
t_eq "robust: a create body that is not an object is 400" "$E2BL_STATUS" 400
e2bl_api POST /v2/sandboxes -H 'Content-Type: application/json' --data-binary '{"templateID":"base","timeout":"soon"}'
t_eq "robust: a timeout of the wrong type is 400" "$E2BL_STATUS" 400
e2bl_api POST /v2/sandboxes -H 'Content-Type: application/json' --data-binary '{"templateID":"base","metadata":{"k":7}}'
t_eq "robust: a non-string metadata value is 400" "$E2BL_STATUS" 400
head -c 12000000 /dev/zero | tr '\0' 'a' | sed 's/^/{"templateID":"base","metadata":{"big":"/; s/$/"}}/' >"$T_TMP/big.json"
e2bl_api POST /v2/sandboxes -H 'Content-Type: application/json' -H 'Expect:' --data-binary @"$T_TMP/big.json"
case "$E2BL_STATUS" in 201|4??) t_pass "robust: a 12 MB create body gets an answer (201 or 4xx)" ;;
*) t_fail "robust: a 12 MB create body gets an answer (201 or 4xx)" "status $E2BL_STATUS" ;; esac
e2bl_api GET "/sandboxes/$(printf 'a%.0s' {1..5000})"
case "$E2BL_STATUS" in 4??) t_pass "robust: a 5000-character id is a 4xx" ;; *) t_fail "robust: a 5000-character id is a 4xx" "status $E2BL_STATUS" ;; esac
e2bl_api GET "/sandboxes/..%2f..%2fsecrets.json"
t_not_contains "robust: an encoded ../ in an id is not a path" "$E2BL_BODY" '"value"'
t_ok "robust: the server is alive after malformed requests" alive

# --- concurrent clients ---
seq 1 40 | xargs -P 8 -I{} curl -sS -o /dev/null -w '%{http_code}\n' -X POST -H "X-API-KEY: $E2BL_KEY" \
    -H 'Content-Type: application/json' --data-binary '{"templateID":"base","metadata":{"par":"yes"}}' \
    "$E2BL_URL/v2/sandboxes" >"$T_TMP/par.codes" 2>&1
t_eq "robust: 40 creates from 8 parallel clients all succeed" "$(sort "$T_TMP/par.codes" | uniq -c | awk '{print $1" "$2}')" "40 201"
e2bl_api GET "/v2/sandboxes?metadata=$(e2bl_metadata_query par yes)&limit=100"
t_eq "robust: ... with 40 distinct ids" "$(e2bl_jq '[.[].sandboxID] | unique | length')" 40
pids=()
for i in 1 2 3 4 5 6; do
    python3 "$E2BL_CONNECT_PY" stream --port "$E2BL_PORT" --sandbox "$A" --token "$ATOK" --max-seconds 60 \
        --body "{\"process\":{\"cmd\":\"/bin/bash\",\"args\":[\"-c\",\"for j in \$(seq 200); do echo s$i-\$j; done\"]}}" \
        --out-prefix "$T_TMP/par$i" >/dev/null &
    pids+=($!)
done
wait "${pids[@]}"
ok=0
for i in 1 2 3 4 5 6; do
    [ "$(cat "$T_TMP/par$i.exit" 2>/dev/null)" = 0 ] && [ "$(grep -c "^s$i-" "$T_TMP/par$i.stdout")" = 200 ] &&
        ! grep -qv "^s$i-" "$T_TMP/par$i.stdout" && ok=$((ok + 1))
done
t_eq "robust: 6 concurrent streams each get exactly their own 200 lines" "$ok" 6
t_ok "robust: the server is alive after concurrent clients" alive

if e2bl_stop; then t_pass "robust: e2b-local stops on SIGTERM"; else t_fail "robust: e2b-local stops on SIGTERM" "still running after 15 s"; fi
t_eq "robust: e2b-local exits 0 (no sanitizer report)" "$E2BL_LAST_EXIT" 0
t_finish
