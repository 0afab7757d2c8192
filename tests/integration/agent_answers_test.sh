#!/usr/bin/env bash
# Issue 38 item 1 ("right answers"), through the one-shot modes, against the real OpenCode
# server (opencode-ai 1.18.33, the `opencode = 1` preset's root routes, where the server
# keeps listing a permission request of a session it aborted) and the scripted model in an
# e2b-local box:
#   - --interrupt of a box that waits on a permission rejects the request: no phantom
#     request in --status (text and JSON), --wait, or the server's own GET /permission;
#   - --reply with nothing pending exits 9 (not 3, the code of a mistyped name);
#   - --wait after a rejected permission or an interrupt exits 10 (not finished), so
#     `--wait && --pull` pulls only finished work; a finished turn is still 0.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/lib/agent.sh"
agent_setup 1 || t_abort "the box could not be set up"
box_tui --up feat
box_setup_rc "up feat" 0
id=$(box_sandbox_of feat)

# ---- nothing pending: --reply says so with its own code ----
agent_script "$id" '{"title":"Quiet","steps":[{"text":"Nothing to ask."}]}'
box_tui --prompt feat "say something"
box_setup_rc "a first turn" 0
box_tui --wait feat --timeout 90
box_rc "a finished turn: --wait exit 0" 0
box_tui --reply feat once
box_rc "--reply with nothing pending: exit 9" 9
t_contains "it says nothing waits" "$(cat "$BOX_ERR")" "nothing is waiting for a reply"
box_tui --reply feat once per_nosuchrequest
box_rc "--reply to a request that is not pending: exit 9" 9

# ---- interrupt a box that waits on a permission ----
agent_script "$id" '{"steps":[{"tool":"bash","args":{"command":"echo gamma > gamma.txt","description":"g"}},{"text":"Wrote it."}]}'
box_tui --prompt feat "write gamma"
box_setup_rc "a turn that asks" 0
box_tui --wait feat --timeout 90
box_rc "--wait: 6 while it waits" 6
box_tui --interrupt feat
box_rc "--interrupt of a waiting box: exit 0" 0
t_contains "it says interrupted" "$(cat "$BOX_OUT")" "interrupted"
end=$((SECONDS + 60))
while :; do
    box_tui --status feat
    grep -q "waiting for you" "$BOX_OUT" || break
    [ "$SECONDS" -ge "$end" ] && break
    sleep 0.5
done
t_not_contains "--status no longer says waiting" "$(cat "$BOX_OUT")" "waiting for you"
t_not_contains "--status lists no request" "$(cat "$BOX_OUT")" "request per_"
t_contains "--status: idle, interrupted" "$(cat "$BOX_OUT")" "interrupted"
box_tui --status feat --json
t_eq "--status --json: no pending request" "$(jq -r '.boxes[0].requests | length' "$BOX_OUT")" 0
t_eq "--status --json: idle" "$(jq -r '.boxes[0].state' "$BOX_OUT")" idle
t_eq "the server lists no pending permission" "$(agent_get "$id" feat /permission | jq -r 'length')" 0
box_tui --wait feat --timeout 30
box_rc "--wait after the interrupt: exit 10 (interrupted, not 6)" 10
t_not_contains "--wait tells no request" "$(cat "$BOX_ERR")" "waiting for you"
t_ok "the tool never ran" test ! -e "$(box_root "$id")$BOX_REPO/gamma.txt"

# ---- a rejected permission: --wait && --pull pulls nothing ----
agent_script "$id" '{"steps":[{"tool":"bash","args":{"command":"echo refused > refused.txt","description":"r"}},{"text":"Done anyway."}]}'
box_tui --prompt feat "write refused"
box_tui --wait feat --timeout 90
box_rc "--wait: 6 for the second request" 6
box_tui --reply feat reject
box_rc "--reply reject: exit 0" 0
BOX_OUT=$T_TMP/box.out BOX_ERR=$T_TMP/box.err
(cd "$BOX_REPO" && "$E2B_TUI_BIN" --wait feat --timeout 90 && "$E2B_TUI_BIN" --pull feat) >"$BOX_OUT" 2>"$BOX_ERR"
BOX_RC=$?
box_rc "--wait && --pull after a reject: exit 10" 10
t_contains "--wait says it was not finished" "$(cat "$BOX_ERR")" "ended interrupted"
t_ok "and --pull did not run (no e2b/feat branch)" sh -c "! git -C '$BOX_REPO' rev-parse -q --verify e2b/feat"

# ---- a finished turn after it: 0 again, and --pull runs ----
agent_script "$id" '{"steps":[{"tool":"bash","args":{"command":"echo ok > ok.txt","description":"ok"}},{"text":"Wrote ok."}]}'
box_tui --prompt feat "write ok"
box_tui --wait feat --timeout 90
box_rc "--wait: 6 for the third request" 6
box_tui --reply feat once
box_rc "--reply once: exit 0" 0
(cd "$BOX_REPO" && "$E2B_TUI_BIN" --wait feat --timeout 90 && "$E2B_TUI_BIN" --pull feat) >"$BOX_OUT" 2>"$BOX_ERR"
BOX_RC=$?
box_rc "--wait && --pull after a finished turn: exit 0" 0
t_eq "the finished work is pulled" "$(git -C "$BOX_REPO" show e2b/feat:ok.txt 2>/dev/null)" "ok"
box_tui --kill feat --force
t_finish
