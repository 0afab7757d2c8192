#!/usr/bin/env bash
# make bench: the HTTP requests each box action makes, counted in e2b-local's request log
# (one line per request), against the floor of one round trip per step:
#   up 7 (secrets, name check, create, upload, extract, server start, health; the upload
#   is two requests: tar.gz and plain tar), attach 2 (connect,
#   health), stop 1, pull 3 (connect, commit+bundle in the box, download), kill 1.
# The --list and dashboard counts are in list_bench.sh.
#   tests/bench/requests_bench.sh [BUILD_DIR]
B=${1:-build}
E2B_TUI_ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case $B in /*) BD=$B ;; *) BD=$E2B_TUI_ROOT/$B ;; esac
E2B_TUI_BIN=$BD/e2b-tui
E2B_LOCAL_BIN=$BD/e2b-local
. "$E2B_TUI_ROOT/tests/lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"

box_setup >/dev/null || { echo "bench: e2b-local did not start" >&2; exit 1; }
# The attach command itself would talk to the server too: here it does nothing.
printf 'attach_command = true\n' >>"$XDG_CONFIG_HOME/e2b-tui/config"
LOCAL_LOG=$E2B_LOCAL_STATE/e2b-local.log

# act ACTION FLOOR ARGS...: runs e2b-tui ARGS and notes when it ran.
act() {
    local what=$1 floor=$2 s e
    shift 2
    s=$(date +%s.%N)
    box_tui "$@"
    e=$(date +%s.%N)
    [ "$BOX_RC" = 0 ] || { echo "bench: $what failed: $(head -c 300 "$BOX_ERR")" >&2; exit 1; }
    printf '%s\t%s\t%s\t%s\n' "$what" "$floor" "$s" "$e" >>"$T_TMP/windows"
}
act "up" 7 --up rq
act "attach (running)" 2 --attach rq
act "stop" 1 --stop rq
act "attach (resumes)" 2 --attach rq
id=$(box_sandbox_of rq)
box_exec "$id" "cd '$BOX_REPO' && echo change >>README.md" >/dev/null
act "pull" 3 --pull rq
act "kill" 1 --kill rq
sleep 0.5 # the last lines
python3 "$E2B_TUI_ROOT/tests/lib/request_windows.py" "$LOCAL_LOG" "$T_TMP/windows" |
    while IFS=$'\t' read -r what floor n list; do
        printf '%-24s %2d requests (floor %d): %s\n' "$what:" "$n" "$floor" "$list"
    done

# Issue 16: one dashboard refresh on the Boxes view, one running box among BENCH_OTHERS
# (10,000) other sandboxes: the boxes' list is one metadata query, so the others cost
# nothing (target <= 2 requests per refresh: the list and the box's metrics).
. "$E2B_TUI_ROOT/tests/bench/bench_lib.sh"
OTHERS=${BENCH_OTHERS:-10000}
box_tui --up rqv
[ "$BOX_RC" = 0 ] || { echo "bench: up failed: $(head -c 300 "$BOX_ERR")" >&2; exit 1; }
python3 "$E2B_TUI_ROOT/tests/tui/make_sandboxes.py" "$E2B_LOCAL_URL" "$E2B_API_KEY" "$OTHERS" other ||
    { echo "bench: make_sandboxes.py failed" >&2; exit 1; }
from=$(wc -l <"$LOCAL_LOG")
python3 - "$E2B_TUI_BIN" "$BOX_REPO" <<'PY'
import fcntl, os, pty, select, struct, sys, termios, time
pid, fd = pty.fork()
if pid == 0:
    os.chdir(sys.argv[2])
    os.environ["TERM"] = "xterm-256color"
    os.execv(sys.argv[1], [sys.argv[1], "--refresh", "1"])
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
end = time.monotonic() + float(os.environ.get("BENCH_DASH_SECONDS", "8"))
while time.monotonic() < end:
    if select.select([fd], [], [], 0.2)[0]:
        os.read(fd, 65536)
os.write(fd, b"q")
try:
    while os.read(fd, 65536):
        pass
except OSError:
    pass
os.waitpid(pid, 0)
PY
# The first refresh (secrets once, the first list) is left out.
tail -n +"$((from + 1))" "$LOCAL_LOG" | grep -E '^[^ ]+ (GET|POST|PUT|PATCH|DELETE) ' |
    awk '{print $2, ($3 ~ /^\//) ? $3 : $4}' | python3 -c '
import sys
# refreshes are told apart by the metrics call of the box (one per refresh): the requests from
# the second one up to the last, per refresh between them
reqs = [l.split()[1] for l in sys.stdin if l.strip()]
at = [i for i, p in enumerate(reqs) if p == "/sandboxes/metrics"]
print((at[-1] - at[1]) / (len(at) - 2) if len(at) > 2 else "nan")' >"$T_TMP/per"
bench_figure "Boxes view, $OTHERS other sandboxes: requests per refresh" "$(printf %.1f "$(cat "$T_TMP/per")")" req '<=' 2
box_tui --kill rqv
