#!/usr/bin/env bash
# The terminal goes away without a SIGHUP (a pty whose master closes while the dashboard is
# in another session, SIGHUP blocked): the dashboard must notice the end of its input, log
# it and exit, instead of spinning a core on a terminal that reports "readable" forever.
. "$(dirname "$0")/common.sh"

out=$(python3 "$(dirname "$0")/pty_hangup.py" 20 1.5 env TERM=xterm-256color "$E2B_TUI_BIN" 2>&1)
case "$out" in
exited\ status=*)
    t_pass "the dashboard exits when its terminal closes without SIGHUP ($out)" ;;
*) t_fail "the dashboard exits when its terminal closes without SIGHUP" "$out" ;;
esac
cpu=$(printf '%s' "$out" | sed -n 's/.*cpu=\([0-9.]*\).*/\1/p')
if [ -n "$cpu" ] && awk -v c="$cpu" 'BEGIN { exit !(c < 1.5) }'; then
    t_pass "and uses little CPU meanwhile (${cpu}s)"
else
    t_fail "and uses little CPU meanwhile" "$out"
fi
t_eq "its exit status is that of a hang-up" "$(printf '%s' "$out" | sed -n 's/.*status=\([0-9-]*\).*/\1/p')" 129
log=$XDG_STATE_HOME/e2b-tui/e2b-tui.log
t_contains "the log says why it ended" "$(cat "$log" 2>/dev/null)" "terminal input ended"
t_finish
