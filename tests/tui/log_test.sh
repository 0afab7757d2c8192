#!/usr/bin/env bash
# The Log pane of a box (l): the server's recent history on open, then its output live
# through envd's Process/Connect on the server's tag; escape sequences drawn harmlessly; a
# dropped stream said in words, reconnected, with what was printed meanwhile filled in; the
# server's exit status; the sandbox paused (r resumes it from the pane) and killed while
# streaming; Tab to the E2B logs, fetched incrementally (a new lifecycle event appears
# once); a plain sandbox shows its E2B logs with a hint. The server here misbehaves on
# purpose (tests/fixtures/opencode_misbehaving): it prints what is appended to
# /tmp/fake-server-say, escape sequences and 9 KB lines included, and exits when told.
. "$(dirname "$0")/common.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish
box_misbehaving_server
export TERM=tmux-256color LANG=C.UTF-8

box_tui --up
box_setup_rc "a box is up for the log tests" 0
id=$(box_sandbox_of main)
root=$(box_root "$id")
say() { box_say "$id" "$@"; }
# wait_file FILE TEXT: until FILE holds TEXT (bounded).
wait_file() {
    local i
    for ((i = 0; i < 200; i++)); do grep -qF -- "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
    return 1
}
# count TEXT: how many screen lines hold TEXT.
count() { tmux_capture | grep -cF -- "$1"; }

# Printed before anyone looks: only in the log file (envd drops output nobody follows).
say "history-line-one" "history-line-two"
t_ok "the server's output reaches its log file in the box" \
    wait_file "$root/tmp/e2b-tui-server.log" "history-line-two"

DASH_CWD=$BOX_REPO dash_start 120 40 -- --refresh 1
dash_check "the box is listed" "main "
tmux_type l
dash_check "l opens the server output of a box" "[server output"
dash_check "the history is shown on open" "history-line-two"
dash_check "the stream is live" "live: the server's output"
t_eq "the history line is shown once" "$(count history-line-one)" 1
dash_check "the server's start line is in the history" "opencode_misbehaving listening"

say "live-line-alpha"
dash_check "a line printed now appears live" "live-line-alpha"
say "ERR stderr-line-beta"
dash_check "stderr lines appear too" "stderr-line-beta"
t_eq "a live line is shown once" "$(count live-line-alpha)" 1

# Escape sequences: clear screen, window title, bell, colour.
say "evil"$'\033[2J\033]0;PWNED\007\033[31m'"red-text"
dash_check "an escape sequence in the output is drawn harmlessly" "evil?[2J?]0;PWNED??[31mred-text"
raw=$(tmux_capture -e)
case "$raw" in
*$'\033[2J'* | *$'\033]0;'*) t_fail "no raw escape sequence from the output on screen" "found one" ;;
*) t_pass "no raw escape sequence from the output on screen" ;;
esac
t_not_contains "the output did not set the window title" "$(tm display-message -p -t t '#{pane_title}')" "PWNED"
dash_check "the pane survived the sequence" "live-line-alpha"

# A long line is kept (cut to the width when drawn) and the pane goes on.
say "long-$(head -c 9000 /dev/zero | tr '\0' x)-end"
say "after-the-long-line"
dash_check "a line after a 9 KB line appears" "after-the-long-line"

# Scrolling up stops following; End follows again.
say $(seq -f 'fill-%02g' 1 60)
dash_check "more lines than the pane holds arrive" "fill-60"
tmux_type g
dash_check "g (first line) stops following" "End: follow"
say "while-scrolled-up"
sleep 0.5
t_not_contains "a new line does not move a scrolled-up view" "$(tmux_capture)" "while-scrolled-up"
tmux_keys End
dash_check "End follows again and shows it" "while-scrolled-up"

