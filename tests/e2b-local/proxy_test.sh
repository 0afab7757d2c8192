#!/usr/bin/env bash
# The port proxy of e2b-local: two sandboxes both serve port 4096; streaming responses;
# 502 for closed ports and paused or unknown sandboxes; the traffic token.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
e2b_local_start || t_finish

cat >"$T_TMP/srv.py" <<'PY'
import http.server, sys, time
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_GET(self):
        if self.path == "/event":
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for word, pause in (("first", 6), ("second", 0)):
                data = ("data: %s\n\n" % word).encode()
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()
                time.sleep(pause)
            self.wfile.write(b"0\r\n\r\n")
            return
        body = ("%s %s" % (sys.argv[2], self.path)).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("X-Served-By", sys.argv[2])
        self.end_headers()
        self.wfile.write(body)
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(201)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body[::-1])
http.server.ThreadingHTTPServer(("0.0.0.0", int(sys.argv[1])), H).serve_forever()
PY

# start_server ID TOKEN NAME: uploads and starts the server on 4096 (detached).
start_server() {
    el_envd "$1" "$2" POST /files -F "file=@$T_TMP/srv.py;filename=/home/user/srv.py" >/dev/null
    el_run "$1" "$2" "exec python3 /home/user/srv.py 4096 $3" '{"tag":"srv"}' -m 1 >/dev/null 2>&1
}
# via ID PORT [CURL ARGS]: a request to that sandbox port, routed by Host; prints the status.
via() {
    local id=$1 port=$2
    shift 2
    curl -sS -o "$EL_BODY_FILE" -D "$EL_HEAD_FILE" -w '%{http_code}' -H "Host: $port-$id.localhost:$E2B_LOCAL_PORT" \
        "$@" "$E2B_LOCAL_URL${P:-/}"
}
wait_ready() {
    local i
    for ((i = 0; i < 100; i++)); do
        [ "$(P=/ via "$1" 4096 2>/dev/null)" = 200 ] && return 0
        sleep 0.2
    done
    return 1
}

el_create || t_finish; A=$EL_ID; TA=$EL_TOKEN
el_create || t_finish; B=$EL_ID; TB=$EL_TOKEN
start_server "$A" "$TA" "alpha$$"
start_server "$B" "$TB" "beta$$"
t_ok "sandbox A's server answers through the proxy" wait_ready "$A"
t_ok "sandbox B's server answers on the same port" wait_ready "$B"
P=/hello via "$A" 4096 >/dev/null
t_eq "Host routing reaches A" "$(cat "$EL_BODY_FILE")" "alpha$$ /hello"
P=/hello via "$B" 4096 >/dev/null
t_eq "Host routing reaches B" "$(cat "$EL_BODY_FILE")" "beta$$ /hello"
t_eq "response headers pass through" "$(el_header X-Served-By)" "beta$$"
code=$(curl -sS -o "$EL_BODY_FILE" -w '%{http_code}' -H "E2b-Sandbox-Id: $A" -H 'E2b-Sandbox-Port: 4096' "$E2B_LOCAL_URL/q?x=1")
t_eq "header routing works too" "$code $(cat "$EL_BODY_FILE")" "200 alpha$$ /q?x=1"
code=$(P=/echo via "$A" 4096 --data-binary 'abcdef')
t_eq "POST bodies go through and statuses come back" "$code $(cat "$EL_BODY_FILE")" "201 fedcba"
code=$(P=/echo via "$A" 4096 -H 'Expect: 100-continue' --data-binary 'xyz')
t_eq "Expect: 100-continue does not confuse the proxy" "$code $(cat "$EL_BODY_FILE")" "201 zyx"
t_not_contains "the host's port 4096 is not the sandbox's" "$(curl -s -m 2 http://127.0.0.1:4096/ 2>/dev/null)" "alpha$$"

# Streaming: the first event arrives while the server is still sleeping before the second.
P=/event curl -sS -N -m 3 -H "Host: 4096-$A.localhost:$E2B_LOCAL_PORT" "$E2B_LOCAL_URL/event" >"$T_TMP/sse1" 2>/dev/null
t_contains "an event stream is forwarded as it arrives" "$(cat "$T_TMP/sse1")" "data: first"
t_not_contains "... before the server has sent the rest" "$(cat "$T_TMP/sse1")" "second"
curl -sS -N -m 20 -H "Host: 4096-$A.localhost:$E2B_LOCAL_PORT" "$E2B_LOCAL_URL/event" >"$T_TMP/sse2" 2>/dev/null
t_contains "the whole stream arrives" "$(cat "$T_TMP/sse2")" "data: second"

# 502s.
t_eq "a closed port is 502" "$(via "$A" 5999)" 502
t_eq "... saying the port is not open" "$(el_json .message) $(el_json .port)" "The sandbox is running but port is not open 5999"
t_eq "an unknown sandbox is 502" "$(via inosuch 4096)" 502
t_eq "... with the sandbox id" "$(el_json .sandboxId)" inosuch
el_create || t_finish
t_eq "a sandbox without processes has no open port" "$(via "$EL_ID" 4096)" 502

# Pause freezes the server; connect thaws it.
el_rpc "$A" "$TA" process.Process/List '{}' >/dev/null
SRV=$(el_json '.processes[] | select(.tag == "srv") | .pid')
el_req POST "/sandboxes/$A/pause" >/dev/null
t_eq "a paused sandbox's port is 502" "$(via "$A" 4096)" 502
hostpid=$(pgrep -f "srv.py 4096 alpha$$" | head -1)
t_contains "pause stops the sandbox's processes" "$(ps -o stat= -p "$hostpid")" T
t_eq "connect resumes it (201)" "$(el_req POST "/v2/sandboxes/$A/connect" '{}')" 201
t_contains "connect thaws the processes" "$(ps -o stat= -p "$hostpid")" S
t_eq "the server answers again after resume" "$(via "$A" 4096)" 200
el_rpc "$A" "$TA" process.Process/List '{}' >/dev/null
t_eq "the same process kept running" "$(el_json '.processes[] | select(.tag == "srv") | .pid')" "$SRV"

# Traffic token when public traffic is off.
el_create '{"network":{"allowPublicTraffic":false}}' || t_finish
C=$EL_ID; TC=$EL_TOKEN
TRAFFIC=$(el_json .trafficAccessToken)
t_eq "create returns a traffic token when public traffic is off" "${#TRAFFIC}" 32
start_server "$C" "$TC" "gamma$$"
t_eq "without the traffic token the port is 403" "$(via "$C" 4096)" 403
ok=0
for _ in $(seq 100); do
    [ "$(via "$C" 4096 -H "e2b-traffic-access-token: $TRAFFIC")" = 200 ] && { ok=1; break; }
    sleep 0.2
done
t_eq "with the traffic token it answers" "$ok $(cat "$EL_BODY_FILE")" "1 gamma$$ /"

# Kill removes the processes.
el_req DELETE "/sandboxes/$B" >/dev/null
t_eq "a killed sandbox's port is 502" "$(via "$B" 4096)" 502
t_eq "kill ends the sandbox's processes" "$(pgrep -f "srv.py 4096 beta$$" | wc -l)" 0
e2b_local_stop
t_eq "server stops cleanly" "$?" 0
t_eq "SIGTERM leaves no sandbox process" "$(pgrep -f "srv.py 4096 [a-z]*$$|bwrap.*$E2B_LOCAL_STATE" | wc -l)" 0
t_finish
