#!/usr/bin/env bash
# Issue 19, the keys a k9s/lazygit user trips over (items 5-9), against e2b-local with the
# fixture project: Backspace on an empty filter stays in it (what is typed next filters,
# it never runs as keys); s, e and K on a sandbox that is not this machine's box ask first
# (a team sandbox, a box made elsewhere); ctrl-d / ctrl-u move half a page, g / G go to
# the top and bottom, and ctrl-d never opens the kill question; a and p work on a box in
# All, which has a KIND column; after u the new box is selected.
. "$(dirname "$0")/common.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish
export TERM=tmux-256color LANG=C.UTF-8

sbx_create base running 600 name=team-one && team_id=$SBX_ID
sbx_create base running 600 e2b-tui=box e2b-tui.name=elsewhere e2b-tui.branch=main && else_id=$SBX_ID
sbx_many 30 row >/dev/null || t_abort "could not make the rows"

DASH_CWD=$BOX_REPO dash_start 120 30
tmux_type 3
dash_check "All lists the sandboxes" "row-0030"
dash_check_line "All has a KIND column" 2 "KIND"
dash_check_row "a team sandbox is of kind other" row-0030 " other"

# 5. Backspace on an empty filter stays in the filter.
tmux_type /
dash_check "/ opens the filter" "/_"
tmux_keys BSpace BSpace
tmux_type paused
dash_check "after Backspace on empty, typing still filters" "/paused_"
t_eq "nothing was paused by the s typed" "$(sbx_state "$team_id")" running
t_not_contains "no extend prompt opened by the e typed" "$(tmux_capture)" "extend: hours"
tmux_keys Escape
dash_check_gone "Esc leaves the filter" "/paused_"

# 6. s, e and K on someone else's sandbox ask first; No changes nothing.
tmux_type /team-one
tmux_keys Enter
tmux_wait "1/1" >/dev/null
tmux_type s
dash_check "s on a team sandbox asks" "Stop sandbox"
dash_check "the question says whose it is" "a team sandbox"
tmux_keys Enter
dash_check "No (the default) cancels" "Stop sandbox: cancelled"
t_eq "the team sandbox still runs" "$(sbx_state "$team_id")" running
tmux_type e
dash_check "e on a team sandbox asks" "Extend sandbox"
tmux_type n
dash_check "n cancels the extend" "Extend sandbox: cancelled"
t_not_contains "no hours prompt after No" "$(tmux_capture)" "extend: hours"
tmux_type s
tmux_wait "Stop sandbox" >/dev/null
tmux_type y
dash_check "yes pauses it" "team-one paused"
t_eq "paused on the server" "$(sbx_state "$team_id")" paused
tmux_type K
dash_check "K names it a team sandbox" "It is a team sandbox"
tmux_keys Escape
tmux_wait_gone "It is a team sandbox" >/dev/null
tmux_keys Escape
tmux_wait "filter cleared" >/dev/null
tmux_type /elsewhere
tmux_keys Enter
tmux_wait "1/1" >/dev/null
dash_check_row "the box made elsewhere is of kind box" elsewhere " box"
tmux_type s
dash_check "s on a box made elsewhere asks" "a box made on another"
tmux_keys Escape
t_eq "the box made elsewhere still runs" "$(sbx_state "$else_id")" running

# 8. a and p on a box in All are the box actions (no "does not apply").
tmux_type p
tmux_wait_gone "Stop sandbox: cancelled" >/dev/null
dash_check_line "p in All acts on the box" '$' "elsewhere"
t_not_contains "p is not refused in All" "$(tmux_capture | tail -n 1)" "does not apply"
tmux_keys Escape
tmux_wait_gone "1/1" >/dev/null

# 7. ctrl-d / ctrl-u half pages, g / G top and bottom; ctrl-d does not ask to kill.
tmux_type g
tmux_wait " 1/32" >/dev/null
tmux_keys C-d
dash_check "ctrl-d moves half a page down" " 14/32"
t_not_contains "ctrl-d does not open the kill question" "$(tmux_capture)" "Kill sandbox"
tmux_keys C-u
dash_check "ctrl-u moves half a page up" " 1/32"
tmux_type G
dash_check "G goes to the last row" " 32/32"
tmux_type g
dash_check "g goes to the first row" " 1/32"
dash_quit "quits after the keys"

# 9. After u the new box is selected (the cursor was on another row before).
DASH_CWD=$BOX_REPO dash_start 120 30
tmux_wait "elsewhere" >/dev/null
tmux_type '>'
dash_check "sorted by name: the cursor on the first box" " 1/1"
tmux_type u
tmux_wait "up: box name" >/dev/null
tmux_type newbox
tmux_keys Enter
tmux_wait "up: template" >/dev/null
tmux_keys Enter
tmux_wait "up: hours" >/dev/null
tmux_keys Enter
tmux_wait "up: project directory" >/dev/null
tmux_keys Enter
dash_check "up finishes" "box newbox is up" 90
new_id=$(box_sandbox_of newbox)
dash_check "the new box is listed" "newbox "
# cursor_on_new: the row counter names the new box's row (the list's rows start at line 3).
cursor_on_new() {
    local screen row pos
    screen=$(tmux_capture)
    row=$(grep -n "newbox" <<<"$screen" | head -n 1 | cut -d: -f1)
    pos=$(tail -n 1 <<<"$screen" | grep -o ' [0-9]*/2$' | tr -d ' ' | cut -d/ -f1)
    [ -n "$row" ] && [ "$((row - 2))" = "$pos" ]
}
if t_wait_until "$TMUX_WAIT_SECONDS" cursor_on_new; then t_pass "the cursor is on the new box's row"; else
    t_fail "the cursor is on the new box's row" "$(tmux_capture | grep -n -e newbox -e '/2$')"; fi
dash_quit "quits after up"
sbx_kill_quiet() { el_req DELETE "/sandboxes/$1" >/dev/null; }
[ -n "$new_id" ] && sbx_kill_quiet "$new_id"
t_finish
