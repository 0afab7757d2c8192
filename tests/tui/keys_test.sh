#!/usr/bin/env bash
# Keys declared once: share/keys.conf and the man-page list are generated from the action
# table; key.<action> lines in the config rebind keys in the running dashboard; bad lines
# are reported without stopping it. Also the dashboard's option errors.
. "$(dirname "$0")/common.sh"

conf=$("$E2B_TUI_BIN" --print-keys=conf); rc=$?
t_eq "--print-keys=conf exits 0" "$rc" 0
if [ "$conf" = "$(cat "$E2B_TUI_ROOT/share/keys.conf")" ]; then
    t_pass "share/keys.conf is what the action table generates"
else
    t_fail "share/keys.conf is what the action table generates" \
        "regenerate it: e2b-tui --print-keys=conf > share/keys.conf"
fi
man=$("$E2B_TUI_BIN" --print-keys=man)
t_contains "--print-keys=man writes man(7) entries" "$man" $'.TP\n.B end, G\n'
text=$("$E2B_TUI_BIN" --print-keys)
t_contains "--print-keys lists kill" "$text" "kill"
text=$("$E2B_TUI_BIN" --readonly --print-keys)
t_not_contains "--readonly --print-keys hides kill" "$text" "kill"
t_contains "--readonly --print-keys keeps filter" "$text" "filter"

err=$("$E2B_TUI_BIN" --refresh 0 2>&1); rc=$?
t_eq "--refresh 0 is a usage error" "$rc" 2
t_contains "--refresh 0 says what is allowed" "$err" "from 1 to 3600"
err=$("$E2B_TUI_BIN" --print-keys=xml 2>&1); rc=$?
t_eq "--print-keys=xml is a usage error" "$rc" 2

# A user config: quit moves to Q, help to F1; one bad line is reported, the rest applies.
mkdir -p "$XDG_CONFIG_HOME/e2b-tui"
cat >"$XDG_CONFIG_HOME/e2b-tui/config" <<'CONF'
# core's settings live here too and are left alone
template = opencode
key.quit = Q
key.help = f1 ?
key.bogus = z
CONF
dash_start 110 30
dash_check "a bad config line is reported in the status line" "config line 5: unknown action 'bogus'"
tmux_keys F1
dash_check "F1 opens help after key.help = f1 ?" "Help: Boxes"
tmux_keys End
dash_check "the help shows the new quit key" "Q                   Quit"
tmux_keys Escape
dash_check_gone "Escape closes help" "Help: Boxes"
tmux_type q
dash_check "q no longer quits after key.quit = Q" "key q does nothing here"
tmux_type Q
dash_check "Q quits" "rc=0"
t_finish
