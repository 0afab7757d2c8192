#!/usr/bin/env bash
# make bench: --up of a generated 150 MB / 5,000-file project and --pull of a 20 MB change
# made in the box, against e2b-local; each a median of BENCH_UP_RUNS (3) runs. Prints wall
# time and MB/s, then where the time goes: e2b-tui's steps (from its log, one line per
# step change), the tar.gz made alone on this machine, and e2b-local's time on the upload
# request. Scale down with BENCH_UP_MB (150), BENCH_UP_FILES (5000), BENCH_PULL_MB (20);
# BENCH_UP_GC=1 packs the project's history first; BENCH_UP_GC=amend amends the commit
# (one file changed) before that, so the pack also holds what only the reflog reaches.
#   tests/bench/up_pull_bench.sh [BUILD_DIR]     (build/: the optimised binaries)
B=${1:-build}
E2B_TUI_ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case $B in /*) BD=$B ;; *) BD=$E2B_TUI_ROOT/$B ;; esac
E2B_TUI_BIN=$BD/e2b-tui
E2B_LOCAL_BIN=$BD/e2b-local
. "$E2B_TUI_ROOT/tests/lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/bench/bench_lib.sh"
RUNS=${BENCH_UP_RUNS:-3}
MB=${BENCH_UP_MB:-150}
FILES=${BENCH_UP_FILES:-5000}
PULL_MB=${BENCH_PULL_MB:-20}
STEPS=$E2B_TUI_ROOT/tests/bench/steps.py
TOOL=$BD/tests/integration/git_tool

box_setup >/dev/null || { echo "bench: e2b-local did not start" >&2; exit 1; }
# e2b-tui's own CPU seconds (user + sys) and peak RSS, one line per run: wall time on a
# shared machine says little alone.
REAL_TUI=$E2B_TUI_BIN
E2B_TUI_BIN=$T_TMP/e2b-tui-timed
printf '#!/bin/sh\nexec /usr/bin/time -f "%%U %%S %%M" -a -o "$TIMED_OUT" "%s" "$@"\n' "$REAL_TUI" >"$E2B_TUI_BIN"
chmod +x "$E2B_TUI_BIN"
export TIMED_OUT=$T_TMP/cpu.none
big=$T_TMP/work/big
mkdir -p "$big"
cd "$big" && git init -q -b main . && git config user.name B && git config user.email b@x
python3 "$E2B_TUI_ROOT/tests/bench/make_project.py" "$MB" "$FILES"
mkdir -p tools && cp "$BOX_FIXTURES/opencode_misbehaving" tools/opencode2
git add -A && git commit -qm big
# BENCH_UP_GC=1: the history in a pack (git gc), as in a cloned or long-lived repository.
# BENCH_UP_GC=amend: the commit amended first, as after an amend or a rebase: the pack git gc
# makes also holds the old commit, tree and blob, which only the reflog reaches.
kind="loose objects"
if [ "${BENCH_UP_GC:-0}" = amend ]; then
    f=$(git ls-files | grep -v '^tools/' | head -n 1)
    echo amended >>"$f" && git commit -qa --amend -m big && git gc -q
    kind="amended, then packed by git gc"
elif [ "${BENCH_UP_GC:-0}" = 1 ]; then
    git gc -q && kind="packed by git gc"
fi
wt_bytes=$(du -sb --exclude=.git . | cut -f1)
git_bytes=$(du -sb .git | cut -f1)
printf 'up/pull project: %d files, %.1f MB work tree, %.1f MB .git (%s)\n' \
    "$(git ls-files | wc -l)" "$(echo "$wt_bytes / 1000000" | bc -l)" "$(echo "$git_bytes / 1000000" | bc -l)" "$kind"

LOG=$XDG_STATE_HOME/e2b-tui/e2b-tui.log
LOCAL_LOG=$E2B_LOCAL_STATE/e2b-local.log
now() { date +%s.%N; }
for r in $(seq "$RUNS"); do
    rm -f "$LOG"
    from=$(wc -l <"$LOCAL_LOG")
    s=$(now)
    TIMED_OUT=$T_TMP/cpu.up BOX_REPO=$big box_tui --up "big$r"
    e=$(now)
    [ "$BOX_RC" = 0 ] || { echo "bench: up failed: $(head -c 400 "$BOX_ERR")" >&2; exit 1; }
    echo "$e - $s" | bc >>"$T_TMP/up.wall"
    sed -n 's/.*(\([0-9]*\) bytes, \([0-9]*\) sent).*/\2/p' "$BOX_ERR" >>"$T_TMP/up.sent"
    python3 "$STEPS" split "$LOG" up "big$r" >"$T_TMP/up.steps.$r"
    tail -n +"$((from + 1))" "$LOCAL_LOG" | awk '$3 == "/files" || $4 == "/files" {print $(NF)}' |
        sed -n 's/ms$//p' | awk '{print $1 / 1000}' >>"$T_TMP/up.server"
    id=$(box_sandbox_of "big$r")
    box_exec "$id" "cd '$big' && mkdir -p gen && for i in \$(seq $((PULL_MB * 10))); do head -c 100000 /dev/urandom >gen/r\$i.bin; done" >/dev/null
    rm -f "$LOG"
    s=$(now)
    TIMED_OUT=$T_TMP/cpu.pull BOX_REPO=$big box_tui --pull "big$r"
    e=$(now)
    [ "$BOX_RC" = 0 ] || { echo "bench: pull failed: $(head -c 400 "$BOX_ERR")" >&2; exit 1; }
    echo "$e - $s" | bc >>"$T_TMP/pull.wall"
    sed -n 's/.*bundle of \([0-9]*\) bytes.*/\1/p' "$BOX_ERR" >>"$T_TMP/pull.bytes"
    python3 "$STEPS" split "$LOG" pull "big$r" >"$T_TMP/pull.steps.$r"
    BOX_REPO=$big box_tui --kill "big$r"
    git -C "$big" branch -q -D "e2b/big$r"
