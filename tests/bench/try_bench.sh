#!/usr/bin/env bash
# make bench, best of N (issue 34), against e2b-local with the real OpenCode server and the
# scripted model:
# - --up g --try N for N = 3 and 5: the time until every member has its task (is working),
#   against its parts done alone: one --up, one --fork --count N-1 (which starts each fork's
#   server with its own password); target: --try within their sum.
# - the memory of a dashboard watching BENCH_TRY_GROUPS groups of BENCH_TRY_SIZE (the issue
#   asks 5 of 5: 25 OpenCode servers; a shared 2-core machine may take less, say so).
#   tests/bench/try_bench.sh [BUILD_DIR]   (BENCH_TRY_NS="3 5", BENCH_TRY_GROUPS, BENCH_TRY_SIZE)
. "$(dirname "$0")/bench_lib.sh"
bench_box_env "${1:-build}" agent.sh try_fixture.sh tmux.sh
GROUPS_N=${BENCH_TRY_GROUPS:-5}
SIZE=${BENCH_TRY_SIZE:-5}
try_fixture >/dev/null || { echo "try bench: the fixture could not be set up" >&2; exit 1; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
echo "--- best of N: --try, and a dashboard watching groups ($(bench_cores) cores) ---"
for n in ${BENCH_TRY_NS:-3 5}; do
    t0=$(now)
    box_tui --up "b$n" || { echo "try bench: --up failed: $(head -c 300 "$BOX_ERR")"; exit 1; }
    t1=$(now)
    box_tui --fork "b$n" --count $((n - 1)) --yes || { echo "try bench: --fork failed: $(head -c 300 "$BOX_ERR")"; exit 1; }
    t2=$(now)
    box_tui --up "t$n" --try "$n" --prompt "Write the answer." --models mock/m1,mock/m2 --yes ||
        { echo "try bench: --try failed: $(head -c 300 "$BOX_ERR")"; exit 1; }
    t3=$(now)
    up=$(secs "$t0" "$t1") fork=$(secs "$t1" "$t2") try=$(secs "$t2" "$t3")
    parts=$(awk -v a="$up" -v b="$fork" 'BEGIN { printf "%.1f", a + b }')
    bench_figure "--try $n: every member working" "$try" s "<=" "$parts"
    echo "    (alone: --up ${up} s, --fork --count $((n - 1)) ${fork} s, servers started by it)"
    for k in $(seq "$n"); do
        box_tui --kill "t$n-$k" --force
        [ "$k" = 1 ] && box_tui --kill "b$n" --force || box_tui --kill "b$n-$k" --force
    done
done
for gi in $(seq "$GROUPS_N"); do
    box_tui --up "w$gi" --try "$SIZE" --prompt "Write the answer." --yes ||
        { echo "try bench: group w$gi not made: $(head -c 300 "$BOX_ERR")"; break; }
done
boxes=$(ls "$XDG_STATE_HOME/e2b-tui/boxes"/*.json 2>/dev/null | wc -l)
tmux_start 160 40 "cd '$BOX_REPO' && exec '$E2B_TUI_BIN' --refresh 2" >/dev/null
pid=
for _ in $(seq 100); do
    pid=$(pgrep -P "$(tmux_pane_pid)" -f e2b-tui | head -n 1)
    [ -z "$pid" ] && pid=$(tmux_pane_pid)
    tmux_capture | grep -q "w1-1 " && break
    sleep 0.3
done
# until the watches are up and every member's tests ran (the GROUP cells say "done")
for _ in $(seq 300); do
    [ "$(tmux_capture | grep -c "$SIZE/$SIZE done")" -ge "$((GROUPS_N < 30 ? GROUPS_N * SIZE : 30))" ] && break
    sleep 1
done
sleep 10
rss=$(awk '/^VmRSS/ {printf "%.1f", $2 / 1024}' "/proc/$pid/status" 2>/dev/null)
hwm=$(awk '/^VmHWM/ {printf "%.1f", $2 / 1024}' "/proc/$pid/status" 2>/dev/null)
bench_figure "dashboard RSS, $GROUPS_N groups of $SIZE ($boxes boxes)" "${rss:-nan}" MB "<=" 64
echo "    (peak ${hwm:-?} MB; the issue asks 5 groups of 5: BENCH_TRY_GROUPS=5 BENCH_TRY_SIZE=5)"
tmux_type q
sleep 1
tmux_kill
for f in "$XDG_STATE_HOME/e2b-tui/boxes"/*.json; do
    [ -e "$f" ] && box_tui --kill "$(basename "$f" .json)" --force
done
