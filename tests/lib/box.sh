# Helpers for the box tests (source after lib.sh and e2b_local.sh).
#   box_setup              isolated home, e2b-local started, file keystore, fixture repo in
#                          $BOX_REPO, config with the real OpenCode server as serve command
#                          (`opencode serve` of opencode-ai from build/npm, which every box
#                          sees at $NPM_TOOLS_BOX_DIR: tests/lib/npm_tools.sh; with the
#                          `opencode = 2` preset's /api/health) and
#                          the attach client stand-in on PATH as `opencode2`
#                          (tests/fixtures/opencode2_attach_fake: OpenCode 2's client cannot
#                          be installed here). Prints a FAIL line and returns 1 on failure.
#   box_misbehaving_server serve command = tests/fixtures/opencode_misbehaving (committed in
#                          the fixture repo), for tests that need a server to print what
#                          they say and exit when told; box_say ID LINE... tells it
#   box_tui ARGS...        runs e2b-tui from $BOX_REPO; stdout in $BOX_OUT, stderr in
#                          $BOX_ERR, exit status in $BOX_RC
#   box_sandbox_of NAME    the sandbox id in NAME's record
#   box_root ID            the sandbox's root directory on this machine
#   box_server_pid ID      the pid (on this machine) of the box's `opencode serve`
#   box_exec ID CMD        runs bash -c CMD in the sandbox as user (prints decoded events)
#   box_scan_clean NAME PATTERN_FILE PATH...
#                          passes when every PATH exists, the scan covered at least one
#                          file, and no file holds a line of PATTERN_FILE (grep -F -f: the
#                          secret is never in grep's argv); the count of files is printed
#   box_setup_rc WHAT WANT silent when the last box_tui (a setup step) exited WANT, else the
#                          file stops there (t_abort: one FAIL naming the step and its stderr)
#   box_snapshot DIR       a digest of HEAD, refs/heads/* except e2b/*, the index and every
#                          work tree file (names, modes, contents, link targets)
#   box_many_files DIR N TEXT
#                          N folders d000... of 100 small files each in DIR ("TEXT d f")
#   box_big_repo DIR       a new repository (no commit) of 30,000 small untracked files in
#                          300 folders: a listing that takes a while
BOX_FIXTURES=$E2B_TUI_ROOT/tests/fixtures
# The real server. Offline (a sandbox has no network) its default plugins wait ~6 s for a
# download that cannot happen before the first answer; without them it answers in ~1.5 s.
# Set by box_setup, once npm_tools_find has found the server.
BOX_SERVE_REAL=
. "$E2B_TUI_ROOT/tests/lib/npm_tools.sh"

box_setup() {
    t_isolated_home
    if ! npm_tools_find "$E2B_TUI_ROOT"; then
        t_fail "box setup" "needs the real OpenCode server: $NPM_TOOLS_WHY"
        return 1
    fi
    BOX_SERVE_REAL="env OPENCODE_DISABLE_DEFAULT_PLUGINS=1 OPENCODE_DISABLE_AUTOUPDATE=1 $BOX_OPENCODE serve --hostname 0.0.0.0 --port {port}"
    # Every start of the server (a test may restart it) shows build/npm to the boxes.
    E2B_LOCAL_ARGS=()
    [ -z "$NPM_TOOLS_BIND" ] || E2B_LOCAL_ARGS=(--ro-bind "$NPM_TOOLS_BIND")
    e2b_local_start "$@" || return 1
    export E2B_TUI_KEYSTORE=file
    BOX_REPO=$T_TMP/work/proj
    if ! "$BOX_FIXTURES/make_repo.sh" "$BOX_REPO" >/dev/null; then
        t_fail "box setup" "the fixture repository could not be made"
        return 1
    fi
    mkdir -p "$XDG_CONFIG_HOME/e2b-tui" "$T_TMP/bin"
    # preview_columns = 0: the Boxes list as the tests were written for (the preview beside
    # it only on P; tests/tui/preview_marks_test.sh gives it the default back)
    printf 'serve_command = %s\npreview_columns = 0\n' "$BOX_SERVE_REAL" >"$XDG_CONFIG_HOME/e2b-tui/config"
    ln -sf "$BOX_FIXTURES/opencode2_attach_fake" "$T_TMP/bin/opencode2"
    export PATH=$T_TMP/bin:$PATH
    export E2B_TUI_HEALTH_TIMEOUT=30
}

box_misbehaving_server() {
    printf 'serve_command = {dir}/tools/opencode_misbehaving serve --hostname 0.0.0.0 --port {port}\npreview_columns = 0\n' \
        >"$XDG_CONFIG_HOME/e2b-tui/config"
}

box_say() {
    local f
    f=$(box_root "$1")/tmp/fake-server-say
    shift
    printf '%s\n' "$@" >>"$f"
}

box_server_pid() {
    local f d
    for f in $(grep -laF "E2B_SANDBOX_ID=$1" /proc/[0-9]*/environ 2>/dev/null); do
        d=${f%/environ}
        if tr '\0' ' ' <"$d/cmdline" 2>/dev/null | grep -qE "^([^ ]*/)?opencode serve "; then
            basename "$d"
            return 0
        fi
    done
    return 1
}

