#!/usr/bin/env bash
# Terminal hygiene: refusing TERM=dumb and non-terminals, falling back from an unknown
# TERM, NO_COLOR / --no-color, and the terminal restored after q and after signals.
. "$(dirname "$0")/common.sh"

# has_colour: does the captured screen (with escapes, on stdin) use any colour SGR?
has_colour() {
    python3 -c '
import re, sys
s = sys.stdin.read()
for m in re.finditer(r"\x1b\[([0-9;:]*)m", s):
    for p in m.group(1).replace(":", ";").split(";"):
        # 39 and 49 are "default colour" (a reset), not a colour.
        if p and p not in ("39", "49") and (30 <= int(p) <= 49 or 90 <= int(p) <= 107):
            sys.exit(0)
sys.exit(1)'
}

# Not a terminal: refused with a clear message and status 1, nothing drawn.
"$E2B_TUI_BIN" </dev/null >"$T_TMP/out" 2>"$T_TMP/err"; rc=$?
t_eq "no terminal: exit status 1" "$rc" 1
t_contains "no terminal: the message says why" "$(cat "$T_TMP/err")" "needs a terminal"
t_contains "no terminal: the message names a way out" "$(cat "$T_TMP/err")" "--list"
t_eq "no terminal: nothing written to stdout" "$(wc -c <"$T_TMP/out")" 0

# TERM=dumb in a real terminal: refused clearly.
tmux_shell 100 20
# ("rc"=: the typed line itself must not show the "rc=" waited for.)
tmux_run "clear; TERM=dumb $(printf %q "$E2B_TUI_BIN"); echo \"rc\"=\$?"
if tmux_wait "rc=" 2>/dev/null; then
    screen=$(tmux_capture)
    t_contains "TERM=dumb is refused with status 1" "$screen" "rc=1"
    t_contains "TERM=dumb: the message says why" "$screen" "TERM=dumb cannot show the dashboard"
else
    t_fail "TERM=dumb ends at once" "$(tmux_capture)"
fi

# An unknown TERM falls back with a note instead of failing.
dash_start 100 20 TERM=xterm-no-such-terminal
dash_check "unknown xterm-* TERM falls back to xterm-256color, with a note" \
    "TERM=xterm-no-such-terminal has no terminfo entry here (install ncurses-term); using xterm-256color"
dash_quit "the fallback terminal quits normally"
t_contains "the note is repeated on stderr after quitting" "$(tmux_capture -J)" "using xterm-256color"
dash_start 100 20 TERM=no-such-terminal-at-all
dash_check "any other unknown TERM falls back to xterm" "using xterm"
dash_quit "quits after the xterm fallback"

# Colours by default, none with NO_COLOR or --no-color (attributes still mark the tabs).
dash_start 100 20
if tmux_capture -e | has_colour; then t_pass "colours are used by default"; else t_fail "colours are used by default" "no colour SGR in the capture"; fi
dash_quit "quits (colour)"
dash_start 100 20 NO_COLOR=1
if tmux_capture -e | has_colour; then t_fail "NO_COLOR: no colour escapes" "colour SGR found"; else t_pass "NO_COLOR: no colour escapes"; fi
first=$(tmux_capture -e | head -n 1)
case "$first" in
*$'\033['*7m' 1 Boxes'*) t_pass "NO_COLOR: the active tab is still marked (reverse video)" ;;
*) t_fail "NO_COLOR: the active tab is still marked (reverse video)" "$(printf %q "$first")" ;;
esac
dash_quit "quits (NO_COLOR)"
dash_start 100 20 -- --no-color
if tmux_capture -e | has_colour; then t_fail "--no-color: no colour escapes" "colour SGR found"; else t_pass "--no-color: no colour escapes"; fi
dash_quit "quits (--no-color)"
dash_start 100 20 NO_COLOR=
if tmux_capture -e | has_colour; then t_pass "an empty NO_COLOR is ignored"; else t_fail "an empty NO_COLOR is ignored" "no colour"; fi
dash_quit "quits (empty NO_COLOR)"

# The terminal state while running and after each way out.
state() { tm display-message -p -t t '#{alternate_on} #{cursor_flag} #{keypad_cursor_flag}'; }
dash_start 100 20
t_eq "running: alternate screen, cursor hidden, keypad mode" "$(state)" "1 0 1"
tmux_type q
dash_check "q: status 0" "rc=0"
t_eq "q: normal screen, cursor visible, keypad mode off" "$(state)" "0 1 0"
dash_check "q: the tty is back in canonical mode with echo" "tty: icanon echo"
t_contains "q: the shell's screen is back" "$(tmux_capture)" "[before the dashboard]"
tmux_run "echo shell-works-\$((6 * 7))"
dash_check "q: the shell prompt works afterwards" "shell-works-42"

for sig in TERM HUP; do
    dash_start 100 20
    pid=$(tmux_dashboard_pid)
    if [ -z "$pid" ]; then t_fail "SIG$sig: dashboard pid found" "none"; continue; fi
    kill -"$sig" "$pid"
    code=$((128 + $(kill -l "$sig")))
    dash_check "SIG$sig: exits with status $code" "rc=$code"
    t_eq "SIG$sig: normal screen, cursor visible, keypad off" "$(state)" "0 1 0"
    dash_check "SIG$sig: the tty is back in canonical mode with echo" "tty: icanon echo"
done
dash_start 100 20
tmux_keys C-c
dash_check "ctrl-c (SIGINT): exits with status 130" "rc=130"
t_eq "SIGINT: normal screen, cursor visible, keypad off" "$(state)" "0 1 0"
dash_check "SIGINT: the tty is back in canonical mode with echo" "tty: icanon echo"
t_finish
