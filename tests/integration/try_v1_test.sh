#!/usr/bin/env bash
# Best of N on OpenCode's v1 API (the `opencode = 1` preset: the model goes with each
# message, not with the session): --up g --try 2 --models mock/m1,mock/m2 gives each member
# its model, --wait g ends with one member passing, --compare tells pass and fail.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/lib/agent.sh"
. "$E2B_TUI_ROOT/tests/lib/try_fixture.sh"
try_fixture 1 || t_abort "the fixture could not be set up"

box_tui --up g --try 2 --prompt "Write the answer." --models mock/m1,mock/m2
box_rc "v1: --up g --try 2: exit 0" 0 || t_abort "no group: $(cat "$BOX_ERR")"
t_ok "v1: g-2 got model mock/m2" grep -Eq '^g-2	ses_[A-Za-z0-9]+	mock/m2$' "$BOX_OUT"
id2=$(box_sandbox_of g-2)
box_tui --wait g --timeout 180
box_rc "v1: --wait g: exit 0 (one member passes)" 0
t_eq "v1: g-2's agent requests asked model m2" \
    "$(jq -r 'select(.title == false) | .model' "$(box_root "$id2")/tmp/agent-model.log" 2>/dev/null | sort -u)" "m2"
box_tui --compare g --json
box_rc "v1: --compare --json: exit 0" 0
t_eq "v1: g-1 passes, g-2 fails" "$(jq -r '[.members[].test.result] | join(" ")' "$BOX_OUT")" "pass fail"
t_ok "v1: the tokens and cost are a number each or null (unknown), never made up" \
    jq -e '[.members[] | ((.cost | type) == "number" or .cost == null) and ((.tokens | type) == "object" or .tokens == null)] | all' "$BOX_OUT"
for b in g-1 g-2; do box_tui --kill "$b" --force; done
t_finish
