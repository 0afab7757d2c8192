#!/usr/bin/env python3
"""Splits e2b-local's request log (DIR/e2b-local.log, one line per request, written when
the request ENDS: "<time>Z METHOD [HOST ]PATH STATUS <ms>ms[ (aborted)]") by action.

    request_windows.py LOG WINDOWS

WINDOWS: lines "NAME<TAB>FLOOR<TAB>START<TAB>END" (epoch seconds around each action).
A request belongs to the action during which it STARTED (end time - ms): a stream's line
comes late (the server's start stream of an up is logged when the box is killed).
Prints per action: "NAME<TAB>FLOOR<TAB>COUNT<TAB>METHOD PATH, METHOD PATH, ..." with
sandbox ids replaced by ID."""
import datetime
import re
import sys

LINE = re.compile(r"^(\S+)Z (GET|POST|PUT|PATCH|DELETE) (?:\S+ )?(/\S*) \d+ (\d+)ms")


def main():
    reqs = []
    for line in open(sys.argv[1], errors="replace"):
        m = LINE.match(line)
        if not m:
            continue
        end = datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%f").replace(
            tzinfo=datetime.timezone.utc).timestamp()
        path = re.sub(r"/sandboxes/[a-z0-9]+", "/sandboxes/ID", m.group(3))
        reqs.append((end - int(m.group(4)) / 1000, m.group(2) + " " + path))
    reqs.sort()
    for w in open(sys.argv[2]):
        name, floor, start, end = w.rstrip("\n").split("\t")
        # the log has ms resolution: a request may look up to 5 ms older than its action
        mine = [r for t, r in reqs if float(start) - 0.005 <= t <= float(end)]
        print("%s\t%s\t%d\t%s" % (name, floor, len(mine), ", ".join(mine)))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main()
