#!/usr/bin/env bash
# The network cut in the middle of a transfer, and a stalled server:
#   * up: the connection breaks after 200 KiB of a 3 MiB upload (a proxy on the sandbox URL
#     cuts the request body);
#   * pull: the bundle download is cut in the middle (e2b-local truncate/drop with
#     afterBytes), and the commit script's output stream is dropped mid-stream;
#   * e2b-local stopped (SIGSTOP) for a few seconds during up, and during a list whose
#     request timeout is shorter than the stall.
# Each must end (a hang check, not a speed test: within 60 s) with a clear message or a
# recovery, leave no stray sandbox and no half-written record, and leave the repository
# untouched and fsck-clean.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/lib/faults.sh"
box_setup || t_finish
boxes=$XDG_STATE_HOME/e2b-tui/boxes
g() { git -C "$BOX_REPO" "$@"; }
passwords() { grep -vc '^#' "$XDG_STATE_HOME/e2b-tui/passwords" 2>/dev/null || true; }

# box_tui_bounded SECONDS ARGS...: box_tui, but killed (and reported) after SECONDS.
box_tui_bounded() {
    local limit=$1 t0=$SECONDS
    shift
    BOX_OUT=$T_TMP/box.out BOX_ERR=$T_TMP/box.err
    (cd "$BOX_REPO" && timeout -s KILL "$limit" "$E2B_TUI_BIN" "$@") >"$BOX_OUT" 2>"$BOX_ERR"
    BOX_RC=$?
    BOX_TOOK=$((SECONDS - t0))
}

# ---- up: the upload is cut in the middle ----
head -c 3145728 /dev/urandom >"$BOX_REPO/big.bin" # untracked, not ignored: it is uploaded
"$E2B_TUI_ROOT/tests/lib/cut_proxy.py" "$E2B_LOCAL_PORT" "POST /files" 204800 >"$T_TMP/proxy.out" &
proxy=$!
t_on_exit "kill $proxy 2>/dev/null"
for i in $(seq 50); do grep -q listening "$T_TMP/proxy.out" && break; sleep 0.1; done
proxy_port=$(awk '/listening/ {print $2}' "$T_TMP/proxy.out")
E2B_SANDBOX_URL=http://127.0.0.1:$proxy_port box_tui_bounded 60 --up cutup
t_contains "upload cut: the proxy cut the body in the middle" "$(cat "$T_TMP/proxy.out")" "cut 204800"
box_rc "upload cut: exit 1" 1
t_contains "upload cut: names the step" "$(cat "$BOX_ERR")" "up cutup: uploading the project"
t_eq "upload cut: one line on stderr" "$(grep -c '' "$BOX_ERR")" 1
fl_stderr_clean "upload cut" "$BOX_ERR"
t_eq "upload cut: no stray sandbox" "$(fl_sandboxes)" 0
t_ok "upload cut: no record" test ! -e "$boxes/cutup.json"
t_eq "upload cut: no password left" "$(passwords)" 0
fl_records_sound "upload cut"
kill "$proxy" 2>/dev/null
wait "$proxy" 2>/dev/null

# Without the cut the same project goes up (the failure was the network's).
box_tui_bounded 120 --up cut
box_rc "after the cut: the up succeeds" 0
id=$(box_sandbox_of cut)
t_eq "after the cut: the big file arrived whole" \
    "$(sha256sum <"$(box_root "$id")$BOX_REPO/big.bin" | cut -c1-64)" \
    "$(sha256sum <"$BOX_REPO/big.bin" | cut -c1-64)"
rm -f "$BOX_REPO/big.bin"

# ---- pull: the bundle download is cut ----
box_exec "$id" "cd '$BOX_REPO' && head -c 1048576 /dev/urandom >src/big.bin && echo work >>src/main.c" >/dev/null
before=$(box_snapshot "$BOX_REPO")
for kind in truncate drop; do
    fault_clear
    fault_set "{\"kind\":\"$kind\",\"path\":\"/files\",\"afterBytes\":300000}"
    box_tui_bounded 60 --pull cut
    t_eq "bundle $kind after 300000 bytes: the fault was hit" "$(fault_left)" 0
    box_rc "bundle $kind: exit 1" 1
    t_contains "bundle $kind: names the step" "$(cat "$BOX_ERR")" "pulling box cut: downloading the bundle"
    fl_stderr_clean "bundle $kind" "$BOX_ERR"
    t_ok "bundle $kind: no e2b/cut branch" sh -c "! git -C '$BOX_REPO' rev-parse -q --verify refs/heads/e2b/cut"
    t_eq "bundle $kind: repository untouched" "$(box_snapshot "$BOX_REPO")" "$before"
    t_eq "bundle $kind: fsck-clean" "$(g fsck --no-progress 2>&1)" ""
    t_eq "bundle $kind: no temporary pack left" "$(find "$BOX_REPO/.git/objects" -name '*tmp*' | wc -l)" 0
