#!/usr/bin/env bash
# Copy-on-write roots (issue 32): as root, a sandbox made from a snapshot and a fork of it
# share the snapshot's files on disk (no copy at create), yet every write stays in the
# sandbox that made it: the snapshot and the other sandboxes keep their files, a deleted or
# rebuilt snapshot keeps serving the sandboxes made from it, a restart mounts the roots
# again, a kill removes mount and layers. (Without root the files are copied as before:
# nonroot_test.sh; isolation_conformance_test.sh covers both ways.)
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
if [ "$(id -u)" != 0 ]; then echo "SKIP copy-on-write roots need root (mount)"; echo "DONE 0 checks"; exit 0; fi
e2b_local_start || t_finish
S=$E2B_LOCAL_STATE
J='Content-Type: application/json'
mounts() { grep -c " $S/roots/$1 " /proc/self/mountinfo; }
# Disk blocks of the state's own file system under DIR (du -x: no overlay mount crossed).
own_kib() { du -skx "$@" 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }

el_create || t_finish; SRC=$EL_ID; TSRC=$EL_TOKEN
el_run "$SRC" "$TSRC" 'head -c 20000000 /dev/urandom > ~/big; echo base > ~/a; echo keep > ~/b; mkdir -p ~/d/e; echo deep > ~/d/e/f' >/dev/null
t_eq "snapshot" "$(el_req POST /sandboxes/$SRC/snapshots '{"name":"cow"}' -H "$J")" 201

before=$(own_kib "$S/roots" "$S/cow")
el_create '{"templateID":"cow"}' || t_finish; A=$EL_ID; TA=$EL_TOKEN
el_create '{"templateID":"cow"}' || t_finish; B=$EL_ID; TB=$EL_TOKEN
after=$(own_kib "$S/roots" "$S/cow")
t_eq "a sandbox from a snapshot has an overlay root" "$(mounts "$A")" 1
t_ok "two sandboxes from a 20 MB snapshot take < 1 MB of disk between them (got $((after - before)) KiB)" \
    test $((after - before)) -lt 1024
t_eq "it sees the snapshot's files" \
    "$(el_run "$A" "$TA" 'cat ~/a ~/d/e/f; stat -c %s ~/big' | grep '^stdout' | tr '\n' ' ')" \
    "stdout base stdout deep stdout 20000000 "

el_run "$A" "$TA" 'echo changed > ~/a; rm ~/b; mv ~/d ~/d2; echo new > ~/n; chmod 600 ~/big' >/dev/null
t_ok "a chmod of a 20 MB file copies its inode up, not its data (A's layer: $(own_kib "$S/cow/$A") KiB)" \
    test "$(own_kib "$S/cow/$A")" -lt 1024
t_eq "A's writes, removals and renames are A's" \
    "$(el_run "$A" "$TA" 'cat ~/a ~/n ~/d2/e/f; ls ~/b ~/d 2>&1 | wc -l' | grep '^stdout' | tr '\n' ' ')" \
    "stdout changed stdout new stdout deep stdout 2 "
t_eq "B still has the snapshot's files" \
    "$(el_run "$B" "$TB" 'cat ~/a ~/b ~/d/e/f; ls ~/n 2>/dev/null | wc -l' | grep '^stdout' | tr '\n' ' ')" \
    "stdout base stdout keep stdout deep stdout 0 "
t_eq "the snapshot's own files are untouched" "$(cat "$S"/templates/*/home/user/a "$S"/templates/*/home/user/b)" \
    "base
keep"
t_eq "files written from the host (envd upload) land in A only" \
    "$(el_envd "$A" "$TA" POST '/files?path=/home/user/up.txt' --data-binary hello -H 'Content-Type: application/octet-stream')" 200
t_ok "... B does not see them" test ! -e "$S/roots/$B/home/user/up.txt"

