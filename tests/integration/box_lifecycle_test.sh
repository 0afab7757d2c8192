#!/usr/bin/env bash
# Acceptance: up -> list -> stop -> attach (resumes) -> cold resume -> pull -> kill on the
# fixture project (modified, staged, untracked, ignored, executable, symlinked, binary and
# non-ASCII-named files) against e2b-local with real git, the real OpenCode server
# (`opencode serve`, health at /api/health as the OpenCode 2 preset), the OpenCode 2 attach
# defaults (the client is a stand-in, tests/fixtures/opencode2_attach_fake) and the file
# keystore.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish

before=$(box_snapshot "$BOX_REPO")
ANTHROPIC_API_KEY=sk-ant-lifecycle-secret box_tui --secrets set anthropic

# ---- up ----
box_tui --up --hours 2 --yes
t_eq "up exits 0" "$BOX_RC" 0
t_contains "up prints the box and its server" "$(cat "$BOX_OUT")" "box main is up"
id=$(box_sandbox_of main)
root=$(box_root "$id")
t_ok "the record names the sandbox" test -n "$id"
rec=$XDG_STATE_HOME/e2b-tui/boxes/main.json
t_eq "record file is 0600" "$(stat -c %a "$rec")" 600
t_eq "records dir is 0700" "$(stat -c %a "$XDG_STATE_HOME/e2b-tui/boxes")" 700
t_eq "record: branch, dir, base" "$(jq -r '.branch + " " + .dir + " " + .base' "$rec")" \
    "main $BOX_REPO $(git -C "$BOX_REPO" rev-parse HEAD)"

# the sandbox holds exactly tracked + untracked-not-ignored, with modes, at the same path
want=$(cd "$BOX_REPO" && git -c core.quotePath=false ls-files -co --exclude-standard | while read -r f; do [ -e "$f" ] || [ -L "$f" ] && echo "$f"; done | sort)
got=$(cd "$root$BOX_REPO" && find . -path ./.git -prune -o \( -type f -o -type l \) -print | sed 's|^\./||' | sort)
t_eq "the box holds exactly the tracked + untracked files" "$got" "$want"
t_ok "ignored files never leave the machine (debug.log)" test ! -e "$root$BOX_REPO/debug.log"
t_ok "ignored directories never leave the machine (build/)" test ! -e "$root$BOX_REPO/build"
printf 'IGNORED-SECRET\n' >"$T_TMP/ignored.pattern"
box_scan_clean "no ignored content anywhere in the box" "$T_TMP/ignored.pattern" "$root$BOX_REPO"
t_eq "executable bits kept" "$(stat -c %a "$root$BOX_REPO/tools/run.sh")" 755
t_eq "plain files are 644" "$(stat -c %a "$root$BOX_REPO/src/main.c")" 644
t_eq "symlinks stay symlinks" "$(readlink "$root$BOX_REPO/docs/link-to-main.c")" "../src/main.c"
t_ok "binary file identical" cmp -s "$BOX_REPO/docs/blob.bin" "$root$BOX_REPO/docs/blob.bin"
t_ok "non-ASCII name arrives" test -f "$root$BOX_REPO/docs/naïve-ünïcode ☃.txt"
t_ok "modified content arrives" grep -q "second line" "$root$BOX_REPO/src/modified.txt"
t_ok "deleted file stays deleted" test ! -e "$root$BOX_REPO/src/deleted.txt"
# the archives streamed into FIFOs in the box: nothing of them is left once the up is done
t_eq "no upload FIFO or archive left in the box's /tmp" \
    "$(find "$root/tmp" -maxdepth 1 \( -name 'e2b-tui-up-*' -o -name 'e2b-tui-upload-*' \) | wc -l)" 0
# The box's user is uid 1000 when e2b-local runs as root; without root, root and user in the
# box are both the caller's own uid (tests/e2b-local/runtime.c).
box_uid=1000
[ "$(id -u)" = 0 ] || box_uid=$(id -u)
t_eq "the project's files belong to the box's user" \
    "$(find "$root$BOX_REPO" ! -uid "$box_uid" | head -n 3)" ""
t_eq "the box's git sees the same status" "$(box_exec "$id" "cd '$BOX_REPO' && git status --porcelain" | sed -n 's/^stdout //p' | sort | tr '\n' '|')" \
    "$(git -C "$BOX_REPO" status --porcelain | sort | tr '\n' '|')"

# metadata and secrets
el_req GET "/sandboxes/$id" >/dev/null
t_eq "metadata marks the box" "$(el_json '.metadata["e2b-tui"] + " " + .metadata["e2b-tui.name"] + " " + .metadata["e2b-tui.branch"]')" "box main main"
t_eq "no absolute path in metadata" "$(el_json '[.metadata[] | select(startswith("/"))] | length')" 0
t_eq "the anthropic rule injects the secret by placeholder" \
    "$(el_json '.network.rules["api.anthropic.com"][0].transform.headers["x-api-key"]')" '${e2b.secrets.anthropic}'
