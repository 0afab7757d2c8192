# Helpers for the e2b-local conformance tests and the SDK test. Source after lib.sh.
# Written from the protocol reference, not from the server's code: they start the server,
# wrap curl for the control plane and envd, and poll with bounded deadlines (no bare sleeps).
#
#   e2bl_start STATE_DIR [extra server args]   start on port 0; sets E2BL_PID, E2BL_PORT,
#                                              E2BL_URL, E2BL_DOMAIN (stopped at exit)
#   e2bl_stop                                  SIGTERM, wait (bounded); 0 if it exited in time
#   e2bl_api METHOD PATH [curl args]           control plane with the key; sets E2BL_STATUS,
#                                              E2BL_BODY, headers in $E2BL_HDRS
#   e2bl_envd ID TOKEN METHOD PATH [curl args] envd via the E2b-Sandbox-* headers (same vars)
#   e2bl_rpc ID TOKEN Service/Method JSON      Connect unary call (same vars)
#   e2bl_create [JSON]                         create; sets SBX_ID, SBX_TOKEN
#   e2bl_run ID TOKEN CMD                      run `bash -c CMD` to completion; sets RUN_OUT
#                                              (stdout), RUN_ERR, RUN_EXIT
#   e2bl_poll SECONDS CMD...                   retry CMD every 0.1 s until it succeeds
#   e2b_sdk_install                            find e2b@2.51.0 (build/npm); sets E2B_SDK_DIR
#                                              (E2B_SDK_WHY says what to install when not)
#   e2b_sdk_run SCRIPT                         an SDK test: tests/e2b-local/sdk/SCRIPT under
#                                              node against a fresh e2b-local

E2BL_KEY=${E2BL_KEY:-e2b_localtest_key_0123456789}
E2BL_HDRS=$T_TMP/e2bl.headers
E2BL_CONNECT_PY=$E2B_TUI_ROOT/tests/lib/e2b_connect.py
E2BL_PID=
E2BL_N=0

# e2bl_poll SECONDS CMD...: polls CMD until it succeeds or the deadline passes.
e2bl_poll() {
    local secs=$1; shift
    local end=$((SECONDS + secs))
    while :; do
        "$@" && return 0
        [ "$SECONDS" -ge "$end" ] && return 1
        sleep 0.1
    done
}

_e2bl_ready() { grep -q '^e2b-local listening on http://127.0.0.1:[0-9][0-9]*$' "$1"; }

e2bl_start() {
    local state=$1; shift
    E2BL_N=$((E2BL_N + 1))
    local out=$T_TMP/e2bl.$E2BL_N.out
    mkdir -p "$state"
    "$E2B_LOCAL_BIN" --listen 127.0.0.1:0 --state "$state" --api-key "$E2BL_KEY" "$@" \
        >"$out" 2>"$T_TMP/e2bl.$E2BL_N.err" &
    E2BL_PID=$!
    if [ "$E2BL_N" -eq 1 ]; then t_on_exit e2bl_stop; fi
    if ! e2bl_poll 30 _e2bl_ready "$out"; then
        echo "e2b-local did not print its listening line; stderr:" >&2
        tail -n 20 "$T_TMP/e2bl.$E2BL_N.err" >&2
        return 1
    fi
    E2BL_PORT=$(sed -n 's|^e2b-local listening on http://127.0.0.1:\([0-9]*\)$|\1|p' "$out" | head -n1)
    E2BL_URL=http://127.0.0.1:$E2BL_PORT
    E2BL_DOMAIN=localhost:$E2BL_PORT
    E2BL_STATE=$state
    return 0
}

_e2bl_gone() { ! kill -0 "$1" 2>/dev/null; }

# e2bl_stop: SIGTERM and wait up to 15 s; SIGKILL (and status 1) if it did not stop.
e2bl_stop() {
    [ -n "$E2BL_PID" ] || return 0
    local pid=$E2BL_PID rc=0
    E2BL_PID=
    kill -TERM "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null; return 0; }
    if ! e2bl_poll 15 _e2bl_gone "$pid"; then
        kill -KILL "$pid" 2>/dev/null
        rc=1
    fi
    wait "$pid" 2>/dev/null
    E2BL_LAST_EXIT=$?
    return $rc
}

