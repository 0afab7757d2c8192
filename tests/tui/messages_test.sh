#!/usr/bin/env bash
# Issue 19 item 11: the status line is not the only record. Every message goes to the
# Messages pane (:messages, ctrl-g) whole and with its time: one that has vanished from the
# status line, one cut at the screen width (the line says where to read it whole), and
# every problem of the config file (the status line names the first and how many more).
. "$(dirname "$0")/common.sh"
mkdir -p "$XDG_CONFIG_HOME/e2b-tui"
cat >"$XDG_CONFIG_HOME/e2b-tui/config" <<'CONF'
key.bogus-one = z
key.bogus-two = z
key.bogus-three = z
CONF

dash_start 70 20
dash_check "the first config problem is in the status line" "config line 1: unknown action"
dash_check_line "cut at the width, it says where to read it whole" '$' "(ctrl-g: whole message)"
tmux_keys C-g
dash_check "ctrl-g opens the Messages pane" "MESSAGES"
# The pane wraps a long message onto indented lines: read them as one, as a user does.
_first_problem_whole() {
    tmux_capture | sed -E 's/^ {11}/ /' | tr -d '\n' | grep -qF "2 more problems: ctrl-g shows them all"
}
if t_wait_until "$TMUX_WAIT_SECONDS" _first_problem_whole; then t_pass "the first problem is there whole"; else
    t_fail "the first problem is there whole" "$(tmux_capture)"; fi
dash_check_match "the second problem is there" "bogus-two" -J
dash_check_match "the third problem is there" "bogus-three" -J
dash_check_match "each message has its time" '^[0-9]{2}:[0-9]{2}:[0-9]{2} ' -J
tmux_keys Escape
dash_check_gone "Esc closes it" "MESSAGES"

# A message that vanishes: still in the history.
tmux_type ':boxes'
tmux_keys Enter
tmux_type '>'
dash_check "a short message" "sorted by NAME"
dash_check_gone "it vanishes from the status line" "sorted by NAME" 30
tmux_type ':messages'
tmux_keys Enter
dash_check ":messages opens the pane" "MESSAGES"
dash_check "the vanished message is there" "sorted by NAME (ascending)"
tmux_keys Escape

# A message wider than the screen: cut, with where to read it whole.
tmux_type ':this-is-a-long-command-name-that-does-not-exist-anywhere'
tmux_keys Enter
dash_check "the long message is cut and says where the rest is" "(ctrl-g: whole message)"
t_not_contains "its end is not on the line" "$(tmux_capture | tail -n 1)" "[NAME])"
tmux_keys C-g
# the list's last command (or its operand) and the closing parenthesis, on the message's
# last line
dash_check_match "the pane has its end" '(:[a-z]+|\[NAME\])\) *$'
dash_check "the pane has its start" ":this-is-a-long-command-name-that-does-not"
tmux_type q
dash_check_gone "q closes the pane" "MESSAGES"
dash_quit "quits"
t_finish
