#!/usr/bin/env bash
# Late orphans in the dashboard (issue 22): the start-up sweep removes the sandbox an
# interrupted up left (a journal entry nobody holds) and says so in the status line; a u
# whose create is answered only after http_timeout leaves no sandbox: the second sweep
# (orphan_sweep_delay later) finds the one E2B made late, removes it and says so.
. "$(dirname "$0")/common.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/lib/faults.sh"
box_setup || t_finish
journal=$XDG_STATE_HOME/e2b-tui/in-doubt
printf 'http_timeout = 2\norphan_sweep_delay = 6\n' >>"$XDG_CONFIG_HOME/e2b-tui/config"
sbx_gone() { [ "$(el_req GET "/sandboxes/$1")" = 404 ]; }
wait_gone() { local i; for ((i = 0; i < 200; i++)); do sbx_gone "$1" && return 0; sleep 0.1; done; return 1; }

# An entry as an up killed between create and record leaves it.
tag=LeftLeftLeftLeftLeftLeftLeftLeft
el_create "{\"templateID\":\"base\",\"metadata\":{\"e2b-tui\":\"box\",\"e2b-tui.name\":\"left\",\"e2b-tui.up\":\"$tag\"}}"
left=$EL_ID
mkdir -p -m 700 "$journal"
printf 'name=left\nsent=0\n' >"$journal/$tag"
chmod 600 "$journal/$tag"
passwords=$XDG_STATE_HOME/e2b-tui/passwords
printf 'pw-%s\n' "$RANDOM" | "$TEST_B/tests/keystore/ks_tool" --keystore=file put left "$left" >/dev/null
t_eq "start: the orphan's password is stored (setup)" "$(grep -c "^left"$'\t' "$passwords")" 1

DASH_CWD=$BOX_REPO dash_start 200 30 -- --refresh 1
dash_check "start: the status line says the orphan was removed" "removed sandbox $left"
t_ok "start: the sandbox is gone" wait_gone "$left"
t_eq "start: the journal is empty" "$(find "$journal" -mindepth 1 | wc -l)" 0
for ((i = 0; i < 100; i++)); do grep -q "^left"$'\t' "$passwords" || break; sleep 0.1; done
t_eq "start: its password is deleted" "$(grep -c "^left"$'\t' "$passwords")" 0

# u, with the create held past the client's timeout.
fl_mark
fault_set '{"kind":"delay","path":"/v2/sandboxes","method":"POST","count":1,"delayMs":4000}'
tmux_type u
dash_check "u asks for the box name" "up: box name"
tmux_type late
tmux_keys Enter
dash_check "then the template" "up: template"
tmux_keys Enter
dash_check "then the hours" "up: hours"
tmux_keys Enter
dash_check "then the project directory" "up: project directory"
tmux_keys Enter
dash_check "late: the up fails with the timeout" "(http_timeout is 2 s)"
made=
for ((i = 0; i < 200; i++)); do
    el_req GET /v2/sandboxes >/dev/null
    made=$(el_json '[.[] | select((.metadata // {})["e2b-tui.name"] == "late") | .sandboxID] | join(" ")')
    [ -n "$made" ] && break
    sleep 0.1
done
t_ok "late: E2B made the sandbox after the up gave up" test -n "$made"
dash_check "late: the second sweep removed it and says so" "removed sandbox $made"
t_ok "late: no sandbox is left" wait_gone "$made"
t_eq "late: the journal is empty" "$(find "$journal" -mindepth 1 | wc -l)" 0
dash_quit "the dashboard quits"
t_finish
