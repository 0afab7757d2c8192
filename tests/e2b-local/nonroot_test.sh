#!/usr/bin/env bash
# e2b-local without root (as `make demo` runs for most people): users inside the sandbox,
# its own network namespace, files owned by the server's user on the host.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
if [ "$(id -u)" = 0 ]; then
    # Drop to nobody; its state must live where nobody can write.
    E2B_LOCAL_STATE=$(mktemp -d /tmp/e2b-local-nonroot.XXXXXX)
    chown 65534:65534 "$E2B_LOCAL_STATE"
    t_on_exit "rm -rf '$E2B_LOCAL_STATE'"
    E2B_LOCAL_WRAP="setpriv --reuid=65534 --regid=65534 --clear-groups"
    OWNER=65534
else
    OWNER=$(id -u)
fi
# A directory every box sees read-only at a mount point whose parents bwrap has to make.
tools=$(mktemp -d /tmp/e2b-local-tools.XXXXXX) && chmod 755 "$tools" && echo tool-ok >"$tools/t" && chmod 644 "$tools/t"
t_on_exit "rm -rf '$tools'"
e2b_local_start --ro-bind "$tools:/opt/e2b-local-test/deep/tools" || t_finish
t_ok "the server runs unprivileged" test "$(ps -o uid= -p "$E2B_LOCAL_PID" | tr -d ' ')" != 0

el_create || t_finish; A=$EL_ID; TA=$EL_TOKEN
el_create || t_finish; B=$EL_ID; TB=$EL_TOKEN
out=$(el_run "$A" "$TA" 'id -un; id -u; echo hi > ~/made-inside; ls -n ~/made-inside | cut -d" " -f3')
t_contains "processes run as user" "$out" "stdout user"
t_contains "... with uid 1000 inside" "$out" "stdout 1000"
t_eq "... and the file they make is the server user's on the host" \
    "$(stat -c %u "$E2B_LOCAL_STATE/roots/$A/home/user/made-inside")" "$OWNER"
t_eq "the --ro-bind's parents are 0755 and user reads what is bound there" \
    "$(el_run "$A" "$TA" 'stat -c %a /opt /opt/e2b-local-test /opt/e2b-local-test/deep; cat /opt/e2b-local-test/deep/tools/t' | grep '^stdout' | tr '\n' ' ')" \
    "stdout 755 stdout 755 stdout 755 stdout tool-ok "
t_contains "root is uid 0 inside" "$(el_run "$A" "$TA" 'id -u' '' -H 'Authorization: Basic cm9vdDo=')" "stdout 0"
# One host uid is both root and user: root's chown to user (as up's extraction does) succeeds,
# and the file is user's inside.
out=$(el_run "$A" "$TA" 'mkdir -p /srv/p/d && touch /srv/p/d/f && chown -R user: /srv/p' '' \
    -H 'Authorization: Basic cm9vdDo=')
t_contains "root's chown -R user: succeeds" "$out" 'exit status 0'
t_contains "... and user sees the files as its own, and writes there" \
    "$(el_run "$A" "$TA" 'stat -c %U /srv/p/d/f && touch /srv/p/d/g && echo wrote')" "stdout user
stdout wrote"
out=$(el_run "$A" "$TA" 'ls /proc | grep -c "^[0-9]"')
n=$(echo "$out" | sed -n 's/^stdout //p')
t_ok "the sandbox has its own pid namespace ($n processes)" test "${n:-99}" -lt 8
echo "in-a" >"$T_TMP/f"
chmod 644 "$T_TMP/f"
t_eq "files upload" "$(el_envd "$A" "$TA" POST /files -F "file=@$T_TMP/f;filename=/home/user/up.txt")" 200
t_eq "files read back" "$(el_envd "$A" "$TA" GET '/files?path=/home/user/up.txt' >/dev/null; cat "$EL_BODY_FILE")" in-a

# Two sandboxes listen on the same port, each in its own network namespace.
el_run "$A" "$TA" "cd /tmp && echo A$$ > index.html && exec python3 -m http.server 4096" '{"tag":"w"}' -m 1 >/dev/null 2>&1
el_run "$B" "$TB" "cd /tmp && echo B$$ > index.html && exec python3 -m http.server 4096" '{"tag":"w"}' -m 1 >/dev/null 2>&1
get() { curl -s -m 5 -H "Host: 4096-$1.localhost:$E2B_LOCAL_PORT" "$E2B_LOCAL_URL/index.html"; }
for _ in $(seq 100); do [ "$(get "$A")" = "A$$" ] && [ "$(get "$B")" = "B$$" ] && break; sleep 0.2; done
t_eq "sandbox A serves its port 4096" "$(get "$A")" "A$$"
t_eq "sandbox B serves its own port 4096" "$(get "$B")" "B$$"
e2b_local_stop
t_eq "the server stops cleanly" "$?" 0
t_eq "no sandbox process is left" "$(pgrep -f "bwrap.*$E2B_LOCAL_STATE" | wc -l)" 0
t_finish
