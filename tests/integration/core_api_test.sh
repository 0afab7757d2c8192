#!/usr/bin/env bash
# core/e2b/api.h against tests/e2b-local: every REST call, pages, filters, faults, a wrong key.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/core_local.sh"
t_isolated_home
if ! core_local_start; then
    t_fail "core_api: e2b-local" "the local server did not start"
    t_finish
fi
"$TEST_B/tests/integration/core_api" || T_FAILED=1

log=$XDG_STATE_HOME/e2b-tui/e2b-tui.log
t_eq "the request log is private (0600)" "$(stat -c %a "$log" 2>/dev/null)" 600
t_eq "the log directory is private (0700)" "$(stat -c %a "$(dirname "$log")")" 700
text=$(cat "$log" 2>/dev/null)
t_contains "the log records requests with status and time" "$text" "GET /v2/sandboxes 200 "
t_contains "the log records retried attempts" "$text" "GET /v2/sandboxes 429 "
t_contains "the log records a failed request's status" "$text" "GET /v2/sandboxes 500 "
t_contains "the log records failures with their message" "$text" "error: listing sandboxes: E2B server error 500"
t_not_contains "the log never holds the API key" "$text" "$E2B_API_KEY"
t_not_contains "the log never holds the wrong API key" "$text" "e2b_wrong_key_9999"
t_not_contains "the log never holds a secret value" "$text" "sk-ant-value"
t_not_contains "the log never holds an access token" "$text" "envdAccessToken"
t_finish
