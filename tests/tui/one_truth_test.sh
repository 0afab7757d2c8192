#!/usr/bin/env bash
# The dashboard and the one-shot modes agree about what a box is: with the dashboard open
# (--refresh 1), what one-shot commands in another terminal do shows right within a
# refresh or two. A box made by --up is watched (its waiting for a permission shows within
# 20 s and y answers it there); --fork's copies are rows main-2 and main-3 with their records
# and their agents watched (no AGENT "-"), never more rows named main; a killed fork goes.
# The real OpenCode server and the scripted model in e2b-local boxes (tests/lib/agent.sh).
. "$(dirname "$0")/common.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/lib/agent.sh"
agent_setup 2 || t_abort "the box could not be set up"
export TERM=tmux-256color LANG=C.UTF-8
box_tui --up main
box_rc "setup: up main" 0 || t_abort "up failed"

# row NAME: the line of the box of that name (the NAME column comes first).
row() { tmux_capture | grep -E "^ ?$1 " | head -n 1; }
rows_named() { tmux_capture | grep -cE "^ ?$1 "; }
# row_agent_known NAME: the row is there and its AGENT cell is not "-" (watched).
row_watched() { row "$1" | grep -qE 'idle|working|waiting'; }
wait_check() {
    local name=$1 secs=$2
    shift 2
    if t_wait_until "$secs" "$@"; then t_pass "$name"; else t_fail "$name" "not within ${secs} s: $* ($(tmux_capture | head -c 1500))"; fi
}

DASH_CWD=$BOX_REPO dash_start 150 40 -- --refresh 1
TMUX_WAIT_SECONDS=90 dash_check "main's agent is reached" "idle"

# ---- a box made in another terminal, given a task that asks permission ----
box_tui --up cli-box
box_rc "--up cli-box in another terminal" 0
cid=$(box_sandbox_of cli-box)
agent_script "$cid" '{"title":"Note","steps":[{"text":"Writing.","tool":"bash","args":{"command":"echo hi > note.txt","description":"write"}},{"text":"Done."}]}'
box_tui --prompt cli-box "write the note"
box_rc "--prompt cli-box in another terminal" 0
waiting() { row cli-box | grep -q "waiting: bash: echo hi"; }
wait_check "the new box's waiting shows within 20 s" 20 waiting
tmux_type /
tmux_type cli-box
tmux_keys Enter
tmux_type y
dash_check_gone "y answers it in the dashboard (no 'only boxes made on this machine')" "only boxes made on this machine"
wait_check "the tool ran in the box" 60 test -e "$(box_root "$cid")$BOX_REPO/note.txt"
tmux_keys Escape

# ---- forks made in another terminal ----
box_tui --fork main --count 2
box_rc "--fork main --count 2 in another terminal" 0
for f in main-2 main-3; do
    row_there() { [ -n "$(row "$1")" ]; }
    wait_check "the fork's row is $f" 10 row_there "$f"
    t_contains "$f's row shows its own sandbox" "$(row "$f")" "$(box_sandbox_of "$f")"
    wait_check "$f's agent is watched (not -)" 60 row_watched "$f"
done
t_eq "one row only is called main" "$(rows_named main)" 1

# ---- a fork killed in another terminal ----
box_tui --kill main-3 --force
box_rc "--kill main-3 in another terminal" 0
gone() { [ -z "$(row main-3)" ]; }
wait_check "the killed fork's row goes" 10 gone
dash_quit "quits"
t_finish
