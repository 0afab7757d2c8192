#!/usr/bin/env bash
# Up from a snapshot (issue 17): a generated 150 MB / 5,000-file project is upped, the box
# snapshotted, then 1 MB of the project changes (ten 100 KB edits of tracked files and a
# commit) and --up --from runs BENCH_SNAP_RUNS (3) times, each beside a plain up of the same
# project and a fork of the box it made (the server's fork call); prints the medians, the
# spread and the load against the targets (<= 2 MB sent, <= 1.5 s on loopback, <= 0.25x the
# plain up, fork <= 0.5 s; issue 32). Scale with BENCH_UP_MB (150) and BENCH_UP_FILES (5000).
#   tests/bench/snapshot_bench.sh [BUILD_DIR]     (build/: the optimised binaries)
B=${1:-build}
E2B_TUI_ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case $B in /*) BD=$B ;; *) BD=$E2B_TUI_ROOT/$B ;; esac
E2B_TUI_BIN=$BD/e2b-tui
E2B_LOCAL_BIN=$BD/e2b-local
. "$E2B_TUI_ROOT/tests/lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/bench/bench_lib.sh"
RUNS=${BENCH_SNAP_RUNS:-3}
MB=${BENCH_UP_MB:-150}
FILES=${BENCH_UP_FILES:-5000}

box_setup >/dev/null || { echo "bench: e2b-local did not start" >&2; exit 1; }
big=$T_TMP/work/big
mkdir -p "$big"
cd "$big" && git init -q -b main . && git config user.name B && git config user.email b@x
# Text-like files and 1% of random binary files, as up_pull_bench.sh's project.
python3 - "$MB" "$FILES" <<'PY'
import os, random, sys
mb, files = int(sys.argv[1]), int(sys.argv[2])
nbin = max(1, files // 100)
bin_size, text_size = mb * 500_000 // nbin, mb * 500_000 // (files - nbin)
random.seed(2)
words = [b"alpha", b"beta", b"gamma", b"delta", b"return", b"static", b"int", b"void", b"\n"]
for i in range(files):
    d = "src/d%02d" % (i % 50)
    os.makedirs(d, exist_ok=True)
    with open("%s/f%04d.%s" % (d, i, "bin" if i % 100 == 0 else "c"), "wb") as f:
        f.write(os.urandom(bin_size) if i % 100 == 0 else
                b" ".join(random.choice(words) for _ in range(text_size // 4))[:text_size])
PY
mkdir -p tools && cp "$BOX_FIXTURES/opencode_misbehaving" tools/opencode2
git add -A && git commit -qm big
wt_bytes=$(du -sb --exclude=.git . | cut -f1)

BOX_REPO=$big box_tui --up base
[ "$BOX_RC" = 0 ] || { echo "bench: up failed: $(head -c 400 "$BOX_ERR")" >&2; exit 1; }
full_sent=$(sed -n 's/.*(\([0-9]*\) bytes, \([0-9]*\) sent).*/\2/p' "$BOX_ERR")
BOX_REPO=$big box_tui --snapshot base --as bench
[ "$BOX_RC" = 0 ] || { echo "bench: snapshot failed: $(head -c 400 "$BOX_ERR")" >&2; exit 1; }
BOX_REPO=$big box_tui --kill base
# 1 MB of change: ten tracked files get 100 KB of new text each, committed.
python3 - <<'PY'
import random
random.seed(3)
for i in range(10):
    with open("src/d%02d/f%04d.c" % ((i * 7 + 1) % 50, i * 7 + 1), "ab") as f:
        f.write(bytes(random.choice(b"abcdefgh \n") for _ in range(100_000)))
PY
git add -A && git commit -qm "1 MB change"

