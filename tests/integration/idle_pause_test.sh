#!/usr/bin/env bash
# Idle boxes sleep (idle_minutes) against e2b-local with the real OpenCode server and the
# scripted model: `--keepalive` pauses a box whose agent has been idle with nothing pending
# for idle_minutes (0.1 here: 6 s), and says so; `--prompt` resumes the paused box first and
# says so, the turn runs, and after it the box is paused again; idle_minutes = 0 turns it
# off; Ctrl-C ends --keepalive; a box whose sandbox E2B no longer has is never made again
# silently: --prompt says how to make it again.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/lib/agent.sh"
agent_setup 1 || t_abort "the box could not be set up"
cfg=$XDG_CONFIG_HOME/e2b-tui/config
box_tui --up feat
box_setup_rc "up" 0
id=$(box_sandbox_of feat)
agent_script "$id" '{"title":"Hello","steps":[{"text":"Hello there."}]}'
state() { el_req GET "/sandboxes/$id" >/dev/null; el_json .state; }

printf 'idle_minutes = 0\n' >>"$cfg"
box_tui --keepalive
t_eq "--keepalive with idle_minutes = 0 has nothing to do (exit 2)" "$BOX_RC" 2
t_contains "it says why" "$(cat "$BOX_ERR")" "idle_minutes is 0"
t_contains "--info tells it" "$("$E2B_TUI_BIN" --info)" "idle pause:     never"
sed -i '$d' "$cfg"
printf 'idle_minutes = 0.1\n' >>"$cfg"
t_contains "--info tells the pause" "$("$E2B_TUI_BIN" --info)" "after 0.1 minutes idle"

(cd "$BOX_REPO" && exec "$E2B_TUI_BIN" --keepalive 2>"$T_TMP/keep.err") &
kpid=$!
t_on_exit "kill $kpid 2>/dev/null; wait $kpid 2>/dev/null"
start=$(date +%s)
paused() { [ "$(state)" = paused ]; }
t_ok "--keepalive pauses the idle box" t_wait_until 120 paused
took=$(($(date +%s) - start))
t_ok "not before idle_minutes (paused after ${took}s, 6 s asked)" test "$took" -ge 6
t_contains "it says so" "$(cat "$T_TMP/keep.err")" "box feat: its agent was idle for 0.1 min with nothing pending: pausing it"

box_tui --prompt feat "say hello"
box_rc "--prompt of the paused box: exit 0" 0
t_contains "it resumed the box first and says so" "$(cat "$BOX_ERR")" "box feat was paused: resumed it first"
t_contains "the prompt went (its session id)" "$(cat "$BOX_OUT")" "ses_"
box_tui --wait feat --timeout 90
box_rc "the turn ran to its end" 0
t_contains "and finished" "$(cat "$BOX_OUT")" "idle: done"
n=$(grep -c "pausing it" "$T_TMP/keep.err")
again() { [ "$(grep -c "pausing it" "$T_TMP/keep.err")" -gt "$n" ] && paused; }
t_ok "after the turn, idle again: paused again" t_wait_until 120 again
kill -INT $kpid
wait $kpid
t_eq "--keepalive ends with 0 on Ctrl-C" "$?" 0

# E2B no longer has the sandbox: never made again silently
el_req DELETE "/sandboxes/$id" >/dev/null
box_tui --prompt feat "hello?"
t_eq "--prompt of a box whose sandbox is gone: exit 3" "$BOX_RC" 3
t_contains "saying how to make it again" "$(cat "$BOX_ERR")" "e2b-tui --up feat --dir $BOX_REPO makes it again"
t_eq "and no new sandbox was made" "$(el_req GET "/v2/sandboxes" >/dev/null; el_json 'length')" 0
box_tui --kill feat --force
t_finish
