#!/usr/bin/env python3
"""Step times of box actions from e2b-tui's log (one line per step change, written by
core/box/box_op.c) and the request lines of both logs.

  steps.py split LOG ACTION NAME     one run: "<step>\t<seconds>" per step in order, then
                                     "total\t<seconds>" (from the first step line to the
                                     "done after" line of that action and box)
  steps.py median FILE...            per step, the median over runs of split's output
                                     ("<step>\t<median s>\t<runs>")

A step that comes back is one figure, the sum of its times: up's "listing files" is its
first step (the repository) and again its wait for the file list once the sandbox exists
(the list is made beside the name check, the secrets and the create), so it is the
listing's time that the create did not cover.
"""
import datetime
import re
import statistics
import sys

LINE = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})Z (.*)$")


def stamp(text):
    return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%f").timestamp()


def split(log, action, name):
    prefix = "box %s " % action
    steps, last, t_first = [], None, None
    with open(log, errors="replace") as f:
        for raw in f:
            m = LINE.match(raw.rstrip("\n"))
            if not m or not m.group(2).startswith(prefix):
                continue
            who, _, step = m.group(2)[len(prefix):].partition(": ")
            if who not in (name, "-"):
                continue
            t = stamp(m.group(1))
            if last is not None:
                steps.append((last[0], t - last[1]))
            if t_first is None:
                t_first = t
            if step.startswith(("done after", "failed after")):
                steps.append(("total", t - t_first))
                break
            last = (step, t)
    merged = {}
    order = []
    for step, s in steps:
        if step not in merged:
            order.append(step)
            merged[step] = 0.0
        merged[step] += s
    for step in order:
        print("%s\t%.3f" % (step, merged[step]))


def median(files):
    runs, order = {}, []
    for path in files:
        with open(path) as f:
            for line in f:
                step, _, s = line.rstrip("\n").rpartition("\t")
                if step not in runs:
                    runs[step] = []
                    order.append(step)
                runs[step].append(float(s))
    for step in order:
        print("%s\t%.3f\t%d" % (step, statistics.median(runs[step]), len(runs[step])))


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "split":
        split(sys.argv[2], sys.argv[3], sys.argv[4])
    elif len(sys.argv) >= 3 and sys.argv[1] == "median":
        median(sys.argv[2:])
    else:
        sys.exit(__doc__)
