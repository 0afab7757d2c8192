#!/usr/bin/env bash
# The fault matrix, part: the kill and pull cases.
# fault_matrix_test.sh says what every case checks and why.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/lib/faults.sh"
box_setup || t_finish
. "$E2B_TUI_ROOT/tests/lib/fault_matrix.sh"
fm_matrix '^(kill|pull) '
t_finish
