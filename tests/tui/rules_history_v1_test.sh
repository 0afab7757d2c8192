#!/usr/bin/env bash
# Issue 38 (the Rules and History panes) against the real OpenCode server with its v1 API
# (opencode-ai 1.18.33's root routes) and the scripted model in an e2b-local box: OpenCode 1
# has no route that lists the "always" answers, and the Rules pane says so on the box's row
# (not an empty list); its yes-all is revoked with x after a question naming it, and
# --approve NAME agrees; the History pane shows the box's state changes and follows a new
# turn's at 80x24 (its lines newest last).
. "$(dirname "$0")/common.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/lib/agent.sh"
agent_setup 1 || t_abort "the box could not be set up"
export TERM=tmux-256color LANG=C.UTF-8

box_tui --up beta --yes-all
box_setup_rc "up beta with yes-all" 0
idb=$(box_sandbox_of beta)

DASH_CWD=$BOX_REPO dash_start 80 24 -- --refresh 1
TMUX_WAIT_SECONDS=120 dash_check "the dashboard lists beta, its agent reached" "idle"
tmux_keys C-r
dash_check "ctrl-r: the Rules pane" "RULES  beta"
dash_check_row "yes-all, from e2b-tui" "yes-all" "e2b-tui"
TMUX_WAIT_SECONDS=60 dash_check "OpenCode 1: the pane says the server has no list" "(not listed: OpenCode 1's API keeps"
t_not_contains "not an empty list" "$(tmux_capture)" "(no saved \"always\" answer)"
tmux_resize 160 30
dash_check "160 columns: it says why whole" "no route to list them)"
tmux_resize 100 30
dash_check "100 columns" "RULES  beta"
tmux_resize 80 24
tmux_keys Home
tmux_type x
dash_check "x asks, naming it" "Turn yes-all off for box beta?"
tmux_type n
dash_check "No: nothing revoked" "RULES  beta"
dash_check_row "yes-all stays" "yes-all" "e2b-tui"
box_tui --approve beta
t_contains "--approve: still yes-all" "$(cat "$BOX_OUT")" "e2b-tui	yes-all"
tmux_type x
dash_check "x again" "Turn yes-all off for box beta?"
tmux_type y
dash_check "revoked" "beta: yes-all revoked"
dash_check_gone "the list is read again: yes-all is gone" "every permission request is allowed"
box_tui --approve beta
box_rc "--approve beta lists" 0
t_not_contains "--approve: no yes-all any more" "$(cat "$BOX_OUT")" "yes-all"
t_eq "the record says so" "$(jq -r '.yes_all // false' "$XDG_STATE_HOME/e2b-tui/boxes/beta.json")" false
tmux_keys Escape

# ---- History at 80x24, following a turn ----
tmux_type H
dash_check "H: the History pane" "HISTORY  beta"
agent_script "$idb" '{"title":"One","steps":[{"text":"Done one."}]}'
box_tui --prompt beta "one"
box_rc "a task" 0
TMUX_WAIT_SECONDS=90 dash_check_match "the pane follows: it started working" 'beta +started working'
TMUX_WAIT_SECONDS=90 dash_check_match "and the turn's end" 'beta +idle: done'
t_ok "newest last" sh -c "tmux -S '$TMUX_SOCKET' capture-pane -p -t t | grep -E '^[0-9]{2}-' | tail -n 1 | grep -Eq 'beta +idle: done'"
dash_check_match "the header counts them" 'HISTORY  beta  [0-9]+ events'
tmux_keys Escape
dash_quit "q quits"
box_tui --kill beta --force
t_finish
