#!/usr/bin/env bash
# A locked keyring: the login keyring exists (created with one password) and a later session
# "unlocks" it with the wrong password, so it stays locked. Every operation must say
# "locked" (never "not found"), auto mode must not fall back to plain text, nothing from
# GLib may reach stderr, and the stored password must survive for the right password.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/keyring_lib.sh"
ks_need_tools
t_isolated_home
O=$T_TMP/out E=$T_TMP/err
PW="lk-$RANDOM$RANDOM-secret"
ss() { "$KS_TOOL" --keystore=secret-service --timeout=10000 "$@"; }
export -f ss
export KS_TOOL PW O E

rc=$(ks_in_keyring_session "right-pw" bash -c 'printf "%s\n" "$PW" | ss put b1 s1 >"$O" 2>"$E"; echo $?')
t_eq "setup: stored with the keyring unlocked" "$rc" 0

# One session unlocked with the WRONG password: run every operation, record statuses.
ks_in_keyring_session "wrong-pw" bash -c '
    ss open >"$O.open" 2>"$E.open"; echo "open $?"
    ss get b1 s1 >"$O.get" 2>"$E.get"; echo "get $?"
    printf "%s\n" "x-$PW" | ss put b1 s1 >"$O.put" 2>"$E.put"; echo "put $?"
    ss list >"$O.list" 2>"$E.list"; echo "list $?"
    ss delete b1 s1 >"$O.del" 2>"$E.del"; echo "delete $?"
    "$KS_TOOL" --timeout=10000 open >"$O.auto" 2>"$E.auto"; echo "auto $?"
    ss --job=8000 get b1 s1 >"$O.job" 2>"$E.job"; echo "job $?"
' >"$T_TMP/statuses" 2>/dev/null
st() { awk -v k="$1" '$1 == k { print $2 }' "$T_TMP/statuses"; }

t_eq "locked: the store still opens (the keyring exists)" "$(st open)" 0
t_eq "locked: get is 'locked', not 'not found'" "$(st get)" 12
t_contains "locked: get explains how to unlock" "$(cat "$E.get")" "error=locked: the default keyring is locked; unlock it"
t_eq "locked: put is 'locked'" "$(st put)" 12
t_contains "locked: put says the keyring is locked" "$(cat "$E.put")" "error=locked"
t_eq "locked: list is 'locked'" "$(st list)" 12
t_eq "locked: delete is 'locked'" "$(st delete)" 12
t_eq "locked: a job reports 'locked' too" "$(st job)" 12
t_eq "locked: auto mode keeps the keyring" "$(grep -c 'backend=secret-service' "$O.auto")" 1
t_not_contains "locked: auto mode does not fall back to plain text" "$(cat "$O.auto")" "warning="
t_ok "locked: no password file was written" test ! -e "$XDG_STATE_HOME/e2b-tui/passwords"
t_eq "locked: nothing but our own error lines on stderr (GLib goes to the log hook)" \
    "$(cat "$E".* | grep -v '^error=\|^job-start-ms=\|^open-job-wall-ms=' || true)" ""
t_not_contains "locked: the password is not in any message" "$(cat "$E".* "$O".*)" "$PW"

rc=$(ks_in_keyring_session "right-pw" bash -c 'ss get b1 s1 2>/dev/null | tail -n 1')
t_eq "locked: the right password unlocks the unchanged entry" "$rc" "$PW"

t_finish
