#!/usr/bin/env bash
# A project set up once (issue 36): a generated project (BENCH_PREP_MB, 30 MB, of text-like
# files) with a .e2b-tui/setup that installs something (BENCH_PREP_DEPS_MB, 50 MB, written
# into the box user's home, as a package manager's cache would be). The first --up runs the
# setup in a box of the base template, keeps it as the prepared snapshot and ups from it;
# after a small change the second --up starts from the prepared snapshot and sends only the
# delta. Prints both times, the bytes the second sent and the ratio against the target
# (second <= 0.5x the first).
#   tests/bench/prepare_bench.sh [BUILD_DIR]     (build/: the optimised binaries)
B=${1:-build}
E2B_TUI_ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case $B in /*) BD=$B ;; *) BD=$E2B_TUI_ROOT/$B ;; esac
E2B_TUI_BIN=$BD/e2b-tui
E2B_LOCAL_BIN=$BD/e2b-local
. "$E2B_TUI_ROOT/tests/lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/bench/bench_lib.sh"
MB=${BENCH_PREP_MB:-30}
DEPS=${BENCH_PREP_DEPS_MB:-50}

box_setup >/dev/null || { echo "bench: e2b-local did not start" >&2; exit 1; }
proj=$T_TMP/work/prep
mkdir -p "$proj/.e2b-tui"
cd "$proj" && git init -q -b main . && git config user.name B && git config user.email b@x
python3 - "$MB" <<'PY'
import os, random, sys
mb = int(sys.argv[1])
random.seed(4)
words = [b"alpha", b"beta", b"gamma", b"return", b"static", b"int", b"\n"]
for i in range(mb * 10):
    d = "src/d%02d" % (i % 20)
    os.makedirs(d, exist_ok=True)
    with open("%s/f%04d.c" % (d, i), "wb") as f:
        f.write(b" ".join(random.choice(words) for _ in range(25_000))[:100_000])
PY
mkdir -p tools && cp "$BOX_FIXTURES/opencode_misbehaving" tools/opencode2
printf '#!/bin/sh\nmkdir -p "$HOME/deps" && head -c %dM /dev/urandom >"$HOME/deps/blob" && gzip -1 -k "$HOME/deps/blob"\n' \
    "$DEPS" >.e2b-tui/setup
chmod +x .e2b-tui/setup
echo '{"lockfileVersion": 3}' >package-lock.json
git add -A && git commit -qm project

now() { date +%s.%N; }
t0=$(now)
BOX_REPO=$proj box_tui --up first
t1=$(now)
[ "$BOX_RC" = 0 ] || { echo "bench: first up failed: $(head -c 400 "$BOX_ERR")" >&2; exit 1; }
grep -q "creating the set-up sandbox" "$BOX_ERR" || { echo "bench: the first up did not set up" >&2; exit 1; }
printf 'more\n' >>src/d00/f0000.c && git commit -qam change
t2=$(now)
BOX_REPO=$proj box_tui --up second
t3=$(now)
[ "$BOX_RC" = 0 ] || { echo "bench: second up failed: $(head -c 400 "$BOX_ERR")" >&2; exit 1; }
grep -q "from the prepared snapshot" "$BOX_ERR" || { echo "bench: the second up did not start from it" >&2; exit 1; }
sent=$(sed -n 's/.*bytes, \([0-9]*\) sent).*/\1/p' "$BOX_ERR")
first=$(echo "$t1 - $t0" | bc) second=$(echo "$t3 - $t2" | bc)
bench_figure "up of a project with a setup, first (sets it up)" "$(printf %.2f "$first")" s
bench_figure "up of it again, from the prepared snapshot" "$(printf %.2f "$second")" s
bench_figure "  the second up sent" "$(echo "scale=3; ${sent:-0} / 1000000" | bc)" MB "<=" 1
bench_figure "second / first up" "$(echo "scale=2; $second / $first" | bc)" x "<=" 0.5
BOX_REPO=$proj box_tui --kill first --force
BOX_REPO=$proj box_tui --kill second --force
