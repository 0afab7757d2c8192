#!/usr/bin/env bash
# Issue 30 items 5 and 7: the Help overlay and the Messages pane show every text whole at
# any width, wrapped, never cut (the overlay cut "(else Details)", "($EDITOR)" at 160
# columns); a message's later lines are indented under its first, so where one message
# ends and the next begins shows.
. "$(dirname "$0")/common.sh"
e2b_local_start || t_finish
sbx_create base running 600 name=wrapbox

# help_text COLS: the overlay's help column (after the keys), its lines joined by blanks.
help_text() {
    local cols=$1 w x
    w=$((cols - 4 > 110 ? 110 : cols - 4))
    x=$(((cols - w) / 2 + 2 + 20))
    tmux_capture | sed -n '/ Help: /,/ of [0-9]* (up\/down scroll)/p' |
        awk -v x="$x" -v w="$w" -v l="$(((cols - w) / 2))" '{ print substr($0, x + 1, l + w - x) }' |
        tr -s ' \n' '  '
}
long_help="Agent: the box's sessions, activity, todos and pending request (else Details)"
editor_help="Message the agent: the next task, to its current session (ctrl-e: \$EDITOR)"

for cols in 80 160; do
    dash_start "$cols" 60
    tmux_type 3
    dash_check "at $cols columns the sandbox is listed" "wrapbox"
    tmux_type '?'
    dash_check "at $cols columns ? opens the help" "Help: All"
    text=$(help_text "$cols")
    t_contains "at $cols columns the Agent help is whole" "$text" "$long_help"
    t_contains "at $cols columns the message help is whole" "$text" "$editor_help"
    t_not_contains "at $cols columns nothing in it is cut" "$(tmux_capture | sed -n '/ Help: /,/up\/down scroll/p')" "…"
    tmux_type q
    dash_quit "quits at $cols columns"
done

# A message of 60 words: whole in the Messages pane, its later lines indented.
words=$(seq -f 'w%03g' 1 60 | tr '\n' ' ')
dash_start 80 30
tmux_type ":detail ${words% }"
tmux_keys Enter
dash_check "the status line says the name is unknown" "no sandbox called w001"
tmux_keys C-g
dash_check "ctrl-g opens the Messages pane" "MESSAGES"
body=$(tmux_capture | sed -n '3,$p')
joined=$(printf '%s\n' "$body" | cut -c10- | tr -s ' \n' '  ')
t_contains "the message is whole, wrapped" "$joined" "no sandbox called ${words% } (Tab completes the names)"
t_ok "its later lines are indented under the first" grep -q '^           w0' <<<"$body"
t_ok "its first line carries the time, unindented" grep -Eq '^[0-9]{2}:[0-9]{2}:[0-9]{2} :detail: no sandbox' <<<"$body"
tmux_keys Escape
dash_quit "quits after the Messages pane"
t_finish
