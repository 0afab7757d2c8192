#!/usr/bin/env bash
# Resizes at any moment: the too-small screen and recovery, and resizes while a dialog,
# a prompt or the help overlay is open; ctrl-l repaints; ctrl-z suspends and fg resumes
# at the new size.
. "$(dirname "$0")/common.sh"

e2b_local_start || t_finish
sbx_create base running 3600 name=plain-one
sbx_create opencode paused 3600 e2b-tui=box e2b-tui.name=feature-x

dash_start 100 30
tmux_type 3
tmux_wait plain-one >/dev/null

tmux_resize 30 8
dash_check "a tiny terminal shows the too-small screen" "Terminal too small: 30x8"
dash_check "it says the minimum" "needs at least 50x10"
tmux_resize 100 30
dash_check_gone "growing again leaves the too-small screen" "Terminal too small"
dash_check "the list is back after growing" "plain-one"

# A dialog survives a resize through the too-small screen and is centred again.
# The first row's name and id (the ID column found by its header).
first=$(tmux_capture | awk 'NR == 2 { for (i = 1; i <= NF; i++) if ($i == "ID") c = i }
                            NR == 3 { print "\"" $1 "\" (" $c ")" }')
tmux_type K
tmux_wait "[ No ]" >/dev/null
tmux_resize 40 6
dash_check "too small while a dialog is open" "Terminal too small: 40x6"
tmux_resize 70 20
dash_check "the dialog is back after the resize" "[ No ]"
dash_check "the dialog still asks about the same sandbox" "$first"
line=$(tmux_capture | grep -n 'Kill sandbox' | head -n 1)
lineno=${line%%:*}
t_ok "the dialog is re-centred for 20 lines (title on line 6..9)" test "$lineno" -ge 6 -a "$lineno" -le 9
tmux_type n
dash_check "the dialog still answers after the resize" "Kill sandbox: cancelled"

# A prompt keeps its text across a resize.
tmux_type '/pla'
tmux_resize 90 25
tmux_resize 91 25
dash_check "the prompt keeps its text across resizes" "/pla_"
tmux_keys Enter
dash_check "the prompt still works after the resize" "filter: pla"
tmux_keys Escape

# The help overlay across a resize.
tmux_type '?'
tmux_wait "Help: All sandboxes" >/dev/null
tmux_resize 60 12
dash_check "help overlay after a resize" "Help: All sandboxes"
tmux_keys Escape
dash_check_gone "help closes after a resize" "Help: All sandboxes"
tmux_resize 100 30
tmux_wait_line 30 "1/2" >/dev/null

# ctrl-l repaints every cell: garbage written behind the dashboard's back goes away.
tty=$(tm display-message -p -t t '#{pane_tty}')
printf '\033[12;20HGARBAGE-GARBAGE' >"$tty"
dash_check "garbage written to the terminal is visible" "GARBAGE-GARBAGE"
tmux_keys C-l
dash_check_gone "ctrl-l repaints the whole screen" "GARBAGE-GARBAGE"
dash_check "the list is intact after ctrl-l" "plain-one"

# ctrl-z: the shell gets the terminal back; fg resumes at the size of the moment.
tmux_keys C-z
dash_check "ctrl-z hands the terminal back to the shell" "Stopped"
tmux_resize 80 24
tmux_run fg
dash_check "fg brings the dashboard back" "plain-one"
# (the frame for 80x24 may come after a first one at the old size: wait for its status line)
dash_check_line "after fg the status line is on line 24" 24 "/2"
top=$(tmux_capture | head -n 1)
t_contains "after fg the tabs line is drawn for the new width" "$top" "e2b-tui"
t_eq "after fg the version is right-aligned for 80 columns" "$(printf '%s' "$top" | sed 's/ *$//' | wc -m)" 79
# The shell already printed rc=148 for the stop; after fg, quitting restores the terminal.
tmux_type q
if tmux_wait_format '#{alternate_on} #{cursor_flag}' '0 1' 2>/dev/null; then
    t_pass "q after fg leaves the alternate screen and shows the cursor"
else
    t_fail "q after fg leaves the alternate screen and shows the cursor" "$(tmux_capture)"
fi
tmux_run 'echo "after fg: $(stty -a | grep -o -w -e -icanon -e icanon)"'
dash_check "q after fg restores canonical mode" "after fg: icanon"
t_finish
