#!/usr/bin/env bash
# Issue 33: the "Needs you" queue across two boxes, a question answered in place, and the
# jump to the next box that needs you, with the real OpenCode server (opencode-ai 1.18.33,
# v2 API) and the scripted model in two e2b-local boxes. Box aa asks a bash permission
# first, then bb: ! lists both oldest first; y on the second row answers only bb's (its
# turn goes on to a question, aa still waits: --wait 6); A on bb's question answers it in
# place with an option's number (the model gets the option's label, the turn ends: --wait
# 0); ] goes from box to box, cycling; a dashboard started again lists what is still
# pending (rebuilt from the servers); Enter opens the box's Agent pane, whose y answers it.
. "$(dirname "$0")/common.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/lib/agent.sh"
. "$E2B_TUI_ROOT/tests/lib/agent_scenarios.sh" # agent_until
AGENT_MODEL_JSON='{"cost":{"input":1,"output":2}}' agent_setup 2 || t_abort "the box could not be set up"
export TERM=tmux-256color LANG=C.UTF-8

box_tui --up aa
box_rc "box aa is up" 0 || t_abort "aa did not come up"
box_tui --up bb
box_rc "box bb is up" 0 || t_abort "bb did not come up"
ida=$(box_sandbox_of aa) idb=$(box_sandbox_of bb)
agent_script "$ida" '{"title":"A task","steps":[{"tool":"bash","args":{"command":"echo aa > a.txt","description":"write a"}},{"text":"Wrote a."}]}'
agent_script "$idb" '{"title":"B task","steps":[{"tool":"bash","args":{"command":"echo bb > b.txt","description":"write b"}},{"tool":"question","args":{"questions":[{"question":"Which colour?","header":"Colour","options":[{"label":"red","description":"warm"},{"label":"blue","description":"cool"}]}]}},{"text":"Blue it is."}]}'
box_tui --prompt aa "write a"
box_rc "aa is given a task" 0
agent_until aa 90 "waiting for you: bash: echo aa" && t_pass "aa waits for its permission" || t_fail "aa waits for its permission" "$(cat "$BOX_OUT")"

# bb's request comes later (the dashboard sees aa's first when it starts after both: the
# order is the order they were seen, so bb's is sent once the dashboard watches aa's)
DASH_CWD=$BOX_REPO dash_start 150 30 -- --refresh 1
TMUX_WAIT_SECONDS=120 dash_check "the dashboard sees aa waiting" "! waiting: bash: echo aa"
box_tui --prompt bb "write b"
box_rc "bb is given a task" 0
TMUX_WAIT_SECONDS=90 dash_check "then bb waits" "! waiting: bash: echo bb"
dash_check "the status line counts both" "! 2 boxes waiting for you"
# ---- what each box costs: COST column, the fleet's total ----
dash_check "the list has a COST column" "COST"
# (1.18.33's v2 prices no turn: the agent's part is unknown, shown as ?, never as 0)
dash_check_row "aa's COST is its sandbox's so far plus an unknown agent part" "echo aa" "+?"
dash_check_match "the status line has the fleet's total" 'fleet <?\$[0-9.]+\+\?'

# ---- ! lists both, oldest first ----
tmux_type '!'
dash_check "! opens the Needs-you pane" "NEEDS YOU  2 pending"
line_of() { tmux_capture | grep -n -F -- "$1" | head -n 1 | cut -d: -f1; }
la=$(line_of "bash: echo aa > a.txt") lb=$(line_of "bash: echo bb > b.txt")
t_ok "both requests are listed" test -n "$la" -a -n "$lb"
t_ok "oldest first: aa's above bb's" test "${la:-0}" -lt "${lb:-0}"
dash_check_row "a row says the box, the kind and how long it waited" "echo aa > a.txt" "permission"
t_contains "the row names the box" "$(tmux_capture | sed -n "${la:-1}p")" "aa"

