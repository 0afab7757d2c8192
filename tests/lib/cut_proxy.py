#!/usr/bin/env python3
"""A TCP proxy on 127.0.0.1 that cuts one request body in the middle (for fault tests).

    cut_proxy.py UPSTREAM_PORT MATCH CUT_AFTER

Forwards every connection to 127.0.0.1:UPSTREAM_PORT. The first connection whose request
starts with MATCH (e.g. "POST /files") is closed in both directions once CUT_AFTER bytes of
it went upstream: the network breaking in the middle of an upload. Later connections pass
untouched. Prints "listening PORT" and then "cut N" when it cut.
"""
import socket
import sys
import threading

upstream_port = int(sys.argv[1])
match = sys.argv[2].encode()
cut_after = int(sys.argv[3])
lock = threading.Lock()
state = {"cut": False}


def pump(src, dst, on_bytes=None):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            if on_bytes is not None:
                data = on_bytes(data)
                if data is None:
                    break
            dst.sendall(data)
    except OSError:
        pass
    for s in (src, dst):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def serve(client):
    try:
        up = socket.create_connection(("127.0.0.1", upstream_port))
    except OSError:
        client.close()
        return
    seen = {"n": 0, "head": b"", "victim": None}

    def to_upstream(data):
        if seen["victim"] is None:
            seen["head"] += data
            if len(seen["head"]) >= len(match):
                with lock:
                    seen["victim"] = seen["head"].startswith(match) and not state["cut"]
                    if seen["victim"]:
                        state["cut"] = True
        if seen["victim"]:
            room = cut_after - seen["n"]
            if room <= 0:
                print("cut %d" % seen["n"], flush=True)
                return None
            data = data[:room]
        seen["n"] += len(data)
        return data

    threading.Thread(target=pump, args=(up, client), daemon=True).start()
    pump(client, up, to_upstream)
    client.close()
    up.close()


def main():
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(64)
    print("listening %d" % srv.getsockname()[1], flush=True)
    while True:
        c, _ = srv.accept()
        threading.Thread(target=serve, args=(c,), daemon=True).start()


main()