now() { date +%s.%N; }
load() { cut -d' ' -f1 /proc/loadavg; }
for r in $(seq "$RUNS"); do
    # A plain up of the same project in the same run, beside each up --from (same load).
    rm -f "$XDG_STATE_HOME/e2b-tui/e2b-tui.log"
    s=$(now)
    BOX_REPO=$big box_tui --up "plain$r"
    e=$(now)
    [ "$BOX_RC" = 0 ] || { echo "bench: plain up failed: $(head -c 400 "$BOX_ERR")" >&2; exit 1; }
    echo "$e - $s" | bc >>"$T_TMP/plain.wall"
    python3 "$E2B_TUI_ROOT/tests/bench/steps.py" split "$XDG_STATE_HOME/e2b-tui/e2b-tui.log" up "plain$r" |
        awk -F'\t' '$1 == "waiting for the server" { print $2 }' >>"$T_TMP/plain.server"
    BOX_REPO=$big box_tui --kill "plain$r"
    rm -f "$XDG_STATE_HOME/e2b-tui/e2b-tui.log"
    load >>"$T_TMP/snap.load"
    s=$(now)
    BOX_REPO=$big box_tui --up "snap$r" --from bench
    e=$(now)
    [ "$BOX_RC" = 0 ] || { echo "bench: up --from failed: $(head -c 400 "$BOX_ERR")" >&2; exit 1; }
    echo "$e - $s" | bc >>"$T_TMP/snap.wall"
    python3 "$E2B_TUI_ROOT/tests/bench/steps.py" split "$XDG_STATE_HOME/e2b-tui/e2b-tui.log" up "snap$r" >"$T_TMP/snap.steps.$r"
    awk -F'\t' '$1 == "waiting for the server" { print $2 }' "$T_TMP/snap.steps.$r" >>"$T_TMP/snap.server"
    sed -n 's/.*(\([0-9]*\) bytes, \([0-9]*\) sent).*/\2/p' "$BOX_ERR" >>"$T_TMP/snap.sent"
    # The server's fork of that box (the sandbox's files; e2b-tui's --fork also starts the
    # agent's server in it, which is OpenCode's time, not the copy's).
    sid=$(box_sandbox_of "snap$r")
    [ -n "${BENCH_SNAP_DEBUG:-}" ] && du -sh "$E2B_LOCAL_STATE/cow/$sid/upper" >&2 # the box's own layer
    read -r code secs < <(el_req POST "/sandboxes/$sid/fork" '{"count":1}' -w '%{http_code} %{time_total}')
    [ "$code" = 201 ] || { echo "bench: fork failed: $code $(head -c 300 "$EL_BODY_FILE")" >&2; exit 1; }
    echo "$secs" >>"$T_TMP/fork.wall"
    el_req DELETE "/sandboxes/$(el_json '.[0].sandbox.sandboxID')" >/dev/null
    BOX_REPO=$big box_tui --kill "snap$r"
done
BOX_REPO=$big box_tui --snapshots --delete bench
bench_figure "full up of $((wt_bytes / 1000000)) MB / $FILES files: bytes sent" "$(echo "scale=1; $full_sent / 1000000" | bc)" MB
bench_figure "up --from a snapshot, 1 MB changed: sent" "$(echo "scale=2; $(bench_median <"$T_TMP/snap.sent") / 1000000" | bc)" MB "<=" 2
spread() { sort -g "$1" | awk '{ v[NR] = $1 } END { printf "%.2f-%.2f", v[1], v[NR] }'; }
snap_s=$(bench_median <"$T_TMP/snap.wall") plain_s=$(bench_median <"$T_TMP/plain.wall")
echo "  (up --from runs $(spread "$T_TMP/snap.wall") s, plain up runs $(spread "$T_TMP/plain.wall") s, forks $(spread "$T_TMP/fork.wall") s; 1-min load $(paste -sd, "$T_TMP/snap.load"))"
bench_figure "up --from a snapshot, 1 MB changed (median of $RUNS)" "$(printf %.2f "$snap_s")" s "<=" 1.5
bench_figure "plain up of the same project (median of $RUNS)" "$(printf %.2f "$plain_s")" s
# A step that did not come is 0: the plain up starts its server while the files arrive
# (serve_early), so it may never wait for it.
srv_median() { [ -s "$1" ] && bench_median <"$1" || echo 0; }
snap_srv=$(srv_median "$T_TMP/snap.server") plain_srv=$(srv_median "$T_TMP/plain.server")
bench_figure "up --from / plain up, same run" "$(echo "scale=2; $snap_s / $plain_s" | bc)" x "<=" 0.25
# The agent's server starts in both (e2b-local carries no process, E2B resumes it running):
# its start is the floor of both ups, so the ratio without it is the copy-on-write's figure.
bench_figure "  waiting for the agent's server (from / plain)" "$(printf '%.2f / %.2f' "$snap_srv" "$plain_srv")" s
bench_figure "  up --from without the server's start" "$(printf %.2f "$(echo "$snap_s - $snap_srv" | bc)")" s "<=" 1.5
bench_figure "  up --from / plain up, server start left out" \
    "$(echo "scale=2; ($snap_s - $snap_srv) / ($plain_s - $plain_srv)" | bc)" x "<=" 0.25
bench_figure "fork of a box made from the snapshot (median)" "$(printf %.2f "$(bench_median <"$T_TMP/fork.wall")")" s "<=" 0.5
python3 "$E2B_TUI_ROOT/tests/bench/steps.py" median "$T_TMP"/snap.steps.* | while IFS=$'\t' read -r step sec n; do
    bench_figure "  up --from step: $step" "$(printf %.2f "$sec")" s
done
