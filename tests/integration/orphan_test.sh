#!/usr/bin/env bash
# Late orphans (issue 22): sandboxes a failed or interrupted --up made without a record.
#   - a create whose reply comes after the client's timeout (e2b-local delay fault): the
#     sandbox E2B makes late is found by the second sweep, within orphan_sweep_delay;
#   - an --up SIGKILLed between create and record: the next start (here --list) removes the
#     sandbox and its password, says so once, and empties the journal of creates in doubt;
#   - a journal entry whose sandbox has a record (a real box) never kills it;
#   - an entry still held by a running up (flock) is left alone until its holder is gone.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/lib/faults.sh"
box_setup || t_finish
cfg=$XDG_CONFIG_HOME/e2b-tui/config
journal=$XDG_STATE_HOME/e2b-tui/in-doubt
passwords=$XDG_STATE_HOME/e2b-tui/passwords
printf 'http_timeout = 2\norphan_sweep_delay = 8\n' >>"$cfg"
good_cfg=$(cat "$cfg")

sandboxes_named() { # NAME: ids of the sandboxes whose box metadata names NAME
    el_req GET /v2/sandboxes >/dev/null
    el_json "[.[] | select((.metadata // {})[\"e2b-tui.name\"] == \"$1\") | .sandboxID] | join(\" \")"
}
password_entries() { # NAME: lines of the password file that hold NAME's password
    [ -f "$passwords" ] || { echo 0; return; }
    grep -c "^$1"$'\t' "$passwords" || true
}
journal_count() { find "$journal" -mindepth 1 2>/dev/null | wc -l; }

# ---- a create answered after the client gave up ----
fl_mark
fault_set '{"kind":"delay","path":"/v2/sandboxes","method":"POST","count":1,"delayMs":5000}'
box_tui --up late
t_ok "late: the up fails (its create timed out)" test "$BOX_RC" != 0
t_contains "late: it says the create timed out" "$(cat "$BOX_ERR")" "(http_timeout is 2 s)"
t_contains "late: it says it looks again, and when" "$(cat "$BOX_ERR")" "looking again in 8 s"
t_ok "late: e2b-local did make the sandbox after the timeout" test "$(fl_count '^POST /v2/sandboxes 201')" -ge 1
t_contains "late: the second sweep removed it and said so" "$(cat "$BOX_ERR")" "removed sandbox"
t_eq "late: no sandbox is left" "$(sandboxes_named late)" ""
t_eq "late: the journal is empty" "$(journal_count)" 0
fl_stderr_clean "late: stderr" "$BOX_ERR"

# ---- an up killed between create and record ----
printf 'serve_command = sleep 600\nhttp_timeout = 2\n' >"$cfg"
(cd "$BOX_REPO" && exec env E2B_TUI_HEALTH_TIMEOUT=60 "$E2B_TUI_BIN" --up crashed) >"$T_TMP/c.out" 2>"$T_TMP/c.err" &
cpid=$!
for ((i = 0; i < 300; i++)); do
    [ -n "$(sandboxes_named crashed)" ] && [ "$(password_entries crashed)" != 0 ] && break
    sleep 0.1
done
# now in the health wait (its progress line says so): sandbox and password made, no record
t_ok "crash: the up reached its health wait" t_wait_until 30 \
    sh -c '[ "$(sed -n "s/^[^ ]* box up crashed: //p" "$1" | tail -n 1)" = "waiting for the server" ]' sh \
    "$XDG_STATE_HOME/e2b-tui/e2b-tui.log"
