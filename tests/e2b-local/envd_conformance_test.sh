#!/usr/bin/env bash
# envd conformance of e2b-local (reference §2-§4), with curl and a strict Connect-JSON
# client of our own (tests/lib/e2b_connect.py): /health, X-Access-Token enforcement,
# /files round trips (binary, gzip, multipart with the filename as the path), Filesystem
# unary calls, Process/Start framing and events, Connect-Timeout-Ms, keepalives, List,
# SendInput/CloseStdin, SendSignal, Connect by tag.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/e2b_sdk.sh"

if ! e2bl_start "$T_TMP/state"; then t_fail "envd: e2b-local starts" "no listening line"; t_finish; fi
e2bl_create || { t_fail "envd: create" "status $E2BL_STATUS $E2BL_BODY"; t_finish; }
A=$SBX_ID ATOK=$SBX_TOKEN
e2bl_create || { t_fail "envd: create a second sandbox" "status $E2BL_STATUS"; t_finish; }
B=$SBX_ID BTOK=$SBX_TOKEN

# --- health and routing ---
e2bl_envd "$A" "" GET /health
t_eq "envd: GET /health is 204 without a token" "$E2BL_STATUS" 204
_e2bl_curl -H "Host: 49983-$A.$E2BL_DOMAIN" "$E2BL_URL/health"
t_eq "envd: Host 49983-<id>.<domain> routes to envd" "$E2BL_STATUS" 204
e2bl_envd inosuchsandbox0000 "" GET /health
if [ "$E2BL_STATUS" = 502 ] && e2bl_jq -e '.code==502 and (.message|length>0)' >/dev/null; then
    t_pass "envd: /health of an unknown sandbox is a 502 JSON error from the proxy"
else t_fail "envd: /health of an unknown sandbox is a 502 JSON error from the proxy" "status $E2BL_STATUS $E2BL_BODY"; fi
e2bl_rpc inosuchsandbox0000 "$ATOK" process.Process/List '{}'
t_eq "envd: an RPC to an unknown sandbox is 502" "$E2BL_STATUS" 502

# --- X-Access-Token ---
e2bl_rpc "$A" "" process.Process/List '{}'
t_eq "envd: Process/List without a token is 401" "$E2BL_STATUS" 401
# connect-web takes the code from a Connect body, else from the HTTP status: both work.
if e2bl_jq -e '.code == "unauthenticated" or .code == 401' >/dev/null; then
    t_pass "envd: ... with a JSON error body (Connect code or HTTP status)"
else t_fail "envd: ... with a JSON error body (Connect code or HTTP status)" "$E2BL_BODY"; fi
e2bl_rpc "$A" "wrong-token" filesystem.Filesystem/Stat '{"path":"/home/user"}'
t_eq "envd: Filesystem/Stat with a wrong token is 401" "$E2BL_STATUS" 401
e2bl_rpc "$A" "$BTOK" process.Process/List '{}'
t_eq "envd: another sandbox's token is refused" "$E2BL_STATUS" 401
e2bl_envd "$A" "" GET "/files?path=/etc/hostname"
t_eq "envd: GET /files without a token is 401" "$E2BL_STATUS" 401
e2bl_envd "$A" "" POST "/files?path=/home/user/x" -H 'Content-Type: application/octet-stream' --data-binary x
t_eq "envd: POST /files without a token is 401" "$E2BL_STATUS" 401
e2bl_rpc "$A" "$ATOK" process.Process/List '{}'
t_eq "envd: Process/List with the token is 200" "$E2BL_STATUS" 200
t_contains "envd: unary responses are application/json" "$(e2bl_header Content-Type)" application/json

# --- /files ---
head -c 65536 /dev/urandom >"$T_TMP/rand.bin"
e2bl_envd "$A" "$ATOK" POST "/files?path=/home/user/data/rand.bin" \
    -H 'Content-Type: application/octet-stream' --data-binary @"$T_TMP/rand.bin"
