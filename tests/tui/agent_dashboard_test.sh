#!/usr/bin/env bash
# The dashboard supervising a real agent: the real OpenCode server (opencode-ai 1.18.33, v2
# API) and the scripted model in an e2b-local box (tests/lib/agent.sh). A task sent with m
# (the multi-line editor) runs a todo list and a bash call that asks permission: the row
# shows "! waiting: bash: ...", the status line counts it, :waiting lists it, the bell flag
# is set in tmux, the Agent pane shows the request in full, the todo list and the
# activity; y runs the tool (the file appears in the box) and the row goes idle, done; n
# rejects (interrupted, nothing written); Y asks first; ctrl-n starts a new session; i
# interrupts a hanging turn; hostile model text is drawn harmlessly; OSC 9 and OSC 777
# bytes reach the pty (tmux pipe-pane), wrapped for tmux passthrough; one notification per
# state change.
. "$(dirname "$0")/common.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/lib/agent.sh"
. "$E2B_TUI_ROOT/tests/lib/faults.sh"
agent_setup 2 || t_abort "the box could not be set up"
printf 'notify = bell, osc9, osc777\n' >>"$XDG_CONFIG_HOME/e2b-tui/config"
export TERM=tmux-256color LANG=C.UTF-8

box_tui --up feat
box_rc "a box with the real OpenCode server is up" 0 || t_abort "the box did not come up"
id=$(box_sandbox_of feat)
note=$(box_root "$id")$BOX_REPO/note.txt
E2B_BOX_PORT_HOST=4096-$id # how e2b-local's log names the requests to the box's server
# wait_check NAME SECONDS CMD...: passes once CMD succeeds within SECONDS.
wait_check() {
    local name=$1 secs=$2
    shift 2
    if t_wait_until "$secs" "$@"; then t_pass "$name"; else t_fail "$name" "not within ${secs} s: $*"; fi
}
# state_is WORDS: the Agent pane's state line starts with WORDS.
state_is() { tmux_capture | sed -n 3p | grep -q "^ $1"; }
# row: the box's line in the list.
row() { tmux_capture | grep -E '^ ?feat ' | head -n 1; }
bell_set() { [ "$(tm display-message -p -t t '#{window_bell_flag}')" = 1 ]; }
raw_out=$T_TMP/pty.raw
# osc_count TEXT: how many OSC 9 notifications with TEXT reached the pty so far.
osc_count() { grep -aoF -- $'\033\033]9;'"$1" "$raw_out" 2>/dev/null | wc -l; }
# osc_is N TEXT: exactly N such notifications so far.
osc_is() { [ "$(osc_count "$2")" = "$1" ]; }

DASH_CWD=$BOX_REPO dash_start 140 44 E2B_TUI_DEBUG_PAINT=1 -- --refresh 1
tm pipe-pane -o -t t "cat >>'$raw_out'"
dash_check "the box is listed with an AGENT column" "AGENT"
TMUX_WAIT_SECONDS=120 dash_check "the agent is reached: idle" "idle"
# (the TODO cell, then the COST cell last: "$0.001", "$0.001+?" or "?", never "-" once reached)
t_ok "its TODO cell is empty" grep -qE ' - +[^ -][^ ]*$' <<<"$(row)"

# ---- a task with a todo list and a bash call that asks permission ----
agent_script "$id" '{"title":"Note task","steps":[{"tool":"todowrite","args":{"todos":[{"content":"write the note","status":"completed","priority":"high"},{"content":"check it","status":"pending","priority":"low"}]}},{"text":"Writing it.","tool":"bash","args":{"command":"echo hi > note.txt","description":"write the note"}},{"text":"Wrote note.txt."}]}'
tm set-option -t t -w monitor-bell on >/dev/null 2>&1
tmux_type m
dash_check "m opens the message editor" "Message to feat"
tmux_type "Write a note,"
tmux_keys Enter
tmux_type "please."
dash_check "Enter is a new line in the editor" " please._"
tmux_keys C-d
TMUX_WAIT_SECONDS=90 dash_check "the row shows the box waiting, with what it asks" "! waiting: bash: echo hi > note.txt"
t_contains "the TODO cell counts done/total" "$(row)" "1/2"
# The colour (the selected row keeps its highlight: look with the cursor on either row of All).
sbx_create base running 600 name=zz-plain
tmux_type 3
dash_check "All lists the box and another sandbox" "zz-plain"
waiting_coloured() { tmux_capture -e | grep -qaF $'38;5;220m! waiting'; }
tmux_keys Home
t_wait_until 5 waiting_coloured || tmux_keys End
wait_check "the waiting cell is drawn in the waiting colour" 10 waiting_coloured
tmux_type 1
dash_check "the status line counts the boxes waiting" "! 1 box waiting for you"
wait_check "the bell flag is set in tmux" 10 bell_set
wait_check "an OSC 9 notification reached the pty (wrapped for tmux)" 10 osc_is 1 'feat is waiting for you: bash: echo hi > note.txt'
t_ok "and an OSC 777 one" grep -qaF $'\033\033]777;notify;e2b-tui;feat is waiting for you' "$raw_out"
t_ok "the file is not written before the reply" test ! -e "$note"

