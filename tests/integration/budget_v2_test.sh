#!/usr/bin/env bash
# Budgets (--up --budget) against the real OpenCode server (opencode-ai 1.18.33) and the
# scripted model in an e2b-local box, on the v2 routes (/api/...): --keepalive interrupts and
# pauses a box whose cost passes its budget and says so; --status tells it; a prompt from
# a script is refused (exit 11) until --budget raises it. The scenarios:
# tests/lib/budget_scenarios.sh.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/lib/agent.sh"
. "$E2B_TUI_ROOT/tests/lib/agent_scenarios.sh" # agent_until
. "$E2B_TUI_ROOT/tests/lib/budget_scenarios.sh"
budget_scenarios 2 || t_abort "the box could not be set up"
t_finish
