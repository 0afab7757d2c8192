#!/usr/bin/env bash
# Best of N (issue 34) against e2b-local with the real OpenCode server (v2) and the scripted
# model: `--up g --try 2 --prompt ... --models mock/m1,mock/m2` makes one box g-1 (one
# upload), forks it into g-2, records both as group g, and gives each the task with its own
# model; the scripted model answers m1 and m2 differently (m1's answer passes the project's
# test_command, m2's fails it). --list --json and --status --json show the group;
# --compare shows each member's diff and test result; a member pulls as e2b/g.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/lib/agent.sh"
. "$E2B_TUI_ROOT/tests/lib/try_fixture.sh"
try_fixture || t_abort "the fixture could not be set up"
BOXES=$XDG_STATE_HOME/e2b-tui/boxes

# ---- usage ----
box_tui --up g --try 2
box_rc "--try without a task: exit 2" 2
t_contains "it says what is missing" "$(cat "$BOX_ERR")" "needs the task"
box_tui --up --try 2 --prompt x
box_rc "--try without a group name: exit 2" 2
box_tui --up g --try 1 --prompt x
box_rc "--try 1: exit 2" 2
box_tui --up g --try 5 --prompt x
box_rc "--try 5 without --yes: exit 2" 2
box_tui --up g --try 2 --prompt x --models m1
box_rc "--models without provider/: exit 2" 2
box_tui --list --models mock/m1
box_rc "--models without --try: exit 2" 2
t_eq "no box was made by a refused --try" "$(ls "$BOXES" 2>/dev/null | wc -l)" 0

# ---- the group ----
box_tui --up g --try 2 --prompt "Write the answer." --models mock/m1,mock/m2
box_rc "--up g --try 2: exit 0" 0 || t_abort "the group was not made: $(cat "$BOX_ERR")"
t_ok "it prints g-1 with its session and model" grep -Eq '^g-1	ses_[A-Za-z0-9]+	mock/m1$' "$BOX_OUT"
t_ok "it prints g-2 with its session and model" grep -Eq '^g-2	ses_[A-Za-z0-9]+	mock/m2$' "$BOX_OUT"
t_eq "two records, both of group g" "$(jq -r '.group' "$BOXES/g-1.json" "$BOXES/g-2.json" | tr '\n' ' ')" "g g "
t_eq "no other box" "$(ls "$BOXES" | tr '\n' ' ')" "g-1.json g-2.json "
id1=$(box_sandbox_of g-1)
id2=$(box_sandbox_of g-2)
t_ok "two sandboxes" test -n "$id1" -a -n "$id2" -a "$id1" != "$id2"
t_eq "one upload: g-2 is a fork (its record's base is g-1's)" "$(jq -r .base "$BOXES/g-2.json")" "$(jq -r .base "$BOXES/g-1.json")"

box_tui --wait g --timeout 180
box_rc "--wait g (the group): every member's turn ends, one passes: exit 0" 0
t_eq "--wait g prints the group's summary" "$(head -n 1 "$BOX_OUT")" "group g: 2/2 done, 1 passing"
box_tui --wait g-2 --timeout 60
box_rc "--wait of one member is that box's own --wait: exit 0" 0
t_contains "and says how its turn ended" "$(cat "$BOX_OUT")" "idle: done"
t_eq "g-1 (model m1) wrote the good answer" "$(cat "$(box_root "$id1")$BOX_REPO/answer.txt" 2>/dev/null)" "good"
t_eq "g-2 (model m2) wrote the bad one" "$(head -n 1 "$(box_root "$id2")$BOX_REPO/answer.txt" 2>/dev/null)" "bad"
t_eq "g-2's agent requests asked model m2" \
    "$(jq -r 'select(.title == false) | .model' "$(box_root "$id2")/tmp/agent-model.log" 2>/dev/null | sort -u)" "m2"

box_tui --list --json
t_eq "--list --json: the group of each member" \
    "$(jq -r '[.boxes[] | "\(.name)=\(.group)"] | sort | join(" ")' "$BOX_OUT")" "g-1=g g-2=g"
box_tui --status --json
t_eq "--status --json: the group of each member" \
    "$(jq -r '[.boxes[] | "\(.name)=\(.group)"] | sort | join(" ")' "$BOX_OUT")" "g-1=g g-2=g"

# ---- the evidence: diff against the group's base and the project's tests, per member ----
box_tui --compare g --json
box_rc "--compare g --json: exit 0" 0
t_ok "--compare --json is valid JSON with its version" jq -e '.version == 1 and .group == "g"' "$BOX_OUT"
t_eq "one row per member" "$(jq -r '[.members[].name] | join(" ")' "$BOX_OUT")" "g-1 g-2"
t_eq "g-1's tests pass, g-2's fail" "$(jq -r '[.members[].test.result] | join(" ")' "$BOX_OUT")" "pass fail"
t_eq "the exit codes of the tests" "$(jq -r '[.members[].test.exit_code] | join(" ")' "$BOX_OUT")" "0 1"
# what the box's own git says (OpenCode may add files of its own beside the agent's)
want_diff() {
    local w="$(box_root "$1")$BOX_REPO" idx=$T_TMP/idx.$1
    rm -f "$idx"
    cp "$w/.git/index" "$idx"
    git -c safe.directory='*' -C "$w" ls-files -z --others --exclude-standard |
        GIT_INDEX_FILE=$idx git -c safe.directory='*' -C "$w" add -N --pathspec-from-file=- --pathspec-file-nul
    GIT_INDEX_FILE=$idx git -c safe.directory='*' -C "$w" diff --numstat "$(jq -r .base "$BOXES/g-1.json")" -- |
        awk '{f++; a += $1; d += $2} END {printf "%d/%d/%d", f, a, d}'
}
want1=$(want_diff "$id1")
want2=$(want_diff "$id2")
t_eq "the diff against the base: files, +, - (as the box's git counts them)" \
    "$(jq -r '[.members[] | "\(.diff.files)/\(.diff.added)/\(.diff.deleted)"] | join(" ")' "$BOX_OUT")" "$want1 $want2"