done

# ---- pull: the commit script's output stream is dropped mid-stream ----
fault_clear
fault_set '{"kind":"drop","path":"/process.Process/Start","afterBytes":40}'
box_tui_bounded 60 --pull cut
t_eq "commit stream dropped: the fault was hit" "$(fault_left)" 0
box_rc "commit stream dropped: exit 1" 1
t_contains "commit stream dropped: names the step" "$(cat "$BOX_ERR")" "pulling box cut: committing the work"
fl_stderr_clean "commit stream dropped" "$BOX_ERR"
t_eq "commit stream dropped: repository untouched" "$(box_snapshot "$BOX_REPO")" "$before"
fault_clear

box_tui_bounded 60 --pull cut
box_rc "pull without faults: exit 0" 0
t_ok "pull without faults: e2b/cut holds the box's file" \
    sh -c "git -C '$BOX_REPO' cat-file -e e2b/cut:src/big.bin"
t_eq "pull without faults: local HEAD, index and work tree unchanged" "$(box_snapshot "$BOX_REPO")" "$before"
t_eq "pull without faults: fsck-clean" "$(g fsck --no-progress 2>&1)" ""
box_tui --kill cut

# ---- a stalled server (SIGSTOP) ----
# During up: stopped 0.5 s after the start, for 4 s. The up must end by itself, either done
# (it waited) or failed with a message and nothing left behind.
(cd "$BOX_REPO" && timeout -s KILL 60 "$E2B_TUI_BIN" --up stall >"$T_TMP/stall.out" 2>"$T_TMP/stall.err"
 echo $? >"$T_TMP/stall.rc") &
runner=$!
sleep 0.5
kill -STOP "$E2B_LOCAL_PID"
sleep 4
kill -CONT "$E2B_LOCAL_PID"
wait "$runner"
rc=$(cat "$T_TMP/stall.rc")
t_ok "stall during up: ends by itself (not killed after 60 s)" test "$rc" != 137
fl_stderr_clean "stall during up" "$T_TMP/stall.err"
if [ "$rc" = 0 ]; then
    t_ok "stall during up: recovered, the record is there" test -f "$boxes/stall.json"
    t_eq "stall during up: one sandbox" "$(fl_sandboxes)" 1
    box_tui --kill stall
else
    t_eq "stall during up: exit 1 when it gave up" "$rc" 1
    t_contains "stall during up: says what failed" "$(cat "$T_TMP/stall.err")" "up stall:"
    t_ok "stall during up: no record" test ! -e "$boxes/stall.json"
fi
t_eq "stall during up: no sandbox left after the kill" "$(fl_sandboxes)" 0
fl_records_sound "stall during up"

# During a list whose request timeout (2 s) is shorter than the stall (5 s).
(cd "$BOX_REPO" && E2B_TUI_HTTP_TIMEOUT=2 timeout -s KILL 60 "$E2B_TUI_BIN" --list >"$T_TMP/stall.out" 2>"$T_TMP/stall.err"
 echo $? >"$T_TMP/stall.rc") &
runner=$!
kill -STOP "$E2B_LOCAL_PID"
sleep 5
kill -CONT "$E2B_LOCAL_PID"
wait "$runner"
t_eq "stall during list: gives up with exit 1 (not killed)" "$(cat "$T_TMP/stall.rc")" 1
t_contains "stall during list: says the server did not answer in time" "$(cat "$T_TMP/stall.err")" "did not answer in time"
t_eq "stall during list: one line" "$(grep -c '' "$T_TMP/stall.err")" 1
t_eq "after the stalls: the server answers again" "$(el_req GET /v2/sandboxes)" 200
t_finish
