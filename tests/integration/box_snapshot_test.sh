#!/usr/bin/env bash
# Snapshots and forks of a box (issue 17) against e2b-local: --snapshot records what it holds
# and lists it, a snapshot of a paused box or of a gone box says what to do and leaves
# nothing, --snapshots --delete removes it on E2B and here; --fork into 3 makes boxes
# main-2..main-4 with their own records and passwords (the parent's password is refused by
# every fork's server), each pulled into its own branch; a fork that fails to start is
# reported and leaves no sandbox, record or password.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_abort "box setup"
SNAPS=$XDG_STATE_HOME/e2b-tui/snapshots
BOXES=$XDG_STATE_HOME/e2b-tui/boxes

box_tui --up main
box_rc "up" 0 || t_abort "up failed"
id=$(box_sandbox_of main)

# ---- snapshot ----
box_tui --snapshot main --as prepared
box_rc "snapshot exits 0" 0
t_contains "it prints the snapshot id" "$(cat "$BOX_OUT")" "snapshot prepared of box main: local/e2b-tui-prepared:default"
rec=$SNAPS/prepared.json
t_eq "the record is 0600" "$(stat -c %a "$rec")" 600
t_eq "the record holds box, sandbox, dir, commit" "$(jq -r '[.box, .sandbox_id, .dir, .commit] | join(" ")' "$rec")" \
    "main $id $BOX_REPO $(git -C "$BOX_REPO" rev-parse HEAD)"
el_req GET "/snapshots?sandboxID=$id" >/dev/null
t_eq "E2B has it" "$(el_json '[.[].snapshotID] | join(",")')" 'local/e2b-tui-prepared:default'
box_tui --snapshots
box_rc "--snapshots exits 0" 0
t_ok "--snapshots lists it with its box" grep -Eq '^prepared +main +[0-9]+s +local/e2b-tui-prepared:default$' "$BOX_OUT"
el_req POST /v2/sandboxes '{"templateID":"base"}' >/dev/null
other=$(el_json .sandboxID)
el_req POST "/sandboxes/$other/snapshots" '{"name":"foreign"}' >/dev/null
box_tui --snapshots
t_contains "a snapshot made elsewhere is listed as such" "$(cat "$BOX_OUT")" "(not from this machine) -      local/foreign:default"
box_tui --templates
box_rc "--templates exits 0" 0
t_ok "--templates marks e2b-tui's snapshot" grep -Eq '^[a-z0-9]+ +e2b-tui-prepared +1 .*e2b-tui snapshot$' "$BOX_OUT"

# ---- failure paths: paused, gone ----
box_tui --stop main
box_tui --snapshot main --as paused-one
t_eq "snapshot of a paused box: exit 5" "$BOX_RC" 5
t_contains "it says to resume first" "$(cat "$BOX_ERR")" "box main is paused: E2B snapshots a running sandbox; resume it (e2b-tui --attach main"
t_ok "no record left" test ! -e "$SNAPS/paused-one.json"
el_req GET "/snapshots?name=e2b-tui-paused-one" >/dev/null
t_eq "no snapshot left on E2B" "$(el_json length)" 0
box_tui --fork main --count 2
t_eq "fork of a paused box: exit 5" "$BOX_RC" 5
t_contains "it says to resume first" "$(cat "$BOX_ERR")" "box main is paused: resume it"
el_req POST "/v2/sandboxes/$id/connect" '{"timeout":600}' >/dev/null

