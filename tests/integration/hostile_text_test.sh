#!/usr/bin/env bash
# A hostile API: every answer is a 500 whose message carries terminal escapes (CSI, OSC),
# C1 controls and bidi overrides. What the one-shot modes print must be clean: readable
# words kept, no control or override character on the user's terminal.
. "$(dirname "$0")/../lib/lib.sh"
t_isolated_home

cat >"$T_TMP/hostile_api.py" <<'PY'
import http.server, json, sys
MESSAGE = ("ALERT \u001b[2J\u001b]0;pwned\u0007 \u001b]52;c;Zm9v\u001b\\ "
           "\u009b31m \u0085 \u202eevil\u202c \u2066iso\u2069 end")
class H(http.server.BaseHTTPRequestHandler):
    def answer(self):
        body = json.dumps({"code": 500, "message": MESSAGE}).encode()
        self.send_response(500)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    do_GET = do_POST = do_DELETE = do_PUT = answer
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
PY
python3 "$T_TMP/hostile_api.py" >"$T_TMP/port" &
srv=$!
t_on_exit "kill $srv 2>/dev/null; wait $srv 2>/dev/null"
for _ in $(seq 100); do [ -s "$T_TMP/port" ] && break; sleep 0.1; done
port=$(cat "$T_TMP/port")

# clean FILE: no C0 (but newline), DEL, C1 (raw or as UTF-8), or bidi control in FILE.
clean() {
    python3 - "$1" <<'PY'
import sys, unicodedata
data = open(sys.argv[1], "rb").read()
try:
    text = data.decode("utf-8")
except UnicodeDecodeError as e:
    print(f"not UTF-8: {e}"); sys.exit(1)
for ch in text:
    c = ord(ch)
    if (c < 0x20 and ch != "\n") or c == 0x7f or 0x80 <= c <= 0x9f or \
       0x202a <= c <= 0x202e or 0x2066 <= c <= 0x2069 or c in (0x200e, 0x200f, 0x61c):
        print(f"U+{c:04X} got through"); sys.exit(1)
PY
}

export E2B_API_URL=http://127.0.0.1:$port E2B_API_KEY=e2b_test_key
for mode in "--list" "--secrets list" "--kill nosuchbox"; do
    # shellcheck disable=SC2086
    "$E2B_TUI_BIN" $mode >"$T_TMP/out" 2>"$T_TMP/err"
    rc=$?
    t_ok "$mode against a hostile API fails (status $rc)" test "$rc" -ne 0
    cat "$T_TMP/out" "$T_TMP/err" >"$T_TMP/all"
    why=$(clean "$T_TMP/all"); crc=$?
    if [ "$crc" = 0 ]; then t_pass "$mode prints the hostile message clean"
    else t_fail "$mode prints the hostile message clean" "$why: $(head -c 300 "$T_TMP/all" | od -c | head -5)"; fi
done
t_contains "the readable words are kept" "$(cat "$T_TMP/all")" "ALERT"
t_finish
