#!/usr/bin/env bash
# Each box action and --list makes exactly the requests it needs (counted in e2b-local's
# request log): up = secrets, create, two uploads (tar.gz and plain tar), extract, server
# start, then health probes only; attach of a running box = connect + one health probe;
# stop = pause; pull = connect, the script, the download, the cleanup; kill = the look for
# unpulled work (the sandbox's state, one script; no connect) + delete;
# --list = one request per page of 100; the dashboard on the Boxes view = the boxes' list
# (one page whatever the other sandboxes) + metrics per refresh, on All every page. A
# needless request added later fails here. No timing is asserted.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish
printf 'attach_command = true\n' >>"$XDG_CONFIG_HOME/e2b-tui/config"
LOCAL_LOG=$E2B_LOCAL_STATE/e2b-local.log

act() {
    local what=$1 s e
    shift
    s=$(date +%s.%N)
    box_tui "$@"
    e=$(date +%s.%N)
    box_rc "requests: $what succeeds" 0
    printf '%s\t0\t%s\t%s\n' "$what" "$s" "$e" >>"$T_TMP/windows"
}
act up --up rq
act attach --attach rq
act stop --stop rq
act "attach after stop" --attach rq
box_exec "$(box_sandbox_of rq)" "cd '$BOX_REPO' && echo change >>README.md" >/dev/null
act pull --pull rq
act kill --kill rq
python3 "$E2B_TUI_ROOT/tests/tui/make_sandboxes.py" "$E2B_LOCAL_URL" "$E2B_API_KEY" 150 other ||
    t_fail "requests: 150 sandboxes made" "make_sandboxes.py failed"
act "--list" --list --json
# The dashboard, by view (--refresh 1): on Boxes a refresh is the boxes' one-page list (a
# metadata query, whatever the other sandboxes) and the metrics of the running box; on
# All every page. The pty driver notes when each view was shown.
box_tui --up rqd
box_rc "requests: up for the dashboard succeeds" 0 || t_abort "the box did not come up"
python3 - "$E2B_TUI_BIN" "$T_TMP/windows" "$BOX_REPO" <<'PY'
import fcntl, os, pty, select, struct, sys, termios, time
pid, fd = pty.fork()
if pid == 0:
    os.chdir(sys.argv[3])
    os.environ["TERM"] = "xterm-256color"
    os.execv(sys.argv[1], [sys.argv[1], "--refresh", "1"])
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
def run(secs):
    end = time.monotonic() + secs
    while time.monotonic() < end:
        if select.select([fd], [], [], 0.1)[0]:
            os.read(fd, 65536)
w = open(sys.argv[2], "a")
run(1.5)  # the start: secrets once, the first list
s = time.time(); run(4.5); w.write("dash boxes\t0\t%f\t%f\n" % (s, time.time()))
os.write(fd, b"3")
run(1.0)  # the view opens: its list at once
s = time.time(); run(4.5); w.write("dash all\t0\t%f\t%f\n" % (s, time.time()))
w.close()
os.write(fd, b"q")
try:
    while os.read(fd, 65536):
        pass
except OSError:
    pass
os.waitpid(pid, 0)
PY
box_tui --kill rqd
sleep 0.3 # streams' lines are written when they end
python3 "$E2B_TUI_ROOT/tests/lib/request_windows.py" "$LOCAL_LOG" "$T_TMP/windows" >"$T_TMP/counted"

# requests_of ACTION: that action's requests, sorted, one a line.
requests_of() { awk -F'\t' -v a="$1" '$1 == a {print $4}' "$T_TMP/counted" | sed 's/, /\n/g' | sort; }
want() { printf '%s\n' "$@" | sort; }

got=$(requests_of up)
# Three processes: the extraction, the server, and the one probe of which OpenCode the box has.
t_eq "requests: up makes only its steps' requests and health probes" \
    "$(printf '%s\n' "$got" | grep -v '^GET /api/health$')" \
    "$(want 'GET /secrets' 'GET /v2/sandboxes' 'POST /v2/sandboxes' 'POST /files' 'POST /files' 'POST /process.Process/Start' 'POST /process.Process/Start' \
        'POST /process.Process/Start')"
t_ok "requests: up probes the health at least once" grep -q '^GET /api/health$' <<<"$got"
t_eq "requests: attach of a running box = connect + one health probe" "$(requests_of attach)" \
    "$(want 'POST /v2/sandboxes/ID/connect' 'GET /api/health')"
t_eq "requests: stop = one pause" "$(requests_of stop)" "POST /sandboxes/ID/pause"
t_eq "requests: attach after stop (resume) = connect + one health probe" \
    "$(requests_of 'attach after stop')" "$(want 'POST /v2/sandboxes/ID/connect' 'GET /api/health')"
t_eq "requests: pull = connect, script, download, cleanup" "$(requests_of pull)" \
    "$(want 'POST /v2/sandboxes/ID/connect' 'POST /process.Process/Start' 'GET /files' 'POST /filesystem.Filesystem/Remove')"
t_eq "requests: kill = the look for unpulled work (sandbox, script) + one delete" \
    "$(requests_of kill)" "$(want 'GET /sandboxes/ID' 'POST /process.Process/Start' 'DELETE /sandboxes/ID')"
t_eq "requests: --list of 150 sandboxes = 2 pages" "$(requests_of --list)" \
    "$(want 'GET /v2/sandboxes' 'GET /v2/sandboxes')"
# per refresh: the requests of a view's window over its list requests of one page each
per_refresh() { requests_of "$1" | awk '$2 == "/v2/sandboxes" {l++} {n++} END {printf "%d %d\n", l, n}'; }
read -r lists total < <(per_refresh "dash boxes")
t_ok "requests: the Boxes view refreshed (--refresh 1): $lists lists" test "$lists" -ge 2
t_eq "requests: Boxes view, 150 other sandboxes: list + metrics per refresh" \
    "$(requests_of "dash boxes" | sort -u)" "$(want 'GET /sandboxes/ID' 'GET /v2/sandboxes')" # ID: the metrics
t_ok "requests: Boxes view: <= 2 requests per refresh ($total in $lists refreshes)" \
    test "$total" -le $((2 * lists))
# each refresh asks the running box's metrics once: one page per refresh means no more
# list requests than metrics calls (+1 for a refresh cut by the window)
t_ok "requests: Boxes view lists one page per refresh (not the others' pages)" \
    test "$lists" -le $((total - lists + 1))
read -r lists total < <(per_refresh "dash all")
t_ok "requests: All view lists every page (2 per refresh of 150 + 1): $lists" test "$lists" -ge 4
t_ok "requests: All view: 2 pages + metrics per refresh ($total requests, $lists pages)" \
    test "$total" -le $((lists + lists / 2 + 1))
t_finish
