#!/usr/bin/env python3
"""Dashboard figures (issue 7) against a running e2b-local that holds N boxes: time to
the first frame, time to the full list of N, resident memory with them, CPU seconds used
over an idle period at the default refresh, and End over the N rows. Each figure is the
median of several runs.

    tests/bench/tui_bench.py BINARY --api-url URL --key KEY [--rows 2000] [--idle 60]
                             [--runs 5] [--idle-runs 3]

tests/bench/run starts the server and makes the boxes. The dashboard runs on a
pseudo-terminal of 120x40 (TERM=xterm-256color). Times run from just before fork() to the
moment the bytes of the frame arrive. Each figure is printed with its target (issue 9) and
"met" or "NOT met"; the CPU time to the first frame and the load average help to read the
wall times on a shared machine."""
import argparse
import fcntl
import os
import pty
import select
import statistics
import struct
import termios
import time


def read_until(fd, needle, limit=60.0):
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


def quiet_after(fd, gap=0.2, limit=30.0):
    """Reads until no byte came for gap seconds; returns when the last byte came."""
    last = time.monotonic()
    end = last + limit
    while time.monotonic() < end:
        r, _, _ = select.select([fd], [], [], gap)
        if not r:
            break
        try:
            if not os.read(fd, 65536):
                break
        except OSError:
            break
        last = time.monotonic()
    return last


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


def cpu_ms_precise(pid):
    """CPU time in ms from the scheduler (ns resolution), else from the clock ticks."""
    try:
        with open("/proc/%d/schedstat" % pid) as f:
            return int(f.read().split()[0]) / 1e6
    except (OSError, ValueError, IndexError):
        return cpu_seconds(pid) * 1000


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
    ap.add_argument("binary")
    ap.add_argument("--api-url", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--rows", type=int, default=2000)
    ap.add_argument("--idle", type=float, default=60.0)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--idle-runs", type=int, default=3)
    a = ap.parse_args()
    cores = os.cpu_count()
    env = {k: v for k, v in os.environ.items() if not k.startswith("E2B_")}
    env.update(TERM="xterm-256color", LANG="C.UTF-8", E2B_API_KEY=a.key,
               E2B_API_URL=a.api_url, E2B_SANDBOX_URL=a.api_url,
               E2B_DOMAIN="localhost:" + a.api_url.rsplit(":", 1)[1])

    first, first_cpu, full, rss, end = [], [], [], [], []
    for _ in range(a.runs):
        t0, pid, fd = start(a.binary, env)
        t1 = read_until(fd, b"1 Boxes")
        # CPU time used up to the first frame (read just after it arrived): on a busy
        # machine the wall time mostly measures waiting for a core; this does not.
        first_cpu.append(cpu_ms_precise(pid))
        # Rows are drawn once every page has arrived: the first box name means the full list.
        t2 = read_until(fd, b"box-")
        first.append((t1 - t0) * 1000)
        full.append((t2 - t0) * 1000)
        quiet_after(fd)
        rss.append(rss_kib(pid) / 1024)
        t0 = time.monotonic()
        os.write(fd, b"\x1bOF")  # End (keypad mode)
        # ncurses sends only the cells that changed: the frame is done when the bytes stop.
        end.append((quiet_after(fd) - t0) * 1000)
        stop(pid, fd)
    idle = []
    for _ in range(a.idle_runs):
        t0, pid, fd = start(a.binary, env)
        read_until(fd, b"box-")
        quiet_after(fd)
        c0 = cpu_seconds(pid)
        time.sleep(a.idle)
        idle.append(cpu_seconds(pid) - c0)
        stop(pid, fd)
    med = statistics.median
    idle60 = med(idle) * 60.0 / a.idle  # the target is per 60 s
    rows = [
        ("first frame", "%.1f ms" % med(first), med(first), 50.0, "<= 50 ms"),
        ("CPU time to the first frame", "%.0f ms" % med(first_cpu), med(first_cpu), None, ""),
        ("full list of %d boxes" % a.rows, "%.1f ms" % med(full), med(full), None, ""),
        ("resident memory, %d rows" % a.rows, "%.1f MiB" % med(rss), med(rss), 25.0,
         "<= 25 MB"),
        ("CPU over 60 s idle (refresh 3 s)", "%.2f s" % idle60, idle60, 0.3, "<= 0.3 s"),
        ("End over %d rows" % a.rows, "%.1f ms" % med(end), med(end), None, ""),
    ]
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    print("dashboard figures below: %d cores, load average %s when they ended" % (cores, load))
    for name, shown, value, limit, target in rows:
        if limit is None:
            verdict = "(no target)"
        else:
            verdict = "target %s: %s" % (target, "met" if value <= limit else "NOT met")
        is_idle = name.startswith("CPU over")
        runs = a.idle_runs if is_idle else a.runs
        extra = " over %.0f s, scaled" % a.idle if is_idle and a.idle != 60 else ""
        print("dashboard %-34s %10s   %-24s (median of %d%s, %d cores)"
              % (name + ":", shown, verdict, runs, extra, cores))

if __name__ == "__main__":
    main()
