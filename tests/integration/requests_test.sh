#!/usr/bin/env bash
# Each box action and --list makes exactly the requests it needs (counted in e2b-local's
# request log): up = secrets, create, two uploads (tar.gz and plain tar), extract, server
# start, then health probes only; attach of a running box = connect + one health probe;
# stop = pause; pull = connect, the script, the download, the cleanup; kill = delete;
# --list = one request per page of 100. A needless request added later fails here. No
# timing is asserted.
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
sleep 0.3 # streams' lines are written when they end
python3 "$E2B_TUI_ROOT/tests/lib/request_windows.py" "$LOCAL_LOG" "$T_TMP/windows" >"$T_TMP/counted"

# requests_of ACTION: that action's requests, sorted, one a line.
requests_of() { awk -F'\t' -v a="$1" '$1 == a {print $4}' "$T_TMP/counted" | sed 's/, /\n/g' | sort; }
want() { printf '%s\n' "$@" | sort; }

got=$(requests_of up)
t_eq "requests: up makes only its steps' requests and health probes" \
    "$(printf '%s\n' "$got" | grep -v '^GET /api/health$')" \
    "$(want 'GET /secrets' 'GET /v2/sandboxes' 'POST /v2/sandboxes' 'POST /files' 'POST /files' 'POST /process.Process/Start' 'POST /process.Process/Start')"
t_ok "requests: up probes the health at least once" grep -q '^GET /api/health$' <<<"$got"
t_eq "requests: attach of a running box = connect + one health probe" "$(requests_of attach)" \
    "$(want 'POST /v2/sandboxes/ID/connect' 'GET /api/health')"
t_eq "requests: stop = one pause" "$(requests_of stop)" "POST /sandboxes/ID/pause"
t_eq "requests: attach after stop (resume) = connect + one health probe" \
    "$(requests_of 'attach after stop')" "$(want 'POST /v2/sandboxes/ID/connect' 'GET /api/health')"
t_eq "requests: pull = connect, script, download, cleanup" "$(requests_of pull)" \
    "$(want 'POST /v2/sandboxes/ID/connect' 'POST /process.Process/Start' 'GET /files' 'POST /filesystem.Filesystem/Remove')"
t_eq "requests: kill = one delete" "$(requests_of kill)" "DELETE /sandboxes/ID"
t_eq "requests: --list of 150 sandboxes = 2 pages" "$(requests_of --list)" \
    "$(want 'GET /v2/sandboxes' 'GET /v2/sandboxes')"
t_finish
