#!/usr/bin/env bash
# make demo (tests/demo.sh) through the README's walkthrough: the samples are listed (the
# sample box demo-box is a real, private box with the real OpenCode server); u brings a box
# up from the demo project; the Detail pane says the box is private; l shows its server's
# output; a hands the terminal to the real `opencode attach` through the tunnel, where a
# task given to the box's scripted model plans a todo list, edits todo.py, writes a test,
# asks before running the tests (allowed) and answers; ctrl-c returns to the dashboard; p
# pulls the work (the sample commit and the agent's) as branch e2b/demo-box in the project;
# q stops the server and removes everything.
. "$(dirname "$0")/common.sh"
DEMO_TMP=$T_TMP/demo-tmp DEMO_AS= DEMO_USER=$(id -un)
mkdir -p "$DEMO_TMP"
. "$E2B_TUI_ROOT/tests/tui/demo_walk.sh"
t_finish
