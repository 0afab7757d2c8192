#!/usr/bin/env bash
# The Secrets view against e2b-local: listed from the API; n sets one (a name, then the
# value in a field that never shows what is typed): created, then updated; x removes one
# after a question. Each effect is checked on the server.
. "$(dirname "$0")/common.sh"

e2b_local_start || t_finish
[ "$(el_req POST /secrets '{"name":"openrouter","value":"sk-or-PRESET-1","allowedHosts":["openrouter.ai"]}')" = 201 ] ||
    t_fail "a secret made on the server" "$(cat "$EL_BODY_FILE")"

dash_start 100 24
tmux_type 4
dash_check "the Secrets view lists the server's secrets" "openrouter"
tmux_type n
dash_check "n asks for the secret's name" "secret name (e.g. anthropic): _"
tmux_type 'bad name!'
tmux_keys Enter
dash_check "a bad name is refused with the CLI's reason" "not a valid secret name (no spaces"
tmux_type n
tmux_type anthropic
tmux_keys Enter
dash_check "then it asks for the value, hidden" "value for anthropic (hidden):"
tmux_type 'sk-ant-SECRET-VALUE-0123'
dash_check "typing shows only that it is hidden" "(typing hidden"
t_not_contains "the value is not on screen while typing" "$(tmux_capture)" "SECRET-VALUE"
t_not_contains "not even as a count of stars" "$(tmux_capture)" "****"
tmux_keys Enter
dash_check "the secret is stored" "stored secret anthropic (version 1)"
dash_check "and listed" "anthropic"
t_not_contains "the value never reached the screen" "$(tmux_capture)" "SECRET-VALUE"
el_req GET /secrets >/dev/null
t_contains "the server lists it" "$(el_json '[.[].name] | join(",")')" "anthropic"
t_contains "the server holds the value" "$(cat "$E2B_LOCAL_STATE/secrets.json")" "sk-ant-SECRET-VALUE-0123"
# The same name again: an update, not a second secret.
tmux_type n
tmux_type anthropic
tmux_keys Enter
tmux_type 'sk-ant-NEW-VALUE-4567'
tmux_keys Enter
dash_check "setting it again updates it (create, then update on 409)" "updated secret anthropic (version 2)"
t_contains "the server holds the new value" "$(cat "$E2B_LOCAL_STATE/secrets.json")" "sk-ant-NEW-VALUE-4567"
el_req GET /secrets >/dev/null
t_eq "still one secret of that name" "$(el_json '[.[] | select(.name == "anthropic")] | length')" 1
dlog=$HOME/.local/state/e2b-tui/e2b-tui.log
t_ok "the dashboard's log logged the secret requests" grep -q "/secrets" "$dlog"
t_not_contains "no value in the dashboard's log" "$(cat "$dlog")" "VALUE"
tmux_type n
tmux_type openai
tmux_keys Enter
tmux_type 'abc'
tmux_keys Escape
dash_check "Esc cancels the value prompt" "secret-set: cancelled"
# Remove: asks, No keeps it, Yes removes it on the server.
tmux_type '/openrouter'
tmux_keys Enter
tmux_wait "1/1" >/dev/null
tmux_type x
dash_check "x asks first" 'Remove secret "openrouter"?'
tmux_keys Enter
dash_check "No is the default" "Remove secret: cancelled"
tmux_type x
tmux_type y
dash_check "Yes removes it" "secret openrouter removed"
el_req GET /secrets >/dev/null
t_not_contains "gone on the server" "$(el_json '[.[].name] | join(",")')" "openrouter"
tmux_keys Escape
dash_check_gone "and from the list" "openrouter"
# A secret made elsewhere that the table does not show yet (its lists are held back by a
# delay): n with that name updates it (create, 409, update), as --secrets set does.
el_req POST /_e2b-local/faults '{"kind":"delay","path":"/secrets","method":"GET","delayMs":30000,"count":20}' >/dev/null
[ "$(el_req POST /secrets '{"name":"groq","value":"gsk-ELSEWHERE-1"}')" = 201 ] ||
    t_fail "a secret made elsewhere" "$(cat "$EL_BODY_FILE")"
t_not_contains "the table does not show it yet" "$(tmux_capture)" "groq"
tmux_type n
tmux_type groq
tmux_keys Enter
tmux_type 'gsk-FROM-DASHBOARD-2'
tmux_keys Enter
dash_check "a secret the table did not know is updated, not refused" "updated secret groq (version"
t_contains "the server holds the dashboard's value" "$(cat "$E2B_LOCAL_STATE/secrets.json")" "gsk-FROM-DASHBOARD-2"
el_req DELETE /_e2b-local/faults >/dev/null
dash_quit "quits from the Secrets view"
t_finish
