#!/usr/bin/env bash
# Failure paths of boxes against e2b-local: server never healthy, server exits at once,
# upload interrupted, API key rejected, keystore refusing (unsafe file, real locked
# gnome-keyring), sandbox killed during pull, diverged branch. Each gives a clear message
# and exit code, leaves no stray sandbox (unless --keep-failed) and no half-written record.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/keystore/keyring_lib.sh"
box_setup || t_finish
cfg=$XDG_CONFIG_HOME/e2b-tui/config
good_cfg=$(cat "$cfg")
boxes=$XDG_STATE_HOME/e2b-tui/boxes

sandbox_count() { el_req GET /v2/sandboxes >/dev/null; el_json length; }
# password_lines: the entries of the password file; the file exists from the first failed
# up on (that up stored a password before it failed), so its absence is no proof.
password_lines() {
    if [ -f "$XDG_STATE_HOME/e2b-tui/passwords" ]; then
        grep -vc '^#' "$XDG_STATE_HOME/e2b-tui/passwords"
    else
        echo "no password file"
    fi
}
no_leftovers() { # NAME: no sandbox, no record, no temp record, no password entry
    t_eq "$1: no sandbox left" "$(sandbox_count)" 0
    t_eq "$1: no record (nor a temp file)" "$(ls -A "$boxes" 2>/dev/null | wc -l)" 0
    t_eq "$1: no password left" "$(password_lines)" 0
}

# ---- the server never becomes healthy ----
printf 'serve_command = sleep 600\n' >"$cfg"
E2B_TUI_HEALTH_TIMEOUT=3 box_tui --up never
box_rc "server never healthy: exit 1" 1
t_contains "server never healthy: says so" "$(cat "$BOX_ERR")" "did not become healthy within 3 s"
t_contains "server never healthy: names the step" "$(cat "$BOX_ERR")" "health check"
no_leftovers "server never healthy"

E2B_TUI_HEALTH_TIMEOUT=2 box_tui --up kept --keep-failed
box_rc "--keep-failed: still exit 1" 1
t_contains "--keep-failed: says which sandbox was kept" "$(cat "$BOX_ERR")" "kept the failed sandbox"
t_eq "--keep-failed: the sandbox is still there" "$(sandbox_count)" 1
t_ok "--keep-failed: but no record" test ! -e "$boxes/kept.json"
t_eq "--keep-failed: and no password" "$(password_lines)" 0
el_req GET /v2/sandboxes >/dev/null
el_req DELETE "/sandboxes/$(el_json '.[0].sandboxID')" >/dev/null

# ---- the server command exits at once ----
printf 'serve_command = false\n' >"$cfg"
box_tui --up quitter
box_rc "server exits at once: exit 1" 1
t_contains "server exits at once: says so" "$(cat "$BOX_ERR")" "exited at once"
no_leftovers "server exits at once"
printf '%s\n' "$good_cfg" >"$cfg"

# ---- the upload is interrupted ----
curl -s -X POST "$E2B_LOCAL_URL/_e2b-local/faults" -d '{"kind":"drop","path":"/files","afterBytes":0}' >/dev/null
box_tui --up dropped
t_eq "upload interrupted: fails" "$((BOX_RC != 0))" 1
t_contains "upload interrupted: names the step" "$(cat "$BOX_ERR")" "uploading the project"
no_leftovers "upload interrupted"
curl -s -X DELETE "$E2B_LOCAL_URL/_e2b-local/faults" >/dev/null
curl -s -X POST "$E2B_LOCAL_URL/_e2b-local/faults" -d '{"kind":"500","path":"/files"}' >/dev/null
box_tui --up refused
t_eq "upload refused by the server: fails" "$((BOX_RC != 0))" 1
no_leftovers "upload refused"
curl -s -X DELETE "$E2B_LOCAL_URL/_e2b-local/faults" >/dev/null

# ---- the API key is rejected ----
E2B_API_KEY=not-the-key box_tui --up badkey
box_rc "API key rejected: exit 4" 4
t_contains "API key rejected: says so" "$(cat "$BOX_ERR")" "API key"
no_leftovers "API key rejected"

# ---- the password store refuses (an unsafe password file) ----
mkdir -p "$XDG_STATE_HOME/e2b-tui"
printf '# e2b-tui box passwords: keep this file private (mode 0600)\n' >"$XDG_STATE_HOME/e2b-tui/passwords"
chmod 644 "$XDG_STATE_HOME/e2b-tui/passwords"
box_tui --up unsafe
t_eq "unsafe password file: fails" "$((BOX_RC != 0))" 1
t_contains "unsafe password file: explains" "$(cat "$BOX_ERR")" "password store"
t_eq "unsafe password file: no sandbox left" "$(sandbox_count)" 0
t_eq "unsafe password file: no record" "$(ls -A "$boxes" 2>/dev/null | wc -l)" 0
rm -f "$XDG_STATE_HOME/e2b-tui/passwords"

