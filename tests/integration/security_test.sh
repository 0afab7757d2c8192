#!/usr/bin/env bash
# Security pass (issue 9), against e2b-local with real processes:
#  1. secrets stay secret: with a known API key, model secret value and (once made) box
#     password, run secrets set, up, attach, stop, attach (resume), pull and kill while a
#     sampler reads /proc/*/cmdline of every process (the sandboxes' too) many times a
#     second; then scan e2b-tui's log, e2b-local's request log, the sandboxes' metadata and
#     every file under the isolated HOME and the repository: the API key and the secret value
#     are in no file, the password only in the 0600 keystore file; the sandbox's traffic
#     token (the box is private; --tunnel runs under the sampler too) is in no argv, log or
#     file either; the sandbox processes' environments hold neither the API key nor the
#     secret value;
#  2. network strings are sanitised: sandboxes whose metadata carries ESC/CSI/OSC/C1/bidi
#     controls come out clean in --list, --list --json (and the JSON is valid) and in the
#     messages of --kill/--stop;
#  3. a hostile box's bundle (extra refs refs/heads/main, HEAD, refs/tags/x, ../ paths)
#     moves nothing but refs/heads/e2b/<name>; one without the scratch ref moves nothing;
#  4. path traversal: box names such as ../x, a/../../b, /abs, with a newline, are refused
#     by every command with a clear message and nothing is written; symlinks that point out
#     of the project (in the work tree and in .git) travel as links, never as what they
#     point to; planted record files (a symlink, one naming another box) are ignored.
. "$(dirname "$0")/../lib/lib.sh"
# Unique per run: the argv sampler scans every process of the machine, and another run of
# this test (another checkout) must not be mistaken for a leak of this one.
run_tag=$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')
API_KEY=e2b_sec_apikey_$run_tag
export E2B_LOCAL_KEY=$API_KEY
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish
# The test's own control-plane requests send the API key from a file (curl -H @FILE): with
# the key in curl's argv the sampler below would catch the test itself.
printf 'X-API-KEY: %s\n' "$API_KEY" >"$T_TMP/apikey.header"
el_req() {
    local method=$1 path=$2 body=${3:-}
    shift 2
    [ $# -gt 0 ] && shift
    local data=()
    [ -n "$body" ] && data=(-H 'Content-Type: application/json' --data-binary "$body")
    curl -sS -o "$EL_BODY_FILE" -D "$EL_HEAD_FILE" -w '%{http_code}' -X "$method" \
        -H @"$T_TMP/apikey.header" "${data[@]}" "$@" "$E2B_LOCAL_URL$path"
}
SECRET_VALUE=sk-ant-sec-VALUE-$run_tag
boxes=$XDG_STATE_HOME/e2b-tui/boxes
passwords=$XDG_STATE_HOME/e2b-tui/passwords
g() { git -C "$BOX_REPO" "$@"; }

# ---- 1. secrets ----
patterns=$T_TMP/secret.patterns # grep -f: no secret is ever in the scanner's own argv
printf '%s\n%s\n' "$API_KEY" "$SECRET_VALUE" >"$patterns"
hits=$T_TMP/argv.hits
: >"$hits"
samples=$T_TMP/argv.samples
# The sampler: every process's argv, about 20 times a second. e2b-local itself is started
# by the test with the API key in its argv (it is the service, not the product): skipped.
# (grep -F reads the NUL-separated argv as one line: a value inside any argument matches.)
(
    n=0
    while [ ! -e "$T_TMP/sampler.stop" ]; do
        grep -laFf "$patterns" /proc/[0-9]*/cmdline 2>/dev/null | while read -r f; do
            p=${f#/proc/}
            p=${p%/cmdline}
            # Read once more as a whole: a process that exec'd or ended in between is judged
            # on what it holds now. e2b-local, and its children between fork and exec, carry
            # its own argv.
            argv=$(tr '\0' '\n' <"$f" 2>/dev/null)
            grep -qFf "$patterns" <<<"$argv" || continue
            [ "$(head -n 1 <<<"$argv")" = "$E2B_LOCAL_BIN" ] && continue
            echo "pid $p: $(head -n 1 <<<"$argv" | head -c 80)" >>"$hits"
        done
        n=$((n + 1))
        echo "$n" >"$samples"
        sleep 0.05
    done
) &
sampler=$!
t_on_exit "touch '$T_TMP/sampler.stop'; wait $sampler 2>/dev/null"

# the sampler can see a leak: a canary process with the secret in its argv
bash -c 'sleep 8; :' "canary-$SECRET_VALUE" &  # ("; :": bash must not exec sleep)
canary=$!
for ((i = 0; i < 200; i++)); do grep -q bash "$hits" && break; sleep 0.1; done
kill "$canary"
wait "$canary" 2>/dev/null
t_contains "the sampler catches a secret in an argv (a canary)" "$(cat "$hits")" "bash"
# A round that read the canary's argv just before the kill may still write its line after
# this truncation: the canary's pid is left out of the verdict below.
: >"$hits"
ANTHROPIC_API_KEY=$SECRET_VALUE box_tui --secrets set anthropic
box_rc "secrets set exits 0" 0
box_tui --up sec
box_rc "up exits 0" 0 || t_abort "the box did not come up"
id=$(box_sandbox_of sec)
root=$(box_root "$id")
pw=$(awk -F'\t' '$1 == "sec" {print $3}' "$passwords")
t_eq "the box has a 32-character password in the keystore" "${#pw}" 32
echo "$pw" >>"$patterns"
box_tui --attach sec
box_rc "attach exits 0" 0
el_req POST "/v2/sandboxes/$id/connect" '{}' >/dev/null
traffic_token=$(el_json .trafficAccessToken)
t_ok "the box is private (it has a traffic token)" test ${#traffic_token} -ge 16
echo "$traffic_token" >>"$patterns"
(cd "$BOX_REPO" && exec "$E2B_TUI_BIN" --tunnel sec >"$T_TMP/tunnel.out" 2>"$T_TMP/tunnel.err") &
tpid=$!
t_wait_until 60 grep -q '^http://127.0.0.1:' "$T_TMP/tunnel.out"
t_eq "the tunnel reaches the private box's server (401 without the password)" \
    "$(curl -s -o /dev/null -w '%{http_code}' "$(cat "$T_TMP/tunnel.out")/api/health")" 401
kill -INT $tpid
wait $tpid
t_eq "--tunnel ends on Ctrl-C" "$?" 0
t_ok "what --tunnel printed holds no secret" sh -c "! grep -qFf '$patterns' '$T_TMP/tunnel.out' '$T_TMP/tunnel.err'"
rm -f "$T_TMP/tunnel.out" "$T_TMP/tunnel.err"
box_tui --stop sec
box_rc "stop exits 0" 0
box_tui --attach sec
box_rc "attach (resume) exits 0" 0
echo "box work" >"$root$BOX_REPO/box-work.txt"
box_tui --pull sec
box_rc "pull exits 0" 0
# the sandbox processes' environments: the password is the server's by design; the API key
# and the model secret never enter the box (the secret travels as a placeholder)
env_leak=0 env_scanned=0
printf '%s\n%s\n' "$API_KEY" "$SECRET_VALUE" >"$T_TMP/nopw.patterns"
for f in /proc/[0-9]*/environ; do
    tr '\0' '\n' <"$f" 2>/dev/null | grep -q "^E2B_SANDBOX_ID=$id$" || continue
    env_scanned=$((env_scanned + 1))
    tr '\0' '\n' <"$f" 2>/dev/null | grep -qFf "$T_TMP/nopw.patterns" && env_leak=1
done
echo "  (environment scan: $env_scanned processes of the sandbox)"
t_ok "the environment scan found the sandbox's processes (the real server among them)" \
    sh -c "test $env_scanned -ge 1 && test -n '$(box_server_pid "$id")'"
t_eq "no sandbox process has the API key or the secret value in its environment" "$env_leak" 0
el_req GET "/sandboxes/$id" >/dev/null
cp "$EL_BODY_FILE" "$T_TMP/metadata.json"
el_req GET /v2/sandboxes >/dev/null
cat "$EL_BODY_FILE" >>"$T_TMP/metadata.json"
box_scan_clean "the sandbox's metadata holds no password, key or secret" "$patterns" "$T_TMP/metadata.json"
# the dashboard (the one place that writes e2b-tui's request log) runs a few refreshes
. "$E2B_TUI_ROOT/tests/lib/tmux.sh"
export TERM=tmux-256color LANG=C.UTF-8
tmux_start 120 30 "cd '$BOX_REPO' && exec '$E2B_TUI_BIN' --refresh 1"
tmux_wait sec >/dev/null
lists0=$(grep -c 'GET /v2/sandboxes ' "$E2B_LOCAL_STATE/e2b-local.log")
t_ok "the dashboard refreshed three times" t_wait_until 30 \
    sh -c '[ "$(grep -c "GET /v2/sandboxes " "$1")" -ge "$2" ]' sh "$E2B_LOCAL_STATE/e2b-local.log" "$((lists0 + 3))"
tmux_keys q
pane_dead() { [ "$(tm display-message -p -t t '#{pane_dead}')" = 1 ]; }
t_ok "the dashboard quit" t_wait_until 10 pane_dead
tmux_kill
box_tui --kill sec
box_rc "kill exits 0" 0
touch "$T_TMP/sampler.stop"
wait "$sampler"
t_ok "the sampler read every process's argv many times ($(cat "$samples") rounds)" test "$(cat "$samples")" -ge 20
t_eq "no process had the password, the API key or the secret in its argv" "$(grep -v "^pid $canary:" "$hits" | sort -u)" ""
log=$XDG_STATE_HOME/e2b-tui/e2b-tui.log
t_ok "e2b-tui's log exists and logged the requests" grep -q "sandboxes" "$log"
box_scan_clean "e2b-tui's log holds no password, key or secret" "$patterns" "$log"
ellog=$E2B_LOCAL_STATE/e2b-local.log
t_ok "e2b-local's request log exists and logged the requests" grep -q "sandboxes" "$ellog"
box_scan_clean "e2b-local's request log holds none of them" "$patterns" "$ellog"
# every file under HOME and the repository: API key and secret nowhere; the password
# nowhere but the keystore file, which is 0600 (the box was killed: its line is gone too)
box_tui --up sec2
box_setup_rc "a second box for the file scan" 0
pw2=$(awk -F'\t' '$1 == "sec2" {print $3}' "$passwords")
echo "$pw2" >>"$patterns"
t_eq "the second box has a password in the keystore" "${#pw2}" 32
found=$(grep -rlFf "$patterns" "$HOME" "$BOX_REPO" | sort -u)
t_eq "only the keystore file holds a secret" "$found" "$passwords"
t_eq "and it is 0600" "$(stat -c %a "$passwords")" 600
box_scan_clean "the API key and the model secret are in no local file" "$T_TMP/nopw.patterns" "$HOME" "$BOX_REPO"
printf '%s\n' "$pw2" >"$T_TMP/pw2.pattern"
box_scan_clean "no password under the sandbox's root (the real server's files included)" "$T_TMP/pw2.pattern" \
    "$(box_root "$(box_sandbox_of sec2)")"
box_tui --kill sec2

# ---- 2. network strings ----
evil_name=$'ev\e[31mil\e]0;pwned\a\xc2\x9b2J\xe2\x80\xaeeman'
evil_json=$(jq -n --arg n "$evil_name" \
    '{templateID:"base", metadata:{"e2b-tui":"box", "e2b-tui.name":$n, "e2b-tui.branch":$n}}')
el_req POST /sandboxes "$evil_json" >/dev/null
evil_id=$(el_json .sandboxID)
other_json=$(jq -n --arg n "$evil_name" '{templateID:"base", metadata:{($n):$n, note:$n}}')
el_req POST /sandboxes "$other_json" >/dev/null
t_ok "two sandboxes with hostile metadata exist" test -n "$evil_id"
controls() { # FILE: prints the offending bytes' kind, or nothing when the text is clean
    LC_ALL=C grep -c $'[\x01-\x08\x0b-\x1f\x7f]' "$1" | grep -v '^0$' | sed 's/^/C0 lines: /'
    grep -c $'\xc2[\x80-\x9f]' "$1" | grep -v '^0$' | sed 's/^/C1 lines: /'
    grep -cE $'\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]|\xe2\x80[\x8e\x8f]|\xd8\x9c' "$1" | grep -v '^0$' | sed 's/^/bidi lines: /'
}
box_tui --list
box_rc "--list with hostile metadata exits 0" 0
t_eq "--list: no control, C1 or bidi character" "$(controls "$BOX_OUT")" ""
t_contains "--list: the readable part of the name is shown" "$(cat "$BOX_OUT")" "il"
box_tui --list --json
box_rc "--list --json exits 0" 0
t_ok "--list --json: valid JSON" jq -e . "$BOX_OUT"
t_eq "--list --json: no raw control, C1 or bidi character" "$(controls "$BOX_OUT")" ""
t_eq "--list --json: both hostile sandboxes listed" \
    "$(jq '[.. | objects | select(.sandbox_id?)] | length' "$BOX_OUT")" 2
# messages that quote what the server said: an error body with controls
curl -s -X POST "$E2B_LOCAL_URL/_e2b-local/faults" -d '{"kind":"500","path":"/v2/sandboxes"}' >/dev/null
box_tui --list
t_eq "a server error: fails" "$((BOX_RC != 0))" 1
t_eq "the error message is clean" "$(controls "$BOX_ERR")" ""
el_req DELETE "/sandboxes/$evil_id" >/dev/null
el_req GET /v2/sandboxes >/dev/null
el_req DELETE "/sandboxes/$(el_json '.[0].sandboxID')" >/dev/null

# ---- 3. a hostile box's bundle ----
box_tui --up hb
box_rc "bundle box up" 0
hroot=$(box_root "$(box_sandbox_of hb)")
refs_before=$(g for-each-ref --format='%(refname) %(objectname)' | grep -v ' *refs/heads/e2b/' ; g symbolic-ref HEAD)
files_before=$(cd "$T_TMP" && find . -path ./e2b-local-state -prune -o -print | grep -v '\.git/objects/' | sort)
# Rewrites the box's bundle between the pull script and the download (the download is held
# back by an e2b-local delay), as a box whose git was replaced would. MODE: extra | swap
hostile_pull() {
    local mode=$1 i f
    curl -s -X POST "$E2B_LOCAL_URL/_e2b-local/faults" \
        -d '{"kind":"delay","path":"/files","delayMs":8000}' >/dev/null
    rm -f "$hroot"/tmp/e2b-tui-bundle.*
    (cd "$BOX_REPO" && exec "$E2B_TUI_BIN" --pull hb) >"$T_TMP/hp.out" 2>"$T_TMP/hp.err" &
    local pull=$!
    local n0
    n0=$(wc -l <"$E2B_LOCAL_STATE/e2b-local.log")
    for ((i = 0; i < 600; i++)); do # until the pull script has ended: the bundle is whole
        tail -n +$((n0 + 1)) "$E2B_LOCAL_STATE/e2b-local.log" | grep -qF Process/Start && break
        sleep 0.05
    done
    f=$(ls "$hroot"/tmp/e2b-tui-bundle.* 2>/dev/null | head -1)
    HP_REWRITTEN=$(python3 - "$f" "$mode" 2>&1 <<'EOF'
import os, sys
path, mode = sys.argv[1], sys.argv[2]
data = open(path, "rb").read()
end = data.index(b"\n\n") + 1
head, pack = data[:end], data[end:]
lines = head.split(b"\n")
oid = [l for l in lines if l.endswith(b" refs/e2b-tui/scratch")][0].split(b" ")[0]
if mode == "extra":
    extra = [oid + b" " + n for n in (b"refs/heads/main", b"HEAD", b"refs/tags/x",
                                     b"refs/heads/../../../evil", b"../../outside", b"refs/heads/e2b/other")]
    lines = lines[:1] + extra + lines[1:]
else:
    lines = [l.replace(b"refs/e2b-tui/scratch", b"refs/heads/main") for l in lines]
tmp = path + ".new"
open(tmp, "wb").write(b"\n".join(lines) + pack)
os.chmod(tmp, os.stat(path).st_mode)
os.rename(tmp, path)
print("rewritten")
EOF
)
    wait "$pull"
    HP_RC=$?
    curl -s -X DELETE "$E2B_LOCAL_URL/_e2b-local/faults" >/dev/null
}
echo "first" >"$hroot$BOX_REPO/box-work.txt"
hostile_pull extra
t_eq "the box's bundle was rewritten before the download" "$HP_REWRITTEN" rewritten
t_eq "a bundle with extra refs: the pull still works" "$HP_RC" 0
t_eq "e2b/hb has the box's work" "$(g show e2b/hb:box-work.txt 2>&1)" "first"
refs_after=$(g for-each-ref --format='%(refname) %(objectname)' | grep -v ' *refs/heads/e2b/' ; g symbolic-ref HEAD)
t_eq "no ref but refs/heads/e2b/hb moved (main, HEAD, tags untouched, none added)" "$refs_after" "$refs_before"
t_eq "no e2b/ branch added but e2b/hb" "$(g for-each-ref --format='%(refname)' refs/heads/e2b/ | grep -vx -e refs/heads/e2b/hb -e refs/heads/e2b/sec)" ""
files_after=$(cd "$T_TMP" && find . -path ./e2b-local-state -prune -o -print | grep -v '\.git/objects/' | sort)
t_eq "no file appeared outside .git/objects but the branch and its log" \
    "$(comm -13 <(echo "$files_before") <(echo "$files_after") | grep -v -e '/\.git/refs/heads/e2b' -e '/\.git/logs/refs/heads/e2b' -e '^\./box\.' -e '^\./hp\.' -e '^\./el-' -e '^\./home/\.local/state/e2b-tui/e2b-tui\.log' -e 'argv\.' -e 'patterns')" ""
tip=$(g rev-parse e2b/hb)
echo "second" >"$hroot$BOX_REPO/box-work.txt"
hostile_pull swap
t_eq "the second bundle was rewritten too" "$HP_REWRITTEN" rewritten
t_eq "a bundle without the scratch ref: the pull fails" "$((HP_RC != 0))" 1
t_contains "and says so" "$(cat "$T_TMP/hp.err")" "no reference named refs/e2b-tui/scratch"
t_eq "e2b/hb did not move" "$(g rev-parse e2b/hb)" "$tip"
refs_after=$(g for-each-ref --format='%(refname) %(objectname)' | grep -v ' *refs/heads/e2b/' ; g symbolic-ref HEAD)
t_eq "main and HEAD did not move either" "$refs_after" "$refs_before"
t_ok "the repository is fsck-clean" g fsck --full --no-progress
box_tui --kill hb --force # its last work was never pulled (on purpose)

# ---- 4. path traversal ----
state_before=$(find "$HOME" "$T_TMP/work" | sort)
nl_name=$'a\nb'
for name in ../x a/../../b /tmp/abs "$nl_name" .. . '' x/y; do
    for op in --up --pull --kill --stop --attach; do
        box_tui "$op" "$name"
        shown=$(printf '%q' "$name")
        if [ "$BOX_RC" = 0 ]; then
            t_fail "$op $shown is refused" "exit 0"
        elif [ "$op" = --up ] || grep -qiE "not a valid box name|no box named|needs a box name" "$BOX_ERR"; then
            t_pass "$op $shown is refused (exit $BOX_RC)"
        else
            t_fail "$op $shown is refused clearly" "$(head -c 300 "$BOX_ERR")"
        fi
    done
done
box_tui --up ../x
t_contains "--up ../x says why" "$(cat "$BOX_ERR")" "not a valid box name"
t_eq "refused names wrote nothing" "$(find "$HOME" "$T_TMP/work" | grep -v 'e2b-tui\.log' | sort)" \
    "$(grep -v 'e2b-tui\.log' <<<"$state_before")"
t_eq "refused names made no sandbox" "$(el_req GET /v2/sandboxes >/dev/null; el_json length)" 0
# symlinks out of the project travel as links
mkdir -p "$T_TMP/outside"
echo "OUTSIDE-MARKER-5521" >"$T_TMP/outside/secret.txt"
ln -s "$T_TMP/outside" "$BOX_REPO/out-dir"
ln -s ../../../outside/secret.txt "$BOX_REPO/out-file"
ln -s "$T_TMP/outside" "$BOX_REPO/.git/info/out-git"
box_tui --up links
box_rc "up of a project with links out of it" 0
lroot=$(box_root "$(box_sandbox_of links)")$BOX_REPO
t_eq "a link to a directory outside stays a link" "$(readlink "$lroot/out-dir")" "$T_TMP/outside"
t_eq "a relative link outside stays a link" "$(readlink "$lroot/out-file")" "../../../outside/secret.txt"
t_eq "a link inside .git stays a link" "$(readlink "$lroot/.git/info/out-git")" "$T_TMP/outside"
printf 'OUTSIDE-MARKER-5521\n' >"$T_TMP/outside.pattern"
box_scan_clean "what they point to never left the machine" "$T_TMP/outside.pattern" "$(box_root "$(box_sandbox_of links)")"
box_tui --kill links
rm "$BOX_REPO/out-dir" "$BOX_REPO/out-file" "$BOX_REPO/.git/info/out-git"
# planted record files
mkdir -p "$boxes"
echo '{"version":1,"name":"victim","sandbox_id":"i1"}' >"$T_TMP/outside/victim.json"
ln -s "$T_TMP/outside/victim.json" "$boxes/victim.json"
echo '{"version":1,"name":"other","sandbox_id":"i2"}' >"$boxes/liar.json"
chmod 600 "$boxes/liar.json"
box_tui --list --json
box_rc "--list with planted record files exits 0" 0
t_eq "a symlinked record and one naming another box are ignored" \
    "$(jq '[.. | objects | select(.local? == true)] | length' "$BOX_OUT")" 0
box_tui --kill victim
t_ok "--kill through a symlinked record does not touch its target" test -s "$T_TMP/outside/victim.json"
t_finish
