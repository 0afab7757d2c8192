#!/usr/bin/env bash
# Issue 38 (supervising several agents): the preview beside the Boxes list and marks with
# batch answers, in the dashboard against the real OpenCode server (opencode-ai 1.18.33, v2
# API) and the scripted model in three e2b-local boxes, each waiting on its own bash
# permission. At 160 columns the selected box's activity shows beside the list and follows
# j/k (its prompt, its request); P shows its changes, then hides the preview; at 100 the
# list is whole until P; at 80x24 the Agent pane goes to the next and previous box with )
# and ( without leaving it. Then :waiting, * (mark every row shown), y: one question names
# the three requests, and each box's turn goes on (--wait on each exits 0, each command ran
# in its own box); Esc clears the marks; m with the three marked sends one message, typed
# once, to each (each box's model gets it, each turn ends).
. "$(dirname "$0")/common.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/lib/agent.sh"
. "$E2B_TUI_ROOT/tests/lib/agent_scenarios.sh" # agent_until
. "$E2B_TUI_ROOT/tests/lib/marks_boxes.sh"
agent_setup 2 || t_abort "the boxes could not be set up"
# the default preview (agent_setup pins the list without it for the other tests)
sed -i '/^preview_columns = 0$/d' "$XDG_CONFIG_HOME/e2b-tui/config"
export TERM=tmux-256color LANG=C.UTF-8

names="aa bb cc"
marks_boxes $names

# ---- 100 columns: the list is whole (the dashboard watches before the tasks come, so the
# activity holds each user's prompt) ----
DASH_CWD=$BOX_REPO dash_start 100 30 -- --refresh 1
TMUX_WAIT_SECONDS=120 dash_check "the dashboard lists the boxes" "cc "
for n in $names; do
    box_tui --prompt "$n" "task for $n"
    box_rc "$n is given a task" 0
done
for n in $names; do
    agent_until "$n" 90 "waiting for you: bash: date>${n}1.txt" && t_pass "$n waits for its permission" ||
        t_fail "$n waits for its permission" "$(cat "$BOX_OUT")"
done
TMUX_WAIT_SECONDS=60 dash_check "the dashboard sees the three waiting" "! 3 boxes waiting for you"
t_not_contains "at 100 columns no preview by itself" "$(tmux_capture)" "PREVIEW"

# ---- 160 columns: the preview follows j/k ----
tmux_resize 160 30
tmux_keys Home
first=$(row_name 3)
t_ok "the first row is one of the boxes" test -n "$first" -a -n "${sid[$first]:-}"
dash_check "160 columns: the preview shows the selected box beside the list" "PREVIEW  $first  [Activity] Changes"
dash_check "with its pending request" "! WAITING FOR YOU: bash: date>${first}1.txt"
dash_check "and its activity: the user's prompt" "you"
dash_check "its words" "task for $first"
dash_check "the call that waits" "bash: date>${first}1.txt [waiting for you]"
line=$(tmux_capture | sed -n 3p)
t_ok "the list keeps to its half: the preview's rule at column 81" test "${line:80:1}" = "│"
t_contains "the row's columns fit the half (its whole ID)" "${line:0:80}" "${sid[$first]}"
tmux_type j
second=$(row_name 4)
dash_check "j: the preview follows to the next row" "PREVIEW  $second  [Activity] Changes"
dash_check "its request" "! WAITING FOR YOU: bash: date>${second}1.txt"
dash_check "its prompt" "task for $second"
t_not_contains "the first box's activity is gone" "$(tmux_capture)" "task for $first"
tmux_type k
dash_check "k: back to the first" "PREVIEW  $first  [Activity] Changes"
dash_check "its prompt again" "task for $first"
tmux_type P
dash_check "P: the preview shows the box's changes" "PREVIEW  $first  Activity [Changes]"
TMUX_WAIT_SECONDS=60 dash_check "read from the box" "CHANGES  $first (${sid[$first]})"
tmux_type P
dash_check "P again hides the preview" "preview: hidden"
t_not_contains "no preview" "$(tmux_capture)" "PREVIEW"
tmux_type P
dash_check "P once more: the activity again" "PREVIEW  $first  [Activity] Changes"
tmux_type P
tmux_type P
dash_check_gone "P P: hidden again" "PREVIEW"

