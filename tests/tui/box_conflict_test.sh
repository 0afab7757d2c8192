#!/usr/bin/env bash
# Box operations act on the sandbox the user chose (issue 13, defect 4). A stale local
# record (its sandbox gone) plus a new sandbox of the same box name made elsewhere: K on the
# shown row kills that sandbox (not the record's), and one-shot --kill NAME is a conflict
# (exit 5) naming both sandboxes, with nothing killed or removed. Two sandboxes with one box
# name and no record: one-shot --kill, --stop, --pull and --attach, and the dashboard's
# :kill NAME and :stop NAME, are conflicts naming both. Checked on the
# server (e2b-local) and in the records directory. a on that row says the record's
# password is another sandbox's instead of using it.
. "$(dirname "$0")/common.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish
records=$XDG_STATE_HOME/e2b-tui/boxes

# The stale record: a sandbox that existed and is gone now.
sbx_create base running 3600 || t_fail "the old sandbox is made" "create failed"
old=$SBX_ID
t_eq "the old sandbox is deleted on the server" "$(el_req DELETE "/sandboxes/$old")" 204
(umask 077 && mkdir -p "$records" && cat >"$records/dup.json" <<JSON
{"version": 1, "name": "dup", "sandbox_id": "$old", "template": "base", "branch": "main",
 "base": "", "dir": "$BOX_REPO", "port": 4096, "opencode": 2,
 "created_at": "2026-01-01T00:00:00Z"}
JSON
)
# The new box of that name, made on another machine (box metadata, no local record).
sbx_create base running 3600 e2b-tui=box e2b-tui.name=dup e2b-tui.branch=main ||
    t_fail "the new same-name sandbox is made" "create failed"
new=$SBX_ID

box_tui --kill dup
box_rc "--kill NAME with a stale record and another box of that name: exit 5" 5
t_contains "the conflict names the record's sandbox" "$(cat "$BOX_ERR")" "$old"
t_contains "and the other sandbox of that name" "$(cat "$BOX_ERR")" "$new"
t_eq "nothing was killed" "$(sbx_state "$new")" running
t_ok "the record stays" test -e "$records/dup.json"

# The dashboard: K on the shown row kills the sandbox shown (wide: the message is long).
dash_start 200 30
dash_check_row "the row shows the new sandbox" "dup " "$new"
# a on that row: the record's password is another sandbox's, so it is not used.
tmux_type a
dash_check "a on the row says the record points elsewhere" "record is for sandbox $old, not $new"
tmux_type K
dash_check "K asks about the shown sandbox's id" "$new"
tmux_type y
dash_check "K kills the shown sandbox" "box dup killed"
t_eq "the shown sandbox is gone on the server" "$(sbx_state "$new")" gone
dash_check "the status line says the record was left alone" "points at sandbox"
t_ok "the record of the other sandbox is kept" test -e "$records/dup.json"
dash_quit "quits after the kill"

# Two sandboxes with one box name, no record: by name it is a conflict that names both.
sbx_create base running 3600 e2b-tui=box e2b-tui.name=twin || t_fail "twin 1" "create failed"
t1=$SBX_ID
sbx_create base running 3600 e2b-tui=box e2b-tui.name=twin || t_fail "twin 2" "create failed"
t2=$SBX_ID
box_tui --kill twin
box_rc "--kill NAME of two sandboxes: exit 5" 5
t_contains "the conflict names the first" "$(cat "$BOX_ERR")" "$t1"
t_contains "and the second" "$(cat "$BOX_ERR")" "$t2"
t_eq "the first still runs" "$(sbx_state "$t1")" running
t_eq "the second still runs" "$(sbx_state "$t2")" running
box_tui --stop twin
box_rc "--stop NAME of two sandboxes: exit 5" 5
t_eq "neither was paused" "$(sbx_state "$t1") $(sbx_state "$t2")" "running running"
# (the twins of the guard: every one-shot mode that takes a box NAME)
box_tui --pull twin
box_rc "--pull NAME of two sandboxes: exit 5" 5
t_contains "--pull's conflict names both" "$(cat "$BOX_ERR")" "$t1"
t_contains "... the second too" "$(cat "$BOX_ERR")" "$t2"
t_not_contains "nothing was pulled" "$(git -C "$BOX_REPO" branch --list 'e2b/twin')" "e2b/twin"
box_tui --attach twin
box_rc "--attach NAME of two sandboxes: exit 5" 5
t_contains "--attach's conflict names both" "$(cat "$BOX_ERR")" "$t1"
t_contains "... the second too" "$(cat "$BOX_ERR")" "$t2"
# The dashboard's :cmd NAME is the same conflict: refused, naming both, no row picked.
dash_start 220 30
dash_check_row "the first twin is listed" "twin " "$t1"
tmux_type :
tmux_type "kill twin"
tmux_keys Enter
dash_check ":kill twin is refused as a conflict" ":kill: 2 sandboxes are box twin ("
dash_check_match "the refusal names both sandboxes" "($t1, $t2|$t2, $t1)"
t_not_contains "no kill question is asked" "$(tmux_capture)" "Kill sandbox"
t_eq "neither twin was killed" "$(sbx_state "$t1") $(sbx_state "$t2")" "running running"
tmux_type :
tmux_type "stop twin"
tmux_keys Enter
dash_check ":stop twin is refused as a conflict" ":stop: 2 sandboxes are box twin ("
t_eq "neither twin was paused" "$(sbx_state "$t1") $(sbx_state "$t2")" "running running"
dash_quit "quits after the conflict"
t_finish
