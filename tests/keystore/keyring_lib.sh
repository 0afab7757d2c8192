# Helpers for the keystore test scripts (sourced after tests/lib/lib.sh).
# Real daemons only: a private dbus-run-session bus, gnome-keyring-daemon unlocked from stdin,
# a throwaway HOME, no DISPLAY (so no prompt can ever appear).

KS_TOOL=$TEST_B/tests/keystore/ks_tool
unset DISPLAY WAYLAND_DISPLAY E2B_TUI_KEYSTORE SECRET_BACKEND SECRET_SERVICE_BUS_NAME
# Never touch the developer's own session: GDBus falls back to $XDG_RUNTIME_DIR/bus when
# DBUS_SESSION_BUS_ADDRESS is unset, and gnome-keyring-daemon --unlock looks for a running
# daemon through GNOME_KEYRING_CONTROL or $XDG_RUNTIME_DIR/keyring. Use a private runtime dir
# (created once, by the outer script; re-executed inner scripts inherit it).
unset GNOME_KEYRING_CONTROL SSH_AUTH_SOCK
if [ -z "${KS_INNER:-}" ]; then
    unset DBUS_SESSION_BUS_ADDRESS
    export XDG_RUNTIME_DIR=$T_TMP/run
    mkdir -p -m 0700 "$XDG_RUNTIME_DIR"
fi

# ks_need_tools: fails the whole script clearly when a needed program is missing.
ks_need_tools() {
    local p
    for p in dbus-run-session dbus-send gnome-keyring-daemon "$KS_TOOL"; do
        if ! command -v "$p" >/dev/null 2>&1; then
            t_fail "prerequisites" "$p is missing (make deps; make asan)"
            t_finish
        fi
    done
}

# ks_in_keyring_session PASSWORD CMD...: runs CMD in a new session bus whose gnome-keyring
# was unlocked (or created) with PASSWORD, as `--unlock` reads it from stdin; returns CMD's
# status. The daemon forks itself away and can outlive the bus (it does after a wrong
# password): it is stopped here, found by a mark of its own in its environment.
ks_in_keyring_session() {
    local pw=$1; shift
    ks_filter_stderr "Failed to set fd limit" dbus-run-session -- bash -c '
        mark=ks-daemon-$$-$RANDOM
        printf "%s" "$1" | KS_DAEMON_MARK=$mark gnome-keyring-daemon --unlock --components=secrets >/dev/null
        shift
        "$@"; rc=$?
        daemons() {
            local f p
            for f in $(grep -l -s -z -x -F "KS_DAEMON_MARK=$mark" /proc/[0-9]*/environ); do
                p=${f#/proc/}; echo "${p%/environ}"
            done
        }
        for p in $(daemons); do kill -TERM "$p"; kill -CONT "$p"; done 2>/dev/null
        for _ in $(seq 100); do [ -z "$(daemons)" ] && break; sleep 0.1; done
        exit "$rc"' ks-session "$pw" "$@"
}

# ks_filter_stderr PATTERN CMD...: runs CMD with the stderr lines matching PATTERN (grep)
# dropped; returns CMD's status. Synchronous: the filtered stderr is complete when it
# returns (a process substitution would still be writing while the caller reads the file).
ks_filter_stderr() {
    local pat=$1; shift
    { "$@" 2>&1 1>&3 3>&- | grep -v -e "$pat" >&2; return "${PIPESTATUS[0]}"; } 3>&1
}

# ks_nosvc_conf: writes a session bus config with no service directory (so nothing can be
# activated, and nobody provides org.freedesktop.secrets) and prints its path.
ks_nosvc_conf() {
    local f=$T_TMP/nosvc.conf
    cat >"$f" <<'XML'
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:tmpdir=/tmp</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
XML
    echo "$f"
}

# ks_secrets_pid: the pid owning org.freedesktop.secrets on the current session bus.
ks_secrets_pid() {
    dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.GetConnectionUnixProcessID string:org.freedesktop.secrets |
        awk '/uint32/ { print $2 }'
}

# ks_run OUT ERR CMD...: runs CMD, stdout to OUT, stderr to ERR; prints the exit status.
ks_run() {
    local out=$1 err=$2; shift 2
    "$@" >"$out" 2>"$err" </dev/null
    echo $?
}

# ms_now: monotonic-ish milliseconds for generous duration checks.
ms_now() { echo $(($(date +%s%N) / 1000000)); }
