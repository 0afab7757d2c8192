#!/usr/bin/env bash
# Issue 38 item 2, a live state stream for scripts, against the real OpenCode server (v2
# API) and the scripted model in two e2b-local boxes:
#   - --watch NAME... --json prints one JSON line per state change (box, state, request,
#     times) and ends at --until STATE;
#   - --status --json has state_since, turn_started, waiting_since and a last_activity also
#     in a process that saw no event;
#   - --wait --any returns as soon as one box needs you ("NAME<TAB>STATE..." and its code),
#     --wait NAME NAME waits for every one, --wait --all for every box of this machine;
#   - their usage errors exit 2;
#   - two processes that watch one box write each change once to the history;
#   - --prompt to a box that waits for you says on stderr that the message is queued.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/lib/agent.sh"
agent_setup 2 || t_abort "the boxes could not be set up"
box_tui --up alpha
box_setup_rc "up alpha" 0
box_tui --up beta
box_setup_rc "up beta" 0
ida=$(box_sandbox_of alpha) idb=$(box_sandbox_of beta)
agent_script "$ida" '{"title":"Alpha","steps":[{"text":"Alpha is done."}]}'
agent_script "$idb" '{"title":"Beta","steps":[{"tool":"bash","args":{"command":"echo beta > beta.txt","description":"b"}},{"text":"Wrote beta."}]}'
# a first finished turn on alpha (a session whose last change the server tells)
box_tui --prompt alpha "finish"
box_setup_rc "alpha's first turn" 0
box_tui --wait alpha --timeout 90
box_rc "alpha finishes" 0

# ---- usage ----
box_tui --watch alpha --until bogus
box_rc "--until with an unknown state: exit 2" 2
t_contains "it names the states" "$(cat "$BOX_ERR")" "working, waiting"
box_tui --wait --all alpha
box_rc "--wait --all with a name: exit 2" 2
box_tui --status alpha --until idle
box_rc "--until without --watch: exit 2" 2
box_tui --wait --all --any
box_rc "--all with --any: exit 2" 2
box_tui --wait
box_rc "--wait with no name: exit 2" 2

# ---- --status --json in a process that saw no event ----
box_tui --status alpha --json
t_ok "--status --json: last_activity is a time" jq -e '.boxes[0].last_activity | test("^20[0-9-]+T")' "$BOX_OUT"
t_ok "--status --json: state_since is a time" jq -e '.boxes[0].state_since | test("^20[0-9-]+T")' "$BOX_OUT"
t_eq "--status --json: nothing waits: waiting_since null" "$(jq -r '.boxes[0].waiting_since' "$BOX_OUT")" null

# ---- --watch: one line per change, until beta waits ----
wout=$T_TMP/watch.out werr=$T_TMP/watch.err
(cd "$BOX_REPO" && exec "$E2B_TUI_BIN" --watch alpha beta --json --until waiting --timeout 150) >"$wout" 2>"$werr" &
wpid=$!
# a second process that watches the same boxes (a dashboard and a --watch, say): the history
# gets each change once
(cd "$BOX_REPO" && exec "$E2B_TUI_BIN" --watch beta --json --until waiting --timeout 150) >"$wout.2" 2>"$werr.2" &
wpid2=$!
t_wait_until 60 grep -q '"name":"beta"' "$wout" && t_pass "--watch tells each box's state first" ||
    t_fail "--watch tells each box's state first" "$(cat "$wout" "$werr" | head -c 600)"
t_wait_until 60 grep -q '"name":"beta"' "$wout.2" && t_pass "the second --watch too" ||
    t_fail "the second --watch too" "$(cat "$wout.2" "$werr.2" | head -c 600)"
box_tui --prompt beta "write beta"
box_rc "a task for beta that asks" 0
wait "$wpid"
t_eq "--watch --until waiting ends (exit 0) once a box waits" "$?" 0
wait "$wpid2"
t_eq "the second --watch ends too" "$?" 0
hist=$XDG_STATE_HOME/e2b-tui/history.log
t_eq "two watchers, one change: beta's waiting is one line of the history" \
    "$(grep -c "	beta	started waiting: bash: echo beta" "$hist")" 1
