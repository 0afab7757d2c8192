#!/usr/bin/env bash
# make bench: `e2b-tui --list --json` against e2b-local holding BENCH_ROWS (2,000) boxes:
# wall time and peak RSS (median of BENCH_LIST_RUNS, 5), and the HTTP requests of one
# --list and of one dashboard refresh, from e2b-local's request log, against the floor of
# one round trip per page of 100 (+1 for the dashboard's bulk metrics).
#   tests/bench/list_bench.sh [BUILD_DIR]
set -u
B=${1:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case $B in /*) BD=$B ;; *) BD=$ROOT/$B ;; esac
. "$ROOT/tests/bench/bench_lib.sh"
ROWS=${BENCH_ROWS:-2000}
RUNS=${BENCH_LIST_RUNS:-5}
dir=$(mktemp -d "${TMPDIR:-/tmp}/e2b-tui-list-bench.XXXXXX") || exit 1
pid=
cleanup() {
    [ -n "$pid" ] && { kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; }
    rm -rf "$dir"
}
trap cleanup EXIT
key=e2b_bench_local_key
"$BD/e2b-local" --listen 127.0.0.1:0 --state "$dir/state" --api-key "$key" >"$dir/out" 2>"$dir/err" &
pid=$!
url=
for _ in $(seq 200); do
    url=$(sed -n 's/^e2b-local listening on //p' "$dir/out" | head -n 1)
    [ -n "$url" ] && break
    sleep 0.05
done
[ -n "$url" ] || { echo "bench: e2b-local did not start: $(head -c 300 "$dir/err")" >&2; exit 1; }
python3 "$ROOT/tests/tui/make_sandboxes.py" "$url" "$key" "$ROWS" box box || exit 1
export HOME=$dir/home XDG_CONFIG_HOME=$dir/home/.config XDG_STATE_HOME=$dir/home/.local/state
export E2B_API_KEY=$key E2B_API_URL=$url E2B_SANDBOX_URL=$url E2B_DOMAIN=localhost:${url##*:}
mkdir -p "$HOME"
LOCAL_LOG=$dir/state/e2b-local.log
# requests_since LINE: e2b-local's request lines after line LINE of its log.
requests_since() { tail -n +"$(($1 + 1))" "$LOCAL_LOG" | grep -cE '^[^ ]+ (GET|POST|PUT|PATCH|DELETE) '; }

for _ in $(seq "$RUNS"); do
    from=$(wc -l <"$LOCAL_LOG")
    /usr/bin/time -f '%e %M %U %S' -o "$dir/time" "$BD/e2b-tui" --list --json >"$dir/list.json" ||
        { echo "bench: --list failed" >&2; exit 1; }
    read -r wall kib user sys <"$dir/time"
    echo "$wall" >>"$dir/wall"
    echo "$user + $sys" | bc >>"$dir/cpu"
    echo "$kib" >>"$dir/rss"
    requests_since "$from" >>"$dir/reqs"
done
got=$(jq '.boxes | length' "$dir/list.json")
[ "$got" = "$ROWS" ] || { echo "bench: --list --json listed $got boxes, not $ROWS" >&2; exit 1; }
pages=$(((ROWS + 99) / 100))
bench_figure "--list --json, $ROWS boxes (median of $RUNS)" "$(bench_median <"$dir/wall")" s "<=" 0.5
bench_figure "--list --json, $ROWS boxes: peak RSS" \
    "$(echo "scale=1; $(bench_median <"$dir/rss") / 1024" | bc)" MiB "<=" 20
# On a loaded machine wall time mostly waits for a CPU: this is e2b-tui's own share.
bench_figure "--list --json, $ROWS boxes: CPU (user + sys)" "$(bench_median <"$dir/cpu")" s
echo "--list: $(bench_median <"$dir/reqs") requests (floor $pages: one per page of 100)"

# One dashboard refresh: the dashboard on a pseudo-terminal with --refresh 1 for a few
# seconds; a cycle is one full list (PAGES list requests), and everything else it asked
# for in that time is spread over the cycles.
dash_from=$(wc -l <"$LOCAL_LOG")
python3 - "$BD/e2b-tui" <<'PY'
import fcntl, os, pty, select, struct, sys, termios, time
pid, fd = pty.fork()
if pid == 0:
    os.environ["TERM"] = "xterm-256color"
    os.execv(sys.argv[1], [sys.argv[1], "--refresh", "1"])
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
end = time.monotonic() + float(os.environ.get("BENCH_DASH_SECONDS", "6.5"))
while time.monotonic() < end:
    if select.select([fd], [], [], 0.2)[0]:
        try:
            os.read(fd, 65536)
        except OSError:
            break
os.write(fd, b"q")
try:
    while os.read(fd, 65536):
        pass
except OSError:
    pass
os.waitpid(pid, 0)
PY
tail -n +"$((dash_from + 1))" "$LOCAL_LOG" | grep -E '^[^ ]+ (GET|POST|PUT|PATCH|DELETE) ' |
    awk '{print $2, ($3 ~ /^\//) ? $3 : $4}' >"$dir/dash.reqs"
lists=$(grep -c '^GET /v2/sandboxes$' "$dir/dash.reqs")
cycles=$((lists / pages))
if [ "$cycles" -gt 0 ]; then
    total=$(grep -c '' "$dir/dash.reqs")
    per=$(echo "scale=1; $total / $cycles" | bc)
    echo "dashboard refresh, $ROWS boxes: $per requests per refresh (floor $((pages + 1)):" \
         "$pages pages + 1 bulk metrics; $cycles refreshes seen:" \
         "$(sort "$dir/dash.reqs" | uniq -c | awk '{printf "%s%d x %s %s", sep, $1, $2, $3; sep=", "}'))"
else
    echo "dashboard refresh: no full list seen in ${BENCH_DASH_SECONDS:-6.5} s"
fi