# ---- y on the second row answers only bb's ----
tmux_keys End
tmux_type y
TMUX_WAIT_SECONDS=90 dash_check "bb's turn goes on to its question" "question"
dash_check_row "the question is listed with its kind" "Colour: Which colour?" "question"
box_tui --wait aa --timeout 30
box_rc "aa still waits: --wait aa exits 6" 6
t_ok "bb's command ran in its box" t_wait_until 20 test -e "$(box_root "$idb")$BOX_REPO/b.txt"
t_ok "aa's did not" test ! -e "$(box_root "$ida")$BOX_REPO/a.txt"

# ---- the question answered in place: an option's number ----
tmux_keys End
tmux_type A
dash_check "A asks for the answer, with the options" "answer bb: Which colour? [1 red, 2 blue; or type]"
tmux_type 2
tmux_keys Enter
TMUX_WAIT_SECONDS=60 dash_check_gone "the question leaves the queue" "Which colour?"
box_tui --wait bb --timeout 90
box_rc "bb's turn finishes: --wait bb exits 0" 0
t_contains "bb's model was given option 2's label" "$(agent_model_log "$idb")" '\"Which colour?\"=\"blue\"'
box_tui --wait aa --timeout 20
box_rc "aa is still waiting: 6" 6

# ---- ] goes from box to box ----
agent_script "$idb" '{"steps":[{"tool":"bash","args":{"command":"echo again > c.txt","description":"c"}},{"text":"ok"}]}'
box_tui --prompt bb "again"
TMUX_WAIT_SECONDS=90 dash_check "bb waits again" "echo again > c.txt"
tmux_type ']'
dash_check "] opens the Agent pane of the first box that needs you" "AGENT  aa ($ida)"
tmux_type ']'
dash_check "] again: the next box" "AGENT  bb ($idb)"
# (bb's turn waits at its first step: no step of it ended yet, so the last turn's figures)
dash_check_match "bb's Agent pane shows the last turn's tokens while this one has none (its cost unknown on v2)" 'last turn [0-9]+ in / [0-9]+ out \?'
tmux_type ']'
dash_check "] again: back to the first (cycling)" "AGENT  aa ($ida)"

# ---- restarted: the queue is rebuilt from the servers ----
tmux_type ':quit'
tmux_keys Enter
dash_check ":quit quits the dashboard (panes open)" "rc=0"
DASH_CWD=$BOX_REPO dash_start 150 30 -- --refresh 1
tmux_type ':needs'
tmux_keys Enter
TMUX_WAIT_SECONDS=120 dash_check ":needs after a restart lists aa's request again" "bash: echo aa > a.txt"
dash_check "and bb's" "bash: echo again > c.txt"
dash_check "both are pending" "NEEDS YOU  2 pending"
# (after a restart both are seen within a moment: aa's row is the first or the second)
tmux_keys Home
la=$(line_of "bash: echo aa > a.txt") lb=$(line_of "bash: echo again > c.txt")
[ "${la:-0}" -gt "${lb:-0}" ] && tmux_keys Down
tmux_keys Enter
dash_check "Enter opens the selected request's box" "AGENT  aa ($ida)"
dash_check "its pane shows the request" "! WAITING FOR YOU: bash: echo aa > a.txt"
tmux_type y
box_tui --wait aa --timeout 90
box_rc "y in the Agent pane answered it: --wait aa exits 0" 0
dash_check_match "aa's Agent pane shows its turn's own tokens once its steps ended" '   turn [0-9]+ in / [0-9]+ out \?'
tmux_keys Escape
tmux_type '!'
TMUX_WAIT_SECONDS=30 dash_check "the queue now holds only bb's request" "NEEDS YOU  1 pending"
tmux_type n
TMUX_WAIT_SECONDS=60 dash_check "n rejects the selected request: nothing needs you" "Nothing needs you"
tmux_type ']'
dash_check "] with nothing pending says so" "no box needs you"
tmux_keys Escape
dash_quit "q quits"
box_tui --kill aa --force
box_tui --kill bb --force
t_finish
