#!/usr/bin/env bash
# A keyring that never answers: the real gnome-keyring-daemon, found through the bus
# (GetConnectionUnixProcessID of org.freedesktop.secrets) and stopped with SIGSTOP. Calls
# must end with a timeout error instead of blocking; a job must end at its own deadline and
# call wake even when the store's timeout is much longer; after SIGCONT all works again.
# The duration bounds are generous on purpose (a loaded 2-core machine).
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/keyring_lib.sh"

if [ -z "${KS_INNER:-}" ]; then
    ks_need_tools
    t_isolated_home
    KS_INNER=1 ks_in_keyring_session "ci-keyring-pw" bash "$0"
    exit $?
fi

O=$T_TMP/out E=$T_TMP/err
PW="to-$RANDOM$RANDOM-secret"
printf '%s\n' "$PW" | "$KS_TOOL" --keystore=secret-service put b1 s1 >/dev/null 2>&1
t_eq "setup: stored" "$?" 0
pid=$(ks_secrets_pid)
t_contains "setup: the Secret Service is gnome-keyring-daemon" \
    "$(ps -o cmd= -p "$pid" 2>/dev/null)" "gnome-keyring-daemon"
cont() { kill -CONT "$pid" 2>/dev/null; }
t_on_exit cont

# 1. A store opened while the keyring works; it hangs before the job; the job (1.5 s) must
#    end long before the store's own 60 s timeout, with wake called.
t0=$(ms_now)
rc=$("$KS_TOOL" --keystore=secret-service --timeout=60000 --job=1500 --stop-pid="$pid" \
    get b1 s1 >"$O" 2>"$E"; echo $?)
t1=$(ms_now)
t_eq "job: ends with the timeout status" "$rc" 14
t_contains "job: timeout error says what to do" "$(cat "$E")" "error=timeout: the keystore (secret-service) did not answer within 1.5 s"
t_contains "job: wake was called at the deadline" "$(cat "$E")" "woken=1"
wall=$(sed -n 's/^job-start-ms=.* job-wall-ms=\([0-9]*\).*/\1/p' "$E")
t_ok "job: result came at the deadline, not at the store timeout (${wall} ms)" \
    test "${wall:-99999}" -ge 1400 -a "${wall:-99999}" -lt 15000
t_ok "job: the process exited soon after SIGCONT ($((t1 - t0)) ms)" test $((t1 - t0)) -lt 30000
t_not_contains "job: no password printed on timeout" "$(cat "$O")" "$PW"

# 2. Direct (blocking) calls with a 1 s store timeout while the daemon is stopped.
kill -STOP "$pid"
t0=$(ms_now)
rc=$("$KS_TOOL" --keystore=secret-service --timeout=1000 open >"$O" 2>"$E"; echo $?)
t1=$(ms_now)
t_eq "open: a hung keyring gives the timeout status" "$rc" 14
t_contains "open: timeout error" "$(cat "$E")" "error=timeout: the keyring did not answer within 1.0 s"
t_ok "open: returned near the 1 s timeout ($((t1 - t0)) ms)" test $((t1 - t0)) -lt 15000
rc=$("$KS_TOOL" --timeout=1000 open >"$O" 2>"$E"; echo $?)
t_eq "auto: a hung keyring is an error, not a plain-text fallback" "$rc" 14
t_not_contains "auto: no fallback file named" "$(cat "$O")" "warning="
t_ok "auto: no password file was created" test ! -e "$XDG_STATE_HOME/e2b-tui/passwords"
# Opening through a job (as the TUI does): the probe itself is bounded by the job.
rc=$("$KS_TOOL" --timeout=60000 --job=1500 open >"$O" 2>"$E"; echo $?)
t_eq "open job: a hung keyring gives the timeout status" "$rc" 14
t_contains "open job: wake was called" "$(cat "$E")" "woken=1"
wall=$(sed -n 's/^open-job-wall-ms=\([0-9]*\).*/\1/p' "$E")
t_ok "open job: ended at its 1.5 s deadline, not the 60 s store timeout (${wall} ms)" \
    test "${wall:-99999}" -ge 1400 -a "${wall:-99999}" -lt 15000
kill -CONT "$pid"

# 3. After SIGCONT the keyring answers again and the entry is intact.
rc=$("$KS_TOOL" --keystore=secret-service get b1 s1 >"$O" 2>"$E"; echo $?)
t_eq "resume: get works again" "$(tail -n 1 "$O")" "$PW"

t_finish