_e2bl_curl() {
    E2BL_BODY=$(curl -sS --max-time "${E2BL_CURL_MAX:-30}" -D "$E2BL_HDRS" -o - \
        -w '\n%{http_code}' "$@" 2>"$T_TMP/e2bl.curlerr")
    E2BL_STATUS=${E2BL_BODY##*$'\n'}
    E2BL_BODY=${E2BL_BODY%$'\n'*}
}

e2bl_api() {
    local method=$1 path=$2; shift 2
    _e2bl_curl -X "$method" -H "X-API-KEY: $E2BL_KEY" "$@" "$E2BL_URL$path"
}

# e2bl_api_nokey METHOD PATH [curl args]: no X-API-KEY header unless the caller adds one.
e2bl_api_nokey() {
    local method=$1 path=$2; shift 2
    _e2bl_curl -X "$method" "$@" "$E2BL_URL$path"
}

e2bl_envd() {
    local id=$1 token=$2 method=$3 path=$4; shift 4
    local auth=()
    [ -n "$token" ] && auth=(-H "X-Access-Token: $token")
    _e2bl_curl -X "$method" -H "E2b-Sandbox-Id: $id" -H "E2b-Sandbox-Port: 49983" \
        "${auth[@]}" "$@" "$E2BL_URL$path"
}

e2bl_rpc() {
    local id=$1 token=$2 method=$3 json=$4; shift 4
    e2bl_envd "$id" "$token" POST "/$method" -H 'Content-Type: application/json' \
        -H 'Connect-Protocol-Version: 1' --data-binary "$json" "$@"
}

# e2bl_header NAME: the value of a response header from the last call (case-insensitive).
e2bl_header() {
    tr -d '\r' <"$E2BL_HDRS" | awk -v n="$(echo "$1" | tr 'A-Z' 'a-z')" -F': ' \
        'tolower($1) == n { sub(/^[^:]*: /, ""); v = $0 } END { print v }'
}

# e2bl_jq FILTER: jq on the last body (prints nothing when the body is not JSON).
# It fails on an empty body, so `e2bl_jq -e FILTER` never passes vacuously.
e2bl_jq() { [ -n "$E2BL_BODY" ] && printf '%s' "$E2BL_BODY" | jq -r "$@" 2>/dev/null; }

# jtest TEXT [jq options] FILTER: TEXT is non-empty JSON for which FILTER is true.
jtest() {
    local text=$1; shift
    [ -n "$text" ] && printf '%s' "$text" | jq -e "$@" >/dev/null 2>&1
}

e2bl_create() {
    local json=${1:-'{"templateID":"base"}'}
    e2bl_api POST /v2/sandboxes -H 'Content-Type: application/json' --data-binary "$json"
    SBX_ID=$(e2bl_jq '.sandboxID // empty')
    SBX_TOKEN=$(e2bl_jq '.envdAccessToken // empty')
    [ "$E2BL_STATUS" = 201 ] && [ -n "$SBX_ID" ]
}

# e2bl_stream ID TOKEN JSON [extra e2b_connect.py args]: Process/Start; output in E2BL_STREAM.
e2bl_stream() {
    local id=$1 token=$2 json=$3; shift 3
    E2BL_STREAM=$(python3 "$E2BL_CONNECT_PY" stream --port "$E2BL_PORT" --sandbox "$id" \
        --token "$token" --body "$json" "$@")
    E2BL_STREAM_RC=$?
}

# e2bl_run ID TOKEN CMD: runs CMD with bash -c in the sandbox and waits for its end.
e2bl_run() {
    local id=$1 token=$2 cmd=$3 pfx=$T_TMP/e2bl.run
    local body
    body=$(jq -cn --arg c "$cmd" '{process:{cmd:"/bin/bash",args:["-c",$c]},stdin:false}')
    rm -f "$pfx".*
    e2bl_stream "$id" "$token" "$body" --max-seconds 60 --out-prefix "$pfx"
    RUN_OUT= RUN_ERR= RUN_EXIT=none
    [ -f "$pfx.exit" ] || return 0
    RUN_OUT=$(<"$pfx.stdout") RUN_ERR=$(<"$pfx.stderr") RUN_EXIT=$(<"$pfx.exit")
}

# e2bl_run_ok ID TOKEN CMD: e2bl_run, succeeding only when CMD exited 0.
e2bl_run_ok() { e2bl_run "$@"; [ "$RUN_EXIT" = 0 ]; }

# e2bl_pids_with MARK: host pids whose command line or environment contains MARK, other
# than this scanner and this shell. (One process: a process per pid is far too slow.)
e2bl_pids_with() {
    python3 - "$1" "$$" <<'PY'
import os, sys
mark, skip = sys.argv[1].encode(), {str(os.getpid()), str(os.getppid()), sys.argv[2]}
for p in os.listdir("/proc"):
    if not p.isdigit() or p in skip:
        continue
    for f in ("cmdline", "environ"):
        try:
            with open("/proc/%s/%s" % (p, f), "rb") as fh:
                if mark in fh.read():
                    print(p)
                    break
        except OSError:
            pass
PY
}

# e2bl_pids_rooted_in DIR: host pids whose root directory lies inside DIR.
e2bl_pids_rooted_in() {
    python3 - "$1" <<'PY'
import os, sys
d = os.path.realpath(sys.argv[1])
for p in os.listdir("/proc"):
    if p.isdigit():
        try:
            r = os.readlink("/proc/%s/root" % p)
        except OSError:
            continue
        if r == d or r.startswith(d + "/"):
            print(p)
PY
}

# The published SDK, e2b@2.51.0 (pinned by tests/npm/package-lock.json), installed before
# the tests by make (never by a test): E2B_SDK_DIR is the directory whose node_modules holds
# it: $E2B_SDK_DIR if set, else build/npm, else the global one (tests/lib/npm_tools.sh).
e2b_sdk_install() {
    . "$E2B_TUI_ROOT/tests/lib/npm_tools.sh"
    if [ -n "${E2B_SDK_DIR:-}" ]; then
        npm_tools_has "$E2B_SDK_DIR" e2b "$(npm_tools_version "$E2B_TUI_ROOT" e2b)" && return 0
        E2B_SDK_WHY="$E2B_SDK_DIR/node_modules/e2b is not e2b@$(npm_tools_version "$E2B_TUI_ROOT" e2b)"
        return 1
    fi
    npm_tools_sdk "$E2B_TUI_ROOT" && return 0
    E2B_SDK_WHY=$NPM_TOOLS_WHY
    return 1
}

# e2b_sdk_run SCRIPT: the whole of an SDK test. Checks node and the installed SDK, starts
# e2b-local, runs tests/e2b-local/sdk/SCRIPT with node (at most 120 s; it prints the PASS and
# FAIL lines; its stderr is shown when it failed without one), then checks that the server
# stops cleanly on SIGTERM. Returns 1 (after a FAIL line) when the set-up failed.
e2b_sdk_run() {
    local script=$1 rc
    if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
        t_fail "sdk: node and npm" "not installed (make deps)"
        return 1
    fi
    if ! e2b_sdk_install; then
        t_fail "sdk: e2b@2.51.0 is installed" "$E2B_SDK_WHY"
        return 1
    fi
    if ! e2bl_start "$T_TMP/state"; then
        t_fail "sdk: e2b-local starts" "no listening line"
        return 1
    fi
    # Only loopback: the API, envd (routed by the E2b-Sandbox-Id header) and the domain all
    # point at this server.
    E2B_API_URL=$E2BL_URL E2B_SANDBOX_URL=$E2BL_URL E2B_DOMAIN=$E2BL_DOMAIN \
        E2B_API_KEY=$E2BL_KEY E2B_SDK_DIR=$E2B_SDK_DIR \
        timeout 120 node "$E2B_TUI_ROOT/tests/e2b-local/sdk/$script" 2>"$T_TMP/node.err"
    rc=$?
    if [ "$rc" -ne 0 ] && ! grep -q '^FAIL' "$T_TMP/node.err" /dev/null; then
        [ -s "$T_TMP/node.err" ] && sed 's/^/  node: /' "$T_TMP/node.err" | head -n 20
    fi
    [ "$rc" -eq 0 ] || T_FAILED=1
    # The server must survive the whole run and stop cleanly on SIGTERM.
    if e2bl_stop; then t_pass "sdk: e2b-local stops on SIGTERM"; else
        t_fail "sdk: e2b-local stops on SIGTERM" "still running after 15 s"; fi
}

# e2bl_metadata_query K V [K V...]: the `metadata` query value exactly as SDK 2.51.0 sends
# it: encodeURIComponent on each key and value, URLSearchParams form encoding of the
# pairs, then encodeURIComponent of the whole string by the HTTP client (three levels).
e2bl_metadata_query() {
    python3 - "$@" <<'PY'
import sys
from urllib.parse import quote
def uri(s): return quote(s, safe="-_.!~*'()")
def form(s):
    out = []
    for b in s.encode():
        c = chr(b)
        if (b < 128 and c.isalnum()) or c in "*-._": out.append(c)
        elif c == " ": out.append("+")
        else: out.append("%%%02X" % b)
    return "".join(out)
a = sys.argv[1:]
print(uri("&".join(form(uri(a[i])) + "=" + form(uri(a[i + 1])) for i in range(0, len(a), 2))))
PY
}

# e2bl_bulk_create N JSON_TEMPLATE: creates N sandboxes over one keep-alive connection;
# "@I@" in the template is replaced by the index. Prints one sandbox id per line.
e2bl_bulk_create() {
    python3 - "$E2BL_PORT" "$E2BL_KEY" "$1" "$2" <<'PY'
import http.client, json, sys
port, key, n, tmpl = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
for i in range(n):
    body = tmpl.replace("@I@", str(i))
    conn.request("POST", "/v2/sandboxes", body=body,
                 headers={"X-API-KEY": key, "Content-Type": "application/json"})
    r = conn.getresponse()
    data = r.read()
    if r.status != 201:
        print("create %d: status %d %s" % (i, r.status, data[:200]), file=sys.stderr)
        sys.exit(1)
    print(json.loads(data)["sandboxID"])
PY
}

# fault_inject KIND N [PATH] [key=value...]: arms a fault for the next N calls whose path
# contains PATH (all calls when empty), through e2b-local's control endpoint (its README).
# KIND: 429 (retry_after=S), 500, 503, delay (delay_ms=M), truncate (after_bytes=K),
# drop (after_bytes=K). Sets FAULT_WHY and fails when the server refuses.
fault_inject() {
    local kind=$1 count=$2 path=${3:-} kv json
    shift 2; [ $# -gt 0 ] && shift
    json=$(jq -cn --arg k "$kind" --argjson n "$count" --arg p "$path" '{kind:$k,count:$n,path:$p}')
    for kv in "$@"; do
        case "${kv%%=*}" in
        retry_after) json=$(jq -c --argjson v "${kv#*=}" '.retryAfter=$v' <<<"$json") ;;
        delay_ms) json=$(jq -c --argjson v "${kv#*=}" '.delayMs=$v' <<<"$json") ;;
        after_bytes) json=$(jq -c --argjson v "${kv#*=}" '.afterBytes=$v' <<<"$json") ;;
        *) FAULT_WHY="unknown fault option $kv"; return 1 ;;
        esac
    done
    local code
    code=$(curl -sS -o "$T_TMP/fault.body" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
        --data-binary "$json" "$E2BL_URL/_e2b-local/faults" 2>&1)
    case "$code" in
    2??) return 0 ;;
    *) FAULT_WHY="POST /_e2b-local/faults $json: $code $(head -c 200 "$T_TMP/fault.body")"; return 1 ;;
    esac
}