t_eq "envd: octet-stream upload is 200" "$E2BL_STATUS" 200
if e2bl_jq -e '.[0].path=="/home/user/data/rand.bin" and .[0].name=="rand.bin" and .[0].type=="file" and length==1' >/dev/null; then
    t_pass "envd: upload answers [{path,name,type:file}]"
else t_fail "envd: upload answers [{path,name,type:file}]" "$E2BL_BODY"; fi
curl -sS -o "$T_TMP/back.bin" -w '%{http_code}' -H "E2b-Sandbox-Id: $A" -H 'E2b-Sandbox-Port: 49983' \
    -H "X-Access-Token: $ATOK" "$E2BL_URL/files?path=/home/user/data/rand.bin" >"$T_TMP/code"
if [ "$(cat "$T_TMP/code")" = 200 ] && cmp -s "$T_TMP/rand.bin" "$T_TMP/back.bin"; then
    t_pass "envd: 64 KiB of random bytes round trip"
else t_fail "envd: 64 KiB of random bytes round trip" "status $(cat "$T_TMP/code"), $(stat -c %s "$T_TMP/back.bin") bytes back"; fi

seq 1 20000 >"$T_TMP/plain.txt"
gzip -c "$T_TMP/plain.txt" >"$T_TMP/plain.gz"
e2bl_envd "$A" "$ATOK" POST "/files?path=/home/user/data/plain.txt" -H 'Content-Type: application/octet-stream' \
    -H 'Content-Encoding: gzip' --data-binary @"$T_TMP/plain.gz"
t_eq "envd: gzip upload is 200" "$E2BL_STATUS" 200
curl -sS --compressed -o "$T_TMP/plain.back" -D "$T_TMP/plain.hdr" -H "E2b-Sandbox-Id: $A" \
    -H 'E2b-Sandbox-Port: 49983' -H "X-Access-Token: $ATOK" "$E2BL_URL/files?path=/home/user/data/plain.txt"
if cmp -s "$T_TMP/plain.txt" "$T_TMP/plain.back"; then t_pass "envd: a gzip upload is stored decompressed, read back with Accept-Encoding gzip"
else t_fail "envd: a gzip upload is stored decompressed, read back with Accept-Encoding gzip" "content differs"; fi
e2bl_run "$A" "$ATOK" 'wc -l < /home/user/data/plain.txt'
t_eq "envd: the decompressed file is what processes see" "$RUN_OUT" 20000

# Multipart: no path query, the part's filename is the destination (with directories).
printf 'first' >"$T_TMP/p1"; printf 'second' >"$T_TMP/p2"
e2bl_envd "$A" "$ATOK" POST /files -F "file=@$T_TMP/p1;filename=/home/user/proj/src/a.c" \
    -F "file=@$T_TMP/p2;filename=/home/user/proj/b.txt"
if [ "$E2BL_STATUS" = 200 ] && e2bl_jq -e '[.[].path]|sort == ["/home/user/proj/b.txt","/home/user/proj/src/a.c"]' >/dev/null; then
    t_pass "envd: multipart writes every part at its filename path"
