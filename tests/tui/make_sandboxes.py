#!/usr/bin/env python3
"""Creates N sandboxes on e2b-local over one keep-alive connection (a curl per sandbox is
too slow for the 2,000-row tests and the bench). Usage: URL KEY N PREFIX [box]
With "box" they are boxes (metadata e2b-tui=box, e2b-tui.name=PREFIX-NNNN)."""
import http.client
import json
import sys
import urllib.parse

url, key, n, prefix = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
box = len(sys.argv) > 5 and sys.argv[5] == "box"
u = urllib.parse.urlsplit(url)
conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
for i in range(1, n + 1):
    name = "%s-%04d" % (prefix, i)
    md = {"e2b-tui": "box", "e2b-tui.name": name} if box else {"name": name}
    body = json.dumps({"templateID": "opencode" if box else "base", "timeout": 3600,
                       "metadata": md})
    conn.request("POST", "/v2/sandboxes", body,
                 {"X-API-KEY": key, "Content-Type": "application/json"})
    r = conn.getresponse()
    r.read()
    if r.status != 201:
        sys.exit("create %d failed: HTTP %d" % (i, r.status))
