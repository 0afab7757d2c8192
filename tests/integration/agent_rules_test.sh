#!/usr/bin/env bash
# Issue 38, approval rules and the history, against the real OpenCode server (v2 API) and
# the scripted model in an e2b-local box:
#   - --up --approve 'bash:python3 -m unittest*': --wait's own watch answers a matching
#     request once (the turn finishes, exit 0) and the history says "allowed by rule";
#   - a request the rule does not match waits (--wait exits 6);
#   - --approve NAME --yes-all (a warning on stderr) allows it; --revoke takes it back;
#   - --history NAME [--json] prints the state changes with times; history_max caps it.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/lib/agent.sh"
agent_setup 2 || t_abort "the box could not be set up"
box_tui --up alpha --approve 'bash:python3 -m unittest*'
box_setup_rc "up alpha with a rule" 0
t_eq "the rule is in the record" "$(jq -r '.approve[0]' "$XDG_STATE_HOME/e2b-tui/boxes/alpha.json")" "bash:python3 -m unittest*"
ida=$(box_sandbox_of alpha)

# ---- a matching request is allowed by the rule ----
agent_script "$ida" '{"title":"Tests","steps":[{"tool":"bash","args":{"command":"python3 -m unittest -q","description":"t"}},{"text":"Tests ran."}]}'
box_tui --prompt alpha "run the tests"
box_rc "a task that asks to run the tests" 0
box_tui --wait alpha --timeout 120
box_rc "--wait: the rule allowed it, the turn finished (exit 0)" 0
box_tui --history alpha
t_contains "the history: allowed by rule" "$(cat "$BOX_OUT")" "alpha allowed by rule bash:python3 -m unittest*: bash: python3 -m unittest -q"
t_contains "the history: it started working" "$(cat "$BOX_OUT")" "alpha started working"
t_contains "the history: the turn ended" "$(cat "$BOX_OUT")" "alpha idle: done"
t_ok "each line has a time" sh -c "grep -qE '^20[0-9-]+ [0-9:]+  alpha ' '$BOX_OUT'"
t_eq "the history file is 0600" "$(stat -c %a "$XDG_STATE_HOME/e2b-tui/history.log")" 600
box_tui --history alpha --json
t_ok "--history --json: events with at, box, event" jq -e '.version == 1 and (.events | length >= 3) and (.events[0].at | test("^20")) and (.events | any(.event | startswith("allowed by rule")))' "$BOX_OUT"

# ---- one the rule does not match waits for you ----
agent_script "$ida" '{"title":"Clean","steps":[{"tool":"bash","args":{"command":"python3 -m unittest; rm -rf build","description":"c"}},{"text":"Cleaned."}]}'
box_tui --prompt alpha "clean"
box_rc "a task whose command the rule does not allow" 0
box_tui --wait alpha --timeout 120
box_rc "--wait: it waits for you (exit 6)" 6
t_contains "on that command" "$(cat "$BOX_ERR")" "rm -rf build"

# ---- --yes-all allows it, loudly ----
box_tui --approve alpha --yes-all
box_rc "--approve alpha --yes-all" 0
t_contains "a loud warning" "$(cat "$BOX_ERR")" "WARNING: yes-all"
box_tui --wait alpha --timeout 120
box_rc "--wait: yes-all allowed the waiting request (exit 0)" 0
box_tui --history alpha
t_contains "the history says yes-all" "$(cat "$BOX_OUT")" "allowed by rule yes-all: bash: python3 -m unittest; rm -rf build"

# ---- listing and revoking ----
box_tui --approve alpha
box_rc "--approve alpha lists" 0
t_contains "e2b-tui's rule" "$(cat "$BOX_OUT")" "e2b-tui	bash:python3 -m unittest*"
t_contains "and yes-all" "$(cat "$BOX_OUT")" "e2b-tui	yes-all"
box_tui --revoke alpha yes-all
box_rc "--revoke alpha yes-all" 0
box_tui --revoke alpha 'bash:python3 -m unittest*'
box_rc "--revoke the rule" 0
t_eq "the record has none left" "$(jq -r '(.approve // []) | length' "$XDG_STATE_HOME/e2b-tui/boxes/alpha.json") $(jq -r '.yes_all // false' "$XDG_STATE_HOME/e2b-tui/boxes/alpha.json")" "0 false"
box_tui --revoke alpha edit
box_rc "--revoke of a rule it does not have: exit 3" 3
box_tui --approve alpha 'Bash:ls'
box_rc "a bad rule: exit 2" 2

# ---- the server's saved "always" permissions: listed and removed ----
agent_script "$ida" '{"title":"Always","steps":[{"tool":"bash","args":{"command":"echo ok > ok.txt","description":"o"}},{"text":"Ok."}]}'
box_tui --prompt alpha "ok"
box_tui --wait alpha --timeout 120
box_rc "it waits again" 6
box_tui --reply alpha always
box_rc "allowed always: the server saves it" 0
box_tui --approve alpha
t_contains "the server's saved permission is listed" "$(cat "$BOX_OUT" "$BOX_ERR")" "server	"
sid=$(awk -F'\t' '$1 == "server" { print $2; exit }' "$BOX_OUT")
t_ok "with its id" test -n "$sid"
box_tui --revoke alpha --saved "$sid"
box_rc "--revoke --saved" 0
box_tui --approve alpha
t_ok "it is gone from the server" sh -c "! grep -q '^server	' '$BOX_OUT'"

# ---- the cap: history_max rotates into history.log.1 ----
h=$XDG_STATE_HOME/e2b-tui/history.log
printf 'history_max = 1K\n' >>"$XDG_CONFIG_HOME/e2b-tui/config"
for i in $(seq 1 30); do printf '1764700000\told\tline %02d of an older run\n' "$i"; done >>"$h"
agent_script "$ida" '{"title":"Again","steps":[{"text":"Done again."}]}'
box_tui --prompt alpha "again"
box_tui --wait alpha --timeout 120
box_rc "one more turn" 0
t_ok "rotated: history.log.1 holds the old lines" grep -q 'line 30 of an older run' "$h.1"
t_ok "and history.log is within the cap" test "$(stat -c %s "$h")" -le 1024
t_ok "history.log.1 too (about the cap)" test "$(stat -c %s "$h.1")" -le 4096
t_eq "history.log.1 is 0600 too" "$(stat -c %a "$h.1")" 600
box_tui --history alpha
t_contains "--history reads both files" "$(cat "$BOX_OUT")" "alpha idle: done"
box_tui --kill alpha --force
t_finish
