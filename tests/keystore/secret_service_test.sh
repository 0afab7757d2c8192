#!/usr/bin/env bash
# The Secret Service backend against a real gnome-keyring-daemon on a private session bus
# (throwaway HOME, no DISPLAY): put/get/delete/list, overwrite, two boxes, keying by box AND
# sandbox id, the attributes libsecret stores, jobs, and that the password never lands in
# any file under HOME.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/keyring_lib.sh"

if [ -z "${KS_INNER:-}" ]; then
    ks_need_tools
    t_isolated_home
    KS_INNER=1 ks_in_keyring_session "ci-keyring-pw" bash "$0"
    exit $?
fi

O=$T_TMP/out E=$T_TMP/err
ss() { "$KS_TOOL" --keystore=secret-service --timeout=10000 "$@"; }
put() { printf '%s\n' "$3" | ss put "$1" "$2" >"$O" 2>"$E"; }
PW1="pw1-$RANDOM$RANDOM-q7Zx" PW2="pw2-$RANDOM$RANDOM-Lm3k" PW3="pw3 with spaces %41 é $RANDOM"

rc=$(ks_run "$O" "$E" ss open)
t_eq "open: secret-service opens" "$rc" 0
t_contains "open: backend reported" "$(cat "$O")" "backend=secret-service"
rc=$(ks_run "$O" "$E" "$KS_TOOL" open)
t_contains "open: auto picks the keyring when it works" "$(cat "$O")" "backend=secret-service"
t_not_contains "open: no fallback warning when the keyring works" "$(cat "$O")" "warning="

put b1 sbx-1 "$PW1"; t_eq "put: first password stored" "$?" 0
rc=$(ks_run "$O" "$E" ss get b1 sbx-1)
t_eq "get: status" "$rc" 0
t_eq "get: returns the stored password" "$(tail -n 1 "$O")" "$PW1"

put b1 sbx-1 "$PW2"
rc=$(ks_run "$O" "$E" ss get b1 sbx-1)
t_eq "overwrite: get returns the new password" "$(tail -n 1 "$O")" "$PW2"
n=$(secret-tool search --all xdg:schema dev.e2b-tui.BoxPassword box b1 2>/dev/null | grep -c '^secret = ')
t_eq "overwrite: one keyring item, not two" "$n" 1

put b2 sbx-2 "$PW3"
rc=$(ks_run "$O" "$E" ss get b2 sbx-2)
t_eq "two boxes: second box has its own password" "$(tail -n 1 "$O")" "$PW3"
rc=$(ks_run "$O" "$E" ss get b1 sbx-1)
t_eq "two boxes: first box unchanged" "$(tail -n 1 "$O")" "$PW2"

rc=$(ks_run "$O" "$E" ss get b1 sbx-OTHER)
t_eq "keyed by sandbox id: same box, other sandbox is not found" "$rc" 11
t_contains "keyed by sandbox id: not-found error" "$(cat "$E")" "error=not-found"

rc=$(ks_run "$O" "$E" ss list)
t_eq "list: status" "$rc" 0
t_eq "list: both entries, sorted" "$(grep -v '=' "$O")" "$(printf 'b1\tsbx-1\nb2\tsbx-2')"

attrs=$(secret-tool search --all xdg:schema dev.e2b-tui.BoxPassword box b2 2>&1)
t_contains "attributes: box stored" "$attrs" "attribute.box = b2"
t_contains "attributes: sandbox id stored" "$attrs" "attribute.sandbox-id = sbx-2"
t_not_contains "attributes: no password in the label or attributes" \
    "$(grep -v '^secret = ' <<<"$attrs")" "$PW3"

rc=$(ks_run "$O" "$E" ss --job=5000 get b2 sbx-2)
t_eq "job: get through a worker thread" "$(tail -n 1 "$O")" "$PW3"
t_contains "job: wake called once" "$(cat "$E")" "woken=1"
printf '%s\n' "$PW1" | ss --job=5000 put b3 sbx-3 >"$O" 2>"$E"
t_eq "job: put through a worker thread" "$?" 0
rc=$(ks_run "$O" "$E" ss get b3 sbx-3)
t_eq "job: value put by the job is readable" "$(tail -n 1 "$O")" "$PW1"

# The password must not be in any file under HOME (gnome-keyring encrypts login.keyring).
# Control: the same grep does find it in a plain file, so the check can fail.
t_ok "no plain text: the keyring file exists" test -s "$HOME/.local/share/keyrings/login.keyring"
for pw in "$PW1" "$PW2" "$PW3"; do
    hits=$(grep -r -l -a -F -- "$pw" "$HOME" 2>/dev/null)
    t_eq "no plain text: password absent from every file under HOME (${pw:0:3})" "$hits" ""
done
printf '%s\n' "$PW1" | "$KS_TOOL" --keystore=file --file="$HOME/control/passwords" put c c >/dev/null
t_contains "no plain text: control grep finds a file-stored password" \
    "$(grep -r -l -a -F -- "$PW1" "$HOME" 2>/dev/null)" "control/passwords"
rm -rf "$HOME/control"

rc=$(ks_run "$O" "$E" ss delete b1 sbx-1)
t_eq "delete: status" "$rc" 0
rc=$(ks_run "$O" "$E" ss get b1 sbx-1)
t_eq "delete: get is not-found afterwards" "$rc" 11
rc=$(ks_run "$O" "$E" ss delete b1 sbx-1)
t_eq "delete: deleting again is not-found" "$rc" 11
rc=$(ks_run "$O" "$E" ss get b2 sbx-2)
t_eq "delete: the other box is untouched" "$(tail -n 1 "$O")" "$PW3"

put b4 sbx-a "$PW1"; put b4 sbx-b "$PW2"
rc=$(ks_run "$O" "$E" ss delete b4)
t_eq "delete by box: every sandbox entry of the box goes" \
    "$(ss list 2>/dev/null | grep -c '^b4')" 0

rc=$(ks_run "$O" "$E" ss get "" sbx-1)
t_eq "invalid: empty box name is rejected" "$rc" 19
t_contains "invalid: message says what is wrong" "$(cat "$E")" "box name is empty"

t_finish
