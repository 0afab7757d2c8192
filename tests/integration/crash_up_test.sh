#!/usr/bin/env bash
# Crash tests, second part: up kills 6 to 11 of crash_test.sh (which says what each kill
# checks), in a program of its own so that the parts run side by side.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish
. "$E2B_TUI_ROOT/tests/lib/crash.sh"
crash_up_kills 6 11
crash_end
t_finish
