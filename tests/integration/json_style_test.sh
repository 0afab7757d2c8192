#!/usr/bin/env bash
# One JSON style for every --json output (--list, --secrets list, --status): one document
# on one compact line with a "version" field; --pretty prints the same document indented by
# two; --pretty without --json is a usage error (exit 2). Against e2b-local: a sandbox that is
# not a box, a record whose sandbox is gone (a box), and a stored secret.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
t_isolated_home
e2b_local_start || t_finish
export E2B_TUI_KEYSTORE=file
el_create || t_finish
records=$XDG_STATE_HOME/e2b-tui/boxes
mkdir -p "$records"
chmod 700 "$XDG_STATE_HOME/e2b-tui" "$records"
printf '{"version":1,"name":"gone-box","sandbox_id":"sbx-gone","template":"opencode","branch":"main","base":"","dir":"/tmp","port":4096,"opencode":2,"created_at":"2026-01-01T00:00:00Z"}\n' \
    >"$records/gone-box.json"
chmod 600 "$records/gone-box.json"
ANTHROPIC_API_KEY=sk-ant-style "$E2B_TUI_BIN" --secrets set anthropic >/dev/null 2>&1 ||
    t_fail "a secret is stored" "--secrets set failed"

run() {
    "$E2B_TUI_BIN" "$@" >"$T_TMP/out" 2>"$T_TMP/err"
    RC=$?
}
for mode in "--list" "--secrets list" "--status"; do
    # shellcheck disable=SC2086 # the mode is two words for --secrets list
    run $mode --json
    t_eq "$mode --json exits 0" "$RC" 0
    t_eq "$mode --json: one line" "$(wc -l <"$T_TMP/out")" 1
    t_eq "$mode --json: one document with version 1" "$(jq -s 'length, .[0].version' "$T_TMP/out" | tr '\n' ' ')" "1 1 "
    t_eq "$mode --json: compact (as jq -c writes it)" "$(cat "$T_TMP/out")" "$(jq -c . "$T_TMP/out")"
    cp "$T_TMP/out" "$T_TMP/compact"
    # shellcheck disable=SC2086
    run $mode --json --pretty
    t_eq "$mode --json --pretty exits 0" "$RC" 0
    t_ok "$mode --json --pretty: several lines" test "$(wc -l <"$T_TMP/out")" -gt 3
    t_eq "$mode --json --pretty: indented by two" "$(sed -n 2p "$T_TMP/out" | cut -c1-3)" '  "'
    t_eq "$mode --json --pretty: the same document" "$(jq -c . "$T_TMP/out")" "$(cat "$T_TMP/compact")"
done
run --list --json
t_eq "--list --json: the box, the sandbox" \
    "$(jq -r '[.boxes[].name, .sandboxes[].sandbox_id] | join(" ")' "$T_TMP/out")" "gone-box $EL_ID"
run --list --pretty
t_eq "--pretty without --json: usage error" "$RC" 2
t_contains "it names --pretty" "$(cat "$T_TMP/err")" "--pretty"
t_finish
