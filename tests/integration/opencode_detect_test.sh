#!/usr/bin/env bash
# Which OpenCode, detected on both sides with no `opencode` key in the config: the boxes see
# a bin directory of the test's at /usr/local/bin (on their PATH), the local machine a
# private one on PATH.
#   1. only the real OpenCode 1.18.33 in the box and here (the box's `opencode` runs the
#      real server, the local one is the real client): up finds it (v1), starts the preset
#      `opencode serve` and checks /global/health; the record, --status --json and the
#      Detail pane say so; --status and the dashboard's agent column read the v1 routes
#      (a session made through v1 is seen); attach runs the real
#      `opencode attach URL --dir DIR` with the password only in OPENCODE_SERVER_PASSWORD.
#   2. a local `opencode` reporting 2.x: attach to the v1 box (--attach and the dashboard's)
#      is refused before anything runs, saying what to install; --info says what it found
#      here; a set attach_command is run as given.
#   3. a box with `opencode2` (a shim reporting the beta's version, serving with the real
#      server, whose /api/... is v2): up picks v2 (/api/health); a local `opencode2` shim
#      gets `opencode2 --server URL DIR`, a local `opencode` 2.x gets `opencode --server URL
#      DIR`, the real 1.18 client is refused.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/lib/tmux.sh"
BOXBIN=$T_TMP/boxbin
mkdir -p "$BOXBIN"
box_setup --ro-bind "$BOXBIN:/usr/local/bin" || t_finish
# box_setup's config names a serve command: this test has none, and no opencode key
: >"$XDG_CONFIG_HOME/e2b-tui/config"
rm -f "$T_TMP/bin/opencode2"
export E2B_TUI_HEALTH_TIMEOUT=150
# The box's `opencode`: the real 1.18.33 (its default plugins off: offline they only delay
# the first answer).
cat >"$BOXBIN/opencode" <<SH
#!/bin/sh
export OPENCODE_DISABLE_DEFAULT_PLUGINS=1 OPENCODE_DISABLE_AUTOUPDATE=1
exec $BOX_OPENCODE "\$@"
SH
# The box's `opencode2`: answers only while the test enables it (the beta's version; it
# serves with the real server, whose /api/... is the v2 protocol).
cat >"$BOXBIN/opencode2" <<SH
#!/bin/sh
[ -e /usr/local/bin/opencode2.on ] || exit 1
case "\$1" in
--version) echo 2.0.0-beta.1 ;;
serve) shift; export OPENCODE_DISABLE_DEFAULT_PLUGINS=1 OPENCODE_DISABLE_AUTOUPDATE=1; exec $BOX_OPENCODE serve "\$@" ;;
*) exit 2 ;;
esac
SH
chmod 755 "$BOXBIN/opencode" "$BOXBIN/opencode2"
ln -sf "$OPENCODE_BIN" "$T_TMP/bin/opencode" # the real client here

# screen_has REGEX [SECONDS]: until a line of the dashboard's screen matches REGEX.
screen_has() {
    local end=$((SECONDS + ${2:-30}))
    while [ "$SECONDS" -le "$end" ]; do
        tmux_capture 2>/dev/null | grep -qE "$1" && return 0
        sleep 0.2
    done
    tmux_capture >&2 2>/dev/null
    return 1
}

# attach_tui NAME: --attach NAME as box_tui runs it, bounded (a client that should not have
# run would wait for a terminal).
attach_tui() {
    BOX_OUT=$T_TMP/box.out BOX_ERR=$T_TMP/box.err
    (cd "$BOX_REPO" && timeout 60 "$E2B_TUI_BIN" --attach "$1") >"$BOX_OUT" 2>"$BOX_ERR" </dev/null
    BOX_RC=$?
}

# A local shim: --version prints $2; any other call writes its argv and which password
# variables it got (set/unset, never the value) to $T_TMP/NAME.log.
local_shim() {
    rm -f "$T_TMP/bin/$1" # it may be the link to the real client: never written through
    cat >"$T_TMP/bin/$1" <<SH
#!/bin/sh
[ "\$1" = --version ] && { echo "$2"; exit 0; }
{ echo "argv: \$*"; echo "server_pw: \${OPENCODE_SERVER_PASSWORD:+set}"; echo "pw: \${OPENCODE_PASSWORD:+set}"; } >"$T_TMP/$1.log"
exit 0
SH
    chmod 755 "$T_TMP/bin/$1"
}

