#!/usr/bin/env bash
# Issue 38 (marks and batch actions, the keys y and m are tests/tui/preview_marks_test.sh's):
# n, i, p and s on marked rows of the Boxes list, in the dashboard against the real OpenCode
# server (opencode-ai 1.18.33, v2 API) and the scripted model in three e2b-local boxes, each
# first waiting on its own bash permission. Two rows are marked (space); each key asks one
# question that names both, and acts on both, never on the third: n rejects both requests
# (idle: interrupted, nothing waits, the command never ran), i interrupts both running
# turns, p pulls both boxes' work home (branches e2b/NAME with the file each box holds), s
# pauses both. The third box still waits through all of it; a message to it from the
# dashboard says it is queued behind its request ("queued: it waits for you on ...").
. "$(dirname "$0")/common.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/lib/agent.sh"
. "$E2B_TUI_ROOT/tests/lib/agent_scenarios.sh" # agent_until
. "$E2B_TUI_ROOT/tests/lib/marks_boxes.sh"
agent_setup 2 || t_abort "the boxes could not be set up"
export TERM=tmux-256color LANG=C.UTF-8

names="aa bb cc"
marks_boxes $names
field() { # NAME JQ: one field of NAME's --status --json
    box_tui --status "$1" --json
    jq -r ".boxes[0] | $2" "$BOX_OUT"
}

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
tmux_keys Home
one=$(row_name 3) two=$(row_name 4) three=$(row_name 5)
t_ok "three rows, three boxes" test -n "${sid[$one]:-}" -a -n "${sid[$two]:-}" -a -n "${sid[$three]:-}"

# ---- space marks the first two rows ----
tmux_type ' '
dash_check "space marks a row" "marked $one"
tmux_type ' '
dash_check "and the next: the status line counts them" "2 marked"

# ---- n: one question names both requests; both are rejected, the third still waits ----
tmux_type n
dash_check "n asks once for the two" "Reject 2 waiting requests"
dash_check "naming the first's request" "Reject 2 waiting requests: $one bash: date>${one}1.txt"
tmux_type y
for n in "$one" "$two"; do
    agent_until "$n" 90 "idle" && t_pass "n: $n's turn ends" || t_fail "n: $n's turn ends" "$(cat "$BOX_OUT")"
    t_eq "n: $n's request was rejected (idle: interrupted, nothing waits)" \
        "$(field "$n" '"\(.state) \(.last_end) \(.requests | length)"')" "idle interrupted 0"
    t_ok "n: $n's command never ran" test ! -e "$(box_root "${sid[$n]}")$BOX_REPO/${n}1.txt"
done
t_eq "n: the third box still waits on its own request" "$(field "$three" '.requests[0].detail')" "date>${three}1.txt"

# ---- i: both marked boxes run a turn; one question, both interrupted ----
for n in "$one" "$two"; do
    agent_script "${sid[$n]}" '{"title":"Slow '"$n"'","steps":[{"text":"thinking","delay":120}]}'
    box_tui --prompt "$n" "think long"
    box_rc "$n is given a long task" 0
    agent_until "$n" 90 "working" && t_pass "$n works" || t_fail "$n works" "$(cat "$BOX_OUT")"
done
dash_check "the marks stay" "2 marked"
tmux_type i
dash_check "i asks once for the two" "Interrupt the turns of 2 boxes: $one, $two"
tmux_type y
for n in "$one" "$two"; do
    agent_until "$n" 90 "idle" && t_pass "i: $n's turn ends" || t_fail "i: $n's turn ends" "$(cat "$BOX_OUT")"
    t_eq "i: $n was interrupted" "$(field "$n" '"\(.state) \(.last_end)"')" "idle interrupted"
done
t_eq "i: the third still waits" "$(field "$three" .state)" "waiting for you"

# ---- p: both boxes' work comes home, each on its own branch ----
# (the work: a file in each box's project, as an agent's edit leaves it)
for n in "$one" "$two" "$three"; do
    printf 'work of %s\n' "$n" >"$(box_root "${sid[$n]}")$BOX_REPO/${n}2.txt"
done
tmux_type p
dash_check "p asks once for the two" "Pull the work home (branches e2b/NAME) of 2 boxes: $one, $two"
tmux_type y
pulled() { git -C "$BOX_REPO" cat-file -e "e2b/$1:${1}2.txt" 2>/dev/null; }
for n in "$one" "$two"; do
    t_wait_until 120 pulled "$n" && t_pass "p: e2b/$n holds $n's file" ||
        t_fail "p: e2b/$n holds $n's file" "$(git -C "$BOX_REPO" branch -a 2>&1)"
done
t_eq "p: the third box was not pulled" "$(git -C "$BOX_REPO" branch --list "e2b/$three")" ""

# ---- s: both paused, the third runs on ----
tmux_type s
dash_check "s asks once for the two" "Pause 2 boxes: $one, $two"
tmux_type y
state_of() { field "$1" .sandbox; }
paused() { [ "$(state_of "$1")" = paused ]; }
for n in "$one" "$two"; do
    t_wait_until 90 paused "$n" && t_pass "s: $n is paused" || t_fail "s: $n is paused" "$(state_of "$n")"
done
t_eq "s: the third still runs" "$(state_of "$three")" running

# ---- a message to the box that waits: queued behind its request ----
tmux_keys Escape
dash_check "Esc clears the marks" "marks cleared"
tmux_keys Home
tmux_keys Down Down
dash_check "the third row is selected" " 3/3"
tmux_type m
dash_check "m opens the editor" "Message to $three"
tmux_type "and then this"
tmux_keys C-d
TMUX_WAIT_SECONDS=60 dash_check "the message is queued: the status line says behind what" \
    "queued: it waits for you on bash: date>${three}1.txt"
dash_quit "q quits"
for n in $names; do box_tui --kill "$n" --force; done
t_finish
