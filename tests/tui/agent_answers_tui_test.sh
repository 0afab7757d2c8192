#!/usr/bin/env bash
# Issue 38 item 1 ("right answers") in the dashboard, against the real OpenCode server
# (opencode-ai 1.18.33, the `opencode = 1` preset, whose server keeps listing a request of
# a session it aborted) and the scripted model in an e2b-local box:
#   - y and n in the Agent pane's Changes tab do not answer the request (not shown there);
#   - i on a box that waits on a permission leaves no phantom request: not in the Agent
#     pane, the AGENT cell, the status line's waiting count or :waiting (80, 100, 160 cols);
#   - the Changes tab reads the list again when the agent writes a file, while the turn
#     still runs (no R, no turn end);
#   - a attaches to the box's active session (`opencode attach ... --session ID`).
. "$(dirname "$0")/common.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/lib/agent.sh"
agent_setup 1 || t_abort "the box could not be set up"
export TERM=tmux-256color LANG=C.UTF-8
# the attach client: a stand-in named opencode that writes down its arguments
mkdir -p "$T_TMP/fakebin"
cat >"$T_TMP/fakebin/opencode" <<SH
#!/bin/sh
printf '%s\n' "\$@" >'$T_TMP/attach.args'
echo "fake attach ran"
SH
chmod +x "$T_TMP/fakebin/opencode"
printf 'attach_command = %s attach {url} --dir {dir}\n' "$T_TMP/fakebin/opencode" >>"$XDG_CONFIG_HOME/e2b-tui/config"

box_tui --up feat
box_setup_rc "up feat" 0
id=$(box_sandbox_of feat)
row() { tmux_capture | grep -E '^ ?feat ' | head -n 1; }

agent_script "$id" '{"title":"Gamma","steps":[{"tool":"bash","args":{"command":"echo alpha > alpha.txt","description":"g"}},{"text":"Wrote it."}]}'
box_tui --prompt feat "write gamma"
box_setup_rc "a task that asks" 0
sid=$(tail -n 1 "$BOX_OUT")

DASH_CWD=$BOX_REPO dash_start 100 24 -- --refresh 1
TMUX_WAIT_SECONDS=90 dash_check "the row shows the box waiting" "! waiting: bash: echo alpha"
dash_check "the status line counts it" "1 box waiting for you"
tmux_keys Enter
dash_check "Enter opens the Agent pane" "AGENT  feat"
dash_check "the request is shown" "WAITING FOR YOU: bash: echo alpha"

# ---- i on the waiting box: no phantom request anywhere ----
tmux_type i
TMUX_WAIT_SECONDS=60 dash_check_gone "the request leaves the Agent pane" "WAITING FOR YOU"
TMUX_WAIT_SECONDS=60 dash_check "the pane says idle, interrupted" "idle: interrupted"
sleep 1
t_eq "the server lists no pending permission" "$(agent_get "$id" feat /permission | jq -r 'length')" 0
tmux_keys Escape
dash_check "Esc back to the list" "1 Boxes"
for cols in 80 100 160; do
    tmux_resize "$cols" 24
    dash_check_line "$cols cols: the frame is redrawn" 24 "/"
    TMUX_WAIT_SECONDS=30 dash_check_gone "$cols cols: the AGENT cell no longer says waiting" "! waiting"
    t_not_contains "$cols cols: the status line counts no waiting box" "$(tmux_capture)" "waiting for you"
    t_contains "$cols cols: the row says idle" "$(row)" "idle"
done
tmux_resize 100 24
tmux_type ':waiting'
tmux_keys Enter
dash_check ":waiting filters" "filter: ! waiting"
t_not_contains ":waiting lists no box" "$(row)" "feat"
tmux_keys Escape
dash_check_gone "the filter is cleared" "filter: ! waiting"

agent_script "$id" '{"steps":[{"tool":"bash","args":{"command":"echo gamma > gamma.txt","description":"g"}},{"text":"Wrote it."}]}'
box_tui --prompt feat "write gamma again"
box_rc "a second task that asks" 0
tmux_keys Enter
dash_check "the Agent pane again" "AGENT  feat"
TMUX_WAIT_SECONDS=90 dash_check "the second request is shown" "WAITING FOR YOU: bash: echo gamma"
# ---- y and n in the Changes tab ----
tmux_type c
dash_check "c shows the Changes tab" "Activity [Changes]"
tmux_type y
dash_check "y in Changes does not answer: it says where" "not shown here (c: the activity"
tmux_type n
dash_check "n neither" "reject: the request is not shown here"
sleep 1
t_eq "the server still lists the request" "$(agent_get "$id" feat /permission | jq -r 'length')" 1
t_ok "the tool did not run" test ! -e "$(box_root "$id")$BOX_REPO/gamma.txt"
tmux_type c
dash_check "c back to the activity" "[Activity] Changes"
dash_check "the request is still shown" "WAITING FOR YOU: bash: echo gamma"
tmux_type n
TMUX_WAIT_SECONDS=60 dash_check_gone "n in the activity rejects it" "WAITING FOR YOU"
TMUX_WAIT_SECONDS=60 dash_check "idle, interrupted" "idle: interrupted"

tmux_keys Escape
dash_check "back to the list" "1 Boxes"

# ---- the Changes tab follows the agent's edits while the turn runs ----
tmux_keys Enter
dash_check "the Agent pane once more" "AGENT  feat"
tmux_type c
dash_check "the Changes tab" "Activity [Changes]"
dash_check "the changes are read" "against base"
t_not_contains "no live.txt yet" "$(tmux_capture)" "live.txt"
agent_script "$id" "{\"steps\":[{\"tool\":\"write\",\"args\":{\"filePath\":\"$BOX_REPO/live.txt\",\"content\":\"live\\n\"}},{\"text\":\"still thinking\",\"hang\":true}]}"
box_tui --prompt feat "write live.txt and think"
box_rc "a turn that writes a file, then thinks" 0
t_wait_until 60 test -e "$(box_root "$id")$BOX_REPO/live.txt" && t_pass "the agent wrote live.txt" ||
    t_fail "the agent wrote live.txt" "$(agent_model_log "$id" | tail -n 3)"
TMUX_WAIT_SECONDS=30 dash_check "the Changes tab shows live.txt with no R" "live.txt"
box_tui --status feat
t_contains "and the turn still runs" "$(cat "$BOX_OUT")" "working"
tmux_type c
tmux_type i
TMUX_WAIT_SECONDS=60 dash_check "i ends the thinking turn" "idle: interrupted"
tmux_keys Escape
dash_check "back to the list" "1 Boxes"

# ---- a attaches to the active session ----
box_tui --status feat --json
sid=$(jq -r '.boxes[0].session.id' "$BOX_OUT")
tmux_type a
t_wait_until 60 test -s "$T_TMP/attach.args" && t_pass "a runs the attach command" ||
    t_fail "a runs the attach command" "$(tmux_capture | tail -n 5)"
t_contains "it names the box's active session" "$(tr '\n' ' ' <"$T_TMP/attach.args")" "--session $sid"
dash_check "back from the attach" "back from feat"
dash_quit "quits"
box_tui --kill feat --force
t_finish