t_ok "and its start of work at most one" test "$(grep -c "	beta	started working" "$hist")" -le 1
t_ok "every line is one JSON object with a version" sh -c "jq -e -s 'all(.[]; .version == 1 and (.at | test(\"^20\")))' '$wout' >/dev/null"
t_eq "the first lines: both boxes, idle" "$(jq -r 'select(.name=="alpha") | .state' "$wout" | head -n 1) $(jq -r 'select(.name=="beta") | .state' "$wout" | head -n 1)" "idle idle"
t_eq "the last line: beta waits" "$(tail -n 1 "$wout" | jq -r '[.name, .state] | join(" ")')" "beta waiting for you"
t_eq "with its request" "$(tail -n 1 "$wout" | jq -r '.request.action + ": " + .request.kind')" "bash: permission"
t_ok "and when it began waiting" sh -c "tail -n 1 '$wout' | jq -e '.request.since | test(\"^20\")' >/dev/null"
t_eq "one line per change: beta's waiting is told once" "$(grep -c '"state":"waiting for you"' "$wout")" 1

box_tui --status beta --json
t_ok "--status --json: waiting_since is a time" jq -e '.boxes[0].waiting_since | test("^20[0-9-]+T")' "$BOX_OUT"
t_ok "--status --json: state_since too" jq -e '.boxes[0].state_since | test("^20[0-9-]+T")' "$BOX_OUT"
t_ok "--status --json: and turn_started" jq -e '.boxes[0].turn_started | test("^20[0-9-]+T")' "$BOX_OUT"

# ---- --wait over several ----
box_tui --wait --any alpha beta --timeout 60
box_rc "--wait --any: exit 6, beta waits" 6
t_contains "it prints NAME STATE" "$(cat "$BOX_OUT")" "beta	waiting for you	"
box_tui --wait alpha beta --timeout 60
box_rc "--wait alpha beta: 6 while beta waits (the worst)" 6
t_contains "a line for alpha" "$(cat "$BOX_OUT")" "alpha	idle	idle: done"
t_contains "and one for beta" "$(cat "$BOX_OUT")" "beta	waiting for you"
# a message to a box that waits for you: queued behind the request, and --prompt says so
box_tui --prompt beta "and then say done"
box_rc "--prompt to a waiting box: exit 0" 0
t_contains "--prompt says on stderr that the message is queued behind the request" "$(cat "$BOX_ERR")" \
    "box beta waits for you on bash: echo beta > beta.txt: the message is queued behind it"
t_ok "stdout has only the session's id" grep -qxE 'ses_[A-Za-z0-9]+' "$BOX_OUT"
box_tui --prompt alpha "not waiting"
t_not_contains "a box that does not wait: no such word" "$(cat "$BOX_ERR")" "queued"
box_tui --wait alpha --timeout 90
box_rc "alpha's extra turn ends" 0
box_tui --reply beta once
box_rc "beta's request allowed" 0
agent_script "$ida" '{"steps":[{"text":"thinking","delay":3},{"text":"Alpha again."}]}'
box_tui --prompt alpha "again"
box_rc "alpha's second turn" 0
box_tui --wait alpha beta --timeout 90
box_rc "--wait alpha beta: both finish: exit 0" 0
t_eq "a line each" "$(grep -c 'idle: done' "$BOX_OUT")" 2
box_tui --wait --all --timeout 60
box_rc "--wait --all: every box idle, done: exit 0" 0
t_contains "--all names alpha" "$(cat "$BOX_OUT")" "alpha	idle"
t_contains "and beta" "$(cat "$BOX_OUT")" "beta	idle"
box_tui --kill alpha --force
box_tui --kill beta --force
t_finish
