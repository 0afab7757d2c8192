#!/usr/bin/env bash
# The HTTP layer and event loop (tests/integration/core_http.c) against a scripted loopback
# server with faults (core_http_server.py).
. "$(dirname "$0")/../lib/lib.sh"
t_isolated_home
dir=$(dirname "$0")
python3 "$dir/core_http_server.py" "$T_TMP/port" &
server=$!
t_on_exit "kill $server 2>/dev/null; wait $server 2>/dev/null"
for _ in $(seq 100); do [ -s "$T_TMP/port" ] && break; sleep 0.05; done
if [ ! -s "$T_TMP/port" ]; then
    t_fail "core_http server" "the scripted server did not start"
    t_finish
fi
CORE_HTTP_URL="http://127.0.0.1:$(cat "$T_TMP/port")" "$TEST_B/tests/integration/core_http"
rc=$?
[ "$rc" -eq 0 ] || T_FAILED=1
t_finish
