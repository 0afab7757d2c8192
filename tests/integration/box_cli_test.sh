#!/usr/bin/env bash
# The one-shot CLI's surface for boxes: every mode flag parses, bad combinations are usage
# errors (exit 2), missing key is exit 4, unknown boxes are exit 3, --list --json is the
# documented shape, --secrets reads values from the env or stdin and never from argv.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish

usage() { # NAME ARGS...: expects exit 2
    local name=$1
    shift
    box_tui "$@"
    t_eq "usage: $name" "$BOX_RC" 2
}
usage "--stop needs a name" --stop
usage "--kill needs a name" --kill
usage "--attach needs a name" --attach
usage "--secrets needs a command" --secrets
usage "--secrets rejects an unknown command" --secrets show x
usage "--secrets set needs a name" --secrets set
usage "two modes" --list --up
usage "--json only with --list" --up --json
usage "--force only with --pull" --up --force
usage "--hours must be 1..24" --up --hours 0
usage "--hours must be a number" --up --hours two
usage "--template only with --up" --stop x --template t
usage "--keep-failed only with --up" --pull --keep-failed
usage "--dir only with --up/--pull" --list --dir .
t_contains "usage errors name the flag" "$(cat "$BOX_ERR")" "--dir"

box_tui --help
for f in --template --hours --dir --keep-failed --force --json "Exit codes"; do
    t_contains "--help mentions $f" "$(cat "$BOX_OUT")" "$f"
done

E2B_API_KEY= box_tui --list
t_eq "no API key: exit 4" "$BOX_RC" 4
E2B_API_KEY=wrong-key box_tui --list
t_eq "a rejected API key: exit 4" "$BOX_RC" 4
t_contains "a rejected key says so" "$(cat "$BOX_ERR")" "API key"

box_tui --stop nosuchbox
t_eq "stop of an unknown box: exit 3" "$BOX_RC" 3
t_contains "stop of an unknown box names it" "$(cat "$BOX_ERR")" "nosuchbox"
box_tui --kill nosuchbox
t_eq "kill of an unknown box: exit 3" "$BOX_RC" 3
box_tui --attach nosuchbox
t_eq "attach of an unknown box: exit 3" "$BOX_RC" 3
box_tui --stop '../bad'
t_eq "a bad box name is a usage error (exit 2)" "$BOX_RC" 2

# --list --json with a box, a workspace, another sandbox and a record whose sandbox is gone
el_create '{"templateID":"base","metadata":{"purpose":"other"}}'
other=$EL_ID
el_create '{"templateID":"opencode-e2b-proj","metadata":{"workspaceID":"w1"}}'
ws=$EL_ID
el_create '{"templateID":"opencode","metadata":{"e2b-tui":"box","e2b-tui.name":"elsewhere","e2b-tui.branch":"feat/y"}}'
foreign=$EL_ID
mkdir -p "$XDG_STATE_HOME/e2b-tui/boxes"
chmod 700 "$XDG_STATE_HOME/e2b-tui/boxes"
printf '{"version":1,"name":"ghost","sandbox_id":"inotthere0000000","template":"opencode","branch":"main","base":"","dir":"/x/ghost","port":4096,"opencode":2,"created_at":"2026-01-01T00:00:00Z"}\n' \
    >"$XDG_STATE_HOME/e2b-tui/boxes/ghost.json"
box_tui --list --json
t_eq "--list --json exits 0" "$BOX_RC" 0
j=$BOX_OUT
t_eq "json: version 1" "$(jq -r .version "$j")" 1
t_eq "json: the gone box" "$(jq -r '.boxes[] | select(.name=="ghost") | .state + " " + .dir + " " + (.local|tostring)' "$j")" "gone /x/ghost true"
t_eq "json: a box from another machine is listed" "$(jq -r '.boxes[] | select(.name=="elsewhere") | .sandbox_id + " " + .branch + " " + (.local|tostring) + " " + (.dir|tostring)' "$j")" "$foreign feat/y false null"
t_eq "json: the workspace" "$(jq -r '.workspaces[0].sandbox_id + " " + .workspaces[0].state' "$j")" "$ws running"
t_eq "json: the other sandbox" "$(jq -r '.sandboxes[0].sandbox_id + " " + .sandboxes[0].metadata.purpose' "$j")" "$other other"
t_eq "json: times are RFC 3339" "$(jq -r '.sandboxes[0].end_at | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z$")' "$j")" true
box_tui --list
t_eq "--list (table) exits 0" "$BOX_RC" 0
t_contains "table: the gone box" "$(grep ghost "$BOX_OUT")" "gone"
t_contains "table: the other machine's box" "$(grep elsewhere "$BOX_OUT")" "(other machine)"

