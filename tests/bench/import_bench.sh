#!/usr/bin/env bash
# The pull's import of a benign ~50 MB bundle (issue 29: the pack scanner that bounds a
# pull must not slow a normal one): a full bundle of a generated project whose history holds
# deltas, half code-like text (compresses about 4x), half base64 (about 1.3x), imported into
# an empty repository by git_tool (bundle_import_*, as --pull does, without the network).
# Median wall and CPU seconds and peak memory of BENCH_IMPORT_RUNS (5) runs per tool; several
# tools (e.g. a build of main and one of this branch) run in turns, so load hits both alike.
#   tests/bench/import_bench.sh [GIT_TOOL...]   (default: build/tests/integration/git_tool)
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/bench/bench_lib.sh"
[ $# -gt 0 ] || set -- "$ROOT/build/tests/integration/git_tool"
RUNS=${BENCH_IMPORT_RUNS:-5}
W=$(mktemp -d "${TMPDIR:-/tmp}/e2b-import-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
export GIT_CONFIG_NOSYSTEM=1 HOME=$W GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@b GIT_COMMITTER_NAME=b \
    GIT_COMMITTER_EMAIL=b@b
P=$W/proj
git init -q -b main "$P"
python3 - "$P" <<'PY'
import base64, os, random, subprocess, sys
root = sys.argv[1]
rnd = random.Random(29)
words = ("int char const static return if else for while struct void size_t err buf len "
         "ptr next free malloc data rc out in goto fail ok i j n k").split()
pool = ["    " * rnd.randint(0, 3) + " ".join(rnd.choice(words) for _ in range(rnd.randint(3, 12)))
        + ";" for _ in range(20000)]
def code(n):
    lines = rnd.choices(pool, k=n // 40)
    return lines
files = {}
for i in range(500):
    files["src/c%03d.c" % i] = code(100000)
for i in range(300):
    files["data/b%03d.txt" % i] = base64.encodebytes(os.urandom(150000)).decode().splitlines()
def write(names):
    for name in names:
        os.makedirs(os.path.join(root, os.path.dirname(name)), exist_ok=True)
        with open(os.path.join(root, name), "w") as f:
            f.write("\n".join(files[name]) + "\n")
write(files)
git = lambda *a: subprocess.run(["git", "-C", root] + list(a), check=True)
git("add", "-A"); git("commit", "-qm", "one")
for c in range(15):  # edits: later versions are deltas against earlier ones
    names = rnd.sample(sorted(files), 40)
    for name in names:
        lines = files[name]
        for _ in range(20):
            lines[rnd.randrange(len(lines))] = " ".join(rnd.choice(words) for _ in range(6))
    write(names)
    git("commit", "-qam", "edit %d" % c)
PY
git -C "$P" repack -adq
git -C "$P" update-ref refs/e2b-tui/scratch main # the ref a pull imports
git -C "$P" bundle create -q "$W/b.bundle" refs/e2b-tui/scratch 2>/dev/null
size=$(wc -c <"$W/b.bundle")
objs=$(git -C "$P" count-objects -v | sed -n 's/^in-pack: //p')
echo "import bench: a full bundle of $size bytes, $objs objects, $(git -C "$P" rev-list --count main) commits"
i=0
for tool in "$@"; do : >"$W/t$i"; i=$((i + 1)); done
for _ in $(seq "$RUNS"); do
    i=0
    for tool in "$@"; do
        rm -rf "$W/dst" && git init -q "$W/dst"
        /usr/bin/time -f '%e %U %S %M' -o "$W/time" "$tool" import "$W/dst" e2b/box <"$W/b.bundle" >/dev/null
        tail -n 1 "$W/time" >>"$W/t$i"
        i=$((i + 1))
    done
done
i=0
for tool in "$@"; do
    wall=$(cut -d' ' -f1 "$W/t$i" | bench_median)
    cpu=$(awk '{print $2 + $3}' "$W/t$i" | bench_median)
    rss=$(awk '{print int($4 / 1024)}' "$W/t$i" | bench_median)
    bench_figure "import ($tool), wall" "$wall" s
    bench_figure "import ($tool), CPU" "$cpu" s
    bench_figure "import ($tool), peak RSS" "$rss" MB
    i=$((i + 1))
done