# ---- 1. OpenCode 1.18 on both sides ----
box_tui --up v1box
box_rc "up with only OpenCode 1.18 in the box and no opencode key: exit 0" 0 || t_abort "the box did not come up"
id=$(box_sandbox_of v1box)
rec=$XDG_STATE_HOME/e2b-tui/boxes/v1box.json
t_eq "the record says what up found: v1, opencode, its version" \
    "$(jq -r '"\(.version) \(.opencode) \(.opencode_bin) \(.opencode_version)"' "$rec")" "2 1 opencode 1.18.33"
spid=$(box_server_pid "$id")
t_ok "the preset opencode serve runs for the box" test -n "$spid"
t_contains "up checked the v1 health route" "$(cat "$E2B_LOCAL_STATE/e2b-local.log")" \
    "GET 4096-$id.localhost:$E2B_LOCAL_PORT /global/health 200"
pw=$(tr '\0' '\n' <"/proc/${spid:-0}/environ" | sed -n 's/^OPENCODE_SERVER_PASSWORD=//p')
# a session made through v1 (it never shows in v2's lists): --status must see it
el_req POST "/v2/sandboxes/$id/connect" '{}' >/dev/null
tok=$(el_json .trafficAccessToken)
printf 'user = "opencode:%s"\nheader = "e2b-traffic-access-token: %s"\n' "$pw" "$tok" >"$T_TMP/curl.conf"
curl -s -K "$T_TMP/curl.conf" -X POST -H 'content-type: application/json' \
    --resolve "4096-$id.localhost:$E2B_LOCAL_PORT:127.0.0.1" \
    -d '{"title":"made through v1"}' "http://4096-$id.localhost:$E2B_LOCAL_PORT/session" >"$T_TMP/session.json"
rm -f "$T_TMP/curl.conf"
t_contains "a session is made through the v1 routes" "$(cat "$T_TMP/session.json")" '"title":"made through v1"'
box_tui --status v1box --json
t_eq "--status --json: the box's OpenCode" "$(jq -c '.boxes[0].opencode' "$BOX_OUT")" \
    '{"api":1,"bin":"opencode","version":"1.18.33"}'
t_eq "--status --json: the agent is read on v1" "$(jq -r '.boxes[0].api' "$BOX_OUT")" 1
t_eq "--status --json: the v1 session is seen" "$(jq -r '.boxes[0].session.title' "$BOX_OUT")" "made through v1"
t_eq "--status --json: idle" "$(jq -r '.boxes[0].state' "$BOX_OUT")" idle

# the dashboard: its agent column and the Detail pane
tmux_start 160 30 "cd '$BOX_REPO' && '$E2B_TUI_BIN'; echo rc=\$?; sleep 600"
t_ok "the dashboard shows the box with its agent idle (read on v1)" screen_has 'v1box.*idle'
tmux_keys Enter
t_ok "Enter: the agent view reads the v1 session" screen_has 'idle +made through v1'
tmux_keys Escape d
t_ok "the Detail pane says which OpenCode the box runs" screen_has 'OpenCode +opencode 1\.18\.33 \(v1 API\)'
tmux_keys Escape q
tmux_kill

# attach: the real opencode attach, through the tunnel, password only in its environment
sock=$T_RUN_TMP/tmux-oc-detect-$$
t_on_exit "tmux -S $sock kill-server 2>/dev/null; rm -f $sock"
tmux -S "$sock" -f /dev/null new-session -d -x 120 -y 40 -s a \
    "cd \"$BOX_REPO\" && TMPDIR=\"$T_TMP\" \"$E2B_TUI_BIN\" --attach v1box; echo ATTACH-EXIT=\$?; sleep 600"
printf '%s\n' "$pw" >"$T_TMP/pw.pattern"
started=0 leaked=0 apid=
for _ in $(seq 600); do
    grep -laFf "$T_TMP/pw.pattern" /proc/[0-9]*/cmdline 2>/dev/null | grep -q . && leaked=1
    apid=$(pgrep -f "opencode attach http://127.0.0.1:[0-9]* --dir $BOX_REPO" | head -1)
    if [ -n "$apid" ]; then started=1; break; fi
    sleep 0.1
done
t_eq "attach runs the real opencode attach URL --dir DIR (found here: 1.18)" "$started" 1
envs=$(tr '\0' '\n' <"/proc/${apid:-0}/environ" 2>/dev/null | sed -n 's/^\(OPENCODE_[A-Z_]*PASSWORD\)=.*/\1/p' | sort | tr '\n' ' ')
t_eq "its password is in the variable 1.x reads, and only there" "$envs" "OPENCODE_SERVER_PASSWORD "
BOX_LEAKED=$leaked
box_attach_talks "$id"
t_eq "opencode attach talks to the box's server (the password from its environment)" "$BOX_TALKED" 1
t_eq "no process has the password in its argv" "$BOX_LEAKED" 0
exited=$(box_attach_ctrl_c "$sock")
t_ok "ctrl-c ends opencode attach" test -n "$exited"
tmux -S "$sock" kill-server 2>/dev/null

