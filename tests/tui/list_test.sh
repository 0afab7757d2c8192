#!/usr/bin/env bash
# The lists with sandboxes from a real e2b-local: rows, sanitising of a hostile name, wide
# characters, filter, sort, the detail pane, the kill confirmation (default No; Yes kills on
# the server) and 2,000 sandboxes (every page listed).
. "$(dirname "$0")/common.sh"

e2b_local_start || t_finish
# Sandboxes on the local E2B server, with the metadata that makes boxes, workspaces and
# others (README.md, "The dashboard").
sbx_create opencode running 3600 e2b-tui=box e2b-tui.name=feature-x && box_id=$SBX_ID
sbx_create opencode-e2b-ws paused 3600 name=ws-alpha && ws_id=$SBX_ID
sbx_create base running 600 name=plain-one && oth_id=$SBX_ID
# A box whose name holds a clear-screen and a window-title escape sequence and a bell.
sbx_create base running 60 e2b-tui=box "e2b-tui.name=evil"$'\033[2J\033]0;PWNED\007'"name" && evil_id=$SBX_ID
# Wide characters: CJK and emoji count two columns each.
long='日本語-プロジェクト-😀-名前がとても長いサンドボックス'
sbx_create base paused 300 "name=$long$long$long" && wide_id=$SBX_ID

dash_start 120 30
rec=$T_TMP/pty.bytes
tmux_record "$rec"
tmux_type 3
dash_check "All sandboxes lists the server's sandboxes" "plain-one"
dash_check "the row count is shown" "1/5"

# The hostile name: drawn with '?' for the controls, no escape reaches the terminal.
dash_check "an escape sequence in a name is drawn harmlessly" "evil?[2J?]0;PWNED?name"
tmux_wait "$wide_id" >/dev/null
screen=$(tmux_capture)
# the bytes the terminal received: the name's text arrived, its escapes did not
t_ok "the terminal received the name's text" tmux_record_has "$rec" "PWNED"
tmux_record_check "no escape of the name reached the terminal (clear screen, OSC 0)" "$rec" \
    $'evil\033[2J' $'\033]0;PWNED'

title=$(tm display-message -p -t t '#{pane_title}')
t_not_contains "the name did not set the window title" "$title" "PWNED"
t_contains "the rest of the screen survived the name" "$screen" "plain-one"

# Wide characters: the row is cut with an ellipsis and the next column stays aligned.
wide_line=$(printf '%s\n' "$screen" | grep '日本語')
t_contains "a long wide-character name is cut with an ellipsis" "$wide_line" "…"
plain_line=$(printf '%s\n' "$screen" | grep 'plain-one')
# The ID column starts at the same display column on both lines.
col_of() { printf '%s' "$1" | python3 -c 'import sys,unicodedata
s=sys.stdin.read(); i=s.index(sys.argv[1]); print(sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s[:i]))' "$2"; }
t_eq "wide characters keep the next column aligned" "$(col_of "$wide_line" "$wide_id")" "$(col_of "$plain_line" "$oth_id")"

# Views split by kind.
tmux_type 1
dash_check "Boxes shows boxes (classified by core from their metadata)" "feature-x"
dash_check_gone "Boxes does not show other sandboxes" "plain-one"
# An hour's box: "1h 00m" within its first minute, then "59m" (the figure falls as time goes).
t_ok "a running box shows the time it has left (minutes while far away)" \
    grep -qE ' (1h 00m|5[0-9]m) ' <<<"$(tmux_capture | grep feature-x)"
tmux_type 2
dash_check "Workspaces shows workspaces (template opencode-e2b-*)" "ws-alpha"
dash_check_row "a paused workspace says so in ENDS" ws-alpha "paused"
tmux_type 3
tmux_wait "plain-one" >/dev/null

# Filter: live, Enter keeps it, Esc clears it.
tmux_type '/'
tmux_type 'PLAIN'
dash_check "the filter prompt shows what is typed" "/PLAIN_"
dash_check_gone "the filter hides non-matching rows while typing" "feature-x"
tmux_keys Enter
dash_check "the kept filter is shown in the status line" "filter: PLAIN"
dash_check "the filtered count" "1/1"
tmux_keys Escape
dash_check "Esc clears the filter" "feature-x"
dash_check "all rows are back" "/5"
tmux_type '/zzz-no-such'
tmux_keys Enter
dash_check "a filter with no match says so" 'No row matches the filter "zzz-no-such"'
tmux_keys Escape
tmux_wait "feature-x" >/dev/null 2>&1

# Sort with > (the first column: NAME); I reverses; the cursor stays on its row.
tmux_type '>'
dash_check "> sorts by name" "sorted by NAME (ascending)"
dash_check_line "ascending by name puts evil first" 3 "evil"
tmux_type 'I'
dash_check "I reverses" "sorted by NAME (descending)"
dash_check_line "descending by name puts the non-ASCII name first" 3 "日本語"
dash_check_line "the header marks the sort column" 2 "NAME↓"

