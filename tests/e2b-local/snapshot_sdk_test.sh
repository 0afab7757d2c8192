#!/usr/bin/env bash
# forks (see sdk/sdk_snapshots.js). The node script prints the PASS/FAIL lines.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/e2b_sdk.sh"

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    t_fail "sdk: node and npm" "not installed (make deps)"
    t_finish
fi
if ! e2b_sdk_install; then
    t_fail "sdk: e2b@2.51.0 is installed" "$E2B_SDK_WHY"
    t_finish
fi

if ! e2bl_start "$T_TMP/state"; then
    t_fail "sdk: e2b-local starts" "no listening line"
    t_finish
fi

# Only loopback: the API, envd (routed by the E2b-Sandbox-Id header) and the domain all
# point at this server.
E2B_API_URL=$E2BL_URL E2B_SANDBOX_URL=$E2BL_URL E2B_DOMAIN=$E2BL_DOMAIN \
    E2B_API_KEY=$E2BL_KEY E2B_SDK_DIR=$E2B_SDK_DIR \
    timeout 120 node "$E2B_TUI_ROOT/tests/e2b-local/sdk/sdk_snapshots.js" 2>"$T_TMP/node.err"
rc=$?
if [ "$rc" -ne 0 ] && ! grep -q '^FAIL' "$T_TMP/node.err" /dev/null; then
    [ -s "$T_TMP/node.err" ] && sed 's/^/  node: /' "$T_TMP/node.err" | head -n 20
fi
[ "$rc" -eq 0 ] || T_FAILED=1

# The server must survive the whole run and stop cleanly on SIGTERM.
if e2bl_stop; then t_pass "sdk: e2b-local stops on SIGTERM"; else
    t_fail "sdk: e2b-local stops on SIGTERM" "still running after 15 s"; fi
t_finish
