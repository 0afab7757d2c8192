#!/usr/bin/env bash
# One-off figures for the issue note (not a test): file list + tar.gz of a generated
# 150 MB / 5,000-file project, and the import of a ~20 MB pull bundle.
#   tests/bench/git_figures.sh [build]     (uses build/tests/integration/git_tool)
set -eu
B=${1:-build}
TOOL=$(cd "$(dirname "$0")/../.." && pwd)/$B/tests/integration/git_tool
W=$(mktemp -d "${TMPDIR:-/tmp}/e2b-git-figures.XXXXXX")
trap 'rm -rf "$W"' EXIT
export GIT_CONFIG_NOSYSTEM=1 HOME=$W GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@b GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@b
P=$W/proj
mkdir -p "$P" && cd "$P" && git init -q -b main
# 5,000 files of 30,000 bytes in 50 directories: half text (base64), half binary (random)
for d in $(seq 1 50); do
    mkdir -p "d$d"
    head -c $((50 * 24000)) /dev/urandom | base64 -w 100 | head -c $((50 * 30000)) |
        split -b 30000 -a 3 - "d$d/t"
    head -c $((50 * 30000)) /dev/urandom | split -b 30000 -a 3 - "d$d/b"
done
git add -A && git commit -qm big
now() { date +%s.%N; }
files=$(find . -path ./.git -prune -o -type f -print | wc -l)
wt=$(du -sb --exclude=.git . | cut -f1)
gd=$(du -sb .git | cut -f1)
echo "project: $files files, work tree $wt bytes, .git $gd bytes"
t0=$(now); n=$("$TOOL" list "$P" | wc -l); t1=$(now)
echo "file list: $n entries in $(echo "$t1 - $t0" | bc) s"
# CPU seconds and peak memory too: wall time on a shared machine says little on its own.
for level in 1 6; do
    out=$(bash -c 'TIMEFORMAT="%R %U %S"; time "$0" upload "$1" "$2" 2>"$3" | wc -c' \
        "$TOOL" "$P" "$level" "$W/err" 2>"$W/time")
    read -r real user sys < "$W/time"
    echo "tar.gz level $level: $out bytes from $((wt + gd)) in ${real}s wall, ${user}s user," \
         "${sys}s sys; $(grep -o 'peak .*' "$W/err") bytes buffered at most"
done
# a ~20 MB pull: new text files in a clone standing in for the box
git clone -q "$P" "$W/box"
BASE=$(git -C "$P" rev-parse HEAD)
mkdir -p "$W/box/new"
head -c 20000000 /dev/urandom | base64 -w 100 | split -b 100000 -a 3 - "$W/box/new/f"
t0=$(now); res=$("$TOOL" pull-run "$P" "$W/box" "$BASE" "" box); t1=$(now)
read -r _ commit mode size bundle <<<"$res"
echo "pull script in the box: $mode bundle of $size bytes in $(echo "$t1 - $t0" | bc) s"
out=$(bash -c 'TIMEFORMAT="%R %U %S"; time "$0" import "$1" e2b/box < "$2"' \
    "$TOOL" "$P" "$bundle" 2>"$W/time")
read -r real user sys < "$W/time"
echo "import of the $size-byte bundle: ${real}s wall, ${user}s user, ${sys}s sys ($out)"
rm -f "$bundle"
