#!/usr/bin/env bash
# An open dashboard follows what other processes write about a group (issue 34): the group
# made by `--up g --try 2` in another terminal (its members' models recorded after their
# task), and the evidence a `--wait g` there takes and saves, reach the dashboard's GROUP
# cells and its Compare pane within a refresh, although neither changes the records'
# names or count. The dashboard's own tests never end here (its config's test_command
# sleeps), so what it shows can only come from the other process's files. Real binary,
# e2b-local, the real OpenCode server, the scripted model, tmux.
. "$(dirname "$0")/try_common.sh"

# The dashboard's config: the same, but its tests take longer than this test.
DASH_CONFIG=$T_TMP/dash.config
sed -e 's/^test_command = .*/test_command = sleep 900/' -e 's/^test_timeout = .*/test_timeout = 1000/' \
    "$XDG_CONFIG_HOME/e2b-tui/config" >"$DASH_CONFIG"
grep -q '^test_command = sleep 900' "$DASH_CONFIG" || t_abort "no dashboard config"

DASH_CWD=$BOX_REPO dash_start 190 30 -- --config "$DASH_CONFIG" --refresh 1
box_tui --up g --try 2 --prompt "Write the answer." --models mock/m1,mock/m2
box_rc "another process makes the group" 0 || t_abort "no group: $(cat "$BOX_ERR")"
dash_check "the dashboard lists the members" "g-2 " 60
dash_check_row "g-1's turn ends; its tests (the dashboard's) still run" "g-1 " "g: 2/2 done, 0 passing" 120

box_tui --wait g --timeout 120
box_rc "--wait g in another process: one member passes" 0
t_ok "it saved g-1's evidence" test -f "$BOXES/.evidence/g-1.json"
dash_check_row "the dashboard's GROUP cell shows the evidence --wait saved" "g-1 " \
    "g: 2/2 done, 1 passing" 30
dash_check_row "on every member's row" "g-2 " "g: 2/2 done, 1 passing"
tmux_type ":compare g"
tmux_keys Enter
dash_check "the Compare pane has the same summary" "COMPARE  g  2/2 done, 1 passing" 30
dash_check_row "g-1 passes (the other process's run)" "g-1 " "pass"
dash_check_row "g-2 fails, with its last line" "g-2 " "answer.txt is not good"
dash_check_row "g-2's model, recorded after its task" "g-2 " "mock/m2"

tmux_keys Escape
dash_quit "the dashboard ends"
for b in g-1 g-2; do box_tui --kill "$b" --force; done
t_finish
