#!/usr/bin/env bash
# core/box/box.h driven directly (as the dashboard will): progress, cancel, free while running.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish
# a slow-ish upload: 12 MB that does not compress
head -c 12000000 /dev/urandom >"$BOX_REPO/big.bin"
export BOX_REPO
(cd "$BOX_REPO" && "$TEST_B/tests/integration/box_ops") || T_FAILED=1
t_finish
