#!/usr/bin/env python3
"""Dashboard figures (issue 7): time to the first frame, time to a full list of N
sandboxes, resident memory with them, and CPU seconds used while idle.

    tests/bench/tui_bench.py [BINARY] [--rows 2000] [--idle 60]

The dashboard runs on a pseudo-terminal of 120x40 (TERM=xterm-256color). Rows come from
the test-only source (E2B_TUI_TEST_ROWS, tui/test_rows.h) until the API refresh lands.
Times run from just before fork() to the moment the bytes of the frame arrive."""
import argparse
import fcntl
import os
import pty
import select
import struct
import tempfile
import termios
import time


def read_until(fd, needle, limit=30.0):
    seen = b""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        r, _, _ = select.select([fd], [], [], 0.5)
        if r:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            seen += chunk
            if needle in seen:
                return time.monotonic()
    raise SystemExit("did not see %r; got %r" % (needle, seen[-300:]))


def start(binary, env):
    t0 = time.monotonic()
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(binary, [binary], env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    return t0, pid, fd


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def stop(pid, fd):
    os.write(fd, b"q")
    try:
        while os.read(fd, 65536):
            pass
    except OSError:
        pass
    os.waitpid(pid, 0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary", nargs="?", default="build/e2b-tui")
    ap.add_argument("--rows", type=int, default=2000)
    ap.add_argument("--idle", type=float, default=60.0)
    a = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("E2B_")}
    env.update(TERM="xterm-256color", LANG="C.UTF-8", E2B_DOMAIN="invalid.localhost")

    # 1. First frame (no API key: the no-key screen).
    t0, pid, fd = start(a.binary, env)
    t1 = read_until(fd, b"1 Boxes")
    stop(pid, fd)
    print("first frame:                  %6.1f ms" % ((t1 - t0) * 1000))

    # 2. A full list of N boxes, its memory, and idle CPU.
    with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as f:
        for i in range(a.rows):
            f.write("sbx-%05d\topencode\trunning\t2\t512\t3600\te2b-tui=box\te2b-tui.name=box-%05d\n"
                    % (i, i))
        rows = f.name
    env.update(E2B_API_KEY="e2b_bench_not_a_key", E2B_TUI_TEST_ROWS=rows)
    t0, pid, fd = start(a.binary, env)
    t1 = read_until(fd, b"1/%d" % a.rows)
    print("full list of %5d rows:      %6.1f ms" % (a.rows, (t1 - t0) * 1000))
    print("resident memory:              %6.1f MiB" % (rss_kib(pid) / 1024))
    c0 = cpu_seconds(pid)
    time.sleep(a.idle)
    c1 = cpu_seconds(pid)
    print("CPU while idle for %4.0f s:    %6.2f s" % (a.idle, c1 - c0))
    # Paging the whole list: End then Home, time until the last row is drawn.
    t0 = time.monotonic()
    os.write(fd, b"\x1bOF")  # End (keypad mode)
    # ncurses sends only what changed, so wait for the last row's name, not "N/N".
    read_until(fd, b"box-%05d" % (a.rows - 1))
    print("End over %5d rows:          %6.1f ms" % (a.rows, (time.monotonic() - t0) * 1000))
    stop(pid, fd)
    os.unlink(rows)


if __name__ == "__main__":
    main()
