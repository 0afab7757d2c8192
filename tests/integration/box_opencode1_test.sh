#!/usr/bin/env bash
# The real OpenCode 1 server (npm opencode-ai, installed into build/npm by make)
# with the preset `opencode = 1`: up reaches a healthy server through e2b-local's port
# proxy (the box is private: 403 without the traffic token), a request without the password
# gets 401, and attach hands the terminal (tmux) to the real `opencode attach` through
# e2b-tui's loopback tunnel (which adds the token, so the box's *.localhost name never has
# to resolve), which talks to the server with the password from its environment and exits
# on ctrl-c; no process has the password in its argv.
# The serve command is the preset's own, by path (default plugins on: the first answer takes longer
# offline). opencode unpacks a native library into $TMPDIR: the host-side attach gets the
# scratch dir.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish
# The preset's serve command, by the path of the server the boxes see (build/npm's).
printf 'opencode = 1\nserve_command = %s serve --hostname 0.0.0.0 --port {port}\n' "$BOX_OPENCODE" \
    >"$XDG_CONFIG_HOME/e2b-tui/config"
export E2B_TUI_HEALTH_TIMEOUT=150

box_tui --up oc1
box_rc "up with the real OpenCode 1 server: exit 0" 0 || t_abort "the box did not come up"
id=$(box_sandbox_of oc1)
url=$(sed -n 's/.*server //p' "$BOX_OUT")
t_contains "the server URL is the box's port 4096" "$url" "4096-$id.localhost"
t_eq "the box is private: 403 without the traffic token" "$(curl -s -o /dev/null -w '%{http_code}' "$url/global/health")" 403
el_req POST "/v2/sandboxes/$id/connect" '{}' >/dev/null
printf 'e2b-traffic-access-token: %s\n' "$(el_json .trafficAccessToken)" >"$T_TMP/tok.hdr"
t_eq "a request without the password gets 401" "$(curl -s -o /dev/null -w '%{http_code}' -H @"$T_TMP/tok.hdr" "$url/global/health")" 401
spid=$(box_server_pid "$id")
t_ok "the preset's opencode serve runs for the box" test -n "$spid"
pw=$(tr '\0' '\n' <"/proc/${spid:-0}/environ" | sed -n 's/^OPENCODE_SERVER_PASSWORD=//p')
t_eq "the real server got the password in its environment" "${#pw}" 32
t_eq "with the password (user opencode) it is healthy: the v1 root route" \
    "$(curl -s -H @"$T_TMP/tok.hdr" -u "opencode:$pw" "$url/global/health")" '{"healthy":true,"version":"1.18.33"}'
rm -f "$T_TMP/tok.hdr"

# The preset's attach command (opencode attach {url} --dir {dir}), wrapped only to record
# opencode's own exit status for the comparison below.
printf '%s\n' "attach_command = sh -c '$OPENCODE_BIN attach \"\$1\" --dir \"\$2\"; s=\$?; echo \$s >\"\$3\"; exit \$s' sh {url} {dir} $T_TMP/oc.status" \
    >>"$XDG_CONFIG_HOME/e2b-tui/config"
mkdir -p "$T_TMP/attach-tmp"
sock=$T_RUN_TMP/tmux-box-oc1-$$
t_on_exit "tmux -S $sock kill-server 2>/dev/null; rm -f $sock"
tmux -S "$sock" new-session -d -x 120 -y 40 -s a \
    "cd \"$BOX_REPO\" && TMPDIR=\"$T_TMP/attach-tmp\" \"$E2B_TUI_BIN\" --attach oc1; echo ATTACH-EXIT=\$?; sleep 600"
printf '%s\n' "$pw" >"$T_TMP/pw.pattern"
started=0 leaked=0
for _ in $(seq 600); do
    grep -laFf "$T_TMP/pw.pattern" /proc/[0-9]*/cmdline 2>/dev/null | grep -q . && leaked=1
    if pgrep -f "opencode attach http://127.0.0.1:[0-9]* --dir $BOX_REPO" >/dev/null; then started=1; break; fi
    sleep 0.1
done
t_eq "attach starts the real opencode attach" "$started" 1
t_contains "with the tunnel's URL and the directory" "$(pgrep -af "opencode attach http://127.0.0.1:[0-9]* --dir $BOX_REPO" | head -1)" "--dir $BOX_REPO"
BOX_LEAKED=$leaked
box_attach_talks "$id"
t_eq "opencode attach reaches the private box through the tunnel and is let in (password from the environment)" "$BOX_TALKED" 1
t_eq "no process has the password in its argv while attach runs" "$BOX_LEAKED" 0
exited=$(box_attach_ctrl_c "$sock")
t_ok "ctrl-c ends opencode attach" test -n "$exited"
t_eq "e2b-tui returns opencode's exit status" "$exited" "$(cat "$T_TMP/oc.status")"
t_ok "opencode attach kept its unpacked files in the scratch dir (TMPDIR)" \
    test -n "$(find "$T_TMP/attach-tmp" -type f | head -1)"
box_tui --kill oc1
box_rc "kill: exit 0" 0
t_finish
