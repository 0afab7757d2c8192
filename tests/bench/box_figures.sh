#!/usr/bin/env bash
# One-off figures for the box layer (not run by `make check`): time and bytes of
#   --up   of a 150 MB, 5,000-file project against e2b-local, and
#   --pull of a 20 MB change made in the box.
# Usage: tests/bench/box_figures.sh   (uses build/, the optimised binaries)
. "$(dirname "$0")/../lib/lib.sh"
E2B_TUI_BIN=$E2B_TUI_ROOT/build/e2b-tui
E2B_LOCAL_BIN=$E2B_TUI_ROOT/build/e2b-local
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish
big=$T_TMP/work/big
mkdir -p "$big"
cd "$big" && git init -q -b main . && git config user.name B && git config user.email b@x
# 5,000 files, 150 MB: 4,950 text-like files (compressible) and 50 of random bytes
python3 - <<'PY'
import os, random
random.seed(1)
words = [b"alpha", b"beta", b"gamma", b"delta", b"return", b"static", b"int", b"void", b"\n"]
for i in range(5000):
    d = "src/d%02d" % (i % 50)
    os.makedirs(d, exist_ok=True)
    with open("%s/f%04d.%s" % (d, i, "bin" if i % 100 == 0 else "c"), "wb") as f:
        if i % 100 == 0:
            f.write(os.urandom(1_500_000))
        else:
            f.write(b" ".join(random.choice(words) for _ in range(3600))[:15_150])
PY
git add -A && git commit -qm big
du -sb --exclude=.git . | awk '{printf "project: %.1f MB in %d files\n", $1/1e6, 5000}'
du -sb .git | awk '{printf ".git: %.1f MB\n", $1/1e6}'
cp "$BOX_FIXTURES/opencode_misbehaving" tools-opencode2 2>/dev/null || true
mkdir -p tools && cp "$BOX_FIXTURES/opencode_misbehaving" tools/opencode2 && git add tools && git commit -qm tools
s=$(date +%s.%N)
BOX_REPO=$big box_tui --up big
e=$(date +%s.%N)
echo "up: exit $BOX_RC, $(echo "$e - $s" | bc) s; $(grep uploaded "$BOX_ERR")"
id=$(box_sandbox_of big)
box_exec "$id" "cd '$big' && mkdir -p gen && for i in \$(seq 200); do head -c 100000 /dev/urandom >gen/r\$i.bin; done" >/dev/null
s=$(date +%s.%N)
BOX_REPO=$big box_tui --pull big
e=$(date +%s.%N)
echo "pull of a 20 MB change: exit $BOX_RC, $(echo "$e - $s" | bc) s; $(cat "$BOX_OUT") $(grep bundle "$BOX_ERR")"
BOX_REPO=$big box_tui --kill big
t_finish
