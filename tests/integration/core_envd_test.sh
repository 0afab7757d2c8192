#!/usr/bin/env bash
# core/e2b/envd.h against tests/e2b-local: files, processes, filesystem, a dropped stream.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/core_local.sh"
t_isolated_home
if ! core_local_start; then
    t_fail "core_envd: e2b-local" "the local server did not start"
    t_finish
fi
"$TEST_B/tests/integration/core_envd" || T_FAILED=1
t_finish