# :waiting lists only the boxes waiting for you.
tmux_type ':waiting'
tmux_keys Enter
dash_check ":waiting filters the boxes waiting" "filter: ! waiting"
t_contains "the waiting box is listed" "$(row)" "! waiting"

# The Agent pane: the request in full, the todo list, the sessions, the activity.
tmux_keys Enter
dash_check "Enter opens the Agent pane" "AGENT  feat ($id)"
dash_check "the pending request is shown in full" "! WAITING FOR YOU: bash: echo hi > note.txt"
dash_check "with the keys that answer it" "y: allow once"
dash_check "the todo list" "[x] write the note"
dash_check "its open item" "[ ] check it"
dash_check "the session with its title and state" "> busy New session"
dash_check "the activity: the todo call as one line, counted" "todo: 1/2 check it"
# The Changes tab before the reply (y there does not answer), then y from the activity: the
# agent's edit and the turn's end read the changes again.
tmux_type c
dash_check "c switches the pane to Changes" "Activity [Changes]"
dash_check "the changes are read" "against base"
t_not_contains "the note is not written yet" "$(tmux_capture)" "note.txt"
tmux_type y
dash_check "y in the Changes tab does not answer (the request is not shown there)" "allow: the request is not shown here"
tmux_type c
dash_check "c back to the activity" "[Activity] Changes"
tmux_type y
tmux_type c
TMUX_WAIT_SECONDS=60 dash_check "y: the tool runs, and its file shows in Changes (no R)" "note.txt"
wait_check "the file the tool wrote is in the box" 20 test -e "$note"
t_eq "with what the command wrote" "$(cat "$note" 2>/dev/null)" "hi"
# On the wire: y replied "once", so the box's server saved no rule (an "always" would be in
# its saved list); Y below saves one.
saved=$(agent_get "$id" feat /api/permission/saved)
t_ok "the server's saved rules were read" test -n "$saved"
t_not_contains "y replied once: the server saved no rule for the command" "$saved" "echo hi > note.txt"
tmux_type c
dash_check "c switches back" "[Activity] Changes"
TMUX_WAIT_SECONDS=60 dash_check "the turn ended" "idle: done"
dash_check "the assistant's last text is in the activity" "Wrote note.txt."
dash_check_gone "the request is gone from the pane" "WAITING FOR YOU"
wait_check "a notification for the finished turn" 10 osc_is 1 'feat finished its turn'
t_eq "the waiting notification was sent once" "$(osc_count 'feat is waiting for you: bash: echo hi')" 1

# ---- n rejects ----
agent_script "$id" '{"steps":[{"tool":"bash","args":{"command":"rm -f src/main.c","description":"clean"}},{"text":"Cleaned."}]}'
tmux_type m
tmux_type "clean up"
tmux_keys C-d
TMUX_WAIT_SECONDS=90 dash_check "the next request waits" "! WAITING FOR YOU: bash: rm -f src/main.c"
tmux_type n
dash_check_gone "n rejects: the request goes" "WAITING FOR YOU"
TMUX_WAIT_SECONDS=60 dash_check_match "the rejected tool call ends in error (one line, in words)" 'bash: [A-Z][a-z].* \[error\]$'
wait_check "the agent is idle again" 60 state_is idle
dash_check "the rejected turn ended interrupted (not done)" "idle: interrupted"
t_ok "nothing was removed" test -e "$(box_root "$id")$BOX_REPO/src/main.c"