t_eq "auto-pause is on" "$(el_json .lifecycle.onTimeout)" pause
t_ok "the end time is about 2 hours away" test "$(( $(date -d "$(el_json .endAt)" +%s) - $(date +%s) ))" -gt 7000
t_eq "the box gets a placeholder, not the key" \
    "$(box_exec "$id" 'echo "$ANTHROPIC_API_KEY"' | sed -n 's/^stdout //p')" "e2b-secret-placeholder"

# the password: in the server's environment, nowhere else
spid=$(box_server_pid "$id")
t_ok "the real opencode serve runs for the box" test -n "$spid"
pw=$(tr '\0' '\n' <"/proc/${spid:-0}/environ" | sed -n 's/^OPENCODE_SERVER_PASSWORD=//p')
t_eq "the server got a 32-character password" "${#pw}" 32
t_eq "OPENCODE_PASSWORD matches" "$(tr '\0' '\n' <"/proc/${spid:-0}/environ" | sed -n 's/^OPENCODE_PASSWORD=//p')" "$pw"
printf '%s\n' "$pw" >"$T_TMP/pw.pattern" # grep -f: the password is never in grep's own argv
box_scan_clean "no password in the record" "$T_TMP/pw.pattern" "$rec"
box_scan_clean "no password in e2b-local's state except the process" "$T_TMP/pw.pattern" \
    "$E2B_LOCAL_STATE/sandboxes" "$E2B_LOCAL_STATE/e2b-local.log"
box_scan_clean "no password under the sandbox root (the server's own files included)" "$T_TMP/pw.pattern" "$root"
t_eq "the keystore file is 0600" "$(stat -c %a "$XDG_STATE_HOME/e2b-tui/passwords")" 600
url=$(jq -r '.boxes[0]' <<<"{}" >/dev/null; sed -n 's/.*server //p' "$BOX_OUT")
el_req GET "/sandboxes/$id" >/dev/null
t_eq "the box is private by default" "$(el_json '.network.allowPublicTraffic')" false
t_eq "and says so in its metadata" "$(el_json '.metadata["e2b-tui.traffic"]')" private
code=$(curl -s -o /dev/null -w '%{http_code}' -u "opencode:$pw" "$url/api/health")
t_eq "E2B's proxy refuses a request without the traffic token, even with the password" "$code" 403
el_req POST "/v2/sandboxes/$id/connect" '{}' >/dev/null
printf 'e2b-traffic-access-token: %s\n' "$(el_json .trafficAccessToken)" >"$T_TMP/tok.hdr"
code=$(curl -s -o /dev/null -w '%{http_code}' -H @"$T_TMP/tok.hdr" "$url/api/health")
t_eq "the server refuses a request without the password" "$code" 401
code=$(curl -s -o /dev/null -w '%{http_code}' -H @"$T_TMP/tok.hdr" -u "opencode:$pw" "$url/api/health")
t_eq "and answers with both" "$code" 200
t_eq "the real server's v2 health" \
    "$(curl -s -H @"$T_TMP/tok.hdr" -u "opencode:$pw" "$url/api/health")" '{"healthy":true}'
rm -f "$T_TMP/tok.hdr"

box_tui --up main
t_eq "a name in use is a conflict (exit 5)" "$BOX_RC" 5
t_contains "it says the name is taken" "$(cat "$BOX_ERR")" "already exists"

# ---- list, stop ----
box_tui --list --json
t_eq "list shows the box running" "$(jq -r '.boxes[0].name + " " + .boxes[0].state + " " + .boxes[0].dir' "$BOX_OUT")" "main running $BOX_REPO"
box_tui --stop main
t_eq "stop exits 0" "$BOX_RC" 0
box_tui --list --json
t_eq "the box is paused" "$(jq -r '.boxes[0].state' "$BOX_OUT")" paused
box_tui --stop main
t_eq "stopping a paused box is not an error" "$BOX_RC" 0
t_contains "it says so" "$(cat "$BOX_ERR")" "already paused"

# ---- attach (resumes) with the password only in the environment ----
(cd "$BOX_REPO" && FAKE_ATTACH_SLEEP=3 FAKE_ATTACH_EXIT=7 "$E2B_TUI_BIN" --attach main >"$T_TMP/attach.out" 2>"$T_TMP/attach.err") &
apid=$!
seen_child=0 leaked=0
# attach_child_of PID: an "opencode2 --server" among PID's descendants (this test's attach).
attach_child_of() {
    local c
    for c in $(pgrep -P "$1"); do
        case "$(tr '\0' ' ' <"/proc/$c/cmdline" 2>/dev/null)" in *"opencode2 --server"*) return 0 ;; esac
        attach_child_of "$c" && return 0
    done
    return 1
}
printf '%s\n' "$pw" >"$T_TMP/pw.pattern" # grep -f: the password is never in grep's own argv
for _ in $(seq 300); do
    grep -laFf "$T_TMP/pw.pattern" /proc/[0-9]*/cmdline 2>/dev/null | grep -q . && leaked=1
    attach_child_of "$apid" && seen_child=1
    [ $seen_child = 1 ] && break
    sleep 0.1