else t_fail "envd: multipart writes every part at its filename path" "status $E2BL_STATUS $E2BL_BODY"; fi
e2bl_envd "$A" "$ATOK" GET "/files?path=/home/user/proj/src/a.c"
t_eq "envd: a multipart file reads back" "$E2BL_BODY" first
# The same multipart body as undici (the SDK's HTTP client) sends it: chunked, one piece
# per write, so the server's parser sees each part's headers and data in separate calls.
chunked=$(python3 - "$E2BL_PORT" "$A" "$ATOK" <<'PY'
import http.client, sys
port, sid, tok = int(sys.argv[1]), sys.argv[2], sys.argv[3]
b = "----formdata-undici-0123456789"
parts = []
for name in ("one", "two", "three"):
    parts.append(('--%s\r\nContent-Disposition: form-data; name="file"; filename="/home/user/ch/%s.txt"\r\n'
                  'Content-Type: application/octet-stream\r\n\r\n' % (b, name)).encode())
    parts.append(name.encode())  # short data, as in the SDK test
    parts.append(b"\r\n")
parts.append(("--%s--\r\n" % b).encode())
c = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
c.request("POST", "/files", body=iter(parts), encode_chunked=True, headers={
    "Content-Type": "multipart/form-data; boundary=" + b, "E2b-Sandbox-Id": sid,
    "E2b-Sandbox-Port": "49983", "X-Access-Token": tok})
r = c.getresponse()
print(r.status, r.read().decode())
PY
)
t_eq "envd: a chunked multipart upload (as undici sends it) writes every part" "${chunked%% *}" 200
e2bl_run "$A" "$ATOK" 'cat /home/user/ch/one.txt /home/user/ch/two.txt /home/user/ch/three.txt'
t_eq "envd: ... each at its own path with its own data" "$RUN_OUT" "onetwothree"
e2bl_envd "$A" "$ATOK" POST "/files?path=/home/user/proj/b.txt" -F "file=@$T_TMP/p1;filename=ignored.txt"
e2bl_envd "$A" "$ATOK" GET "/files?path=proj/b.txt"
t_eq "envd: upload overwrites; a relative path resolves in /home/user" "$E2BL_STATUS $E2BL_BODY" "200 first"
e2bl_envd "$A" "$ATOK" POST "/files?path=/home/user/empty" -H 'Content-Type: application/octet-stream' --data-binary ''
e2bl_envd "$A" "$ATOK" GET "/files?path=/home/user/empty"
t_eq "envd: an empty file is 200 with an empty body" "$E2BL_STATUS [$E2BL_BODY]" "200 []"
e2bl_envd "$A" "$ATOK" GET "/files?path=/home/user/no-such-file"
t_eq "envd: a missing file is 404 {code,message}" "$E2BL_STATUS $(e2bl_jq '.code, (.message|length>0)' | paste -sd' ')" "404 404 true"
e2bl_envd "$A" "$ATOK" GET "/files?path=/home/user/proj"
t_eq "envd: reading a directory is 400" "$E2BL_STATUS $(e2bl_jq .code)" "400 400"
e2bl_envd "$A" "$ATOK" GET "/files?path=/home/user/proj/b.txt&username=root"
t_eq "envd: username=root may read" "$E2BL_STATUS" 200
e2bl_envd "$A" "$ATOK" GET "/files?path=/home/user/proj/b.txt&username=nobody-here"
t_eq "envd: an unknown username is 401" "$E2BL_STATUS" 401
e2bl_run "$A" "$ATOK" 'stat -c "%u %a" /home/user/proj/b.txt; id -u; test -x /home/user/proj/b.txt && echo exec'
uid=$(printf '%s\n' "$RUN_OUT" | sed -n 2p)
t_eq "envd: uploaded files belong to the default user, mode 644, not executable" "$RUN_OUT" "$uid 644
$uid"

# --- Filesystem unary calls ---
e2bl_rpc "$A" "$ATOK" filesystem.Filesystem/MakeDir '{"path":"/home/user/fs/a/b"}'
t_eq "envd: MakeDir creates parents, answers a directory entry" "$E2BL_STATUS $(e2bl_jq -r '.entry.type, .entry.path' | paste -sd' ')" \
    "200 FILE_TYPE_DIRECTORY /home/user/fs/a/b"