done
# One tar.gz of the whole project at level 1, alone, without
# sending it: what the upload cost before the split into tar.gz and plain tar.
for r in $(seq "$RUNS"); do
    s=$(now)
    "$TOOL" upload "$big" 1 2>/dev/null | wc -c >/dev/null
    e=$(now)
    echo "$e - $s" | bc >>"$T_TMP/targz.wall"
done

med() { bench_median <"$T_TMP/$1"; }
up_s=$(med up.wall)
pull_s=$(med pull.wall)
mbs() { echo "scale=1; $1 / 1000000 / $2" | bc; }
bench_figure "up of $((wt_bytes / 1000000)) MB / $FILES files (median of $RUNS)" "$(printf %.2f "$up_s")" s '<=' 5
bench_figure "up throughput (work tree MB / s)" "$(mbs "$wt_bytes" "$up_s")" MB/s
bench_figure "up CPU of e2b-tui (user + sys)" "$(awk '{print $1 + $2}' "$T_TMP/cpu.up" | bench_median)" s
bench_figure "up peak RSS of e2b-tui" "$(echo "scale=1; $(awk '{print $3}' "$T_TMP/cpu.up" | bench_median) / 1024" | bc)" MiB
bench_figure "up bytes sent (work tree + .git)" "$(echo "scale=1; $(med up.sent) / 1000000" | bc)" MB
python3 "$STEPS" median "$T_TMP"/up.steps.* | while IFS=$'\t' read -r step sec n; do
    bench_figure "  up step: $step" "$(printf %.2f "$sec")" s
done
bench_figure "  up local: one tar.gz of it all (level 1), no sending" "$(printf %.2f "$(med targz.wall)")" s
bench_figure "  up server: e2b-local's POST /files" "$(printf %.2f "$(med up.server)")" s
bench_figure "pull of a $PULL_MB MB change (median of $RUNS)" "$(printf %.2f "$pull_s")" s
bench_figure "pull CPU of e2b-tui (user + sys)" "$(awk '{print $1 + $2}' "$T_TMP/cpu.pull" | bench_median)" s
bench_figure "pull throughput (bundle MB / s)" "$(mbs "$(med pull.bytes)" "$pull_s")" MB/s
python3 "$STEPS" median "$T_TMP"/pull.steps.* | while IFS=$'\t' read -r step sec n; do
    bench_figure "  pull step: $step" "$(printf %.2f "$sec")" s
done