# ---- a real gnome-keyring that stays locked ----
if ks_need_tools 2>/dev/null; then
    export E2B_TUI_BIN BOX_REPO
    ks_in_keyring_session "right-pw" bash -c '"$KS_TOOL" --keystore=secret-service put seed s1 <<<"seed-pw" >/dev/null 2>&1'
    out=$(ks_in_keyring_session "wrong-pw" bash -c 'cd "$BOX_REPO" && "$E2B_TUI_BIN" --keystore secret-service --up locked 2>&1; echo "rc=$?"')
    t_contains "locked keyring: up fails" "$out" "rc=1"
    t_contains "locked keyring: says the keyring is locked" "$out" "locked"
    t_eq "locked keyring: no sandbox left" "$(sandbox_count)" 0
    t_eq "locked keyring: no record" "$(ls -A "$boxes" 2>/dev/null | wc -l)" 0
    t_ok "locked keyring: no plain-text fallback" test ! -e "$XDG_STATE_HOME/e2b-tui/passwords"
else
    t_fail "locked keyring" "gnome-keyring / dbus tools are missing"
fi

# ---- the sandbox is killed during a pull ----
box_tui --up pk
box_setup_rc "up for the pull tests" 0
id=$(box_sandbox_of pk)
before=$(box_snapshot "$BOX_REPO")
box_exec "$id" "cd '$BOX_REPO' && echo change >src/main.c" >/dev/null
mark=$(wc -l <"$E2B_LOCAL_STATE/e2b-local.log")
curl -s -X POST "$E2B_LOCAL_URL/_e2b-local/faults" -d '{"kind":"delay","path":"/files","delayMs":3000}' >/dev/null
(cd "$BOX_REPO" && "$E2B_TUI_BIN" --pull pk >"$T_TMP/pk.out" 2>"$T_TMP/pk.err"; echo $? >"$T_TMP/pk.rc") &
ppid_=$!
# the pull is in its download (held by the delay) when the sandbox goes
t_ok "killed during pull: the pull reached its download" t_wait_until 20 \
    sh -c 'tail -n +"$1" "$2" | grep -qF "fault delay injected on GET /files"' sh "$((mark + 1))" "$E2B_LOCAL_STATE/e2b-local.log"
el_req DELETE "/sandboxes/$id" >/dev/null
wait $ppid_
t_eq "killed during pull: fails" "$(($(cat "$T_TMP/pk.rc") != 0))" 1
t_contains "killed during pull: names the step" "$(cat "$T_TMP/pk.err")" "pulling box pk"
t_ok "killed during pull: no branch was made" sh -c "! git -C '$BOX_REPO' rev-parse -q --verify e2b/pk >/dev/null"
t_eq "killed during pull: local repo unchanged" "$(box_snapshot "$BOX_REPO")" "$before"
t_eq "killed during pull: no temporary pack left" "$(find "$BOX_REPO/.git/objects/pack" -name '*tmp*' | wc -l)" 0
curl -s -X DELETE "$E2B_LOCAL_URL/_e2b-local/faults" >/dev/null
box_tui --attach pk
box_rc "attach to a box whose sandbox is gone: exit 3" 3
t_contains "attach: says the sandbox is gone" "$(cat "$BOX_ERR")" "gone"
box_tui --kill pk

# ---- a diverged e2b/<name> ----
box_tui --up dv
id=$(box_sandbox_of dv)
box_exec "$id" "cd '$BOX_REPO' && echo one >src/box.txt" >/dev/null
box_tui --pull dv
box_rc "first pull: exit 0" 0
g() { git -C "$BOX_REPO" "$@"; }
local_tip=$(g commit-tree -p e2b/dv -m "local change on e2b/dv" "e2b/dv^{tree}")
g update-ref refs/heads/e2b/dv "$local_tip"
box_exec "$id" "cd '$BOX_REPO' && git add -A && git -c user.name=A -c user.email=a@b commit -qm 'agent: two' && echo two >>src/box.txt" >/dev/null
before=$(box_snapshot "$BOX_REPO")
box_tui --pull dv
box_rc "diverged: exit 5" 5
t_contains "diverged: says how to overwrite" "$(cat "$BOX_ERR")" "--force"
t_eq "diverged: e2b/dv is untouched" "$(g rev-parse e2b/dv)" "$local_tip"
box_tui --pull dv --force
box_rc "--force: exit 0" 0
t_contains "--force: says it forced" "$(cat "$BOX_OUT")" "forced"
t_ok "--force: the branch holds the box's work" sh -c "git -C '$BOX_REPO' show e2b/dv:src/box.txt | grep -q two"
t_eq "diverged and forced: local HEAD, index, work tree unchanged" "$(box_snapshot "$BOX_REPO")" "$before"
box_tui --kill dv
t_eq "after the failures: no sandbox left" "$(sandbox_count)" 0
t_finish