e2bl_rpc "$A" "$ATOK" filesystem.Filesystem/MakeDir '{"path":"/home/user/fs/a/b"}'
t_eq "envd: MakeDir of an existing directory is already_exists (409)" "$E2BL_STATUS $(e2bl_jq -r .code)" "409 already_exists"
e2bl_envd "$A" "$ATOK" POST "/files?path=/home/user/fs/a/five" -H 'Content-Type: application/octet-stream' --data-binary 12345
e2bl_rpc "$A" "$ATOK" filesystem.Filesystem/Stat '{"path":"/home/user/fs/a/five"}'
if e2bl_jq -e '.entry.size=="5" and .entry.type=="FILE_TYPE_FILE" and .entry.name=="five" and (.entry.mode|type=="number")
        and (.entry.permissions|test("^-rw")) and (.entry.owner|type=="string") and (.entry.modifiedTime|test("^[0-9]{4}-"))' >/dev/null; then
    t_pass "envd: Stat gives size as an int64 string, type name, mode, owner, RFC 3339 time"
else t_fail "envd: Stat gives size as an int64 string, type name, mode, owner, RFC 3339 time" "$E2BL_BODY"; fi
e2bl_rpc "$A" "$ATOK" filesystem.Filesystem/Stat '{"path":"/home/user/fs/none"}'
t_eq "envd: Stat of a missing path is not_found (404)" "$E2BL_STATUS $(e2bl_jq -r .code)" "404 not_found"
e2bl_rpc "$A" "$ATOK" filesystem.Filesystem/MakeDir '{"path":"/home/user/fs/a/five"}'
t_eq "envd: MakeDir over a file is invalid_argument (400)" "$E2BL_STATUS $(e2bl_jq -r .code)" "400 invalid_argument"
e2bl_rpc "$A" "$ATOK" filesystem.Filesystem/ListDir '{"path":"/home/user/fs","depth":2}'
t_eq "envd: ListDir depth 2" "$(e2bl_jq -r '[.entries[].path]|sort|join(" ")')" \
    "/home/user/fs/a /home/user/fs/a/b /home/user/fs/a/five"
e2bl_rpc "$A" "$ATOK" filesystem.Filesystem/ListDir '{"path":"/home/user/fs"}'
t_eq "envd: ListDir depth 0 means 1" "$(e2bl_jq -r '[.entries[].name]|join(" ")')" "a"
e2bl_rpc "$A" "$ATOK" filesystem.Filesystem/ListDir '{"path":"/home/user/fs/a/five"}'
t_eq "envd: ListDir of a file is invalid_argument" "$(e2bl_jq -r .code)" invalid_argument
e2bl_rpc "$A" "$ATOK" filesystem.Filesystem/Move '{"source":"/home/user/fs/a/five","destination":"/home/user/fs/six"}'
t_eq "envd: Move answers the new entry" "$E2BL_STATUS $(e2bl_jq -r .entry.path)" "200 /home/user/fs/six"
e2bl_rpc "$A" "$ATOK" filesystem.Filesystem/Stat '{"path":"~/fs/six"}'
t_eq "envd: ~ expands to the user's home" "$(e2bl_jq -r .entry.path)" /home/user/fs/six
e2bl_rpc "$A" "$ATOK" filesystem.Filesystem/Remove '{"path":"/home/user/fs"}'
e2bl_rpc "$A" "$ATOK" filesystem.Filesystem/Stat '{"path":"/home/user/fs/six"}'
t_eq "envd: Remove is recursive" "$(e2bl_jq -r .code)" not_found
e2bl_rpc "$A" "$ATOK" filesystem.Filesystem/Remove '{"path":"/home/user/fs"}'
t_eq "envd: Remove of a missing path is fine" "$E2BL_STATUS" 200

