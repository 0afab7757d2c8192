#!/usr/bin/env bash
# Issue 33's budgets in the dashboard, with the real OpenCode server (opencode-ai 1.18.33, v1
# routes: they price a turn) and the scripted model (a model with a price) in an e2b-local
# box: box feat is up with --budget 0.50; its turn's first step costs $1.00 (1M input tokens
# at $1/M) and its second takes its time, so the dashboard interrupts the turn, pauses the
# box, notifies and marks the row "budget $0.50"; the Detail pane tells the budget; e and m
# ask before going past it ("feat is at its $0.50 budget ... raise it to $2.00?"); n leaves
# it; t types a new budget, after which m's message editor opens and the message goes (the
# box is resumed and its turn runs).
. "$(dirname "$0")/common.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/lib/agent.sh"
. "$E2B_TUI_ROOT/tests/lib/agent_scenarios.sh" # agent_until
AGENT_MODEL_JSON='{"cost":{"input":1,"output":2}}' agent_setup 1 || t_abort "the box could not be set up"
export TERM=tmux-256color LANG=C.UTF-8
printf 'price_vcpu_second = 0\nprice_gib_second = 0\nnotify = osc9\n' >>"$XDG_CONFIG_HOME/e2b-tui/config"
rec=$XDG_STATE_HOME/e2b-tui/boxes/feat.json

box_tui --up feat --budget 0.50
box_rc "box feat is up with a budget" 0 || t_abort "feat did not come up"
id=$(box_sandbox_of feat)
state() { el_req GET "/sandboxes/$id" >/dev/null; el_json .state; }
paused() { [ "$(state)" = paused ]; }
row() { tmux_capture | grep -E '^ ?feat ' | head -n 1; }

DASH_CWD=$BOX_REPO dash_start 150 30 -- --refresh 1
TMUX_WAIT_SECONDS=120 dash_check "the dashboard reaches feat's agent" "idle"
agent_script "$id" '{"title":"Big","steps":[{"tool":"todowrite","args":{"todos":[{"content":"think hard","status":"in_progress","priority":"high"}]},"usage":{"prompt_tokens":1000000,"completion_tokens":0}},{"text":"Still thinking.","delay":120}]}'
tm pipe-pane -o -t t "cat >>'$T_TMP/pty.raw'"
box_tui --prompt feat "think hard"
box_rc "feat is given a task" 0

# ---- the budget passed: interrupted, paused, told ----
TMUX_WAIT_SECONDS=120 dash_check_row "the row says the box stopped at its budget" "feat " "budget \$0.50"
t_ok "the box is paused" t_wait_until 60 paused
t_eq "its record says stopped at the budget" "$(jq -r .budget_stopped "$rec")" true
t_ok "a notification was sent (OSC 9, wrapped for tmux)" t_wait_until 20 grep -qaF $'\033\033]9;feat stopped at its $0.50 budget' "$T_TMP/pty.raw"
tm pipe-pane -t t
tmux_type ':messages'
tmux_keys Enter
dash_check "the Messages pane tells the interrupt" "feat: interrupted"
dash_check "and the stop" "feat stopped at its \$0.50 budget: pausing it"
tmux_keys Escape
box_tui --status feat --json
t_eq "--status --json: stopped at it" "$(jq -r '.boxes[0].budget_stopped' "$BOX_OUT")" true

# ---- the Detail pane ----
tmux_type d
dash_check_match "the Detail pane tells the budget, what it cost and that it stopped there" 'Budget +\$0\.50 \(its own\), \$1\.00 spent now; stopped there'
tmux_keys Escape

# ---- e asks before going past it; n leaves it ----
tmux_type e
dash_check "e asks first" "feat is at its \$0.50 budget (\$1.00 spent now)."
dash_check "offering a raise" "Raise it to \$2.00?"
tmux_type n
dash_check_gone "n closes the question" "Raise it to"
t_eq "the budget is unchanged" "$(jq -r .budget_usd "$rec")" 0.5
t_ok "the box is still paused" paused

# ---- m asks too; t types a new budget, then the message goes ----
agent_script "$id" '{"steps":[{"text":"More done."}]}'
tmux_type m
dash_check "m asks first" "feat is at its \$0.50 budget (\$1.00 spent now)."
tmux_type t
dash_check "t asks for a budget" "budget of feat in dollars: 2.00"
tmux_keys C-u
tmux_type 'lots'
tmux_keys Enter
dash_check "a budget that is not dollars is refused, saying what a budget is" "budget: 'lots' is not dollars"
t_eq "nothing changed" "$(jq -r .budget_usd "$rec")" 0.5
tmux_type m
dash_check "m asks again" "Raise it to \$2.00?"
tmux_type t
tmux_keys C-u
tmux_type '3'
tmux_keys Enter
dash_check "the budget raised, m's message editor opens" "Message to feat"
t_eq "the record has the new budget" "$(jq -r .budget_usd "$rec")" 3
t_eq "and is no longer stopped" "$(jq -r '.budget_stopped // false' "$rec")" false
tmux_type "more please"
tmux_keys C-d
done_turn() { box_tui --wait feat --timeout 30 && grep -q "idle: done" "$BOX_OUT"; }
t_ok "the box is resumed and its new turn runs to its end" t_wait_until 150 done_turn
no_budget_row() { ! row | grep -qF 'budget $'; }
t_ok "the row no longer says budget" t_wait_until 30 no_budget_row
dash_quit "q quits"
box_tui --kill feat --force
t_finish
