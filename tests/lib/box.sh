# Helpers for the box tests (source after lib.sh and e2b_local.sh).
#   box_setup              isolated home, e2b-local started, file keystore, fixture repo in
#                          $BOX_REPO, config with the fake opencode2 as serve command and
#                          the fixtures on PATH for the attach command
#   box_tui ARGS...        runs e2b-tui from $BOX_REPO; stdout in $BOX_OUT, stderr in
#                          $BOX_ERR, exit status in $BOX_RC
#   box_sandbox_of NAME    the sandbox id in NAME's record
#   box_root ID            the sandbox's root directory on this machine
#   box_exec ID CMD        runs bash -c CMD in the sandbox as user (prints decoded events)
#   box_snapshot DIR       a digest of HEAD, refs/heads/* except e2b/*, the index and every
#                          work tree file (names, modes, contents, link targets)
BOX_FIXTURES=$E2B_TUI_ROOT/tests/fixtures

box_setup() {
    t_isolated_home
    e2b_local_start "$@" || return 1
    export E2B_TUI_KEYSTORE=file
    BOX_REPO=$T_TMP/work/proj
    "$BOX_FIXTURES/make_repo.sh" "$BOX_REPO" >/dev/null || return 1
    mkdir -p "$XDG_CONFIG_HOME/e2b-tui"
    printf 'serve_command = {dir}/tools/opencode2 serve --hostname 0.0.0.0 --port {port}\n' \
        >"$XDG_CONFIG_HOME/e2b-tui/config"
    export PATH=$BOX_FIXTURES:$PATH
    export E2B_TUI_HEALTH_TIMEOUT=30
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

# box_rc NAME WANT: the last box_tui's exit status, with its stderr in the failure message.
box_rc() {
    if [ "$BOX_RC" = "$2" ]; then t_pass "$1"; else t_fail "$1" "exit $BOX_RC, want $2; stderr: $(head -c 600 "$BOX_ERR")"; fi
}