# --- Process/Start framing and events ---
e2bl_stream "$A" "$ATOK" '{"process":{"cmd":"/bin/bash","args":["-c","echo hi; echo err >&2; exit 7"]},"stdin":false}'
t_eq "envd: Process/Start stream is well framed (flags, big-endian length, end envelope)" "$E2BL_STREAM_RC" 0
[ "$E2BL_STREAM_RC" = 0 ] || printf '%s\n' "$E2BL_STREAM" | grep ERROR | sed 's/^/# /'
msgs=$(printf '%s\n' "$E2BL_STREAM" | sed -n 's/^MSG //p')
first=$(printf '%s\n' "$msgs" | head -n1)
if jtest "$first" '.event.start.pid | type=="number" and . > 0' >/dev/null; then
    t_pass "envd: the first event is start with a numeric pid"
else t_fail "envd: the first event is start with a numeric pid" "$first"; fi
t_eq "envd: stdout is base64 in data.stdout" "$(printf '%s\n' "$msgs" | jq -rj '.event.data.stdout // empty')" "aGkK"
t_eq "envd: stderr is base64 in data.stderr" "$(printf '%s\n' "$msgs" | jq -rj '.event.data.stderr // empty')" "ZXJyCg=="
last=$(printf '%s\n' "$msgs" | tail -n1)
if jtest "$last" '.event.end.exitCode==7 and .event.end.exited==true and (.event.end.status|test("exit status 7"))' >/dev/null; then
    t_pass "envd: the last event is end {exitCode 7, exited true, status}"
else t_fail "envd: the last event is end {exitCode 7, exited true, status}" "$last"; fi
t_eq "envd: the end-of-stream envelope is {} on success" "$(printf '%s\n' "$E2BL_STREAM" | sed -n 's/^END //p')" "{}"

e2bl_stream "$A" "$ATOK" '{"process":{"cmd":"/bin/true"}}'
end=$(printf '%s\n' "$E2BL_STREAM" | sed -n 's/^MSG //p' | tail -n1)
if jtest "$end" '.event.end.exited==true and (.event.end|has("exitCode")|not)' >/dev/null; then
    t_pass "envd: exitCode 0 is omitted (protobuf JSON default)"
else t_fail "envd: exitCode 0 is omitted (protobuf JSON default)" "$end"; fi

e2bl_stream "$A" "$ATOK" '{"process":{"cmd":"/bin/bash","args":["-c","pwd; echo $HOME $USER $V"],"envs":{"V":"from-request"},"cwd":"/tmp"}}'
out=$(printf '%s\n' "$E2BL_STREAM" | sed -n 's/^MSG //p' | jq -rj '.event.data.stdout // empty | @base64d')
t_eq "envd: cwd, HOME, USER and request envs" "$out" $'/tmp\n/home/user user from-request'
e2bl_stream "$A" "$ATOK" '{"process":{"cmd":"/bin/sh","args":["-c","id -u"]}}' --header 'Authorization: Basic cm9vdDo='
out=$(printf '%s\n' "$E2BL_STREAM" | sed -n 's/^MSG //p' | jq -rj '.event.data.stdout // empty | @base64d')
t_eq "envd: Authorization Basic root runs as uid 0" "$out" "0"
e2bl_stream "$A" "$ATOK" '{"process":{"cmd":"/bin/sh","args":["-c","id -un"]}}' --header 'Authorization: Basic dXNlcjo='
out=$(printf '%s\n' "$E2BL_STREAM" | sed -n 's/^MSG //p' | jq -rj '.event.data.stdout // empty | @base64d')
t_eq "envd: Authorization Basic user runs as user" "$out" "user"

e2bl_stream "$A" "$ATOK" '{"process":{"cmd":"/bin/true","cwd":"/no/such/dir"}}'
if printf '%s\n' "$E2BL_STREAM" | grep -q '"invalid_argument"'; then t_pass "envd: a missing cwd is invalid_argument"
else t_fail "envd: a missing cwd is invalid_argument" "$(printf '%s' "$E2BL_STREAM" | head -c 300)"; fi
e2bl_stream "$A" "$ATOK" '{"process":{"cmd":"/no/such/binary"}}'
if ! printf '%s\n' "$E2BL_STREAM" | grep -q '"end"' || printf '%s\n' "$E2BL_STREAM" | grep -q '"error"'; then
    t_pass "envd: a missing binary is an error, not a success"