# ---- 80x24: ( and ) in the Agent pane ----
tmux_resize 80 24
tmux_keys Home
dash_check "80x24: the list" "NAME"
tmux_keys Enter
dash_check "Enter opens the first box's Agent pane" "AGENT  $first (${sid[$first]})"
tmux_type ')'
dash_check ") shows the next box without leaving the pane" "AGENT  $second (${sid[$second]})"
dash_check "its request" "! WAITING FOR YOU: bash: date>${second}1.txt"
tmux_type ')'
third=""
for n in $names; do [ "$n" != "$first" ] && [ "$n" != "$second" ] && third=$n; done
dash_check ") again: the third" "AGENT  $third (${sid[$third]})"
tmux_type ')'
dash_check ") on the last says so" "is the last box of the list"
tmux_type '('
dash_check "( goes back" "AGENT  $second (${sid[$second]})"
tmux_keys Escape
dash_check "Esc: the list, on the box the pane showed last" "NAME"
dash_check_match "the list's cursor followed the pane (the second row)" ' 2/3 ?$'

# ---- marks: :waiting, * and one y for the three ----
tmux_type ':waiting'
tmux_keys Enter
dash_check ":waiting filters the list" "filter: ! waiting"
tmux_type '*'
dash_check "* marks every row shown: the status line counts them" "3 marked"
t_contains "a marked row has its gutter mark" "$(tmux_capture | sed -n 3p)" "* "
tmux_type y
dash_check "y asks once for the three" "Allow 3 waiting requests"
for n in $names; do
    dash_check "the question names $n's request" "date>${n}1.txt"
done
tmux_type y
for n in $names; do
    box_tui --wait "$n" --timeout 90
    box_rc "$n's turn goes on and ends: --wait $n exits 0" 0
    t_ok "$n's command ran in its own box" t_wait_until 20 test -e "$(box_root "${sid[$n]}")$BOX_REPO/${n}1.txt"
done
dash_check "the marks stay after the answers" "3 marked"
tmux_keys Escape
dash_check "Esc clears the marks" "marks cleared"
t_not_contains "no count any more" "$(tmux_capture | tail -n 1)" "marked"
tmux_keys Escape
dash_check "Esc again clears the filter" "filter cleared"

# ---- m: one message, typed once, to every marked box ----
for n in $names; do
    agent_script "${sid[$n]}" '{"title":"Again '"$n"'","steps":[{"text":"Round two in '"$n"'."}]}'
done
tmux_type '*'
dash_check "* marks the three idle boxes" "3 marked"
tmux_type m
dash_check "m opens one editor for the marked boxes" "Message to 3 boxes"
tmux_type "second round for all"
tmux_keys C-d
dash_check "ctrl-d: one question names them" "Send the message to 3 boxes"
# (the model's log has no prompt text: a turn is one more request to it)
asked() { agent_model_log "${sid[$1]}" | grep -c '"title": false'; }
declare -A before
for n in $names; do before[$n]=$(asked "$n"); done
tmux_type y
asked_again() { [ "$(asked "$1")" -gt "${before[$1]}" ]; }
for n in $names; do
    t_ok "$n's model is asked again: a new turn" t_wait_until 60 asked_again "$n"
    box_tui --wait "$n" --timeout 90
    box_rc "$n's second turn ends: --wait $n exits 0" 0
done
tmux_keys Escape
tmux_keys Home Enter
dash_check "the first box's Agent pane" "AGENT  $first ("
TMUX_WAIT_SECONDS=60 dash_check "its activity has the one message" "second round for all"
tmux_type ')'
dash_check ") the next box" "AGENT  $second ("
TMUX_WAIT_SECONDS=60 dash_check "its activity has it too" "second round for all"
tmux_type ')'
dash_check ") the third" "AGENT  $third ("
TMUX_WAIT_SECONDS=60 dash_check "and it" "second round for all"
tmux_keys Escape
dash_quit "q quits"
for n in $names; do box_tui --kill "$n" --force; done
t_finish
