#!/usr/bin/env bash
# The published E2B JS SDK (npm e2b@2.51.0), unchanged, against e2b-local: create, list,
# getInfo, connect, pause, kill, setTimeout, getMetrics, commands (foreground and
# background), files and secrets. The node script prints the PASS/FAIL lines.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/e2b_sdk.sh"

e2b_sdk_run sdk_conformance.js || t_finish
t_finish
