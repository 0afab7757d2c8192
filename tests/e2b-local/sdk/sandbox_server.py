#!/usr/bin/env python3
"""A tiny HTTP server the isolation tests upload into a sandbox and reach through the
e2b-local port proxy.

    python3 sandbox_server.py PORT NAME

GET /name      -> NAME (tells which sandbox answered)
GET /stream    -> chunked: "first\n", then waits until /tmp/stream-go exists, "second\n"
                  (so a proxy that buffers whole responses never shows "first" early)
POST /sha256   -> hex sha256 of the request body (checks request streaming)
"""
import hashlib
import http.server
import os
import sys
import time

PORT = int(sys.argv[1])
NAME = sys.argv[2]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_text(self, text):
        body = text.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/name":
            return self.send_text(NAME)
        if self.path == "/stream":
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()

            def chunk(data):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()

            chunk(b"first\n")
            deadline = time.monotonic() + 20
            while not os.path.exists("/tmp/stream-go") and time.monotonic() < deadline:
                time.sleep(0.05)
            chunk(b"second\n")
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
            return None
        self.send_error(404)
        return None

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        h = hashlib.sha256()
        while n > 0:
            data = self.rfile.read(min(n, 65536))
            if not data:
                break
            h.update(data)
            n -= len(data)
        return self.send_text(h.hexdigest())


http.server.ThreadingHTTPServer(("0.0.0.0", PORT), Handler).serve_forever()
