#!/usr/bin/env python3
# A WebSocket client for tests (stdlib): ws_client.py URL MESSAGE [HEADER-FILE]
# Connects to 127.0.0.1 at URL's port (the host name is sent as Host only, so *.localhost
# names need not resolve), upgrades with basic auth from $WS_AUTH ("user:password") and the
# "Name: value" lines of HEADER-FILE, sends MESSAGE masked, prints the echoed message.
# Exit 0 on an echo, 2 with "status N" when the upgrade was refused.
import base64, os, socket, struct, sys, urllib.parse

url = urllib.parse.urlsplit(sys.argv[1])
msg = sys.argv[2].encode()
extra = open(sys.argv[3]).read().splitlines() if len(sys.argv) > 3 else []
s = socket.create_connection(("127.0.0.1", url.port or 80), timeout=30)
key = base64.b64encode(os.urandom(16)).decode()
head = ["GET %s HTTP/1.1" % (url.path or "/"), "Host: %s" % url.netloc, "Upgrade: websocket",
        "Connection: Upgrade", "Sec-WebSocket-Key: " + key, "Sec-WebSocket-Version: 13"]
if os.environ.get("WS_AUTH"):
    head.append("Authorization: Basic " + base64.b64encode(os.environ["WS_AUTH"].encode()).decode())
s.sendall(("\r\n".join(head + [l for l in extra if l]) + "\r\n\r\n").encode())
buf = b""
while b"\r\n\r\n" not in buf:
    d = s.recv(4096)
    if not d:
        sys.exit("no response")
    buf += d
status = int(buf.split(b" ", 2)[1])
if status != 101:
    print("status %d" % status)
    sys.exit(2)
buf = buf.split(b"\r\n\r\n", 1)[1]
mask = os.urandom(4)
ln = len(msg)
frame = bytes([0x81]) + (bytes([0x80 | ln]) if ln < 126 else b"\xfe" + struct.pack(">H", ln))
s.sendall(frame + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(msg)))
def need(n):
    global buf
    while len(buf) < n:
        d = s.recv(65536)
        if not d:
            sys.exit("closed early")
        buf += d
need(2)
ln, off = buf[1] & 0x7F, 2
if ln == 126:
    need(4); ln, off = struct.unpack(">H", buf[2:4])[0], 4
need(off + ln)
print(buf[off:off + ln].decode())
s.sendall(b"\x88\x80" + os.urandom(4))
s.close()