box_scan_clean() {
    local name=$1 pat=$2 p n=0 hits
    shift 2
    if [ ! -s "$pat" ]; then t_fail "$name" "the pattern file $pat is empty or missing"; return; fi
    for p in "$@"; do
        if [ ! -e "$p" ]; then t_fail "$name" "$p does not exist: nothing was scanned"; return; fi
        n=$((n + $(find "$p" -type f 2>/dev/null | wc -l)))
    done
    if [ "$n" = 0 ]; then t_fail "$name" "no file under $*: nothing was scanned"; return; fi
    hits=$(grep -rlaFf "$pat" -- "$@" | head -5)
    echo "  ($name: scanned $n files)"
    if [ -n "$hits" ]; then t_fail "$name" "found in: $hits"; else t_pass "$name"; fi
}

box_tui() {
    BOX_OUT=$T_TMP/box.out BOX_ERR=$T_TMP/box.err
    (cd "${BOX_CWD:-$BOX_REPO}" && "$E2B_TUI_BIN" "$@") >"$BOX_OUT" 2>"$BOX_ERR"
    BOX_RC=$?
    return 0
}

box_sandbox_of() {
    jq -r .sandbox_id "$XDG_STATE_HOME/e2b-tui/boxes/$1.json"
}

box_root() {
    echo "$E2B_LOCAL_STATE/roots/$1"
}

box_token() {
    el_req POST "/v2/sandboxes/$1/connect" '{}' >/dev/null
    el_json .envdAccessToken
}

box_exec() {
    el_run "$1" "$(box_token "$1")" "$2"
}

box_snapshot() {
    (
        cd "$1" || exit 1
        git rev-parse HEAD 2>/dev/null
        git symbolic-ref -q HEAD
        git for-each-ref --format='%(refname) %(objectname)' refs/heads | grep -v ' *refs/heads/e2b/'
        sha256sum .git/index
        find . -path ./.git -prune -o -print0 | sort -z |
            while IFS= read -r -d '' f; do
                if [ -L "$f" ]; then
                    echo "L $f $(readlink "$f")"
                elif [ -f "$f" ]; then
                    echo "F $f $(stat -c %a "$f") $(sha256sum <"$f" | cut -c1-64)"
                else
                    echo "D $f $(stat -c %a "$f")"
                fi
            done
    ) | sha256sum | cut -c1-64
}

# box_setup_rc WHAT WANT: a setup step's exit status: silent when it is WANT (setup is not a
# check), a FAIL line "setup: WHAT" with the stderr otherwise.
box_setup_rc() {
    [ "$BOX_RC" = "$2" ] || t_abort "setup: $1: exit $BOX_RC, want $2; stderr: $(head -c 600 "$BOX_ERR")"
}

# box_rc NAME WANT: the last box_tui's exit status, with its stderr in the failure message.
box_rc() {
    if [ "$BOX_RC" = "$2" ]; then t_pass "$1"; else t_fail "$1" "exit $BOX_RC, want $2; stderr: $(head -c 600 "$BOX_ERR")"; return 1; fi
}

box_many_files() {
    python3 - "$@" <<'PY'
import os, sys
root, folders, text = sys.argv[1], int(sys.argv[2]), sys.argv[3]
for d in range(folders):
    p = os.path.join(root, "d%03d" % d)
    os.makedirs(p)
    for f in range(100):
        with open(os.path.join(p, "f%03d.txt" % f), "w") as fh:
            fh.write("%s %d %d\n" % (text, d, f))
PY
}

box_big_repo() {
    mkdir -p "$1" && git -C "$1" init -q -b main && box_many_files "$1" 300 file
}

# box_attach_talks ID: waits (60 s) until a real opencode attach of box ID has talked to the
# box's server (its GET /session in e2b-local's log), watching meanwhile that no process's
# argv holds a line of $T_TMP/pw.pattern. Sets BOX_TALKED (0/1); sets BOX_LEAKED=1 on a leak.
box_attach_talks() {
    BOX_TALKED=0
    for _ in $(seq 120); do
        grep -laFf "$T_TMP/pw.pattern" /proc/[0-9]*/cmdline 2>/dev/null | grep -q . && BOX_LEAKED=1
        if grep -q "GET 4096-$1.localhost:$E2B_LOCAL_PORT /session 200" "$E2B_LOCAL_STATE/e2b-local.log"; then
            BOX_TALKED=1
            return 0
        fi
        sleep 0.5
    done
    return 1
}

# box_attach_ctrl_c SOCKET: presses ctrl-c in tmux window "a" of SOCKET (a path) until the
# command there prints ATTACH-EXIT=N; prints N (nothing when it never ended).
box_attach_ctrl_c() {
    local exited=
    for _ in $(seq 20); do
        tmux -S "$1" send-keys -t a C-c
        for _ in $(seq 10); do
            sleep 0.3
            exited=$(tmux -S "$1" capture-pane -p -t a | sed -n 's/.*ATTACH-EXIT=\([0-9]*\).*/\1/p' | head -1)
            [ -n "$exited" ] && break 2
        done
    done
    printf '%s' "$exited"
}