# a box made on another machine: stop works, attach says the password is not here, kill works
box_tui --stop elsewhere
t_eq "stop of another machine's box: exit 0" "$BOX_RC" 0
el_req GET "/sandboxes/$foreign" >/dev/null
t_eq "it is paused" "$(el_json .state)" paused
box_tui --attach elsewhere
t_eq "attach of another machine's box fails" "$((BOX_RC != 0))" 1
t_contains "attach says the password is not on this machine" "$(cat "$BOX_ERR")" "not on this machine"
box_tui --kill elsewhere
t_eq "kill of another machine's box: exit 0" "$BOX_RC" 0
t_eq "its sandbox is gone" "$(el_req GET "/sandboxes/$foreign")" 404
box_tui --kill ghost
t_eq "kill of a gone box cleans up locally: exit 0" "$BOX_RC" 0
t_contains "with a note" "$(cat "$BOX_ERR")" "already gone"
t_eq "the record is removed" "$(ls "$XDG_STATE_HOME/e2b-tui/boxes" | grep -c ghost)" 0

# secrets: value from the provider's variable, from stdin, never argv; set again updates
ANTHROPIC_API_KEY=sk-ant-test-value-1 box_tui --secrets set anthropic
t_eq "secrets set from ANTHROPIC_API_KEY: exit 0" "$BOX_RC" 0
t_contains "it says which variable" "$(cat "$BOX_ERR")" "ANTHROPIC_API_KEY"
echo "custom-value-2" | (cd "$BOX_REPO" && "$E2B_TUI_BIN" --secrets set mykey) >"$T_TMP/s.out" 2>&1
t_eq "secrets set from stdin: exit 0" "$?" 0
echo "custom-value-3" | (cd "$BOX_REPO" && "$E2B_TUI_BIN" --secrets set mykey) >"$T_TMP/s.out" 2>&1
t_contains "set on an existing secret updates it" "$(cat "$T_TMP/s.out")" "updated secret mykey (version 2)"
t_eq "the server holds the stdin value" "$(jq -r '.[] | select(.name=="mykey") | .value' "$E2B_LOCAL_STATE/secrets.json" 2>/dev/null || jq -r '.. | objects | select(.name?=="mykey") | .value' "$E2B_LOCAL_STATE/secrets.json")" "custom-value-3"
box_tui --secrets set emptyone </dev/null
t_eq "no value: exit 1" "$BOX_RC" 1
box_tui --secrets set 'bad{name'
t_eq "a bad secret name is a usage error" "$BOX_RC" 2
box_tui --secrets list
t_contains "secrets list names the provider host" "$(grep anthropic "$BOX_OUT")" "api.anthropic.com"
t_contains "secrets list shows other names" "$(cat "$BOX_OUT")" "mykey"
t_not_contains "secrets list never shows values" "$(cat "$BOX_OUT" "$BOX_ERR")" "custom-value"
box_tui --secrets remove mykey
t_eq "secrets remove: exit 0" "$BOX_RC" 0
box_tui --secrets remove mykey
t_eq "secrets remove of a missing one: exit 3" "$BOX_RC" 3
# --up NAME --attach: up, then the attach command (the stand-in opencode2 client, against
# the real server), its status returned
FAKE_ATTACH_EXIT=4 box_tui --up ua --attach
t_eq "--up --attach returns the attach command's status" "$BOX_RC" 4
t_contains "--up --attach ran the attach command against the new box" "$(cat "$BOX_OUT")" "health=200"
# kill goes on when the password store cannot be opened, and says what is left
chmod 644 "$XDG_STATE_HOME/e2b-tui/passwords"
box_tui --kill ua
t_eq "kill with an unusable password store still kills: exit 0" "$BOX_RC" 0
t_contains "and says the password was not deleted" "$(cat "$BOX_ERR")" "was not deleted"
t_eq "the sandbox is gone" "$(el_req GET /v2/sandboxes >/dev/null; el_json '[.[] | select(.metadata["e2b-tui.name"]=="ua")] | length')" 0
chmod 600 "$XDG_STATE_HOME/e2b-tui/passwords"
t_not_contains "no secret value in the request log" "$(cat "$E2B_LOCAL_STATE/e2b-local.log")" "sk-ant-test"
t_finish