# ---- 2. a local OpenCode 2 against the v1 box: refused, saying what to install ----
local_shim opencode 2.0.7
box_tui --info
t_contains "--info says what is here" "$(cat "$BOX_OUT")" "OpenCode here:  opencode 2.0.7 (v2 API)"
t_contains "--info: the attach command that follows" "$(cat "$BOX_OUT")" "attach:         opencode --server {url} {dir}"
attach_tui v1box
t_eq "a 2.x client with a 1.x server: attach fails (exit 1)" "$BOX_RC" 1
t_contains "saying what runs where and what to install" "$(cat "$BOX_ERR")" \
    "box v1box runs opencode 1.18.33 (v1 API), which this machine's opencode 2.0.7 (v2 API) cannot attach to: install OpenCode 1.x"
t_ok "the client was never run to attach" test ! -e "$T_TMP/opencode.log"
tmux_start 230 30 "cd '$BOX_REPO' && '$E2B_TUI_BIN'; echo rc=\$?; sleep 600"
screen_has 'v1box' >/dev/null
tmux_keys a
t_ok "the dashboard's attach is refused on its status line, saying what to install" \
    screen_has 'cannot attach to: install OpenCode 1\.x'
t_ok "the terminal was never handed over: the client did not run" test ! -e "$T_TMP/opencode.log"
tmux_keys q
tmux_kill
printf 'attach_command = opencode --server {url} {dir}\n' >"$XDG_CONFIG_HOME/e2b-tui/config"
attach_tui v1box
t_eq "attach_command set: it is run as given (no check)" "$BOX_RC" 0
t_contains "the configured command ran" "$(cat "$T_TMP/opencode.log" 2>/dev/null)" "argv: --server http://127.0.0.1:"
: >"$XDG_CONFIG_HOME/e2b-tui/config"
rm -f "$T_TMP/opencode.log"

# ---- 3. a box with opencode2: v2 ----
touch "$BOXBIN/opencode2.on"
box_tui --up v2box
box_rc "up with opencode2 in the box: exit 0" 0 || t_abort "the v2 box did not come up"
id2=$(box_sandbox_of v2box)
t_eq "the record says v2, opencode2" \
    "$(jq -r '"\(.opencode) \(.opencode_bin) \(.opencode_version)"' "$XDG_STATE_HOME/e2b-tui/boxes/v2box.json")" \
    "2 opencode2 2.0.0-beta.1"
t_contains "up checked the v2 health route" "$(cat "$E2B_LOCAL_STATE/e2b-local.log")" \
    "GET 4096-$id2.localhost:$E2B_LOCAL_PORT /api/health 200"
box_tui --status v2box --json
t_eq "--status --json: v2 through /api/..." "$(jq -r '"\(.boxes[0].api) \(.boxes[0].opencode.bin) \(.boxes[0].state)"' "$BOX_OUT")" "2 opencode2 idle"
rm -f "$T_TMP/bin/opencode" # only the beta here
local_shim opencode2 2.0.0-beta.1
attach_tui v2box
box_rc "a local opencode2: attach exits 0" 0
log=$(cat "$T_TMP/opencode2.log" 2>/dev/null)
t_ok "it ran opencode2 --server URL DIR" grep -qE "^argv: --server http://127\.0\.0\.1:[0-9]+ $BOX_REPO\$" <<<"$log"
t_contains "with the password in its environment" "$log" "server_pw: set"
rm -f "$T_TMP/bin/opencode2"
local_shim opencode 2.0.7
attach_tui v2box
box_rc "a local opencode 2.x: attach exits 0" 0
log=$(cat "$T_TMP/opencode.log" 2>/dev/null)
t_ok "it ran opencode --server URL DIR" grep -qE "^argv: --server http://127\.0\.0\.1:[0-9]+ $BOX_REPO\$" <<<"$log"
t_contains "the password in OpenCode 2's variable too" "$log" "pw: set"
ln -sf "$OPENCODE_BIN" "$T_TMP/bin/opencode"
attach_tui v2box
t_eq "the 1.18 client with a v2 server: refused (exit 1)" "$BOX_RC" 1
t_contains "saying to install OpenCode 2" "$(cat "$BOX_ERR")" "install OpenCode 2 here"

box_tui --kill v1box --force
box_rc "kill v1box: exit 0" 0
box_tui --kill v2box --force
box_rc "kill v2box: exit 0" 0
t_finish
