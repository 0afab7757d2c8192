#!/usr/bin/env bash
# Questions answered without attaching (--answer, --status with the options) and each box's
# tokens and cost (--status --json: tokens, cost.agent_usd, usage) against the real OpenCode
# server (opencode-ai 1.18.33) and the scripted model (a model with a price) in an e2b-local
# box, on the v1 routes (the `opencode = 1` preset). The scenarios: tests/lib/needs_scenarios.sh.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/lib/faults.sh"
. "$E2B_TUI_ROOT/tests/lib/agent.sh"
. "$E2B_TUI_ROOT/tests/lib/agent_scenarios.sh" # agent_until
. "$E2B_TUI_ROOT/tests/lib/needs_scenarios.sh"
needs_scenarios 1 || t_abort "the box could not be set up"
t_finish
