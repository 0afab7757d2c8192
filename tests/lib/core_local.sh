# Starts tests/e2b-local for the core integration tests (source after lib.sh).
#   core_local_start [EXTRA ARGS...]  -> exports E2B_DOMAIN, E2B_API_KEY, CORE_LOCAL_URL
# The server is stopped (SIGTERM, then waited for) when the test exits.
CORE_LOCAL_KEY=e2b_core_test_key_0001

core_local_start() {
    local out=$T_TMP/e2b-local.out
    mkdir -p "$T_TMP/e2b-local-state"
    "$E2B_LOCAL_BIN" --listen 127.0.0.1:0 --state "$T_TMP/e2b-local-state" \
        --api-key "$CORE_LOCAL_KEY" "$@" >"$out" 2>"$T_TMP/e2b-local.err" &
    CORE_LOCAL_PID=$!
    t_on_exit "core_local_stop"
    local i
    for i in $(seq 200); do
        grep -q "listening on" "$out" 2>/dev/null && break
        kill -0 "$CORE_LOCAL_PID" 2>/dev/null || break
        sleep 0.05
    done
    CORE_LOCAL_URL=$(sed -n 's/^e2b-local listening on //p' "$out" | head -1)
    if [ -z "$CORE_LOCAL_URL" ]; then
        echo "e2b-local did not start: $(cat "$T_TMP/e2b-local.err")" >&2
        return 1
    fi
    export CORE_LOCAL_URL
    export E2B_DOMAIN=localhost:${CORE_LOCAL_URL##*:}
    export E2B_API_KEY=$CORE_LOCAL_KEY
    unset E2B_API_URL E2B_SANDBOX_URL
}

core_local_stop() {
    [ -n "${CORE_LOCAL_PID:-}" ] || return 0
    kill -TERM "$CORE_LOCAL_PID" 2>/dev/null
    local i
    for i in $(seq 100); do
        kill -0 "$CORE_LOCAL_PID" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$CORE_LOCAL_PID" 2>/dev/null
    wait "$CORE_LOCAL_PID" 2>/dev/null
    CORE_LOCAL_PID=
}
