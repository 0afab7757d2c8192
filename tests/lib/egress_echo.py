#!/usr/bin/env python3
"""An echo server for the egress tests: the "outside" a sandbox reaches through e2b-local's
egress proxy, on the host's loopback.

    python3 egress_echo.py --port-file FILE [--log FILE]

Listens on 127.0.0.1 and 127.0.0.2 at one free port (written to FILE once it listens).
Every request is answered 200 with a JSON body {"path", "host", "headers"} (what arrived);
--log gets one JSON line per request with the path, the Host and the SHA-256 of the
Authorization header (never the header itself)."""
import argparse
import hashlib
import http.server
import json
import socket
import threading


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log")
    args = ap.parse_args()
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *a):
            pass

        def answer(self):
            n = int(self.headers.get("Content-Length") or 0)
            if n:
                self.rfile.read(n)
            body = json.dumps({"path": self.path, "host": self.headers.get("Host"),
                               "headers": dict(self.headers)}).encode()
            if args.log:
                auth = self.headers.get("Authorization")
                entry = {"path": self.path, "host": self.headers.get("Host"),
                         "auth_sha256": hashlib.sha256(auth.encode()).hexdigest() if auth else None}
                with lock, open(args.log, "a") as f:
                    f.write(json.dumps(entry) + "\n")
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = do_PUT = answer

    first = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    port = first.server_address[1]
    second = http.server.ThreadingHTTPServer(("127.0.0.2", port), Handler)
    for s in (first, second):
        s.daemon_threads = True
        threading.Thread(target=s.serve_forever, daemon=True).start()
    with open(args.port_file + ".new", "w") as f:
        f.write("%d\n" % port)
    import os
    os.rename(args.port_file + ".new", args.port_file)
    threading.Event().wait()


if __name__ == "__main__":
    socket.setdefaulttimeout(60)
    main()