kill -KILL "$cpid"
wait "$cpid" 2>/dev/null
printf '%s\n' "$good_cfg" >"$cfg"
cid=$(sandboxes_named crashed)
t_ok "crash: the killed up left its sandbox" test -n "$cid"
t_ok "crash: and no record" test ! -e "$XDG_STATE_HOME/e2b-tui/boxes/crashed.json"
t_eq "crash: and one journal entry" "$(journal_count)" 1
entry=$(find "$journal" -mindepth 1 | head -1)
t_eq "crash: the entry is 0600 in a 0700 directory" "$(stat -c %a "$entry") $(stat -c %a "$journal")" "600 700"
t_not_contains "crash: the entry holds no password" "$(cat "$entry")" "$(cut -f3- "$passwords" | head -1)"
t_contains "crash: the entry names the box" "$(cat "$entry")" "name=crashed"
# A sweep whose kill fails says which sandbox stays and why, and keeps the entry.
fault_set "{\"kind\":\"500\",\"path\":\"/sandboxes/$cid\",\"method\":\"DELETE\",\"count\":1}"
box_tui --list
box_rc "crash: a start whose sweep cannot kill still works" 0
t_contains "crash: it warns which sandbox it could not remove" "$(cat "$BOX_ERR")" \
    "e2b-tui: warning: removing sandbox $cid (an up of box crashed made it"
t_contains "crash: and why (the kill's own error)" "$(cat "$BOX_ERR")" "E2B server error 500"
t_eq "crash: the sandbox is still there" "$(sandboxes_named crashed)" "$cid"
t_eq "crash: its entry stays for the next start" "$(journal_count)" 1
fault_clear
box_tui --list
box_rc "crash: the next start (--list) works" 0
t_contains "crash: it says it removed the sandbox" "$(cat "$BOX_ERR")" "removed sandbox $cid"
t_eq "crash: no sandbox is left" "$(sandboxes_named crashed)" ""
t_eq "crash: its password is deleted" "$(password_entries crashed)" 0
t_eq "crash: the journal is empty" "$(journal_count)" 0
t_not_contains "crash: --list does not show it" "$(cat "$BOX_OUT")" "crashed"
box_tui --list
t_not_contains "crash: the user is told once" "$(cat "$BOX_ERR")" "removed"
box_tui --up crashed
box_rc "crash: the name is free again" 0 || t_abort "the box did not come up"
box_tui --kill crashed

# ---- a journal entry whose up did finish: a real box ----
box_tui --up real
box_rc "real: up exits 0" 0
t_eq "real: a finished up leaves no journal entry" "$(journal_count)" 0
rid=$(box_sandbox_of real)
el_req GET "/sandboxes/$rid" >/dev/null
tag=$(el_json '.metadata["e2b-tui.up"]')
t_ok "real: its create carried a tag" test -n "$tag" -a "$tag" != null
printf 'name=real\nsent=%s\n' "$(date +%s)" >"$journal/$tag" # a crash right after the record
chmod 600 "$journal/$tag"
box_tui --list
box_rc "real: the next start works" 0
t_not_contains "real: nothing is said about it" "$(cat "$BOX_ERR")" "removed"
t_eq "real: the box's sandbox runs on" "$(sbx_state "$rid")" running
t_eq "real: the entry is settled" "$(journal_count)" 0

# ---- an entry held by an up that is still running ----
tag2=HeldHeldHeldHeldHeldHeldHeldHeld
el_create "{\"templateID\":\"base\",\"metadata\":{\"e2b-tui\":\"box\",\"e2b-tui.name\":\"held\",\"e2b-tui.up\":\"$tag2\"}}"
hid=$EL_ID
printf 'name=held\nsent=0\n' >"$journal/$tag2"
chmod 600 "$journal/$tag2"
(exec 9<>"$journal/$tag2" && flock -x 9 && exec sleep 300) & # the sleep holds the lock
fpid=$!
t_on_exit "kill $fpid 2>/dev/null"
for ((i = 0; i < 100; i++)); do flock -n -x "$journal/$tag2" true || break; sleep 0.05; done
box_tui --list
t_eq "held: a locked entry's sandbox is not touched" "$(sbx_state "$hid")" running
t_eq "held: nor its entry" "$(journal_count)" 1
kill "$fpid"
wait "$fpid" 2>/dev/null
box_tui --list
t_contains "held: once its holder is gone the next start removes it" "$(cat "$BOX_ERR")" "removed sandbox $hid"
t_eq "held: gone" "$(sbx_state "$hid")" gone
t_eq "held: the journal is empty" "$(journal_count)" 0
box_tui --kill real
t_finish
