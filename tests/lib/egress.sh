# Helpers for the egress tests (source after lib.sh).
#   egress_echo_start      starts tests/lib/egress_echo.py on the host's loopback (127.0.0.1
#                          and 127.0.0.2, one free port): sets EGRESS_ECHO_PORT and
#                          EGRESS_ECHO_LOG (one JSON line per request); stopped at exit
#   egress_log_has RE      the e2b-local request log ($E2BL_STATE or $E2B_LOCAL_STATE) has
#                          an "egress" line matching the extended regular expression RE
EGRESS_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
EGRESS_ECHO_PID=

_egress_echo_stop() { [ -z "$EGRESS_ECHO_PID" ] || kill "$EGRESS_ECHO_PID" 2>/dev/null; wait "$EGRESS_ECHO_PID" 2>/dev/null; }

egress_echo_start() {
    local pf=$T_TMP/egress-echo.port i
    EGRESS_ECHO_LOG=$T_TMP/egress-echo.log
    python3 "$EGRESS_LIB_DIR/egress_echo.py" --port-file "$pf" --log "$EGRESS_ECHO_LOG" &
    EGRESS_ECHO_PID=$!
    t_on_exit _egress_echo_stop
    for i in $(seq 300); do
        [ -s "$pf" ] && break
        sleep 0.1
    done
    EGRESS_ECHO_PORT=$(cat "$pf" 2>/dev/null)
    if [ -z "$EGRESS_ECHO_PORT" ]; then
        t_fail "egress: the echo server starts" "no port after 30 s"
        return 1
    fi
}

egress_log_has() {
    grep -E "egress $1" "${E2BL_STATE:-$E2B_LOCAL_STATE}/e2b-local.log" >/dev/null 2>&1
}
