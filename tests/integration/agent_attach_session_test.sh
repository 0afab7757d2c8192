#!/usr/bin/env bash
# Issue 38 item 7, from the command line: --attach NAME --session ID opens the one named
# (plain --attach NAME leaves the choice to the client: finding the active session would
# cost a whole agent watch before the attach; the dashboard's a, which watches the agent
# already, opens the active one), against the real
# OpenCode server (the opencode = 1 preset, whose `opencode attach` takes --session) and the
# scripted model; the attach client is a stand-in that records its arguments.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/lib/agent.sh"
agent_setup 1 || t_abort "the box could not be set up"
mkdir -p "$T_TMP/fakebin"
cat >"$T_TMP/fakebin/opencode" <<SH
#!/bin/sh
printf '%s\n' "\$@" >'$T_TMP/attach.args'
SH
chmod +x "$T_TMP/fakebin/opencode"
printf 'attach_command = %s attach {url} --dir {dir}\n' "$T_TMP/fakebin/opencode" >>"$XDG_CONFIG_HOME/e2b-tui/config"
box_tui --up alpha
box_setup_rc "up alpha" 0
id=$(box_sandbox_of alpha)
agent_script "$id" '{"title":"Hello","steps":[{"text":"Hello there."}]}'
box_tui --prompt alpha "hello"
box_rc "a first task" 0
box_tui --wait alpha --timeout 120
box_rc "its turn ends" 0
box_tui --status alpha --json
sid=$(jq -r '.boxes[0].session.id' "$BOX_OUT")
t_ok "the box has an active session" test -n "$sid" -a "$sid" != null

box_tui --attach alpha
box_rc "--attach alpha" 0
t_not_contains "plain --attach names no session" "$(tr '\n' ' ' <"$T_TMP/attach.args")" "--session"
box_tui --attach alpha --session "$sid"
box_rc "--attach alpha --session (the active one)" 0
t_contains "--attach --session opens it" "$(tr '\n' ' ' <"$T_TMP/attach.args")" "--session $sid"
box_tui --attach alpha --session ses_named123
box_rc "--attach alpha --session ID" 0
t_contains "--attach --session opens the one named" "$(tr '\n' ' ' <"$T_TMP/attach.args")" "--session ses_named123"
box_tui --attach alpha --session 'bad;id'
box_rc "a session id that is none still attaches" 0
t_contains "and says so" "$(cat "$BOX_ERR")" "opening its start screen"
t_not_contains "without the bad id" "$(tr '\n' ' ' <"$T_TMP/attach.args")" "bad;id"
box_tui --status alpha --session ses_x
box_rc "--session without --attach: exit 2" 2
box_tui --kill alpha --force
t_finish
