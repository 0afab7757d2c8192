#!/usr/bin/env bash
# Issue 38 (approval rules and the history, in the dashboard), against the real OpenCode
# server (opencode-ai 1.18.33, v2 API) and the scripted model in an e2b-local box:
#   - ctrl-r opens the Rules pane of the selected box: e2b-tui's rule and the answer the
#     server saved as "always" (read through the model), at 100, 80x24 and 160 columns;
#   - x revokes the selected one after a question naming it, the list is read again, and
#     --approve NAME (another process) agrees: the rule is out of the record, the saved
#     answer off the server;
#   - H opens the History pane: the box's state changes with times, newest last, and a new
#     turn's lines come in while it shows; :history alone is every box's;
#   - both are in the help, and Esc goes back;
#   - with each pane open and nothing changing, no thread of the dashboard is scheduled.
. "$(dirname "$0")/common.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/lib/agent.sh"
agent_setup 2 || t_abort "the box could not be set up"
export TERM=tmux-256color LANG=C.UTF-8

box_tui --up alpha --approve 'bash:python3 -m unittest*'
box_setup_rc "up alpha with a rule" 0
ida=$(box_sandbox_of alpha)

# the server saves an "always" answer
agent_script "$ida" '{"title":"Always","steps":[{"tool":"bash","args":{"command":"echo ok > ok.txt","description":"o"}},{"text":"Ok."}]}'
box_tui --prompt alpha "ok"
box_rc "a task" 0
box_tui --wait alpha --timeout 120
box_rc "it waits for its permission" 6
box_tui --reply alpha always
box_rc "allowed always: the server saves it" 0
box_tui --wait alpha --timeout 120
box_rc "the turn ends" 0
box_tui --approve alpha
t_contains "the server lists its saved answer" "$(cat "$BOX_OUT")" "server	"

# ---- the Rules pane ----
DASH_CWD=$BOX_REPO dash_start 100 30 -- --refresh 1
TMUX_WAIT_SECONDS=120 dash_check "the dashboard lists alpha, its agent reached" "idle"
tmux_keys C-r
dash_check "ctrl-r: the Rules pane of the selected box" "RULES  alpha"
dash_check "e2b-tui's rule" "bash:python3 -m unittest*"
dash_check_row "from e2b-tui" "bash:python3 -m unittest*" "e2b-tui"
TMUX_WAIT_SECONDS=60 dash_check "the server's saved answer, read through the model" "always: bash"
dash_check_row "from the server" "always: bash" "server"
tmux_resize 80 24
dash_check "80x24: the pane" "RULES  alpha"
dash_check "its rows" "always: bash"
tmux_resize 160 30
dash_check "160 columns: the pane" "RULES  alpha"
dash_check "its rows" "bash:python3 -m unittest*"
tmux_resize 100 30

# x on e2b-tui's rule
tmux_keys Home
dash_check_row "the first row is e2b-tui's rule" "e2b-tui" "bash:python3"
tmux_type x
dash_check "x asks, naming the rule" "Revoke e2b-tui's approval rule \"bash:python3 -m unittest*\""
dash_check "and its box" "of box alpha?"
tmux_type y
dash_check "revoked" "alpha: bash:python3 -m unittest* revoked"
dash_check_gone "the list is read again: the rule is gone" "bash:python3 -m unittest*"
box_tui --approve alpha
box_rc "--approve alpha lists" 0
t_not_contains "--approve: the rule is out of the record" "$(cat "$BOX_OUT")" "e2b-tui	bash:python3"
t_eq "the record has no rule" "$(jq -r '(.approve // []) | length' "$XDG_STATE_HOME/e2b-tui/boxes/alpha.json")" 0

# x on the server's saved answer
tmux_keys Home
dash_check_row "now the first row is the saved answer" "always: bash" "server"
tmux_type x
dash_check "x asks, naming the saved answer" "Remove the server's saved answer \"always: bash"
dash_check "and its box" "of box alpha?"
tmux_type y
TMUX_WAIT_SECONDS=60 dash_check "the list is read again: nothing saved" "(no saved \"always\" answer)"
dash_check_gone "the saved answer is gone" "always: bash"
box_tui --approve alpha
box_rc "--approve alpha lists again" 0
t_not_contains "--approve: the server has it no more" "$(cat "$BOX_OUT")" "server	"
tmux_type x
dash_check "x on the note row: nothing to revoke" "that row is not a rule"
tmux_keys Escape
dash_check "Esc: back to the list" "NAME"
dash_check_gone "the pane is closed" "RULES  alpha"