t_eq "g-2's answer has one line more than g-1's" \
    "$(jq -r '.members[1].diff.added - .members[0].diff.added' "$BOX_OUT")" 1
t_eq "the models" "$(jq -r '[.members[].model] | join(" ")' "$BOX_OUT")" "mock/m1 mock/m2"
t_eq "each turn ended done" "$(jq -r '[.members[].last_end] | join(" ")' "$BOX_OUT")" "done done"
t_ok "each turn's time is known" jq -e '[.members[].turn_seconds | type == "number"] | all' "$BOX_OUT"
t_eq "cost null: the v2 server said none while --compare watched (unknown, never 0)" "$(jq -r '[.members[].cost] | join(",")' "$BOX_OUT")" ","
t_contains "g-2's last lines of the tests" "$(jq -r '.members[1].test.tail' "$BOX_OUT")" "answer.txt is not good"
t_ok "--compare --json has no raw control byte" sh -c "! grep -qP '[\x00-\x08\x0b-\x1f\x7f]' '$BOX_OUT'"
t_eq "the box's files are as the agent left them (the tests ran in the box, the index untouched)" \
    "$(git -c safe.directory='*' -C "$(box_root "$id1")$BOX_REPO" status --porcelain -- answer.txt)" "?? answer.txt"
box_tui --compare g
box_rc "--compare g: exit 0" 0
t_ok "the table: g-1 passes, with its diff" grep -Eq "^g-1 +idle: done +mock/m1 .* ${want1%%/*} +\\+$(echo "$want1" | cut -d/ -f2)/-$(echo "$want1" | cut -d/ -f3) pass " "$BOX_OUT"
t_ok "the table: g-2 fails, with its diff" grep -Eq "^g-2 +idle: done +mock/m2 .* ${want2%%/*} +\\+$(echo "$want2" | cut -d/ -f2)/-$(echo "$want2" | cut -d/ -f3) fail " "$BOX_OUT"
t_eq "the table's first line: the group's summary" "$(head -n 1 "$BOX_OUT")" "group g: 2/2 done, 1 passing"
t_contains "the table: g-2's last test line" "$(cat "$BOX_OUT")" "tests: answer.txt is not good"
t_ok "the table has no escape from the box" sh -c "! grep -qP '\x1b|\x07' '$BOX_OUT'"
box_tui --compare nosuch
box_rc "--compare of no group: exit 3" 3
box_tui --compare g-1 --json
box_rc "--compare of a member's name (not a group): exit 3" 3

# ---- a box outside any group says null ----
box_tui --up solo
box_rc "an up with no --try" 0
box_tui --list --json
t_eq "--list --json: a box of no group has group null" "$(jq -r '.boxes[] | select(.name == "solo") | .group' "$BOX_OUT")" "null"

# ---- the pick: a member comes home as the group's branch e2b/g, the rest go ----
box_tui --kill g-2
box_rc "--kill g-2 (its work is in no branch): refused, exit 8" 8
box_tui --pick solo
box_rc "--pick of a box of no group: exit 1, saying so" 1
box_tui --list --kill-rest
box_rc "--kill-rest without --pick: exit 2" 2
box_tui --pick g-1 --kill-rest
box_rc "--pick g-1 --kill-rest: exit 0" 0
t_ok "it names the group's branch and the member" grep -Eq '^e2b/g [0-9a-f]{40} created \(member g-1 of group g\)$' "$BOX_OUT"
t_contains "it names the member it killed" "$(cat "$BOX_OUT")" "killed member g-2 (not picked)"
t_eq "e2b/g holds g-1's (the passing member's) answer" "$(git -C "$BOX_REPO" show e2b/g:answer.txt 2>/dev/null)" "good"
t_ok "no branch e2b/g-1 was made" sh -c "! git -C '$BOX_REPO' rev-parse -q --verify e2b/g-1"
t_ok "g-2's record is gone" test ! -e "$BOXES/g-2.json"
t_eq "g-2's sandbox is gone" "$(el_req GET "/sandboxes/$id2")" 404
box_tui --pull g-1
box_rc "--pull g-1 again: exit 0" 0
t_contains "a member's --pull goes to the group's branch too" "$(cat "$BOX_OUT")" "e2b/g"
box_tui --kill g-1
box_rc "--kill g-1 (its work is in e2b/g): exit 0" 0
box_tui --pull solo
t_contains "a box of no group still pulls as e2b/NAME" "$(cat "$BOX_OUT")$(cat "$BOX_ERR")" "solo"

for b in solo; do box_tui --kill "$b" --force; done
t_finish
