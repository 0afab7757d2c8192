#!/usr/bin/env bash
# Best of N (issue 34): a member's evidence (its diff and the project's test_command run in
# it when its turn ends) is kept beside the records, so that it does not depend on who
# watches: --compare later reuses the tests --wait took (it does not run them again), a
# member paused since still shows the result of its turn, and a new box of the same name
# does not inherit it. Real binary, e2b-local, the real OpenCode server (v2), scripted model.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/lib/agent.sh"
. "$E2B_TUI_ROOT/tests/lib/try_fixture.sh"
try_fixture || t_abort "the fixture could not be set up"
BOXES=$XDG_STATE_HOME/e2b-tui/boxes
CFG=$XDG_CONFIG_HOME/e2b-tui/config

box_tui --up g --try 2 --prompt "Write the answer." --models mock/m1,mock/m2
box_rc "--up g --try 2: exit 0" 0 || t_abort "the group was not made: $(cat "$BOX_ERR")"
id1=$(box_sandbox_of g-1)
id2=$(box_sandbox_of g-2)
box_tui --wait g --timeout 180
box_rc "--wait g: one member passes: exit 0" 0
t_ok "g-1's evidence is kept beside the records" test -f "$BOXES/.evidence/g-1.json"
t_eq "it is private (0600)" "$(stat -c %a "$BOXES/.evidence/g-1.json" 2>/dev/null)" 600
t_eq "it names the member's sandbox and its result" \
    "$(jq -r '"\(.sandbox_id) \(.test) \(.exit_code)"' "$BOXES/.evidence/g-1.json")" "$id1 pass 0"
t_eq "g-2's says fail" "$(jq -r .test "$BOXES/.evidence/g-2.json")" fail

# A test_command that would fail and leave a mark: --compare must not run it again.
sed -i 's|^test_command = .*|test_command = touch rerun.txt; exit 3|' "$CFG"
box_tui --compare g --json
box_rc "--compare g --json: exit 0" 0
t_eq "the kept evidence: g-1 passes, g-2 fails" "$(jq -r '[.members[].test.result] | join(" ")' "$BOX_OUT")" "pass fail"
t_ok "the tests were not run again in g-1" test ! -e "$(box_root "$id1")$BOX_REPO/rerun.txt"
t_ok "nor in g-2" test ! -e "$(box_root "$id2")$BOX_REPO/rerun.txt"
t_contains "g-2's last test lines are its turn's" "$(jq -r '.members[1].test.tail' "$BOX_OUT")" "answer.txt is not good"

# A member paused since its turn ended: its result stays (nothing can be run in it now).
box_tui --stop g-2
box_rc "--stop g-2" 0
box_tui --compare g
box_rc "--compare g with g-2 paused: exit 0" 0
t_eq "the summary still counts both" "$(head -n 1 "$BOX_OUT")" "group g: 2/2 done, 1 passing"
t_ok "g-2 still fails, from its turn's evidence" grep -Eq '^g-2 .* fail ' "$BOX_OUT"
box_tui --wait g --timeout 60
box_rc "--wait g with g-2 paused: g-1 passes: exit 0" 0
box_tui --resume g-2
box_rc "--resume g-2" 0

# A new turn makes the evidence stale: it is taken again (with the new test_command).
box_tui --prompt g-1 "Write the answer again."
box_rc "g-1 gets a second task" 0
box_tui --wait g-1 --timeout 120
box_rc "g-1's second turn ends" 0
box_tui --compare g --json
t_eq "g-1's evidence is of its new turn (the new test_command fails)" \
    "$(jq -r '.members[0].test | "\(.result) \(.exit_code)"' "$BOX_OUT")" "fail 3"
t_ok "the new test_command ran in g-1 this time" test -e "$(box_root "$id1")$BOX_REPO/rerun.txt"
t_eq "and the file says so" "$(jq -r .exit_code "$BOXES/.evidence/g-1.json")" 3

# A box killed takes its evidence with it; a saved file of another sandbox is ignored.
box_tui --kill g-2 --force
box_rc "--kill g-2 --force" 0
t_ok "g-2's evidence went with its record" test ! -e "$BOXES/.evidence/g-2.json"
jq '.sandbox_id = "inothersandboxxxxxxx" | .test = "error" | .exit_code = 99' "$BOXES/.evidence/g-1.json" >"$T_TMP/ev"
cp "$T_TMP/ev" "$BOXES/.evidence/g-1.json"
sed -i 's|^test_command = .*|test_command = sh check.sh|' "$CFG"
box_tui --compare g --json
t_eq "evidence naming another sandbox is not g-1's: taken again" \
    "$(jq -r '.members[0].test | "\(.result) \(.exit_code)"' "$BOX_OUT")" "pass 0"
t_eq "and saved for g-1's sandbox" "$(jq -r .sandbox_id "$BOXES/.evidence/g-1.json")" "$id1"

box_tui --kill g-1 --force
t_finish
