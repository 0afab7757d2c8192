#!/usr/bin/env bash
# The loopback tunnel to a private box (e2b-tui --tunnel NAME) against e2b-local, with a
# box server that streams (tests/fixtures/tunnel_server.py): the token is added, never the
# password; only requests with the password, the tunnel's own Host and an origin-form target
# go through (the others are answered by the tunnel, the box sees nothing), and another
# user's 64 idle connections do not lock the owner out; server-sent events, a large chunked body, a chunked request body and a WebSocket
# echo go through; a client that closes early ends the box's stream; the box pausing and
# resuming under an open tunnel; a 403 without the token (and e2b-tui's own requests never
# get one); Ctrl-C ends the tunnel; no password or token in any argv, log or file.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish
cp "$BOX_FIXTURES/tunnel_server.py" "$BOX_REPO/tools/"
printf 'serve_command = python3 {dir}/tools/tunnel_server.py --port {port}\n' >"$XDG_CONFIG_HOME/e2b-tui/config"

box_tui --up
box_rc "up exits 0" 0 || t_abort "the box did not come up"
id=$(box_sandbox_of main)
box_url=$(sed -n 's/.*server //p' "$BOX_OUT")
el_req GET "/sandboxes/$id" >/dev/null
t_eq "the box is private" "$(el_json .network.allowPublicTraffic)" false
el_req POST "/v2/sandboxes/$id/connect" '{}' >/dev/null
token=$(el_json .trafficAccessToken)
t_ok "it has a traffic token" test ${#token} -ge 16
spid=$(grep -laF "E2B_SANDBOX_ID=$id" /proc/[0-9]*/environ 2>/dev/null | while read -r f; do
    d=${f%/environ}; tr '\0' ' ' <"$d/cmdline" 2>/dev/null | grep -q "tunnel_server.py" && basename "$d"; done | head -1)
pw=$(tr '\0' '\n' <"/proc/$spid/environ" | sed -n 's/^OPENCODE_SERVER_PASSWORD=//p')
t_ok "the server has its password" test ${#pw} = 32
printf 'opencode:%s\n' "$pw" | sed 's/^/user = "/; s/$/"/' >"$T_TMP/auth.curlrc" # -K: not in curl's argv
deliberate_403=0

# ---- the tunnel ----
(cd "$BOX_REPO" && exec "$E2B_TUI_BIN" --tunnel main >"$T_TMP/tunnel.out" 2>"$T_TMP/tunnel.err") &
tpid=$!
t_on_exit "kill $tpid 2>/dev/null; wait $tpid 2>/dev/null"
t_wait_until 60 grep -q '^http://127.0.0.1:[0-9]*$' "$T_TMP/tunnel.out" || t_abort "no tunnel URL: $(cat "$T_TMP/tunnel.err")"
url=$(cat "$T_TMP/tunnel.out")
t_pass "--tunnel prints a loopback URL"
c() { curl -s -K "$T_TMP/auth.curlrc" "$@"; }

t_eq "through the tunnel the private box answers (token added)" \
    "$(c -o /dev/null -w '%{http_code}' "$url/api/health")" 200
t_eq "the tunnel never adds the password" \
    "$(curl -s -o /dev/null -w '%{http_code}' "$url/api/health")" 401
# ---- only the owner: the password, the tunnel's own Host, no proxy requests ----
port=${url##*:}
box_lines() { grep -c "4096-$id" "$E2B_LOCAL_STATE/e2b-local.log"; }
before=$(box_lines)
t_eq "no password: 401" "$(curl -s -o "$T_TMP/401.out" -D "$T_TMP/401.hdr" -w '%{http_code}' "$url/api/health")" 401
t_contains "from the tunnel itself" "$(cat "$T_TMP/401.hdr" "$T_TMP/401.out")" 'Basic realm="e2b-tui tunnel"'
t_eq "a wrong password: 401" "$(curl -s -o /dev/null -w '%{http_code}' -u opencode:wrong "$url/api/health")" 401
t_eq "a foreign Host (a DNS-rebinding page): 421" \
    "$(c -o /dev/null -w '%{http_code}' -H "Host: evil.example:$port" "$url/api/health")" 421
t_eq "an absolute-form target: 400" \
    "$(c -o /dev/null -w '%{http_code}' --request-target "http://4096-$id.e2b.app/api/health" "$url/api/health")" 400
raw() { # one raw request to the tunnel, its status line back
    exec 3<>"/dev/tcp/127.0.0.1/$port"; printf '%b' "$1" >&3; head -1 <&3 | tr -d '\r'; exec 3<&-; }
t_eq "CONNECT: 405" "$(raw "CONNECT 4096-$id.e2b.app:443 HTTP/1.1\r\nHost: 127.0.0.1:$port\r\n\r\n" | cut -d' ' -f2)" 405
t_eq "none of these reached the box" "$(box_lines)" "$before"
t_eq "the query form of the password (what OpenCode's web client puts on a WebSocket URL) passes" \
    "$(curl -s -o /dev/null -w '%{http_code}' "$url/api/health?auth_token=$(printf 'opencode:%s' "$pw" | base64 -w0 | sed 's/=/%3D/g')")" 200

# another local user holds 64 idle connections: the owner is still served, at once
cat >"$T_TMP/idle.py" <<'PY'
import socket, sys, time
socks = []
for _ in range(64):
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
    try:
        s.send(b"GET / HT")  # a head that never ends
    except OSError:
        pass  # the tunnel refused this one at once
    socks.append(s)
print("holding", flush=True)
time.sleep(float(sys.argv[2]))
PY
# (the system's python: a per-user one under root's home is not nobody's to run). Becoming
# nobody takes root: as root, or through sudo without a password for a developer who is not.
as_root=
if [ "$(id -u)" != 0 ]; then
    sudo -n true 2>/dev/null && as_root="sudo -n" ||
        t_fail "another user's connections" "needs root or sudo without a password (setpriv to nobody)"
fi
$as_root setpriv --reuid=nobody --regid=nogroup --clear-groups /usr/bin/python3 - "$port" 30 <"$T_TMP/idle.py" >"$T_TMP/idle.out" 2>&1 &
ipid=$!
t_on_exit "kill $ipid 2>/dev/null"
t_ok "user nobody holds 64 idle connections to the tunnel" t_wait_until 20 grep -q holding "$T_TMP/idle.out"
t_eq "64 idle connections of user nobody do not refuse the owner" \
    "$(c -o /dev/null -w '%{http_code}' --max-time 3 "$url/api/health")" 200
t_eq "nor the owner's event stream" "$(c -N -s --max-time 2 "$url/api/event" | grep -c '^data: 0$')" 1
kill $ipid; wait $ipid 2>/dev/null

t_eq "directly, without the token, E2B's proxy refuses (403)" \
    "$(c -o /dev/null -w '%{http_code}' "$box_url/api/health")" 403
deliberate_403=$((deliberate_403 + 1))
t_eq "a token the client sends is replaced by the box's" \
    "$(c -o /dev/null -w '%{http_code}' -H 'e2b-traffic-access-token: wrong' "$url/api/health")" 200
hdrs=$(c "$url/headers")
t_eq "the server sees the box's host, not 127.0.0.1" "$(jq -r .host <<<"$hdrs")" "${box_url#http://}"
t_eq "the token stops at E2B's proxy" "$(jq -r '."e2b-traffic-access-token" // "none"' <<<"$hdrs")" none

# server-sent events: several arrive while the stream stays open
c -N --max-time 4 "$url/api/event" >"$T_TMP/sse.out" 2>/dev/null
n=$(grep -c '^data: ' "$T_TMP/sse.out")
t_ok "server-sent events stream through the tunnel ($n in 4 s)" test "$n" -ge 5
t_eq "in order" "$(grep '^data: ' "$T_TMP/sse.out" | head -3 | tr '\n' ' ')" "data: 0 data: 1 data: 2 "

# a large chunked response and a chunked request body, byte for byte
want=$(python3 -c 'import sys,hashlib; p=bytes(range(256))*256; n=8000000; h=hashlib.sha256()
while n>0:
    k=min(n,len(p)-1-(n%7)); h.update(p[:k]); n-=k
print(h.hexdigest())')
t_eq "an 8 MB chunked body arrives whole" "$(c "$url/big?n=8000000" | sha256sum | cut -c1-64)" "$want"
head -c 3000000 /dev/urandom >"$T_TMP/body.bin"
t_eq "a 3 MB chunked request body goes up whole" \
    "$(c -H 'Transfer-Encoding: chunked' --data-binary @"$T_TMP/body.bin" "$url/echo" | sha256sum | cut -c1-64)" \
    "$(sha256sum <"$T_TMP/body.bin" | cut -c1-64)"

# WebSocket: through the tunnel, and e2b-local's proxy with and without the token
ws=$E2B_TUI_ROOT/tests/lib/ws_client.py
t_eq "a WebSocket echo through the tunnel" "$(WS_AUTH="opencode:$pw" python3 "$ws" "$url/ws" hello-tunnel)" hello-tunnel
t_eq "e2b-local's proxy refuses the upgrade without the token" "$(WS_AUTH="opencode:$pw" python3 "$ws" "$box_url/ws" x)" "status 403"
deliberate_403=$((deliberate_403 + 1))
printf 'e2b-traffic-access-token: %s\n' "$token" >"$T_TMP/tok.hdr"
t_eq "and passes it with the token" "$(WS_AUTH="opencode:$pw" python3 "$ws" "$box_url/ws" hello-proxy "$T_TMP/tok.hdr")" hello-proxy
rm -f "$T_TMP/tok.hdr"

# the client closes early: the box's stream ends too, the tunnel goes on
curl -s -K "$T_TMP/auth.curlrc" -N "$url/api/event" >"$T_TMP/sse2.out" 2>/dev/null &
cpid=$!
t_wait_until 30 grep -q '^data: 2' "$T_TMP/sse2.out"
kill $cpid; wait $cpid 2>/dev/null
sse_closed() { box_exec "$id" 'cat /tmp/sse-closed 2>/dev/null' | grep -q 'stdout closed'; }
t_ok "a client closing early ends the box's stream" t_wait_until 30 sse_closed
t_eq "the tunnel serves the next client" "$(c -o /dev/null -w '%{http_code}' "$url/api/health")" 200

# the box pauses while tunnelled, then resumes
curl -s -K "$T_TMP/auth.curlrc" -N "$url/api/event" >"$T_TMP/sse3.out" 2>/dev/null &
cpid=$!
t_wait_until 30 grep -q '^data: 1' "$T_TMP/sse3.out"
el_req POST "/sandboxes/$id/pause" >/dev/null
t_eq "the box paused under an open stream" "$(el_req GET "/sandboxes/$id" >/dev/null; el_json .state)" paused
t_eq "a request to the paused box gets E2B's 502 through the tunnel" \
    "$(c -o /dev/null -w '%{http_code}' --max-time 20 "$url/api/health")" 502
kill $cpid; wait $cpid 2>/dev/null
el_req POST "/v2/sandboxes/$id/connect" '{}' >/dev/null
t_eq "after the resume the same tunnel reaches the box again" \
    "$(c -o /dev/null -w '%{http_code}' --max-time 20 "$url/api/health")" 200

# Ctrl-C ends it
kill -INT $tpid
wait $tpid
t_eq "--tunnel ends with 0 on Ctrl-C" "$?" 0
t_eq "and its port is closed" "$(curl -s -o /dev/null -w '%{http_code}' "$url/api/health")" 000

# e2b-tui's own requests (up's and --tunnel's health probes) never got a 403
got403=$(grep -c "4096-$id.* 403 " "$E2B_LOCAL_STATE/e2b-local.log")
t_eq "only this test's deliberate requests without the token got 403" "$got403" "$deliberate_403"

# no password or token in any argv, log or file of e2b-tui
printf '%s\n%s\n' "$pw" "$token" >"$T_TMP/secrets.pattern"
t_ok "no password or token in any process's argv" sh -c "! grep -laFf '$T_TMP/secrets.pattern' /proc/[0-9]*/cmdline 2>/dev/null | grep -q ."
t_ok "none in e2b-tui's log" sh -c "! grep -qFf '$T_TMP/secrets.pattern' '$XDG_STATE_HOME/e2b-tui/e2b-tui.log'"
t_ok "none in what --tunnel printed" sh -c "! grep -qFf '$T_TMP/secrets.pattern' '$T_TMP/tunnel.out' '$T_TMP/tunnel.err'"
t_ok "the token in no file of e2b-tui's" sh -c "! grep -rqF '$token' '$HOME'"
t_contains "the log tells the tunnel's connections" "$(cat "$XDG_STATE_HOME/e2b-tui/e2b-tui.log")" "tunnel: GET /api/event"
rm -f "$T_TMP/secrets.pattern" "$T_TMP/auth.curlrc"
box_tui --kill main
t_finish
