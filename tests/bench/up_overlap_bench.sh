#!/usr/bin/env bash
# make bench: --up with a slow create (issue 16, "up: overlap everything"). Against real
# E2B the create is a network round trip of hundreds of ms and listing a large project can
# take as long; up makes the sandbox while its worker lists the files, so the create's
# latency should cost only what the listing does not cover. e2b-local delays the create by
# BENCH_CREATE_MS (300); a generated project of BENCH_OVERLAP_FILES (20,000) small files
# (BENCH_OVERLAP_MB, 5 MB) is upped BENCH_OVERLAP_RUNS (3) times with and without that
# delay. Prints the medians of the time until the upload starts (from e2b-tui's step log:
# what the overlap changes; the upload and the server's start after it are the same either
# way) and of the whole up, the listing's own time (its "file list" log line) and what the
# delay added before the upload. Target: with the delay, the time until the upload starts
# is at most the longer of the delay and that time without it, plus 50 ms.
#   tests/bench/up_overlap_bench.sh [BUILD_DIR]     (build/: the optimised binaries)
B=${1:-build}
E2B_TUI_ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case $B in /*) BD=$B ;; *) BD=$E2B_TUI_ROOT/$B ;; esac
: "${E2B_TUI_BIN:=$BD/e2b-tui}"
E2B_LOCAL_BIN=$BD/e2b-local
. "$E2B_TUI_ROOT/tests/lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/lib/faults.sh"
. "$E2B_TUI_ROOT/tests/bench/bench_lib.sh"
RUNS=${BENCH_OVERLAP_RUNS:-3}
MB=${BENCH_OVERLAP_MB:-5}
FILES=${BENCH_OVERLAP_FILES:-20000}
LAT=${BENCH_CREATE_MS:-300}
STEPS=$E2B_TUI_ROOT/tests/bench/steps.py

box_setup >/dev/null || { echo "bench: e2b-local did not start" >&2; exit 1; }
proj=$T_TMP/work/many
mkdir -p "$proj"
cd "$proj" && git init -q -b main . && git config user.name B && git config user.email b@x
python3 "$E2B_TUI_ROOT/tests/bench/make_project.py" "$MB" "$FILES"
mkdir -p tools && cp "$BOX_FIXTURES/opencode_misbehaving" tools/opencode2
git add -A && git commit -qm many
LOG=$XDG_STATE_HOME/e2b-tui/e2b-tui.log
now() { date +%s.%N; }
# up_runs TAG DELAY_MS: RUNS ups (each killed after), wall times in $T_TMP/TAG.wall, the
# times until the upload starts in TAG.prep, the listing's in TAG.list, the step times in
# TAG.steps.N
up_runs() {
    local tag=$1 ms=$2 r s e
    for r in $(seq "$RUNS"); do
        rm -f "$LOG"
        fault_clear
        [ "$ms" = 0 ] || fault_set "{\"kind\":\"delay\",\"path\":\"/v2/sandboxes\",\"method\":\"POST\",\"count\":1,\"delayMs\":$ms}"
        s=$(now)
        BOX_REPO=$proj box_tui --up "$tag$r"
        e=$(now)
        [ "$BOX_RC" = 0 ] || { echo "bench: up failed: $(head -c 400 "$BOX_ERR")" >&2; exit 1; }
        echo "$e - $s" | bc >>"$T_TMP/$tag.wall"
        sed -n "s/.*up $tag$r: the file list is ready after \([0-9]*\) ms.*/\1/p" "$LOG" |
            awk '{print $1 / 1000}' >>"$T_TMP/$tag.list"
        python3 "$STEPS" split "$LOG" up "$tag$r" >"$T_TMP/$tag.steps.$r"
        awk -F'\t' '$1 == "starting the extraction" {exit} {t += $2} END {print t}' \
            "$T_TMP/$tag.steps.$r" >>"$T_TMP/$tag.prep"
        BOX_REPO=$proj box_tui --kill "$tag$r" --force >/dev/null
    done
}
up_runs fast 0
up_runs slow "$LAT"
fault_clear
med() { bench_median <"$T_TMP/$1"; }
fast=$(med fast.prep) slow=$(med slow.prep) list=$(med slow.list)
# Side by side, the slow create costs only what the rest of the way to the upload does not
# cover: at most the longer of the two, with 50 ms for the machine's noise (one after the
# other it costs their sum).
allow=$(echo "scale=3; x = $LAT / 1000; if ($fast > x) x = $fast; x + 0.05" | bc)
bench_figure "up of $FILES files: until the upload starts (median of $RUNS)" "$(printf %.2f "$fast")" s
bench_figure "  the same, create delayed $LAT ms" "$(printf %.2f "$slow")" s '<=' "$(printf %.2f "$allow")"
bench_figure "  the file list on the worker (delayed runs)" "$(printf %.2f "$list")" s
bench_figure "  time the $LAT ms delay added before the upload" "$(printf %.2f "$(echo "$slow - $fast" | bc)")" s
bench_figure "  whole up, create answered at once" "$(printf %.2f "$(med fast.wall)")" s
bench_figure "  whole up, create delayed $LAT ms" "$(printf %.2f "$(med slow.wall)")" s
python3 "$STEPS" median "$T_TMP"/slow.steps.* | while IFS=$'\t' read -r step sec n; do
    [ "$step" = "starting the extraction" ] && break
    bench_figure "  up step (create delayed): $step" "$(printf %.2f "$sec")" s
done