# ---- the History pane ----
tmux_type H
dash_check "H: the History pane of the selected box" "HISTORY  alpha"
dash_check_match "its state changes" 'alpha +started working'
dash_check_match "with the turn's end" 'alpha +idle: done'
dash_check_match "each with its time" '[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} +alpha '
dash_check "the revoke is in it" "saved \"always\" permission removed"
before=$(tmux_capture | grep -Ec 'alpha +idle: done')
agent_script "$ida" '{"title":"Again","steps":[{"text":"Done again."}]}'
box_tui --prompt alpha "again"
box_rc "another turn, from another process" 0
box_tui --wait alpha --timeout 120
box_rc "it ends" 0
more_lines() { [ "$(tmux_capture | grep -Ec 'alpha +idle: done')" -gt "$before" ]; }
t_ok "the new turn's lines come in while the pane shows (newest last)" t_wait_until 60 more_lines
t_ok "the last line is the newest" sh -c "tmux -S '$TMUX_SOCKET' capture-pane -p -t t | grep -E '^[0-9]{2}-' | tail -n 1 | grep -Eq 'alpha +idle: done'"
tmux_resize 80 24
dash_check "80x24: the History pane" "HISTORY  alpha"
dash_check_match "its lines" 'alpha +idle: done'
tmux_resize 160 30
dash_check "160 columns: the History pane" "HISTORY  alpha"
tmux_resize 100 30
tmux_keys Escape
dash_check "Esc: back to the list" "NAME"
tmux_type ':history'
tmux_keys Enter
dash_check ":history alone: every box" "HISTORY  every box"
dash_check_match "alpha's lines in it" 'alpha +started working'
tmux_keys Escape
tmux_type ':rules alpha'
tmux_keys Enter
dash_check ":rules alpha" "RULES  alpha"
tmux_keys Escape
tmux_type '?'
tmux_wait "Help: " >/dev/null 2>&1
# the views come after the box actions: ctrl-d pages the help until both have shown
help=$(tmux_capture) seen_rules= seen_history=
for ((i = 0; i < 8; i++)); do
    grep -q "Rules: the selected box's approval rules" <<<"$help" && seen_rules=1
    grep -q "History: the selected box's state changes" <<<"$help" && seen_history=1
    [ -n "$seen_rules" ] && [ -n "$seen_history" ] && break
    dash_keys_redrawn C-d
    help=$(tmux_capture)
done
t_eq "the help lists the Rules pane (paging down)" "$seen_rules" 1
t_eq "and the History pane" "$seen_history" 1
tmux_type '?'
dash_quit "q quits"

# ---- idle with each pane open: no thread of the dashboard is scheduled ----
all_switches() {
    cat /proc/"$1"/task/*/status 2>/dev/null |
        awk '/^(voluntary|nonvoluntary)_ctxt_switches/ { n += $2 } END { print n }'
}
quiet_all() { # NAME PID SECONDS: as dash_quiet, over every thread
    local end=$((SECONDS + 60)) a b
    while :; do
        a=$(all_switches "$2"); sleep "$3"; b=$(all_switches "$2")
        [ -n "$a" ] && [ "$a" = "$b" ] && { t_pass "$1"; return 0; }
        [ "$SECONDS" -ge "$end" ] && { t_fail "$1" "no ${3}-s window without a wake-up (last: $((b - a)))"; return 1; }
    done
}
# (a running box's agent and cost cells tick by themselves: the box is paused for this)
box_tui --stop alpha
box_rc "alpha paused" 0
DASH_CWD=$BOX_REPO dash_start 100 30 -- --refresh 600
TMUX_WAIT_SECONDS=120 dash_check "the dashboard again" "paused"
pid=$(tmux_dashboard_pid)
tmux_keys C-r
dash_check "the Rules pane" "RULES  alpha"
dash_check "a paused box's saved answers are not read, and it says so" "(saved answers not read: its agent is not reached"
quiet_all "Rules pane open: 3 s without a wake-up of any thread" "$pid" 3
tmux_keys Escape
tmux_type H
dash_check_match "the History pane" 'alpha +idle: done'
quiet_all "History pane open (its follower sleeping): 3 s without a wake-up" "$pid" 3
printf '%s\talpha\ta line from another process\n' "$(date +%s)" >>"$XDG_STATE_HOME/e2b-tui/history.log"
dash_check_match "woken by the file only: the new line shows" 'alpha +a line from another process'
tmux_keys Escape
dash_quit "q quits"
box_tui --kill alpha --force
t_finish