# A dropped stream (the next Connect is cut after its first bytes): the pane says so,
# reconnects, and what was printed meanwhile is filled in from the log file, once.
tmux_keys Escape
dash_check_gone "Esc closes the pane" "[server output"
el_req POST /_e2b-local/faults '{"kind":"drop","path":"process.Process/Connect","afterBytes":50}' >/dev/null
tmux_type l
dash_check "the pane opens again" "live: the server's output"
say "cut-line-one"
dash_check "the dropped stream is said in words" "connection lost"
say "while-down-line"
dash_check "it reconnects" "live: the server's output"
say "after-reconnect-line"
dash_check "lines printed after the reconnection arrive" "after-reconnect-line"
dash_check "the line cut by the drop is filled in" "cut-line-one"
dash_check "a line printed while disconnected is filled in" "while-down-line"
t_eq "the cut line is shown once" "$(count cut-line-one)" 1
t_eq "the line from the gap is shown once" "$(count while-down-line)" 1

# Tab: the E2B logs, incrementally; a new lifecycle event appears, nothing twice.
tmux_keys Tab
dash_check "Tab shows the E2B logs" "[E2B logs"
dash_check "with the sandbox's lifecycle events" "sandbox created"
box_exec "$id" "true" >/dev/null
el_req GET "/v2/sandboxes/$id/logs" >/dev/null
newest=$(el_json '.logs[-1].message')
t_contains "the server logged a new process" "$newest" "started"
dash_check "the new lifecycle event appears" "$newest"
# two more polls of the E2B logs (e2b-local's request log) before the count
polls=$(grep -c "GET /v2/sandboxes/$id/logs" "$E2B_LOCAL_STATE/e2b-local.log")
t_ok "the dashboard polled the E2B logs twice more" t_wait_until 30 \
    sh -c '[ "$(grep -c "GET /v2/sandboxes/$1/logs" "$2")" -ge "$3" ]' sh "$id" "$E2B_LOCAL_STATE/e2b-local.log" "$((polls + 2))"
dups=$(tmux_capture | grep -E '^ [0-9]{2}:[0-9]{2}:[0-9]{2} ' | sort | uniq -d)
t_eq "no E2B log line is shown twice" "$dups" ""
t_eq "the new event is shown once" "$(count "$newest")" 1
tmux_keys Tab
dash_check "Tab goes back to the server output" "[server output"

# The server exits: said with its status; a starts it again and the pane follows it.
say "EXIT 3"
dash_check "the server's exit is said with its status" "server exited (status 3)"
tmux_keys Escape
dash_check_gone "Esc closes the pane (exit)" "[server output"
tmux_type a
dash_check "a restarts the server and attaches" "back from main"
tmux_type l
dash_check "the pane follows the new server" "live: the server's output"
say "second-server-line"
dash_check "the new server's output arrives" "second-server-line"

# A plain sandbox: E2B logs only, with a hint.
sbx_create base running 600 name=plain-logs
tmux_keys Escape
dash_check_gone "Esc closes the pane (plain)" "[server output"
tmux_type 3
dash_check "the plain sandbox is listed" "plain-logs"
tmux_type /
tmux_type plain-logs
tmux_keys Enter
tmux_type l
dash_check "a plain sandbox shows its E2B logs" "[E2B logs"
dash_check "with a hint that it is not a box" "Not a box"
tmux_keys Tab
dash_check "Tab says only E2B logs exist for it" "only E2B's logs"
tmux_keys Escape
dash_check_gone "Esc closes the plain sandbox's pane" "[E2B logs"
tmux_keys Escape
sleep 0.3
tmux_type 1
dash_check "back on the Boxes tab" "main "

# The sandbox paused while streaming: said, with the key that helps; r in the pane resumes
# it and the output continues.
tmux_type l
dash_check "the box's pane again" "live: the server's output"
el_req POST "/sandboxes/$id/pause" >/dev/null
dash_check "a paused sandbox is said, with r" "sandbox paused — r resumes it"
tmux_type r
dash_check "r in the pane resumes the sandbox" "main resumed"
dash_check_gone "the pause message goes" "sandbox paused"
say "after-resume-line"
dash_check "the output continues after the resume" "after-resume-line"

# The sandbox killed while streaming: said clearly, the UI keeps working.
el_req DELETE "/sandboxes/$id" >/dev/null
dash_check "a killed sandbox is said clearly" "the sandbox is gone"
tmux_keys Escape
dash_check_gone "Esc closes the pane after the kill" "[server output"
tmux_type 3
dash_check "the UI keeps working after the kill" "plain-logs"
dash_quit "quits cleanly after the log tests"
t_finish