# ---- fork into 3 ----
nsb=$(el_req GET /v2/sandboxes >/dev/null; el_json length)
box_tui --fork main --count 3
box_rc "fork into 3 exits 0" 0
t_eq "it names the forks" "$(cat "$BOX_OUT")" "forked box main into main-2
forked box main into main-3
forked box main into main-4"
spw() { # the server password in sandbox $1's server process
    local pid
    pid=$(box_server_pid "$1")
    [ -n "$pid" ] && tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | sed -n 's/^OPENCODE_SERVER_PASSWORD=//p'
}
tokhdr() { # a curl header file with sandbox $1's traffic token (boxes are private)
    el_req POST "/v2/sandboxes/$1/connect" '{}' >/dev/null
    printf 'e2b-traffic-access-token: %s\n' "$(el_json .trafficAccessToken)" >"$T_TMP/tok.hdr"
}
ppw=$(spw "$id")
t_eq "the parent's server has a password" "${#ppw}" 32
for n in 2 3 4; do
    f=main-$n
    t_eq "$f has a record with the parent's project" "$(jq -r '.dir + " " + .branch' "$BOXES/$f.json")" "$BOX_REPO main"
    fid=$(box_sandbox_of "$f")
    t_ok "$f is its own sandbox" test "$fid" != "$id"
    fpw=$(spw "$fid")
    t_eq "$f's server has a password of its own" "$((${#fpw} == 32))" 1
    t_ok "$f's password is not the parent's" test "$fpw" != "$ppw"
    url=http://4096-$fid.$E2B_DOMAIN
    tokhdr "$fid"
    t_eq "$f refuses the parent's password" "$(curl -s -o /dev/null -w '%{http_code}' -H @"$T_TMP/tok.hdr" -u "opencode:$ppw" --resolve "4096-$fid.$E2B_DOMAIN:127.0.0.1" "$url/api/health")" 401
    t_eq "$f takes its own" "$(curl -s -o /dev/null -w '%{http_code}' -H @"$T_TMP/tok.hdr" -u "opencode:$fpw" --resolve "4096-$fid.$E2B_DOMAIN:127.0.0.1" "$url/api/health")" 200
    box_exec "$fid" "cd '$BOX_REPO' && echo 'work of $f' >fork.txt" >/dev/null
    box_tui --pull "$f"
    box_rc "$f pulls" 0
    t_eq "e2b/$f has its own work" "$(git -C "$BOX_REPO" show "e2b/$f:fork.txt")" "work of $f"
done
box_tui --list --json
t_eq "--list shows the forks as boxes" "$(jq -r '[.boxes[].name] | sort | join(" ")' "$BOX_OUT")" "main main-2 main-3 main-4"

# a fork that fails to start leaves nothing behind
el_req POST /_e2b-local/faults '{"kind":"fork_fail","count":1}' >/dev/null
box_tui --fork main --count 2
t_eq "one of two forks failed: exit 1" "$BOX_RC" 1
t_contains "the failure is reported" "$(cat "$BOX_ERR")" "fork 1 of 2 did not start"
t_eq "the other one is made" "$(cat "$BOX_OUT")" "forked box main into main-5"
t_ok "no record for a sixth" test ! -e "$BOXES/main-6.json"
el_req GET /v2/sandboxes >/dev/null
t_eq "one sandbox more, not two" "$(el_json length)" "$((nsb + 4))"

# fork of a gone box
el_req DELETE "/sandboxes/$(box_sandbox_of main-5)" >/dev/null
box_tui --fork main-5
t_eq "fork of a gone box: exit 3" "$BOX_RC" 3
t_contains "it says the sandbox is gone and how to clean up" "$(cat "$BOX_ERR")" "is gone (e2b-tui --kill main-5 removes the record)"
box_tui --snapshot main-5
t_eq "snapshot of a gone box: exit 3" "$BOX_RC" 3
t_ok "no snapshot record" test ! -e "$SNAPS/main-5.json"

# ---- delete ----
box_tui --snapshots --delete prepared
box_rc "delete exits 0" 0
t_ok "the record is gone" test ! -e "$rec"
el_req GET "/snapshots?sandboxID=$id" >/dev/null
t_eq "E2B's snapshot is gone" "$(el_json length)" 0
box_tui --snapshots --delete prepared
t_eq "deleting it again: exit 3" "$BOX_RC" 3

# usage
box_tui --snapshot
t_eq "--snapshot needs a name" "$BOX_RC" 2
box_tui --fork main --count 0
t_eq "--count 0 is a usage error" "$BOX_RC" 2
box_tui --list --count 2
t_eq "--count only with --fork" "$BOX_RC" 2
box_tui --list --dry-run
t_eq "--dry-run only with --gc-templates" "$BOX_RC" 2
t_finish
