#!/usr/bin/env bash
# Idle boxes sleep in the dashboard (idle_minutes = 0.25 here: 15 s) with the real OpenCode
# server and the scripted model: the row of an idle box says "pauses in <1m", the dashboard
# pauses it and says so; m on the paused box resumes it first (and says so) and the message
# goes once its agent answers: the turn runs, and after it the box is paused again.
. "$(dirname "$0")/common.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/lib/agent.sh"
agent_setup 2 || t_abort "the box could not be set up"
printf 'idle_minutes = 0.25\n' >>"$XDG_CONFIG_HOME/e2b-tui/config"
export TERM=tmux-256color LANG=C.UTF-8
box_tui --up feat
box_setup_rc "up" 0
id=$(box_sandbox_of feat)
agent_script "$id" '{"title":"Hello","steps":[{"text":"Hello there."}]}'
state() { el_req GET "/sandboxes/$id" >/dev/null; el_json .state; }
is_state() { [ "$(state)" = "$1" ]; }

DASH_CWD=$BOX_REPO dash_start 150 30 -- --refresh 1
TMUX_WAIT_SECONDS=120 dash_check "the row of the idle box says when it pauses" "pauses in <1m"
t_ok "the dashboard pauses it" t_wait_until 90 is_state paused
dash_check "the row says paused" "paused    -"
tmux_keys C-g
dash_check "and says why (Messages)" "its agent was idle for 0.25 min with nothing pending: pausing it"
tmux_keys Escape
tmux_type m
dash_check "m opens the message editor on the paused box" "Message to feat"
tmux_type "say hello"
tmux_keys C-d
dash_check "m resumes the box first and says so" "box feat was paused: resuming it first"
t_ok "the box runs again" t_wait_until 60 is_state running
asked() { agent_model_log "$id" | grep -q '"step"'; }
t_ok "the message went once its agent answered: the model was asked" t_wait_until 90 asked
TMUX_WAIT_SECONDS=90 dash_check "after the turn the row counts again" "done, pauses in <1m"
t_ok "and it is paused again" t_wait_until 90 is_state paused
dash_quit "quits"
box_tui --kill feat --force
t_finish
