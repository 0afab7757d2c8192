#!/usr/bin/env bash
# Issue 30 item 2: the AGENT cell draws whole and right at 80, 90, 100, 120 and 160
# columns, on the selected row and the others (the coloured pass once drew the unselected
# cells where a hidden column would have been: "idlidle 3m done4"); where it is too narrow
# it takes a shorter form ("idle <1m", "idle") before it is cut. Item 8: the Agent pane
# reads like a log of work: a tool call is one line ("todo: 1/2 check it", "bash: ..."),
# not the todo list's raw JSON, which v shows (and v again folds). The real OpenCode server
# and the scripted model in an e2b-local box; one turn done, so the cell is coloured.
. "$(dirname "$0")/common.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/lib/agent.sh"
agent_setup 2 || t_abort "the box could not be set up"
export TERM=tmux-256color LANG=C.UTF-8
box_tui --up feat
box_rc "a box with the real OpenCode server is up" 0 || t_abort "the box did not come up"
id=$(box_sandbox_of feat)
agent_script "$id" '{"title":"Short","steps":[{"text":"Done."}]}'
box_tui --prompt feat "say done"
box_rc "a task is sent" 0
box_tui --wait feat --timeout 90
box_rc "the turn ends" 0
sbx_create base running 600 name=zz-other

# agent_cell: the text of the box's row under the header's AGENT, up to the next column.
agent_cell() {
    tmux_capture | awk '
        /AGENT/ && !x { x = index($0, "AGENT"); r = substr($0, x)
                        n = match(r, /^AGENT +[^ ]/) ? RLENGTH - 1 : length(r); next }
        x && /^ ?feat / { print substr($0, x, n); exit }'
}
# the idle pause (idle_minutes) follows: "idle <1m done, pauses in 15m"
cell_is_agent() { [[ "$(agent_cell)" =~ ^idle(\ (\<1m|[0-9]+m))?(\ done)?(,\ pauses\ in\ (\<1m|[0-9]+m))?\ *$ ]]; }

DASH_CWD=$BOX_REPO dash_start 160 24 -- --refresh 1
tmux_type 3
dash_check "All lists the box and the other sandbox" "zz-other"
TMUX_WAIT_SECONDS=60 dash_check "the agent is seen: idle, done" "done"
for cols in 80 90 100 120 160; do
    tmux_resize "$cols" 24
    dash_check_line "at $cols columns the frame is redrawn" 24 "/2"
    # the other sandbox's row selected: the box's row is drawn in its colour
    tmux_keys End
    t_wait_until 10 _dash_row_has zz-other "" >/dev/null
    if t_wait_until 10 cell_is_agent; then t_pass "at $cols columns the unselected AGENT cell reads right"; else
        t_fail "at $cols columns the unselected AGENT cell reads right" "[$(agent_cell)]; $(tmux_capture | grep -E 'AGENT|feat ')"; fi
    unselected=$(agent_cell)
    t_not_contains "at $cols columns nothing is drawn twice" "$(tmux_capture)" "idlidle"
    tmux_keys Home
    sleep 0.3
    if t_wait_until 10 cell_is_agent; then t_pass "at $cols columns the selected AGENT cell reads right"; else
        t_fail "at $cols columns the selected AGENT cell reads right" "[$(agent_cell)]"; fi
    t_eq "at $cols columns both draw the same text" "$(agent_cell)" "$unselected"
done
tmux_resize 160 24
dash_check_match "at 160 columns the whole cell shows" "feat .* idle (<1m|[0-9]+m) done"

# ---- item 8: tool calls as one line each ----
agent_script "$id" '{"title":"Todo","steps":[{"tool":"todowrite","args":{"todos":[{"content":"write the note","status":"completed","priority":"high"},{"content":"check it","status":"pending","priority":"low"}]}},{"tool":"read","args":{"path":"'"$BOX_REPO"'/src/main.c"}},{"text":"Listed."}]}'
tmux_type /feat
tmux_keys Enter
dash_check "the filter leaves the box" "filter: feat"
tmux_keys Enter
dash_check "Enter opens the box's Agent pane" "AGENT  feat"
tmux_type m
tmux_type "make a list"
tmux_keys C-d
TMUX_WAIT_SECONDS=90 dash_check "the todo call is one line: done/total and the open item" "todo: 1/2 check it"
TMUX_WAIT_SECONDS=60 dash_check "the read call is one line: what it read" "read: $BOX_REPO/src/main.c"
TMUX_WAIT_SECONDS=60 dash_check "the turn ends" "Listed."
# (a file the fixture has: a missing one makes the line "read: Unable to read ... [error]",
# which the check above passed only when it caught the call's brief "[running]" form)
t_eq "the read succeeded: its line has no [error] or [running] mark" \
    "$(tmux_capture | grep -o 'read: .*' | head -n 1 | sed 's/ *$//')" "read: $BOX_REPO/src/main.c"
t_not_contains "no raw JSON of the todo list" "$(tmux_capture)" '{"todos"'
tmux_type v
dash_check "v shows the tool calls whole, the raw input" 'tool todowrite [completed] {"todos"'
tmux_type v
dash_check_gone "v again folds them" '{"todos"'
tmux_keys Escape
dash_quit "quits"
t_finish