else t_fail "envd: a missing binary is an error, not a success" "$(printf '%s' "$E2BL_STREAM" | head -c 300)"; fi

# Output larger than one chunk arrives complete and in order.
e2bl_run "$A" "$ATOK" 'seq 1 100000'
t_eq "envd: 588,895 bytes of stdout arrive complete" "$(printf '%s\n' "$RUN_OUT" | md5sum | cut -d' ' -f1)" "$(seq 1 100000 | md5sum | cut -d' ' -f1)"
maxchunk=$(printf '%s\n' "$E2BL_STREAM" | sed -n 's/^MSG //p' | jq -r '.event.data.stdout // empty | @base64d | length' | sort -n | tail -n1)
if [ "${maxchunk:-0}" -le 32768 ]; then t_pass "envd: data chunks are at most 32 KiB"
else t_fail "envd: data chunks are at most 32 KiB" "a chunk of $maxchunk bytes"; fi

# --- Keepalive-Ping-Interval and Connect-Timeout-Ms ---
e2bl_stream "$A" "$ATOK" '{"process":{"cmd":"/bin/sleep","args":["2.5"]}}' --header 'Keepalive-Ping-Interval: 1'
n=$(printf '%s\n' "$E2BL_STREAM" | grep -c '"keepalive"')
if [ "$n" -ge 1 ]; then t_pass "envd: Keepalive-Ping-Interval 1 sends keepalive events"
else t_fail "envd: Keepalive-Ping-Interval 1 sends keepalive events" "$n keepalives over 2.5 s"; fi
start=$SECONDS
e2bl_stream "$A" "$ATOK" '{"process":{"cmd":"/bin/sleep","args":["30"]},"tag":"doomed"}' --header 'Connect-Timeout-Ms: 1000' --max-seconds 20
t_eq "envd: Connect-Timeout-Ms ends the stream well framed" "$E2BL_STREAM_RC" 0
if [ $((SECONDS - start)) -lt 15 ]; then t_pass "envd: Connect-Timeout-Ms 1000 ends a 30 s sleep early (process lifetime)"
else t_fail "envd: Connect-Timeout-Ms 1000 ends a 30 s sleep early (process lifetime)" "took $((SECONDS - start)) s"; fi
e2bl_rpc "$A" "$ATOK" process.Process/List '{}'
t_eq "envd: the timed-out process is gone" "$(e2bl_jq '[.processes[]? | select(.tag=="doomed")] | length')" 0

# --- background process: List, Connect by tag, SendInput/CloseStdin, SendSignal ---
python3 "$E2BL_CONNECT_PY" stream --port "$E2BL_PORT" --sandbox "$A" --token "$ATOK" --max-seconds 30 \
    --body '{"process":{"cmd":"/bin/cat"},"tag":"catter","stdin":true}' >"$T_TMP/cat.out" &
catpy=$!
e2bl_poll 10 grep -q '"start"' "$T_TMP/cat.out"
catpid=$(sed -n 's/^MSG //p' "$T_TMP/cat.out" | head -n1 | jq -r .event.start.pid)
e2bl_rpc "$A" "$ATOK" process.Process/List '{}'
if e2bl_jq -e --argjson p "${catpid:-0}" 'any(.processes[]; .pid==$p and .tag=="catter" and .config.cmd=="/bin/cat")' >/dev/null; then
    t_pass "envd: Process/List shows pid, tag and config"
else t_fail "envd: Process/List shows pid, tag and config" "pid $catpid, $E2BL_BODY"; fi
e2bl_rpc "$B" "$BTOK" process.Process/List '{}'
if e2bl_jq -e 'all(.processes[]?; .tag!="catter")' >/dev/null && [ "$E2BL_STATUS" = 200 ]; then
    t_pass "envd: a process of one sandbox is not listed in another"
