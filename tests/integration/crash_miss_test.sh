#!/usr/bin/env bash
# The crash test catches kills that miss: crash_test.sh with CRASH_MISS=1 (every kill comes
# only after the action ended) must fail, on the per-run check that the kill landed in the
# step it aimed at and on the count of kills that landed inside a step. Two up runs (one
# anywhere, one aimed at the name check) and no pull section keep it short; that real kills
# land is what crash_test.sh itself shows.
. "$(dirname "$0")/../lib/lib.sh"
env TMPDIR="$T_TMP" CRASH_MISS=1 CRASH_UP_RUNS=2 CRASH_PULL_RUNS=0 \
    bash "$E2B_TUI_ROOT/tests/integration/crash_test.sh" >"$T_TMP/miss.out" 2>&1
rc=$?
fails=$(grep '^FAIL ' "$T_TMP/miss.out")
t_ok "kills that all miss: the crash test fails" test "$rc" != 0
t_contains "it says the aimed kill did not land in its step" "$fails" \
    "up kill 2 at checking the name+"
t_contains "and that too few kills landed inside a step" "$fails" \
    "at least 3 in 4 kills landed inside a step"
t_contains "it counted none" "$(cat "$T_TMP/miss.out")" "crash test: 0 of 2 kills landed inside a step"
t_eq "nothing else failed (the rest of the run was sound)" "$(grep -c '^FAIL ' <<<"$fails")" 2
t_finish
