#!/usr/bin/env bash
# The published E2B JS SDK (npm e2b@2.51.0), unchanged, against e2b-local's snapshots and
# forks (see sdk/sdk_snapshots.js). The node script prints the PASS/FAIL lines.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/e2b_sdk.sh"

e2b_sdk_run sdk_snapshots.js || t_finish
t_finish