# A fork of A: A's changes, its own writes, the same lower layer. (up.txt has no newline:
# the echo after it keeps its text a line of its own however the box's output is chunked.)
t_eq "fork A" "$(el_req POST /sandboxes/$A/fork '{"count":1}' -H "$J")" 201
F=$(el_json '.[0].sandbox.sandboxID'); TF=$(el_json '.[0].sandbox.envdAccessToken')
t_eq "the fork has an overlay root" "$(mounts "$F")" 1
t_eq "the fork sees A's changes" \
    "$(el_run "$F" "$TF" 'cat ~/a ~/n ~/up.txt; echo; ls ~/b 2>/dev/null | wc -l; stat -c "%a %s" ~/big' | grep '^stdout' | tr '\n' ' ')" \
    "stdout changed stdout new stdout hello stdout 0 stdout 600 20000000 "
t_eq "... and reads the data of the file whose inode A copied up" \
    "$(el_run "$F" "$TF" 'md5sum < ~/big' | grep '^stdout')" "$(md5sum < "$S/roots/$SRC/home/user/big" | sed 's/^/stdout /')"
el_run "$F" "$TF" 'echo fork > ~/a; head -c 100 /dev/zero >> ~/big' >/dev/null
t_eq "the fork's writes stay in the fork" \
    "$(el_run "$A" "$TA" 'cat ~/a; stat -c %s ~/big' | grep '^stdout' | tr '\n' ' ')" "stdout changed stdout 20000000 "

# The snapshot deleted (and another rebuilt under the same name) while A, B, F read it.
t_eq "delete the snapshot" "$(el_req DELETE /templates/cow)" 204
t_eq "A, B and the fork still read its files" \
    "$(for x in "$A:$TA" "$B:$TB" "$F:$TF"; do el_run "${x%%:*}" "${x#*:}" 'cat ~/d*/e/f'; done | grep -c '^stdout deep')" 3
t_ok "it is kept aside while they do" test -n "$(ls "$S/retired" 2>/dev/null)"

# A restart: every root is mounted again, with its files.
e2b_local_stop
t_eq "a stopped server leaves no mount" "$(grep -c " $S/roots/" /proc/self/mountinfo)" 0
e2b_local_start || t_finish
t_eq "after a restart A is mounted again" "$(mounts "$A")" 1
el_req POST /v2/sandboxes/$A/connect '{"timeout":60}' -H "$J" >/dev/null
t_eq "... with its own files" "$(el_run "$A" "$TA" 'cat ~/a ~/d2/e/f' | grep '^stdout' | tr '\n' ' ')" \
    "stdout changed stdout deep "

for x in "$A" "$B" "$F"; do el_req DELETE /sandboxes/$x >/dev/null; done
t_eq "killed sandboxes leave no mount" "$(grep -c " $S/roots/" /proc/self/mountinfo)" 0
t_eq "... no layers" "$(ls "$S/cow" 2>/dev/null | wc -l)" 0
t_eq "... and the deleted snapshot goes with its last user" "$(ls "$S/retired" 2>/dev/null | wc -l)" 0
el_req DELETE /sandboxes/$SRC >/dev/null

# Without the privilege (E2B_LOCAL_COW=0 says so) the files are copied, as before.
e2b_local_stop
E2B_LOCAL_COW=0 e2b_local_start || t_finish
el_create || t_finish; SRC=$EL_ID; TSRC=$EL_TOKEN
el_run "$SRC" "$TSRC" 'echo base > ~/a' >/dev/null
el_req POST /sandboxes/$SRC/snapshots '{"name":"plain"}' -H "$J" >/dev/null
el_create '{"templateID":"plain"}' || t_finish; A=$EL_ID; TA=$EL_TOKEN
t_eq "E2B_LOCAL_COW=0: a plain directory" "$(mounts "$A")" 0
t_eq "... with the snapshot's files" "$(el_run "$A" "$TA" 'cat ~/a' | grep '^stdout')" "stdout base"
t_finish
