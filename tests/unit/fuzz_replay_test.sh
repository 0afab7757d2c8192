#!/usr/bin/env bash
# Replays every fuzz seed (tests/fuzz/corpus/<target>/) and every saved finding
# (tests/fuzz/regress/<target>/) through the fuzz targets, built with the ordinary sanitizer
# build and a file-replay main (tests/fuzz/replay_main.c) instead of libFuzzer. One line per
# target; an input that crashes, leaks, trips a sanitizer or breaks a target's invariant
# fails it (the log names the input).
source "$(dirname "$0")/../lib/lib.sh"
cd "$E2B_TUI_ROOT" || exit 2

for src in tests/fuzz/fuzz_*.c; do
    name=$(basename "$src" .c)
    target=${name#fuzz_}
    bin=$TEST_B/tests/fuzz/$name
    if [ ! -x "$bin" ]; then
        t_fail "fuzz replay $target" "$bin was not built"
        continue
    fi
    seeds=tests/fuzz/corpus/$target
    if [ -z "$(ls -A "$seeds" 2>/dev/null)" ]; then
        t_fail "fuzz replay $target" "no seed corpus in $seeds"
        continue
    fi
    dirs=("$seeds")
    [ -d tests/fuzz/regress/$target ] && dirs+=(tests/fuzz/regress/$target)
    log=$T_TMP/replay_$target.log
    if "$bin" "${dirs[@]}" >"$log" 2>&1; then
        t_pass "fuzz replay $target: $(sed -n 's/^replayed \([0-9]*\) inputs$/\1/p' "$log") inputs"
    else
        rc=$?
        culprit=$(grep '^replay: ' "$log" | tail -n 1)
        t_fail "fuzz replay $target" "status $rc at ${culprit#replay: }"
        tail -n 30 "$log" | sed 's/^/    /'
    fi
done
t_finish
