#!/usr/bin/env python3
"""The dashboard on a pty whose master closes without a SIGHUP reaching it.

usage: pty_hangup.py DEADLINE_S MAX_CPU_S CMD [ARGS...]

The child runs in a new session without the pty as its controlling terminal (so closing the
master sends no SIGHUP) and with SIGHUP blocked as well. Once the dashboard has drawn its
tabs line, the master is closed. Prints one line:
  exited status=N cpu=S     (cpu: user+system seconds used after the close)
  running cpu=S             (still running at the deadline; it is then killed)
"""
import os, select, signal, sys, time

deadline, max_cpu = float(sys.argv[1]), float(sys.argv[2])
cmd = sys.argv[3:]
master, slave = os.openpty()
os.set_inheritable(slave, True)
# 100x30 so that the dashboard draws its full layout.
import fcntl, struct, termios
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
pid = os.fork()
if pid == 0:
    os.setsid()  # a new session; dup2 of an open fd does not make it the controlling tty
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGHUP})
    for fd in (0, 1, 2):
        os.dup2(slave, fd)
    os.close(master)
    os.close(slave)
    os.execvp(cmd[0], cmd)
os.close(slave)

def cpu_of(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

seen, start = b"", time.monotonic()
while b"1 Boxes" not in seen and time.monotonic() - start < 60:
    r, _, _ = select.select([master], [], [], 1.0)
    if r:
        try:
            seen = (seen + os.read(master, 65536))[-65536:]
        except OSError:
            break
if b"1 Boxes" not in seen:
    print("never drew its tabs line")
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    sys.exit(1)
time.sleep(0.5)
before = cpu_of(pid)
os.close(master)
end = time.monotonic() + deadline
while time.monotonic() < end:
    done, status, usage = os.wait4(pid, os.WNOHANG)
    if done:
        cpu = usage.ru_utime + usage.ru_stime - before
        code = os.waitstatus_to_exitcode(status)
        print(f"exited status={code} cpu={cpu:.2f}")
        sys.exit(0)
    time.sleep(0.1)
cpu = cpu_of(pid) - before
os.kill(pid, signal.SIGKILL)
os.waitpid(pid, 0)
print(f"running cpu={cpu:.2f}")