done
grep -laFf "$T_TMP/pw.pattern" /proc/[0-9]*/cmdline 2>/dev/null | grep -q . && leaked=1
t_eq "the attach command ran" "$seen_child" 1
t_eq "no process has the password in its argv while attach runs" "$leaked" 0
wait $apid
t_eq "attach returns the attach command's exit status" "$?" 7
t_contains "the attach command reached the server with the password" "$(cat "$T_TMP/attach.out")" "health=200"
t_contains "OpenCode 2 default: opencode2 --server URL DIR" "$(cat "$T_TMP/attach.out")" "dir=$BOX_REPO"
el_req GET "/sandboxes/$id" >/dev/null
t_eq "attach resumed the paused box" "$(el_json .state)" running

# ---- cold resume: e2b-local restarts, the box comes back paused with no processes ----
box_tui --stop main
e2b_local_stop
e2b_local_start
box_tui --attach main
t_eq "attach after a cold resume exits 0" "$BOX_RC" 0
t_contains "the server was started again and answered" "$(cat "$BOX_OUT")" "health=200"

# ---- the agent works in the box: a commit, uncommitted edits, new and deleted files ----
box_exec "$id" "cd '$BOX_REPO' && git add -A && git -c user.name=Agent -c user.email=agent@box commit -qm 'agent: first' && echo 'box edit' >>src/main.c && echo new >src/box-new.txt && rm docs/blob.bin && printf 'x\n' >'docs/naïve-ünïcode ☃.txt'" >/dev/null
box_tui --pull
box_rc "pull (name from the current branch) exits 0" 0
commit=$(git -C "$BOX_REPO" rev-parse e2b/main)
t_eq "pull prints the branch and commit" "$(cut -d' ' -f1,2 "$BOX_OUT")" "e2b/main $commit"
g() { git -C "$BOX_REPO" "$@"; }
t_eq "the agent's commit is on e2b/main" "$(g log --format=%s e2b/main | grep -c 'agent: first')" 1
t_ok "uncommitted edit pulled" sh -c "git -C '$BOX_REPO' show e2b/main:src/main.c | grep -q 'box edit'"
t_eq "new file pulled" "$(g show e2b/main:src/box-new.txt)" "new"
t_ok "deleted file is deleted on e2b/main" sh -c "! git -C '$BOX_REPO' cat-file -e e2b/main:docs/blob.bin 2>/dev/null"
t_eq "the pre-up untracked file is on e2b/main" "$(g show e2b/main:src/untracked.txt)" "new and untracked"
t_eq "the non-ASCII file's change pulled" "$(g show "e2b/main:docs/naïve-ünïcode ☃.txt")" "x"
t_eq "modes survive the round trip" "$(g ls-tree e2b/main tools/run.sh | cut -c1-6)" 100755
t_eq "symlinks survive the round trip" "$(g ls-tree e2b/main docs/link-to-main.c | cut -c1-6)" 120000
t_ok "ignored files never came back" sh -c "! git -C '$BOX_REPO' cat-file -e e2b/main:debug.log 2>/dev/null"
t_eq "the scratch commit uses the local git identity" "$(g log -1 --format='%an <%ae>' e2b/main)" "Fixture Author <fixture@example.com>"
t_eq "local HEAD, index and work tree are byte-identical" "$(box_snapshot "$BOX_REPO")" "$before"
t_eq "the box's own branch is untouched" "$(box_exec "$id" "cd '$BOX_REPO' && git log -1 --format=%s && git status --porcelain | wc -l" | sed -n 's/^stdout //p' | tr '\n' ' ')" "agent: first 4 "

box_tui --pull main
box_rc "a second pull with nothing new exits 0" 0
t_contains "and says so" "$(cat "$BOX_OUT")" "no new work"
box_exec "$id" "cd '$BOX_REPO' && echo more >>src/box-new.txt" >/dev/null
box_tui --pull main
box_rc "a later pull exits 0" 0
t_contains "a later pull fast-forwards" "$(cat "$BOX_OUT")" "fast-forwarded"
t_ok "the old tip is an ancestor" git -C "$BOX_REPO" merge-base --is-ancestor "$commit" e2b/main

# ---- kill ----
box_tui --kill main
t_eq "kill exits 0" "$BOX_RC" 0
t_eq "the sandbox is gone" "$(el_req GET "/sandboxes/$id")" 404
t_ok "the record is gone" test ! -e "$rec"
t_ok "the password is gone (the keystore file is still there)" \
    sh -c "test -f '$XDG_STATE_HOME/e2b-tui/passwords' && ! grep -q '^main[[:space:]]' '$XDG_STATE_HOME/e2b-tui/passwords'"
box_tui --list --json
t_eq "nothing is listed" "$(jq -r '.boxes | length' "$BOX_OUT")" 0
t_eq "local HEAD, index and work tree are still byte-identical" "$(box_snapshot "$BOX_REPO")" "$before"
t_finish