tmux_type '/ws-alpha'
tmux_keys Enter
tmux_wait "1/1" >/dev/null 2>&1
# Detail pane.
tmux_keys Enter
dash_check "Enter opens the detail pane" "DETAIL"
dash_check "detail shows the template" "opencode-e2b-ws"
dash_check "detail shows the kind" "Kind         workspace"
dash_check "detail shows the metadata" "name = ws-alpha"
tmux_keys Escape
dash_check_gone "Esc closes the detail pane" "DETAIL"
# The hostile box in detail: its record, with the name sanitised in every place.
tmux_keys Escape
tmux_type "/$evil_id"
tmux_keys Enter
tmux_wait "1/1" >/dev/null
tmux_type d
dash_check "d opens the detail pane" "DETAIL"
dash_check "detail of a box shows its box name, sanitised" "Box          evil?[2J?]0;PWNED?name"
dash_check "detail shows the metadata, sanitised" "e2b-tui.name = evil?[2J?]0;PWNED?name"
# m:ss under ten minutes (1:00 when the pane opens within a second of the start, 0:ss later)
dash_check_match "detail shows the time left (seconds in the last minutes)" 'Time left +[0-9]:[0-5][0-9]( |$)'
t_not_contains "no raw escape in the detail pane" "$(tmux_capture -e)" $'\033]0;'
t_not_contains "the window title is still untouched" "$(tm display-message -p -t t '#{pane_title}')" "PWNED"
tmux_type q
dash_check_gone "q closes the detail pane (not the dashboard)" "DETAIL"
# Tab completes the hostile name into the command line: drawn through the sanitiser too.
tmux_type ':detail evil'
tmux_keys Tab
dash_check "a name Tab completes is drawn sanitised" ":detail evil?[2J?]0;PWNED?name"
t_not_contains "no raw escape in the command line" "$(tmux_capture -e)" $'\033]0;'
tmux_keys Escape

# Kill asks first, defaults to No, and Yes kills the sandbox on the server.
tmux_keys Escape
tmux_type '/plain-one'
tmux_keys Enter
tmux_wait "1/1" >/dev/null 2>&1
tmux_type 'K'
dash_check "K asks before killing" "Kill sandbox"
dash_check "the question names the sandbox" "\"plain-one\" ($oth_id)"
dash_check "No is the default" "[ No ]"
tmux_keys Enter
dash_check "Enter answers No" "Kill sandbox: cancelled"
t_eq "No left the sandbox running on the server" "$(sbx_state "$oth_id")" running
tmux_type 'K'
dash_check "K asks again" "[ No ]"
tmux_type 'y'
dash_check "yes kills it (status line)" "plain-one killed"
t_eq "the sandbox is gone on the server" "$(sbx_state "$oth_id")" gone
dash_check "the list refreshed without it" "No row matches the filter"
dash_quit "quits after the list tests"

# Without a UTF-8 locale, non-ASCII text becomes '?' (never "M-x" byte spellings) and the
# columns stay aligned.
dash_start 120 30 LC_ALL=C
tmux_type 3
dash_check "C locale: rows are listed" "feature-x"
# (feature-x is a box, on the first tab too: the wide row shows that the 3 was taken)
tmux_wait "$wide_id" >/dev/null 2>&1
screen=$(tmux_capture)
t_not_contains "C locale: no M- byte spellings" "$screen" "M-"
t_contains "C locale: non-ASCII shown as ?" "$(printf '%s\n' "$screen" | grep "$wide_id")" "???"
wide_line=$(printf '%s\n' "$screen" | grep "$wide_id")
plain_line=$(printf '%s\n' "$screen" | grep 'feature-x')
t_eq "C locale: columns stay aligned" "$(col_of "$wide_line" "$wide_id")" "$(col_of "$plain_line" "$box_id")"
dash_quit "quits (C locale)"

# 2,000 sandboxes on a fresh server: the list pages instantly and the last row is reachable.
e2b_local_stop
E2B_LOCAL_STATE=$T_TMP/e2b-local-big
e2b_local_start || t_finish
sbx_many 2000 name || t_fail "2,000 sandboxes created" "see above"
dash_start 120 30
tmux_type 3
dash_check "2,000 rows are counted (all pages listed)" "1/2000"
tmux_keys End
dash_check "End reaches the last of 2,000 rows" "2000/2000"
tmux_type '>'
dash_check "sorting 2,000 rows by name" "sorted by NAME (ascending)"
tmux_type 'g'
if tmux_wait_line 3 "name-0001" 2>"$T_TMP/wait.err"; then t_pass "ascending: name-0001 first"; else t_fail "ascending: name-0001 first" "$(tail -c 1500 "$T_TMP/wait.err")"; fi
tmux_type 'I'
dash_check "again: descending" "sorted by NAME (descending)"
tmux_type 'g'
if tmux_wait_line 3 "name-2000" 2>"$T_TMP/wait.err"; then t_pass "descending: name-2000 first"; else t_fail "descending: name-2000 first" "$(tail -c 1500 "$T_TMP/wait.err")"; fi
tmux_type '/name-1999'
tmux_keys Enter
dash_check "filtering 2,000 rows" "1/1"
dash_quit "quits after 2,000 rows"
t_finish
