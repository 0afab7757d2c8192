#!/usr/bin/env bash
# Best of N (issue 34) against e2b-local with the real OpenCode server (v2) and the scripted
# model: `--up g --try 2 --prompt ... --models mock/m1,mock/m2` makes one box g-1 (one
# upload), forks it into g-2, records both as group g, and gives each the task with its own
# model; the scripted model answers m1 and m2 differently (m1's answer passes the project's
# test_command, m2's fails it). --list --json and --status --json show the group.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/lib/agent.sh"
agent_setup 2 || t_abort "the box could not be set up"
BOXES=$XDG_STATE_HOME/e2b-tui/boxes

# The fixture project: two models, bash allowed, a check that passes only for "good", and
# the model's script in the project (each member's model reads it from its own copy).
cat >"$BOX_REPO/opencode.json" <<'EOF'
{"$schema":"https://opencode.ai/config.json","provider":{"mock":{"npm":"@ai-sdk/openai-compatible","name":"Mock","options":{"baseURL":"http://127.0.0.1:8111/v1","apiKey":"x"},"models":{"m1":{},"m2":{}}}},"model":"mock/m1","small_model":"mock/m1","permission":{"bash":"allow"},"autoupdate":false,"share":"disabled"}
EOF
cat >"$BOX_REPO/check.sh" <<'EOF'
#!/bin/sh
# the project's tests: the answer must be good
echo "checking answer.txt"
grep -qx good answer.txt
EOF
cat >"$BOX_REPO/.agent/try-script.json" <<'EOF'
{"title":"Answer","steps":[{"text":"m1 here.","tool":"bash","args":{"command":"echo good > answer.txt","description":"answer"}},{"text":"I wrote a good answer."}],
 "by_model":{"m2":{"title":"Answer","steps":[{"text":"m2 here.","tool":"bash","args":{"command":"echo bad > answer.txt; echo extra >> answer.txt","description":"answer"}},{"text":"I wrote a bad answer."}]}}}
EOF
chmod +x "$BOX_REPO/check.sh"
(cd "$BOX_REPO" && git add -f opencode.json check.sh .agent && git commit -q -m "try fixture") ||
    t_abort "the fixture could not be committed"
sed -i 's|--script /tmp/agent-script.json|--script "$1/.agent/try-script.json"|' "$XDG_CONFIG_HOME/e2b-tui/config"
grep -q 'try-script.json' "$XDG_CONFIG_HOME/e2b-tui/config" || t_abort "the serve command was not changed"

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

box_tui --wait g-1 --timeout 120
box_rc "g-1's turn ends: exit 0" 0
box_tui --wait g-2 --timeout 120
box_rc "g-2's turn ends: exit 0" 0
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

# ---- a box outside any group says null ----
box_tui --up solo
box_rc "an up with no --try" 0
box_tui --list --json
t_eq "--list --json: a box of no group has group null" "$(jq -r '.boxes[] | select(.name == "solo") | .group' "$BOX_OUT")" "null"

for b in g-1 g-2 solo; do box_tui --kill "$b" --force; done
t_finish
