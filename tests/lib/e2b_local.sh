# Helpers to run the local E2B-compatible server (tests/e2b-local) in shell tests.
# Source after lib.sh:   . "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
#
#   e2b_local_start [ARGS...]   start on 127.0.0.1:0 with state in $E2B_LOCAL_STATE
#                               (default $T_TMP/e2b-local-state) and the arguments in the
#                               array E2B_LOCAL_ARGS (kept for every start: box_setup's
#                               --ro-bind of build/npm), then ARGS; exports E2B_LOCAL_PORT,
#                               E2B_LOCAL_URL, E2B_LOCAL_PID, E2B_API_URL, E2B_SANDBOX_URL,
#                               E2B_DOMAIN, E2B_API_KEY. Stopped (SIGTERM) at exit.
#   e2b_local_stop              SIGTERM and wait; returns the server's exit status (a FAIL
#                               line when it had died, did not stop or exited non-zero; a
#                               server it had to SIGKILL leaves no copy-on-write mount)
#   el_req METHOD PATH [BODY] [CURL ARGS...]
#                               control-plane request with the API key; prints the HTTP
#                               status; body in $EL_BODY_FILE, headers in $EL_HEAD_FILE
#   el_envd ID TOKEN METHOD PATH [CURL ARGS...]
#                               envd request routed by E2b-Sandbox-Id headers (as the SDK)
#   el_json EXPR                evaluates a Python expression on the last body (as d)
#   el_header NAME              a header of the last response
#   el_create [JSON]            creates a sandbox; sets EL_ID and EL_TOKEN (FAIL line if not)
#   el_run ID TOKEN CMD [JSON-EXTRA] [CURL ARGS...]
#                               Process/Start of bash -c CMD; prints decoded events
#                               ("start PID", "stdout TEXT", "stderr TEXT", "end {...}", "eos {...}")
#   el_rpc ID TOKEN SERVICE/METHOD JSON   unary Connect call; prints the status, body in file
#   sbx_state ID                the sandbox's state on the server (running, paused, or gone)
: "${E2B_LOCAL_KEY:=e2b_local_test_key}"
EL_BODY_FILE=$T_TMP/el-body
EL_HEAD_FILE=$T_TMP/el-head
E2B_LOCAL_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

