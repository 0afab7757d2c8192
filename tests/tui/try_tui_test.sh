#!/usr/bin/env bash
# A group of attempts made from the dashboard (issue 34), never blocking it: u with a count
# ("g x2" at the name, then the task and the members' models) ups g-1, forks it into g-2
# and gives each member the task with its model once its agent answers, the try a row of
# the operations (the status line's newest) while it runs, ctrl-x cancels it; F on a member with "N TASK"
# forks it into its group and gives the box and the fork the task. The members' records
# note their models, the dashboard takes their evidence (one passes, one fails), and the
# keys keep answering meanwhile. Bad answers are asked again with the reason. Real binary,
# e2b-local, the real OpenCode server, the scripted model, tmux.
. "$(dirname "$0")/try_common.sh"

DASH_CWD=$BOX_REPO dash_start 190 30 -- --refresh 1
tmux_type u
dash_check "u's name question tells the group's form" "(NAME xN: a group of N attempts at one task)"
tmux_type "g x200"
tmux_keys Enter
dash_check "a count out of range is asked again" "NAME xN: N from 1 to 100 attempts"
tmux_keys C-u
tmux_type "g x2"
tmux_keys Enter
dash_check "then the task" "up: the task for each of the 2 attempts: "
tmux_type "Write the answer."
tmux_keys Enter
dash_check "then the members' models" "up: the members' models, round robin"
tmux_type "mock"
tmux_keys Enter
dash_check "a bad list is asked again, with why" "models are provider/model, comma-separated"
tmux_keys C-u
tmux_type "mock/m1,mock/m2"
tmux_keys Enter
dash_check "then the template" "up: template"
tmux_keys Enter
dash_check "the hours" "up: hours"
tmux_keys Enter
dash_check "the directory" "up: project directory"
tmux_keys Enter
dash_check "the try is the newest operation in the status line" "newest: try g: " 60
# the dashboard answers while the group is made: a view and back
tmux_keys C-g
dash_check "the keys answer meanwhile (Messages opens)" "MESSAGES" 10
tmux_keys Escape
models_given() {
    [ "$(jq -r .model "$BOXES/g-1.json" 2>/dev/null)" = mock/m1 ] &&
        [ "$(jq -r .model "$BOXES/g-2.json" 2>/dev/null)" = mock/m2 ]
}
t_ok "each member got the task with its model (the records say so)" t_wait_until 240 models_given
t_ok "g-2 is of group g" test "$(jq -r .group "$BOXES/g-2.json")" = g
t_ok "the task's time is noted" jq -e '.task_at | test("^20[0-9-]+T")' "$BOXES/g-2.json"
dash_check_row "the members did the task: one passes, one fails" "g-2 " "g: 2/2 done, 1 passing" 180
tmux_keys C-g
dash_check "the Messages say every member has the task" "try g: 2 members have the task" 10
tmux_keys Escape

# F on g-1 with a task: g-1 and its fork g-3 (of group g) get it.
tmux_type /
tmux_type g-1
tmux_keys Enter
tmux_keys Escape
dash_check_gone "Esc clears the filter" "filter: g-1"
tmux_type F
dash_check "F tells the group's form" "(N TASK: a group of attempts"
tmux_type "x Write the answer."
tmux_keys Enter
dash_check "a count that is no number is refused, with why" "fork: give a whole number of forks" 10
tmux_type F
tmux_type "1 Write the answer."
tmux_keys Enter
t_ok "the fork g-3 is made in group g" t_wait_until 120 sh -c "jq -e '.group == \"g\"' '$BOXES/g-3.json' >/dev/null 2>&1"
task_at_g3() { jq -e '.task_at | test("^20[0-9-]+T")' "$BOXES/g-3.json" >/dev/null 2>&1; }
t_ok "g-3 got the task" t_wait_until 180 task_at_g3
dash_check_row "g-3 does it (the configured model passes)" "g-3 " "g: 3/3 done, 2 passing" 180

# ctrl-x cancels the newest operation: the try (its up or fork with it).
tmux_type u
tmux_type "c x2"
tmux_keys Enter
dash_check "c's task" "up: the task for each of the 2 attempts: "
tmux_type "Write the answer."
tmux_keys Enter
for q in "up: the members' models" "up: template" "up: hours" "up: project directory"; do
    dash_check "then: $q" "$q"
    tmux_keys Enter
done
dash_check "the try runs" "newest: try c: " 60
tmux_keys C-x
try_gone() { ! tmux_capture | grep -q "try c: "; }
t_ok "ctrl-x ends the try" t_wait_until 120 try_gone
tmux_keys C-g
dash_check "the Messages say it was cancelled" "cancelled" 30
tmux_keys Escape
no_task() { for b in c-1 c-2; do jq -e '.task_at' "$BOXES/$b.json" >/dev/null 2>&1 && return 1; done; return 0; }
t_ok "no member has c's task" no_task
dash_quit "the dashboard ends"
for b in g-1 g-2 g-3 c-1 c-2; do [ -e "$BOXES/$b.json" ] && box_tui --kill "$b" --force; done
t_finish
