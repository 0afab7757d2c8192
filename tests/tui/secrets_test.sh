#!/usr/bin/env bash
# The Secrets view's prompts: a name, then the value in a field that never shows what is
# typed. There is no secrets backend yet: the dashboard must say so and store nothing.
. "$(dirname "$0")/common.sh"

dash_start 100 24 E2B_API_KEY=e2b_test
tmux_type 4
dash_check "the Secrets view" "Secrets are not available yet"
tmux_type n
dash_check "n asks for the secret's name" "secret name (e.g. anthropic): _"
tmux_type 'bad name!'
tmux_keys Enter
dash_check "a bad name is refused with a reason" "secret name must be letters, digits"
tmux_type n
tmux_type anthropic
tmux_keys Enter
dash_check "then it asks for the value, hidden" "value for anthropic (hidden):"
tmux_type 'sk-ant-SECRET-VALUE-0123'
dash_check "typing shows only that it is hidden" "(typing hidden"
t_not_contains "the value is not on screen while typing" "$(tmux_capture)" "SECRET-VALUE"
t_not_contains "not even as a count of stars" "$(tmux_capture)" "****"
tmux_keys Enter
dash_check "without a backend it says nothing was stored" \
    "secret-set anthropic: not available yet in this build; the value was discarded"
t_not_contains "the value never reached the screen" "$(tmux_capture)" "SECRET-VALUE"
tmux_type n
tmux_type openai
tmux_keys Enter
tmux_type 'abc'
tmux_keys Escape
dash_check "Esc cancels the value prompt" "secret-set: cancelled"
tmux_type x
dash_check "x with no secret selected says so" "secret-remove: no secret selected"
dash_quit "quits from the Secrets view"
t_finish