# ---- Y asks first, then allows always ----
agent_script "$id" '{"steps":[{"tool":"bash","args":{"command":"echo again > again.txt","description":"again"}},{"text":"Again."}]}'
tmux_type m
tmux_type "again"
tmux_keys C-d
TMUX_WAIT_SECONDS=90 dash_check "a third request waits" "! WAITING FOR YOU: bash: echo again > again.txt"
tmux_type Y
dash_check "Y asks first" "Allow always"
tmux_keys Escape
dash_check_gone "Esc answers No" "Allow always"
dash_check "the request still waits" "WAITING FOR YOU"
tmux_type Y
dash_check "Y asks again" "Allow always"
tmux_type y
TMUX_WAIT_SECONDS=60 dash_check "yes: allowed, the turn ends" "idle: done"
wait_check "the command ran" 20 test -e "$(box_root "$id")$BOX_REPO/again.txt"
t_contains "Y replied always: the server saved the rule" "$(agent_get "$id" feat /api/permission/saved)" \
    "echo again > again.txt"

# ---- ctrl-n: a new session ----
agent_script "$id" '{"title":"Second session","steps":[{"text":"Hello from a new session."}]}'
tmux_keys C-n
dash_check "ctrl-n opens the editor for a new session" "(a new session)"
tmux_type "say hello"
tmux_keys C-d
TMUX_WAIT_SECONDS=60 dash_check "the new session's text arrives" "Hello from a new session."
wait_check "the new session is listed beside the first" 20 sh -c "[ \$(tmux -S '$TMUX_SOCKET' -f /dev/null capture-pane -p -t t | grep -c 'New session -') -ge 2 ]"

# ---- hostile text from the model ----
# The escapes come after the 100 KB line, on a line of their own next to its end: the pane
# shows the text's tail, so they are on screen whenever the end is, however fast it came.
agent_script "$id" '{"steps":[{"text":[{"repeat":"x","count":100000}, "\n\u001b[2J\u001b]0;PWNED\u0007\u001b[31mred \u202eevil\u202c hostile-end"]}]}'
tmux_type m
tmux_type "be hostile"
tmux_keys C-d
TMUX_WAIT_SECONDS=60 dash_check "the hostile text is drawn harmlessly" "?[2J?]0;PWNED??[31mred ?evil?"
# the bytes the terminal received (raw_out, pipe-pane): no escape or bidi control of the model
tmux_record_check "no escape or bidi control from the model reached the terminal" "$raw_out" \
    $'\033]0;PWNED' $'\033[2J\033]0;' $'\033[31mred' $'\xe2\x80\xae'

t_ok "... and its text did (the check reads the right bytes)" grep -qaF "PWNED" "$raw_out"
t_not_contains "the model did not set the title" "$(tm display-message -p -t t '#{pane_title}')" "PWNED"
TMUX_WAIT_SECONDS=60 dash_check "the end of the 100 KB line arrives" "hostile-end"

# ---- a fast stream: the pane draws at most about 10 frames a second ----
log=$XDG_STATE_HOME/e2b-tui/e2b-tui.log
# 125 KB in 2,605 deltas spread over 5 s by the model's clock (stream_seconds: a loaded
# machine makes it catch up, not last longer): about 500 deltas a second to coalesce. (It
# was 750 KB at a fixed 0.2 ms a chunk: the time went to the OpenCode server, 5 to 45 s of
# its CPU for the stream on a loaded machine, and to 15,626 sleeps' latencies; e2b-tui's
# own share was under 1 s. The 100 KB line above is the long text's check.)
agent_script "$id" '{"steps":[{"text":[{"repeat":"fast ","count":25000}," stream-end"],"stream_seconds":5}]}'
from=$(wc -l <"$log")
tmux_type m
tmux_type "stream fast"
tmux_keys C-d
TMUX_WAIT_SECONDS=120 dash_check "a long fast stream arrives to its end" "stream-end"
per_second=$(tail -n +"$((from + 1))" "$log" | awk '$2 == "frame" { print substr($1, 1, 19) }' | sort | uniq -c)
busiest=$(sort -rn <<<"$per_second" | head -n 1 | awk '{print $1}')
frames=$(tail -n +"$((from + 1))" "$log" | awk '$2 == "frame"' | wc -l)
seconds=$(wc -l <<<"$per_second")
# 10 a second from the pane, plus the 1-s refresh's list and metrics redrawing the rows: on
# average at most 13 over the seconds that drew; a loaded machine may push a held-back frame
# into the next second, so one second may reach 20 (uncoalesced, ~500 deltas a second would
# be hundreds).
t_ok "at most 13 frames a second on average while ~2,600 deltas (48 bytes each) stream (all: $frames in $seconds s)" \
    test "$frames" -le "$((13 * seconds))"
t_ok "and never more than 20 in one second (busiest: ${busiest:-0})" test "${busiest:-0}" -le 20
t_ok "and the stream was drawn live (several frames)" test "$frames" -ge 3

