#!/usr/bin/env python3
"""A strict Connect-JSON streaming client for the conformance tests (stdlib only).

It speaks to envd through e2b-local's single port (routing by the E2b-Sandbox-Id /
E2b-Sandbox-Port headers) and checks the framing itself, independently of the server's
code and of the SDK: every envelope is 1 flags byte + a 4-byte big-endian length + JSON;
flag 0x02 marks the end-of-stream envelope, which must be the last one.

    e2b_connect.py stream --port P --sandbox ID --token T --method process.Process/Start \
        --body JSON [--header 'Name: value']... [--close-after-start] [--max-seconds S]

Output, one line per envelope: `MSG <json>` for data envelopes, `END <json>` for the
end-of-stream envelope, then `STATUS <http status>` first of all, and on framing problems
`ERROR <why>` (exit status 3). With --close-after-start the client prints the start event
and closes the connection at once (the process must keep running). With --out-prefix P
the decoded stdout, stderr and exit code (or "none") are also written to P.stdout,
P.stderr and P.exit.
"""
import argparse
import base64
import http.client
import json
import socket
import struct
import sys
import time


def envelope(obj, flags=0):
    payload = json.dumps(obj).encode()
    return struct.pack(">BI", flags, len(payload)) + payload


def read_exact(resp, n):
    """Reads n bytes or fewer at EOF (http.client undoes chunked transfer coding)."""
    buf = b""
    while len(buf) < n:
        try:
            chunk = resp.read(n - len(buf))
        except http.client.IncompleteRead as e:
            # The connection dropped mid-body (or mid-chunk): keep what arrived.
            return buf + e.partial
        except (ConnectionError, http.client.HTTPException):
            return buf
        if not chunk:
            break
        buf += chunk
    return buf


def stream(args):
    conn = http.client.HTTPConnection("127.0.0.1", args.port, timeout=args.max_seconds)
    headers = {
        "Content-Type": "application/connect+json",
        "Connect-Protocol-Version": "1",
        "E2b-Sandbox-Id": args.sandbox,
        "E2b-Sandbox-Port": "49983",
    }
    if args.token is not None:
        headers["X-Access-Token"] = args.token
    for h in args.header or []:
        name, _, value = h.partition(":")
        headers[name.strip()] = value.strip()
    body = envelope(json.loads(args.body))
    conn.request("POST", "/" + args.method, body=body, headers=headers)
    resp = conn.getresponse()
    print("STATUS %d" % resp.status, flush=True)
    if resp.status != 200:
        print("BODY " + resp.read().decode(errors="replace"), flush=True)
        return 0
    ctype = resp.getheader("Content-Type", "")
    if not ctype.startswith("application/connect+json"):
        print("ERROR content type %r, want application/connect+json" % ctype, flush=True)
        return 3
    deadline = time.monotonic() + args.max_seconds
    ended = False
    outs = {"stdout": b"", "stderr": b""}
    exit_code = None
    while True:
        if time.monotonic() > deadline:
            print("ERROR no end of stream within %ss" % args.max_seconds, flush=True)
            return 4
        try:
            head = read_exact(resp, 5)
        except (socket.timeout, TimeoutError):
            print("ERROR read timed out", flush=True)
            return 4
        if not head:
            break
        if len(head) < 5:
            print("ERROR incomplete envelope header (%d bytes)" % len(head), flush=True)
            return 3
        if ended:
            print("ERROR data after the end-of-stream envelope", flush=True)
            return 3
        flags, length = struct.unpack(">BI", head)
        payload = read_exact(resp, length)
        if len(payload) < length:
            print("ERROR incomplete envelope (%d of %d bytes)" % (len(payload), length),
                  flush=True)
            return 3
        if flags & 0x01:
            print("ERROR compressed envelope (flags %#x) was not negotiated" % flags, flush=True)
            return 3
        try:
            obj = json.loads(payload)
        except ValueError:
            print("ERROR envelope payload is not JSON: %r" % payload[:200], flush=True)
            return 3
        if flags & 0x02:
            print("END " + json.dumps(obj, sort_keys=True), flush=True)
            ended = True
            continue
        if flags != 0:
            print("ERROR unknown flags %#x" % flags, flush=True)
            return 3
        print("MSG " + json.dumps(obj, sort_keys=True), flush=True)
        event = obj.get("event", {})
        for key in outs:
            if key in event.get("data", {}):
                outs[key] += base64.b64decode(event["data"][key])
        if "end" in event:
            exit_code = event["end"].get("exitCode", 0)
        if args.close_after_start and "start" in obj.get("event", {}):
            conn.close()
            return 0
    if args.out_prefix:
        # Decoded results for shell tests, so they need no further processes.
        for key, data in outs.items():
            with open(args.out_prefix + "." + key, "wb") as fh:
                fh.write(data)
        with open(args.out_prefix + ".exit", "w") as fh:
            fh.write("none" if exit_code is None else str(exit_code))
    if not ended:
        print("ERROR stream ended without an end-of-stream envelope", flush=True)
        return 3
    return 0


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("stream")
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--sandbox", required=True)
    s.add_argument("--token")
    s.add_argument("--method", default="process.Process/Start")
    s.add_argument("--body", required=True)
    s.add_argument("--header", action="append")
    s.add_argument("--close-after-start", action="store_true")
    s.add_argument("--max-seconds", type=float, default=30)
    s.add_argument("--out-prefix", help="write decoded stdout/stderr/exit code to PREFIX.*")
    args = p.parse_args()
    sys.exit(stream(args))


if __name__ == "__main__":
    main()
