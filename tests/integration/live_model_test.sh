#!/usr/bin/env bash
# The live model headless (tests/integration/live_model.c): boxes made, forked and killed
# by another e2b-tui process show right in the model; name conflicts everywhere.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish
export BOX_REPO E2B_TUI_BIN
"$TEST_B/tests/integration/live_model" || T_FAILED=1
t_finish
