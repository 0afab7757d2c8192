#!/usr/bin/env bash
# No keyring at all: no session bus; a bus with no Secret Service provider (a bus config
# with no service directory); a bus where gnome-keyring is activated but has no login
# keyring. `secret-service` mode must fail with a clear no-service error and write nothing;
# `auto` must fall back to the file store with a warning naming the file. Also the choice
# precedence --keystore > E2B_TUI_KEYSTORE > config.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/keyring_lib.sh"
ks_need_tools
t_isolated_home
O=$T_TMP/out E=$T_TMP/err
FILE=$XDG_STATE_HOME/e2b-tui/passwords
PW="hl-$RANDOM$RANDOM-secret"

# check_mode LABEL RUNNER...: the RUNNER prefix puts ks_tool in the environment under test.
check_mode() {
    local label=$1; shift
    rm -rf "$XDG_STATE_HOME"
    local rc
    rc=$(printf '%s\n' "$PW" | "$@" "$KS_TOOL" --keystore=secret-service --timeout=10000 \
        put b1 s1 >"$O" 2>"$E"; echo $?)
    t_eq "$label: secret-service mode fails (no-service status)" "$rc" 13
    t_contains "$label: secret-service mode says no-service" "$(cat "$E")" "error=no-service"
    t_ok "$label: secret-service mode wrote no password file" test ! -e "$FILE"
    rc=$("$@" "$KS_TOOL" --timeout=10000 open >"$O" 2>"$E"; echo $?)
    t_eq "$label: auto mode opens" "$rc" 0
    t_contains "$label: auto mode falls back to file" "$(cat "$O")" "backend=file"
    t_contains "$label: auto mode warns, naming the file" "$(grep '^warning=' "$O")" \
        "plain text in $FILE"
    printf '%s\n' "$PW" | "$@" "$KS_TOOL" --timeout=10000 put b1 s1 >"$O" 2>"$E"
    t_eq "$label: auto mode stores in the file (0600)" "$(stat -c %a "$FILE" 2>&1)" 600
    t_eq "$label: auto mode reads it back" \
        "$("$@" "$KS_TOOL" --timeout=10000 get b1 s1 2>/dev/null | tail -n 1)" "$PW"
}

in_no_bus() { env -u DBUS_SESSION_BUS_ADDRESS -u DISPLAY "$@"; }
check_mode "no bus" in_no_bus
t_contains "no bus: the error names the missing bus" \
    "$(in_no_bus "$KS_TOOL" --keystore=secret-service open 2>&1)" "D-Bus session bus"

NOSVC=$(ks_nosvc_conf)
in_nosvc() { ks_filter_stderr "fd limit" dbus-run-session --config-file="$NOSVC" -- "$@"; }
check_mode "bus without Secret Service" in_nosvc
t_contains "bus without Secret Service: the error says no provider" \
    "$(in_nosvc "$KS_TOOL" --keystore=secret-service open 2>&1)" "no Secret Service answers"

# gnome-keyring is started by D-Bus activation, but nobody created a login keyring.
in_no_collection() { ks_filter_stderr "fd limit\|ctivat\|KEYRING_CONTROL" dbus-run-session -- "$@"; }
check_mode "keyring without a default collection" in_no_collection
t_contains "keyring without a default collection: the error says so" \
    "$(in_no_collection "$KS_TOOL" --keystore=secret-service open 2>&1)" "no default keyring"

# Choice precedence: --keystore, then E2B_TUI_KEYSTORE, then config, then auto.
rm -rf "$XDG_STATE_HOME"
out=$(E2B_TUI_KEYSTORE=file in_no_bus "$KS_TOOL" open 2>&1)
t_contains "choice: E2B_TUI_KEYSTORE=file selects the file" "$out" "backend=file"
t_not_contains "choice: an explicit file choice gives no warning" "$out" "warning="
out=$(E2B_TUI_KEYSTORE=file in_no_bus "$KS_TOOL" --keystore=secret-service open 2>&1)
t_contains "choice: --keystore beats E2B_TUI_KEYSTORE" "$out" "error=no-service"
out=$(E2B_TUI_KEYSTORE=memory in_no_bus "$KS_TOOL" --config=file open 2>&1)
t_contains "choice: E2B_TUI_KEYSTORE beats the config" "$out" "backend=memory"
out=$(in_no_bus "$KS_TOOL" --config=file open 2>&1)
t_contains "choice: the config key is used when nothing else is set" "$out" "backend=file"
out=$(E2B_TUI_KEYSTORE= in_no_bus "$KS_TOOL" --config=secret-service open 2>&1)
t_contains "choice: an empty E2B_TUI_KEYSTORE counts as unset" "$out" "error=no-service"
rc=$(E2B_TUI_KEYSTORE=vault in_no_bus "$KS_TOOL" open >"$O" 2>"$E"; echo $?)
t_eq "choice: an unknown value is a usage error" "$rc" 19
t_contains "choice: the error names the variable and the choices" "$(cat "$E")" \
    "E2B_TUI_KEYSTORE=vault is not a keystore: use auto, secret-service, file or memory"

t_finish