e2b_local_start() {
    : "${E2B_LOCAL_STATE:=$T_TMP/e2b-local-state}"
    local out=$T_TMP/e2b-local.out.$$.$RANDOM
    E2B_LOCAL_ERR=$out.err
    # E2B_LOCAL_WRAP: a command prefix, e.g. "setpriv --reuid=65534 ..." to run it unprivileged.
    ${E2B_LOCAL_WRAP:-} "$E2B_LOCAL_BIN" --listen 127.0.0.1:0 --state "$E2B_LOCAL_STATE" \
        --api-key "$E2B_LOCAL_KEY" ${E2B_LOCAL_ARGS[@]+"${E2B_LOCAL_ARGS[@]}"} "$@" >"$out" 2>"$out.err" &
    E2B_LOCAL_PID=$!
    local i line=
    for ((i = 0; i < 200; i++)); do
        line=$(grep -m1 '^e2b-local listening on ' "$out" 2>/dev/null)
        [ -n "$line" ] && break
        kill -0 "$E2B_LOCAL_PID" 2>/dev/null || break
        sleep 0.05
    done
    if [ -z "$line" ]; then
        t_fail "e2b-local starts" "no 'listening' line; stderr: $(head -c 400 "$out.err")"
        kill "$E2B_LOCAL_PID" 2>/dev/null
        return 1
    fi
    E2B_LOCAL_URL=${line#e2b-local listening on }
    E2B_LOCAL_PORT=${E2B_LOCAL_URL##*:}
    export E2B_LOCAL_PID E2B_LOCAL_URL E2B_LOCAL_PORT E2B_LOCAL_STATE
    export E2B_API_URL=$E2B_LOCAL_URL E2B_SANDBOX_URL=$E2B_LOCAL_URL
    export E2B_DOMAIN=localhost:$E2B_LOCAL_PORT E2B_API_KEY=$E2B_LOCAL_KEY
    t_on_exit "e2b_local_stop"
    return 0
}

# A server killed before its stop leaves its copy-on-write roots mounted (as root): they
# go, so that removing the state dir does not reach into a mount.
e2b_local_unmount_left() {
    local m
    [ "$(id -u)" = 0 ] || return 0
    awk -v p="$E2B_LOCAL_STATE/roots/" 'index($5, p) == 1 { print $5 }' /proc/self/mountinfo |
        while read -r m; do umount -l "$m" 2>/dev/null; done
}

e2b_local_stop() {
    [ -n "${E2B_LOCAL_PID:-}" ] || return 0
    local pid=$E2B_LOCAL_PID i
    E2B_LOCAL_PID=
    if ! kill -TERM "$pid" 2>/dev/null; then
        local rc=0
        wait "$pid" 2>/dev/null || rc=$?
        e2b_local_unmount_left
        t_fail "e2b-local runs until stopped" "it had already exited (status $rc); stderr: $(tail -c 1500 "${E2B_LOCAL_ERR:-/dev/null}")"
        return 1
    fi
    for ((i = 0; i < 200; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    if kill -0 "$pid" 2>/dev/null; then
        kill -KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        e2b_local_unmount_left
        t_fail "e2b-local stops on SIGTERM" "still running after 10 s; killed"
        return 124
    fi
    local rc=0
    wait "$pid" 2>/dev/null || rc=$?
    if [ "$rc" != 0 ]; then
        t_fail "e2b-local stops cleanly" "exit status $rc; stderr: $(tail -c 1500 "${E2B_LOCAL_ERR:-/dev/null}")"
    fi
    return "$rc"
}

el_req() {
    local method=$1 path=$2 body=${3:-}
    shift 2
    [ $# -gt 0 ] && shift
    local data=()
    [ -n "$body" ] && data=(-H 'Content-Type: application/json' --data-binary "$body")
    curl -sS -o "$EL_BODY_FILE" -D "$EL_HEAD_FILE" -w '%{http_code}' -X "$method" \
        -H "X-API-KEY: $E2B_LOCAL_KEY" "${data[@]}" "$@" "$E2B_LOCAL_URL$path"
}

el_envd() {
    local id=$1 token=$2 method=$3 path=$4
    shift 4
    curl -sS -o "$EL_BODY_FILE" -D "$EL_HEAD_FILE" -w '%{http_code}' -X "$method" \
        -H "E2b-Sandbox-Id: $id" -H "E2b-Sandbox-Port: 49983" -H "X-Access-Token: $token" \
        "$@" "$E2B_LOCAL_URL$path"
}

sbx_state() {
    local code
    code=$(el_req GET "/sandboxes/$1")
    if [ "$code" = 404 ]; then echo gone; else el_json .state; fi
}

el_json() {
    jq -c -r "$1" "$EL_BODY_FILE"
}

el_header() {
    tr -d '\r' <"$EL_HEAD_FILE" | awk -v n="$(echo "$1" | tr 'A-Z' 'a-z')" -F': ' \
        'tolower($1)==n {sub(/^[^:]*: /,""); print; exit}'
}

el_create() {
    local code
    code=$(el_req POST /v2/sandboxes "${1:-{\"templateID\":\"base\"\}}")
    if [ "$code" != 201 ]; then
        EL_ID= EL_TOKEN=
        t_fail "create a sandbox" "status $code: $(head -c 300 "$EL_BODY_FILE" 2>/dev/null)"
        return 1
    fi
    EL_ID=$(el_json .sandboxID)
    EL_TOKEN=$(el_json .envdAccessToken)
}

# el_frame JSON: one Connect envelope (flags 0, 4-byte big-endian length) on stdout.
el_frame() {
    local LC_ALL=C
    local n=${#1}
    printf "\\x00\\x$(printf %02x $((n >> 24 & 255)))\\x$(printf %02x $((n >> 16 & 255)))"
    printf "\\x$(printf %02x $((n >> 8 & 255)))\\x$(printf %02x $((n & 255)))"
    printf '%s' "$1"
}

# Reads Connect envelopes on stdin and prints one decoded line per event:
# "start PID", "stdout LINE", "stderr LINE", "end {...}", "keepalive", "eos {...}",
# or "incomplete envelope" when the stream was cut.
el_decode() {
    local f=$T_TMP/el-stream.$RANDOM lines=$T_TMP/el-lines.$RANDOM
    cat >"$f"
    local size off=0 fl b1 b2 b3 b4 n
    size=$(stat -c %s "$f")
    : >"$lines"
    while [ "$off" -lt "$size" ]; do
        read -r fl b1 b2 b3 b4 < <(od -An -v -tu1 -j "$off" -N 5 "$f")
        if [ -z "${b4:-}" ] || [ $((off + 5 + ((b1 << 24) | (b2 << 16) | (b3 << 8) | b4))) -gt "$size" ]; then
            echo "incomplete envelope" >>"$lines.tail"
            break
        fi
        n=$(((b1 << 24) | (b2 << 16) | (b3 << 8) | b4))
        printf '%s\t' "$fl" >>"$lines"
        tail -c +$((off + 6)) "$f" | head -c "$n" >>"$lines"
        echo >>"$lines"
        off=$((off + 5 + n))
    done
    jq -R -r 'split("\t") | (.[0] | tonumber) as $f | (.[1] | fromjson) as $m |
        if ($f % 4) >= 2 then "eos " + ($m | tojson)
        elif $m.event.start then "start \($m.event.start.pid)"
        elif $m.event.data then ($m.event.data | to_entries[] | .key as $k |
            (.value | @base64d | split("\n")[] | select(length > 0) | "\($k) \(.)"))
        elif $m.event.end then "end " + ($m.event.end | tojson)
        elif $m.event.keepalive then "keepalive"
        else "unknown " + ($m | tojson) end' "$lines"
    [ -f "$lines.tail" ] && cat "$lines.tail"
    rm -f "$f" "$lines" "$lines.tail"
}

el_run() {
    local id=$1 token=$2 cmd=$3 extra=${4:-}
    shift 3
    [ $# -gt 0 ] && shift
    local msg
    msg=$(jq -c -n --arg cmd "$cmd" --argjson extra "${extra:-{\}}" \
        '{process: {cmd: "/bin/bash", args: ["-c", $cmd]}, stdin: false} * $extra')
    el_frame "$msg" | curl -sS -N -X POST -H "E2b-Sandbox-Id: $id" -H "E2b-Sandbox-Port: 49983" \
        -H "X-Access-Token: $token" -H 'Content-Type: application/connect+json' \
        -H 'Connect-Protocol-Version: 1' --data-binary @- "$@" "$E2B_LOCAL_URL/process.Process/Start" | el_decode
}

el_rpc() {
    local id=$1 token=$2 method=$3 json=$4
    shift 4
    el_envd "$id" "$token" POST "/$method" -H 'Content-Type: application/json' \
        -H 'Connect-Protocol-Version: 1' --data-binary "$json" "$@"
}
