#!/usr/bin/env bash
# The Log pane of a box (l): the server's recent history on open, then its output live
# through envd's Process/Connect on the server's tag; escape sequences drawn harmlessly; a
# dropped stream said in words, reconnected, with what was printed meanwhile filled in; the
# sandbox killed while streaming; Tab to the E2B logs, fetched incrementally (a new
# lifecycle event appears once); a plain sandbox shows its E2B logs with a hint. The fake
# server (tests/fixtures/opencode2) prints what is appended to /tmp/fake-server-say.
. "$(dirname "$0")/common.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish
export TERM=tmux-256color LANG=C.UTF-8

box_tui --up
box_rc "a box is up for the log tests" 0
id=$(box_sandbox_of main)
root=$(box_root "$id")
say() { printf '%s\n' "$@" >>"$root/tmp/fake-server-say"; }
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

DASH_CWD=$BOX_REPO dash_start 120 40
dash_check "the box is listed" "main "
tmux_type l
dash_check "l opens the server output of a box" "[server output"
dash_check "the history is shown on open" "history-line-two"
dash_check "the stream is live" "live: the server's output"
t_eq "the history line is shown once" "$(count history-line-one)" 1
t_contains "the server's start line is in the history" "$(tmux_capture)" "opencode2 fake server listening"

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
t_contains "the pane survived the sequence" "$(tmux_capture)" "live-line-alpha"

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
cat "$XDG_STATE_HOME/e2b-tui/e2b-tui.log" | grep -i "log\|history" | tail -20 >&2; t_finish
