#!/usr/bin/env bash
# Ports of a box (e2b-tui --ports, --forward) against e2b-local: a dev server started in a
# private box (tests/fixtures/tunnel_server.py --open: no password of its own) is listed by
# --ports and reached through --forward at a loopback URL with no password, its traffic
# token added; server-sent events and a WebSocket pass; a foreign Host is refused, and so
# is another local user (nobody) before the box sees anything; --local picks the port and a
# taken one is exit 5; a public box's direct URL is told; Ctrl-C ends the forward.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish
cp "$BOX_FIXTURES/tunnel_server.py" "$BOX_REPO/tools/"
printf 'serve_command = python3 {dir}/tools/tunnel_server.py --port {port}\n' >"$XDG_CONFIG_HOME/e2b-tui/config"

box_tui --up
box_setup_rc "up" 0
id=$(box_sandbox_of main)
server_url=$(sed -n 's/.*server //p' "$BOX_OUT")
dir=$(jq -r .dir "$XDG_STATE_HOME/e2b-tui/boxes/main.json")
# the agent's dev server: no password, port 5173
box_exec "$id" "cd $dir && (setsid nohup python3 tools/tunnel_server.py --open --port 5173 >/tmp/dev.log 2>&1 &)" >/dev/null
end_at() { el_req GET "/sandboxes/$id" >/dev/null; el_json .endAt; }
end0=$(end_at)
sleep 1.1 # an extension would move the end by a second at least
listed() { box_tui --ports main; grep -qx 5173 "$BOX_OUT"; }
t_ok "--ports lists the dev server's port" t_wait_until 60 listed
# e2b-local's egress proxy listens in the box's network namespace (127.0.0.1:3128, its
# HTTP_PROXY); E2B enforces egress outside the VM, so that port is the emulation's, not the box's
t_eq "and the box's OpenCode server, nothing else (envd's port is not listed)" \
    "$(grep -v '^3128 (127.0.0.1 only' "$BOX_OUT" | tr '\n' ' ')" "4096 5173 "
t_contains "e2b-local's egress proxy is told as loopback-only" "$(cat "$BOX_OUT")" "3128 (127.0.0.1 only"
t_eq "--ports exits 0" "$BOX_RC" 0
t_eq "reading the ports does not extend the box's time" "$(end_at)" "$end0"

