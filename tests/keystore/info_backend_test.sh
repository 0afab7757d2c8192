#!/usr/bin/env bash
# e2b-tui --info names the password store that would be used, probed (issue 13 defect 10a),
# not just the configured choice: with no D-Bus session, auto is the file fallback with its
# path and the reason; with the test keyring daemon it is the Secret Service; explicit
# choices are named with where they came from. --info creates no file.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/keyring_lib.sh"

if [ -n "${KS_INNER:-}" ]; then # inside a session bus with an unlocked gnome-keyring
    # The daemon of this private bus is ours: stop it at the end (it outlives the bus).
    kpid=$(ks_secrets_pid)
    [ -n "$kpid" ] && t_on_exit "kill $kpid 2>/dev/null"
    out=$("$E2B_TUI_BIN" --info)
    t_contains "keyring: auto says secret-service" "$out" "keystore:       secret-service ("
    t_contains "keyring: and that auto chose it" "$out" "; auto)"
    t_not_contains "keyring: no file fallback" "$out" "passwords"
    out=$("$E2B_TUI_BIN" --keystore=file --info)
    t_contains "keyring: --keystore=file is still the file" "$out" \
        "keystore:       file $XDG_STATE_HOME/e2b-tui/passwords (--keystore)"
else
ks_need_tools
t_isolated_home
in_no_bus() { env -u DBUS_SESSION_BUS_ADDRESS -u DISPLAY "$@"; }
out=$(in_no_bus "$E2B_TUI_BIN" --info); rc=$?
t_eq "no bus: --info exits 0" "$rc" 0
t_contains "no bus: auto is the file fallback, with its path" "$out" \
    "keystore:       file $XDG_STATE_HOME/e2b-tui/passwords (auto: no keyring:"
t_contains "no bus: and the reason" "$out" "D-Bus session bus"
t_not_contains "no bus: not the bare configured choice" "$out" "keystore:       auto"
out=$(in_no_bus "$E2B_TUI_BIN" --keystore=secret-service --info)
t_contains "no bus: --keystore=secret-service says it is not usable" "$out" \
    "keystore:       secret-service, not usable now (--keystore): cannot reach the D-Bus session bus"
out=$(E2B_TUI_KEYSTORE=memory "$E2B_TUI_BIN" --info)
t_contains "E2B_TUI_KEYSTORE=memory is named with its source" "$out" "keystore:       memory (E2B_TUI_KEYSTORE;"
out=$(E2B_TUI_KEYSTORE=bogus "$E2B_TUI_BIN" --info)
t_contains "a bad choice is named" "$out" "keystore:       none: E2B_TUI_KEYSTORE=bogus is not a keystore"
t_ok "--info created no state" test ! -e "$XDG_STATE_HOME"

KS_INNER=1 ks_in_keyring_session "ci-keyring-pw" bash "$0" || T_FAILED=1
fi
t_finish
