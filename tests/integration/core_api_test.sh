#!/usr/bin/env bash
# core/api.h against tests/e2b-local: every REST call, pages, filters, faults, a wrong key.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/core_local.sh"
t_isolated_home
if ! core_local_start; then
    t_fail "core_api: e2b-local" "the local server did not start"
    t_finish
fi
"$TEST_B/tests/integration/core_api" || T_FAILED=1
t_finish