(cd "$BOX_REPO" && exec "$E2B_TUI_BIN" --forward main 5173 >"$T_TMP/fwd.out" 2>"$T_TMP/fwd.err") &
fpid=$!
t_on_exit "kill $fpid 2>/dev/null; wait $fpid 2>/dev/null"
t_wait_until 60 grep -q '^http://127.0.0.1:[0-9]*$' "$T_TMP/fwd.out" || t_abort "no forward URL: $(cat "$T_TMP/fwd.err")"
url=$(cat "$T_TMP/fwd.out")
port=${url##*:}
t_pass "--forward prints a loopback URL"
box_url=${server_url/\/\/4096-/\/\/5173-}
t_eq "directly, the private box's port needs the token (403)" \
    "$(curl -s -o /dev/null -w '%{http_code}' "$box_url/headers")" 403
t_eq "through the forward the dev server answers, no password asked" \
    "$(curl -s -o /dev/null -w '%{http_code}' "$url/headers")" 200
hdrs=$(curl -s "$url/headers")
t_eq "the token stops at E2B's proxy" "$(jq -r '."e2b-traffic-access-token" // "none"' <<<"$hdrs")" none
t_eq "localhost:PORT is the forward's own name too" \
    "$(curl -s -o /dev/null -w '%{http_code}' -H "Host: localhost:$port" "$url/headers")" 200
t_eq "a foreign Host (a DNS-rebinding page): 421" \
    "$(curl -s -o /dev/null -w '%{http_code}' -H "Host: evil.example:$port" "$url/headers")" 421
curl -s -N --max-time 3 "$url/api/event" >"$T_TMP/sse.out" 2>/dev/null
n=$(grep -c '^data: ' "$T_TMP/sse.out")
t_ok "server-sent events stream through the forward ($n in 3 s)" test "$n" -ge 5
t_eq "a WebSocket echo through the forward" "$(python3 "$E2B_TUI_ROOT/tests/lib/ws_client.py" "$url/ws" hello-dev)" hello-dev

# another local user: refused by the forward itself, before a byte is read
as_root=
if [ "$(id -u)" != 0 ]; then
    sudo -n true 2>/dev/null && as_root="sudo -n" ||
        t_fail "another user's request" "needs root or sudo without a password (setpriv to nobody)"
fi
got=$($as_root setpriv --reuid=nobody --regid=nogroup --clear-groups curl -s -o /dev/null -w '%{http_code}' "$url/by-nobody")
t_eq "user nobody gets 403 from the forward" "$got" 403
t_eq "the owner still gets through" "$(curl -s -o /dev/null -w '%{http_code}' "$url/by-owner")" 404
t_wait_until 20 grep -q "/by-owner" "$E2B_LOCAL_STATE/e2b-local.log"
t_eq "and the box saw nothing of nobody's request" "$(grep -c "/by-nobody" "$E2B_LOCAL_STATE/e2b-local.log")" 0
t_contains "the log tells the refusal" "$(cat "$XDG_STATE_HOME/e2b-tui/e2b-tui.log")" "a connection of another user (uid $(id -u nobody)) refused"

# --local: the port asked for; taken, exit 5 (conflict)
box_tui --forward main 5173 --local "$port"
t_eq "--local with a taken port is exit 5" "$BOX_RC" 5
t_contains "saying so" "$(cat "$BOX_ERR")" "local port $port is taken"
lp=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
(cd "$BOX_REPO" && exec "$E2B_TUI_BIN" --forward main --local "$lp" 5173 >"$T_TMP/fwd2.out" 2>"$T_TMP/fwd2.err") &
f2=$!
t_on_exit "kill $f2 2>/dev/null; wait $f2 2>/dev/null"
t_wait_until 60 grep -q '^http' "$T_TMP/fwd2.out"
t_eq "--local PORT listens there" "$(cat "$T_TMP/fwd2.out")" "http://127.0.0.1:$lp"
t_eq "and forwards" "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$lp/headers")" 200
kill -INT $f2; wait $f2
t_eq "Ctrl-C ends it with 0" "$?" 0

# a port nothing listens on yet: told, and the forward still starts
box_tui --forward main 0
t_eq "port 0 is a usage error" "$BOX_RC" 2
box_tui --forward main
t_eq "--forward without a port is a usage error" "$BOX_RC" 2
box_tui --ports nosuchbox
t_eq "--ports of no such box is exit 3" "$BOX_RC" 3

kill -INT $fpid
wait $fpid
t_eq "--forward ends with 0 on Ctrl-C" "$?" 0
t_eq "and its port is closed" "$(curl -s -o /dev/null -w '%{http_code}' "$url/headers")" 000

# a public box: its direct URL is told too
box_tui --up pub --public
box_setup_rc "up --public" 0
pid_=$(box_sandbox_of pub)
(cd "$BOX_REPO" && exec "$E2B_TUI_BIN" --forward pub 4096 >"$T_TMP/fwd3.out" 2>"$T_TMP/fwd3.err") &
f3=$!
t_on_exit "kill $f3 2>/dev/null; wait $f3 2>/dev/null"
t_wait_until 60 grep -q 'is public' "$T_TMP/fwd3.err"
t_contains "a public box's direct URL is told" "$(cat "$T_TMP/fwd3.err")" "port 4096 is also at http://4096-$pid_."
kill -INT $f3; wait $f3
box_tui --kill pub --force
box_tui --kill main --force
t_finish
