#!/usr/bin/env bash
# Issue 38 item 3 (history), in the dashboard against the real OpenCode server (v1 API: the
# model titles its sessions, so two can share a title) and the scripted model in an
# e2b-local box: after ctrl-n the row shows the new session's todos (none), not the old
# session's; a tool call that waits for permission says so in the activity ("[waiting for
# you]", not "[running]"); two sessions with one title are told apart by the end of their
# ids; the user's prompts mark where each turn begins ("── you 13:05: second task"); at 80,
# 100 and 160 columns. (How long a box is in its state, "working 12m", is
# tests/unit/test_tui_agent.c's.)
. "$(dirname "$0")/common.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/lib/agent.sh"
agent_setup 1 || t_abort "the box could not be set up"
export TERM=tmux-256color LANG=C.UTF-8
box_tui --up feat
box_setup_rc "up feat" 0
id=$(box_sandbox_of feat)
row() { tmux_capture | grep -E '^ ?feat ' | head -n 1; }

agent_script "$id" '{"title":"Same","steps":[{"tool":"todowrite","args":{"todos":[{"content":"first item","status":"completed","priority":"high"},{"content":"second item","status":"pending","priority":"low"}]}},{"text":"First done."}]}'
DASH_CWD=$BOX_REPO dash_start 100 24 -- --refresh 1
TMUX_WAIT_SECONDS=120 dash_check "the agent is reached" "idle"
tmux_type m
dash_check "m opens the editor" "Message to feat"
tmux_type "first task"
tmux_keys C-d
TMUX_WAIT_SECONDS=90 dash_check "the first turn ends" "idle <1m done"
t_contains "the row's TODO cell counts the first session's list" "$(row)" "1/2"

# ---- ctrl-n: a new session with one title, whose bash call waits ----
agent_script "$id" '{"title":"Same","steps":[{"tool":"bash","args":{"command":"echo two > two.txt","description":"two"}},{"text":"Two done."}]}'
tmux_keys C-n
dash_check "ctrl-n opens the editor for a new session" "Message to feat"
tmux_type "second task"
tmux_keys C-d
TMUX_WAIT_SECONDS=90 dash_check "the new session waits" "! waiting: bash: echo two"
t_not_contains "the row no longer shows the old session's todos" "$(row)" "1/2"
tmux_keys Enter
dash_check "the Agent pane" "AGENT  feat"
TMUX_WAIT_SECONDS=60 dash_check_match "the user's prompt begins its turn in the activity" '── you [0-9]{2}:[0-9]{2}: second task'
t_not_contains "the other session's prompt is not in this one's activity" "$(tmux_capture)" "first task"
TMUX_WAIT_SECONDS=60 dash_check "the call that waits says so" "bash: echo two > two.txt [waiting for you]"
t_not_contains "not [running]" "$(tmux_capture)" "echo two > two.txt [running]"
TMUX_WAIT_SECONDS=60 dash_check_match "the two sessions called Same are told apart" 'Same \(\.\.\.[A-Za-z0-9]{6}\)'
tells_two() { [ "$(tmux_capture | grep -oE 'Same \(\.\.\.[A-Za-z0-9]{6}\)' | sort -u | wc -l)" -ge 2 ]; }
t_wait_until 30 tells_two && t_pass "each with its own end of id" || t_fail "each with its own end of id" "$(tmux_capture)"
for cols in 80 160; do
    tmux_resize "$cols" 24
    dash_check "$cols cols: the waiting call" "[waiting for you]"
    dash_check_match "$cols cols: a session told apart" 'Same \(\.\.\.[A-Za-z0-9]{6}\)'
done
tmux_resize 100 24
tmux_type n
TMUX_WAIT_SECONDS=60 dash_check_gone "n rejects" "WAITING FOR YOU"

# ---- a next turn in the same session: its prompt marks where it begins ----
TMUX_WAIT_SECONDS=60 dash_check "the rejected turn ends" "idle: interrupted"
agent_script "$id" '{"title":"Same","steps":[{"text":"Three done."}]}'
tmux_type m
dash_check "m in the Agent pane opens the editor" "Message to feat"
tmux_type "third task"
tmux_keys C-d
TMUX_WAIT_SECONDS=90 dash_check "the third turn's answer" "Three done."
line_of() { tmux_capture | grep -nF -- "$1" | head -n 1 | cut -d: -f1; }
l2=$(line_of "── you") l3=$(line_of ": third task") lr=$(line_of "bash: ") ld=$(line_of "Three done.")
if [ -n "$l2" ] && [ -n "$l3" ] && [ -n "$lr" ] && [ -n "$ld" ] && [ "$l2" -lt "$lr" ] && [ "$lr" -lt "$l3" ] && [ "$l3" -lt "$ld" ]; then
    t_pass "the turns are in order, each after its prompt"
else
    t_fail "the turns are in order, each after its prompt" "$(tmux_capture)"
fi
t_contains "the third prompt is marked as the user's" "$(tmux_capture)" "── you"
tmux_keys Escape
dash_quit "quits"
box_tui --kill feat --force
t_finish
