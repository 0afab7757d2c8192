#!/usr/bin/env bash
# Issue 19 item 21, the rough edges: the bottom bar offers only what works in the pane; the
# Log pane searches with / and n/N; the Detail pane shows a box's project directory and
# server URL and takes the row's actions; the empty Workspaces and Boxes views say what is
# true (no workspaces; not a git project: what to do); a sandbox without a name shows its
# id as NAME; a non-ASCII branch gives a transliterated name (feat/ünï -> feat-uni);
# with --mouse a click on a column header sorts by it.
. "$(dirname "$0")/common.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish
export TERM=tmux-256color LANG=C.UTF-8

mouse() { tmux_type "$(printf '\033[M%b%b%b' "\\$(printf %03o $((32 + $1)))" \
    "\\$(printf %03o $((33 + $2)))" "\\$(printf %03o $((33 + $3)))")"; }

mkdir -p "$T_TMP/notgit"
sbx_create base running 600 && bare_id=$SBX_ID
sbx_create base running 600 name=zeta-sbx

# Empty views, outside a git project.
DASH_CWD=$T_TMP/notgit dash_start 120 30 -- --mouse
dash_check "empty Boxes outside a git project says what to do" "this directory is no git project"
tmux_type 2
dash_check "empty Workspaces says so" "No workspaces"
tmux_type 3
dash_check "a sandbox without a name shows its id as NAME" "$bare_id"
dash_check_match "the id is in the NAME column (the row starts with it)" "^ *$bare_id( |\$)"
t_not_contains "not its template as NAME" "$(tmux_capture | grep -m1 "$bare_id" | awk '{print $1}')" "base"
# Mouse: a click on the NAME header sorts by NAME; again: reverse.
mouse 0 1 1
mouse 3 1 1
dash_check "a click on a column header sorts by it" "sorted by NAME (ascending)"
mouse 0 1 1
mouse 3 1 1
dash_check "a second click reverses it" "sorted by NAME (descending)"
dash_check_line "descending: zeta-sbx first" 3 "zeta-sbx"
dash_quit "quits (no boxes)"

# A box from a branch with non-ASCII letters.
git -C "$BOX_REPO" checkout -qb "feat/ünï" || t_abort "no branch"
DASH_CWD=$BOX_REPO dash_start 120 30
tmux_type u
dash_check "a non-ASCII branch gives a transliterated default name" "up: box name (empty: feat-uni)"
tmux_keys Enter
tmux_wait "up: template" >/dev/null
tmux_keys Enter
tmux_wait "up: hours" >/dev/null
tmux_keys Enter
tmux_wait "up: project directory" >/dev/null
tmux_keys Enter
dash_check "the box is up with that name" "box feat-uni is up" 90
id=$(box_sandbox_of feat-uni)

# Detail: the project directory and the server URL; the row's actions work there.
tmux_type d
dash_check "Detail opens" "DETAIL"
dash_check "Detail shows the project directory" "Project      $BOX_REPO"
dash_check "Detail shows the server URL" "Server       http"
dash_check "and the server URL names the sandbox" "$id"
dash_check_line_gone "the bottom bar offers no filter in Detail" '$' "/ filter"
tmux_type s
dash_check "s in Detail stops the box" "feat-uni paused"
t_eq "paused on the server" "$(sbx_state "$id")" paused
tmux_type r
dash_check "r in Detail resumes it" "feat-uni resumed"
tmux_keys Escape

# Log: / searches, n and N move between matches; the bar offers the search, not a filter.
el_req POST "/sandboxes/$id/pause" >/dev/null
el_req POST "/v2/sandboxes/$id/connect" '{}' >/dev/null
tmux_type l
dash_check "the Log pane opens" "LOG  feat-uni"
tmux_keys Tab
dash_check "the E2B logs" "E2B logs"
dash_check "the bottom bar offers the search" "/ search  n/N"
t_not_contains "the bottom bar offers no filter in Log" "$(tmux_capture | tail -n 1)" "/ filter"
tmux_wait "paused" >/dev/null
tmux_type /
dash_check "/ opens the log search" "search the log: "
tmux_type PAUSED
tmux_keys Enter
dash_check_gone "the search prompt closes" "search the log: "
# (the log's lines: below the header, which names the search and its count)
match_highlighted() { tmux_capture -e | sed -n '4,$p' | grep -i paused | head -n 1 | grep -Eq '48;5;25|\[7m'; }
t_ok "the match is highlighted" t_wait_until "$TMUX_WAIT_SECONDS" match_highlighted
tmux_type n
tmux_type n
tmux_type n
dash_check "n past the last match says so" "not found below"
tmux_type N
tmux_type /
tmux_keys C-u
tmux_type zzz-nothing
tmux_keys Enter
dash_check "a search without a match says so" "\"zzz-nothing\" not found"
tmux_keys Escape
dash_quit "quits"
[ -n "$id" ] && el_req DELETE "/sandboxes/$id" >/dev/null
t_finish
