#!/usr/bin/env python3
"""A small HTTP/1.1 server on 127.0.0.1 with scripted faults, for the core HTTP-layer tests
(core_http_test.sh). Writes its port to the file named by argv[1]. Routes:

  /echo                      JSON {method, length, expect, sha256, headers} of the request
  /status/<code>             an E2B-style JSON error with X-E2B-Trace-ID
  /retry/<code>/<key>/<n>    <code> with Retry-After: 1 for the first n requests of <key>
  /retry-date/<key>          429 with an HTTP-date Retry-After (must not be retried)
  /count/<key>               how many requests <key> got so far
  /slow/<ms>                 answers after <ms> milliseconds
  /truncated                 announces 1000 bytes, sends 10, closes
  /drop                      a chunked body that stops without its last chunk
  /bytes/<n>                 n bytes of a fixed pattern (byte i = (i * 7 + 3) & 255)
  /headers                   200 with X-Next-Token, X-Total-Running
"""
import hashlib
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

counts = {}
lock = threading.Lock()


def pattern(start, n):
    return bytes(((i * 7 + 3) & 255) for i in range(start, start + n))


BLOCK = pattern(0, 256 * 1024)  # 256 KiB; 256 KiB is a multiple of 256 so the pattern repeats


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def send_json(self, code, obj, extra=()):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def read_body(self):
        h = hashlib.sha256()
        n = 0
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            while True:
                size = int(self.rfile.readline().strip().split(b";")[0], 16)
                if size == 0:
                    self.rfile.readline()
                    break
                left = size
                while left:
                    d = self.rfile.read(min(left, 1 << 20))
                    h.update(d)
                    n += len(d)
                    left -= len(d)
                self.rfile.readline()
        else:
            left = int(self.headers.get("Content-Length", "0"))
            while left:
                d = self.rfile.read(min(left, 1 << 20))
                if not d:
                    break
                h.update(d)
                n += len(d)
                left -= len(d)
        return n, h.hexdigest()

    def bump(self, key):
        with lock:
            counts[key] = counts.get(key, 0) + 1
            return counts[key]

    def handle_any(self):
        parts = self.path.split("?")[0].strip("/").split("/")
        n, digest = self.read_body()
        route = parts[0]
        if route == "echo":
            self.send_json(200, {"method": self.command, "length": n, "sha256": digest,
                                 "expect": self.headers.get("Expect"),
                                 "headers": {k.lower(): v for k, v in self.headers.items()}})
        elif route == "status":
            code = int(parts[1])
            self.send_json(code, {"code": code, "message": "scripted failure %d" % code},
                           [("X-E2B-Trace-ID", "trace-%d" % code)])
        elif route == "retry":
            code, key, first = int(parts[1]), parts[2], int(parts[3])
            c = self.bump(key)
            if c <= first:
                self.send_json(code, {"code": code, "message": "try later"}, [("Retry-After", "1")])
            else:
                self.send_json(200, {"attempt": c})
        elif route == "retry-date":
            self.bump(parts[1])
            self.send_json(429, {"code": 429, "message": "slow down"},
                           [("Retry-After", "Wed, 21 Oct 2015 07:28:00 GMT")])
        elif route == "count":
            with lock:
                self.send_json(200, {"count": counts.get(parts[1], 0)})
        elif route == "slow":
            time.sleep(int(parts[1]) / 1000.0)
            try:
                self.send_json(200, {"slept": int(parts[1])})
            except OSError:
                pass
        elif route == "truncated":
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b"0123456789")
            self.wfile.flush()
            self.close_connection = True
        elif route == "drop":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for _ in range(3):
                self.wfile.write(b"5\r\nhello\r\n")
                self.wfile.flush()
                time.sleep(0.05)
            self.close_connection = True
        elif route == "bytes":
            total = int(parts[1])
            self.send_response(200)
            self.send_header("Content-Length", str(total))
            self.end_headers()
            sent = 0
            try:
                while sent < total:
                    k = min(len(BLOCK), total - sent)
                    self.wfile.write(BLOCK[:k])
                    sent += k
            except OSError:
                pass
        elif route == "headers":
            self.send_json(200, [], [("X-Next-Token", "tok-2"), ("X-Total-Running", "17"),
                                     ("X-E2B-Trace-ID", "tr-h")])
        else:
            self.send_json(404, {"code": 404, "message": "no route"})

    do_GET = do_POST = do_PUT = do_DELETE = handle_any


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def handle_error(self, request, client_address):
        pass  # clients abort on purpose in some tests


srv = Server(("127.0.0.1", 0), H)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
import os
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
srv.serve_forever()