# ---- the box paused mid-turn, then resumed ----
# e2b-local's pause SIGSTOPs every process of the sandbox (the model stops mid-stream, the
# server with it) and its resume SIGCONTs them (tests/e2b-local/README.md), as E2B keeps a
# paused sandbox's memory: the turn goes on after the resume.
# (each scenario begins with the agent idle: on a loaded machine the fast stream above may
# still be streaming, and a prompt then would only be queued behind it)
wait_check "idle before the next task" 180 state_is idle
agent_script "$id" '{"steps":[{"text":["pause-start ",{"repeat":"slow ","count":400}," pause-end"],"chunk_delay":0.15}]}'
tmux_type m
tmux_type "stream slowly"
tmux_keys C-d
TMUX_WAIT_SECONDS=60 dash_check "the slow stream is drawn" "pause-start"
t_not_contains "mid-turn: its end has not come yet" "$(tmux_capture)" "pause-end"
tmux_keys Escape
dash_check_gone "back to the list" "AGENT  feat"
tmux_keys Escape # the :waiting filter of above goes
row_shown() { [ -n "$(row)" ]; }
wait_check "the box's row is listed (and selected: the only box)" 10 row_shown
# paused: the box's row, in its STATE and AGENT cells
row_paused() { [ "$(row | grep -o paused | wc -l)" -ge 2 ]; }
server_stopped() { case $(ps -o stat= -p "$(agent_server_pid "$id")" 2>/dev/null) in T*) return 0 ;; esac; return 1; }
tmux_type s
wait_check "s pauses the box mid-turn: its row says paused" 30 row_paused
t_ok "the box's server is stopped, not gone (e2b-local freezes it)" server_stopped
sleep 1
fl_mark
sleep 6
t_eq "paused: the dashboard asks the box's server nothing for 6 s (no reconnect storm)" \
    "$(fl_count "^[A-Z]+ $E2B_BOX_PORT_HOST")" 0
t_ok "and still shows it paused" row_paused
box_tui --status feat
t_contains "--status says paused too" "$(cat "$BOX_OUT")" "paused"
fl_mark
tmux_type r
TMUX_WAIT_SECONDS=60 dash_check "r resumes it: the agent works on" "working"
tmux_keys Enter
dash_check "the Agent pane again" "AGENT  feat ($id)"
TMUX_WAIT_SECONDS=90 dash_check "the stream goes on to its end after the resume" "pause-end"
TMUX_WAIT_SECONDS=60 dash_check "and the turn ends, done" "idle: done"
screen=$(tmux_capture)
t_eq "its text is shown once (nothing twice after the reconnect)" "$(grep -o 'pause-start' <<<"$screen" | wc -l)" 1
t_eq "and its end once" "$(grep -o 'pause-end' <<<"$screen" | wc -l)" 1
n=$(fl_count "^GET $E2B_BOX_PORT_HOST[^ ]* /api/health ")
t_ok "the resume reconnected with a few requests, not a storm (health asked $n times)" test "$n" -ge 1 -a "$n" -le 3

# ---- i interrupts a hanging turn ----
wait_check "idle before the next task" 180 state_is idle
agent_script "$id" '{"steps":[{"text":"thinking...","hang":true}]}'
tmux_type m
tmux_type "take your time"
tmux_keys C-d
wait_check "the slow turn is working" 60 state_is working
# (its first step has begun: a turn stopped before it leaves only the prompt, which a
# dashboard started later cannot tell from a turn not yet answered)
TMUX_WAIT_SECONDS=60 dash_check "the slow turn's text is drawn" "thinking..."
tmux_type i
wait_check "i interrupts it: idle again" 60 state_is idle
dash_check "the interrupted turn ended interrupted (not done, not failed)" "idle: interrupted"

tmux_keys Escape
dash_check_gone "Esc closes the Agent pane" "AGENT  feat"
tm pipe-pane -t t
dash_quit "quits cleanly after the agent tests"

# ---- a dashboard started after the turn ended reads how it ended ----
DASH_CWD=$BOX_REPO dash_start 140 44 -- --refresh 1
TMUX_WAIT_SECONDS=60 dash_check "the row of a dashboard started later says how the last turn ended" "interrupted"
t_ok "in the box's AGENT cell, with how long ago" grep -qE 'idle (<1m|[0-9]+m) interrupted' <<<"$(row)"
dash_quit "quits cleanly"
box_tui --kill feat --force # the agent's work is not pulled
t_finish