else t_fail "envd: a process of one sandbox is not listed in another" "$E2BL_BODY"; fi
e2bl_rpc "$A" "$ATOK" process.Process/SendInput "{\"process\":{\"pid\":$catpid},\"input\":{\"stdin\":\"$(printf 'ping\n' | base64)\"}}"
t_eq "envd: SendInput is 200" "$E2BL_STATUS" 200
e2bl_poll 10 grep -q "$(printf 'ping\n' | base64)" "$T_TMP/cat.out"
e2bl_rpc "$A" "$ATOK" process.Process/CloseStdin "{\"process\":{\"pid\":$catpid}}"
t_eq "envd: CloseStdin is 200" "$E2BL_STATUS" 200
wait "$catpy"
out=$(sed -n 's/^MSG //p' "$T_TMP/cat.out" | jq -rj '.event.data.stdout // empty | @base64d')
t_eq "envd: cat echoes its stdin and exits on CloseStdin" "$out $(sed -n 's/^MSG //p' "$T_TMP/cat.out" | tail -n1 | jq -c .event.end.exited)" \
    'ping true'

python3 "$E2BL_CONNECT_PY" stream --port "$E2BL_PORT" --sandbox "$A" --token "$ATOK" --close-after-start \
    --body '{"process":{"cmd":"/bin/bash","args":["-c","while :; do echo tick; sleep 0.2; done"]},"tag":"ticker"}' >"$T_TMP/tick.out"
tickpid=$(sed -n 's/^MSG //p' "$T_TMP/tick.out" | head -n1 | jq -r .event.start.pid)
python3 "$E2BL_CONNECT_PY" stream --port "$E2BL_PORT" --sandbox "$A" --token "$ATOK" --method process.Process/Connect \
    --max-seconds 20 --body '{"process":{"tag":"ticker"}}' >"$T_TMP/conn.out" &
connpy=$!
if e2bl_poll 10 grep -q "$(printf 'tick\n' | base64)" "$T_TMP/conn.out"; then
    t_pass "envd: Process/Connect by tag re-attaches to a detached process's new output"
else t_fail "envd: Process/Connect by tag re-attaches to a detached process's new output" "$(head -c 300 "$T_TMP/conn.out")"; fi
t_eq "envd: Process/Connect starts with the start event of that pid" \
    "$(sed -n 's/^MSG //p' "$T_TMP/conn.out" | head -n1 | jq -r .event.start.pid)" "$tickpid"
e2bl_rpc "$A" "$ATOK" process.Process/SendSignal "{\"process\":{\"pid\":$tickpid},\"signal\":\"SIGNAL_SIGKILL\"}"
t_eq "envd: SendSignal SIGKILL is 200" "$E2BL_STATUS" 200
wait "$connpy"
end=$(sed -n 's/^MSG //p' "$T_TMP/conn.out" | tail -n1)
if jtest "$end" '.event.end and (.event.end.exited|not) and (.event.end.status|test("killed"))' >/dev/null; then
    t_pass "envd: a killed process ends with exited false and status signal: killed"
else t_fail "envd: a killed process ends with exited false and status signal: killed" "$end"; fi
e2bl_rpc "$A" "$ATOK" process.Process/SendSignal '{"process":{"pid":999999},"signal":"SIGNAL_SIGTERM"}'
t_eq "envd: SendSignal to an unknown pid is not_found" "$E2BL_STATUS $(e2bl_jq -r .code)" "404 not_found"
e2bl_rpc "$A" "$ATOK" process.Process/List '{}'
t_eq "envd: ended processes leave Process/List" "$(e2bl_jq '[.processes[]?] | length')" 0

if e2bl_stop; then t_pass "envd: e2b-local stops on SIGTERM"; else t_fail "envd: e2b-local stops on SIGTERM" "still running after 15 s"; fi
t_finish
