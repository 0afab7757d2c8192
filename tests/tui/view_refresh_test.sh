#!/usr/bin/env bash
# Refresh by view (issue 16): the Boxes view asks for the box sandboxes only, so the other
# sandboxes are not known until a view of them opens; opening All lists them at once (not
# at the next refresh, 60 s away here), and opening it again shows the last known rows even
# while the server does not answer.
. "$(dirname "$0")/common.sh"

e2b_local_start || t_finish
sbx_create opencode running 3600 e2b-tui=box e2b-tui.name=only-box && box_id=$SBX_ID
python3 "$E2B_TUI_ROOT/tests/tui/make_sandboxes.py" "$E2B_LOCAL_URL" "$E2B_API_KEY" 300 other ||
    t_fail "300 other sandboxes made" "make_sandboxes.py failed"

dash_start 120 30 -- --refresh 60
dash_check "the Boxes view shows the box" "only-box"
t_not_contains "the Boxes view shows no other sandbox" "$(tmux_capture)" "other-0"
tmux_type 3
# The next timed refresh is a minute away: only the list made when the view opened can
# bring these rows within the wait.
dash_check "All shows the other sandboxes once it opens" "other-0"
dash_check "All lists every page (the row count)" "/301"
tmux_type q
dash_check "the dashboard quits" "rc=0"

# Refreshing every second: back on Boxes its lists (boxes only) keep the other rows as last
# known, so All opened again shows them even while the server does not answer.
dash_start 120 30 -- --refresh 1
dash_check "the second dashboard shows the box" "only-box"
tmux_type 3
dash_check "All shows the other sandboxes" "other-0"
tmux_type 1
dash_check "back on Boxes" "only-box"
log=$XDG_STATE_HOME/e2b-tui/e2b-tui.log
n=$(grep -c 'GET /v2/sandboxes' "$log")
lists_since() { [ "$(grep -c 'GET /v2/sandboxes' "$log")" -ge $((n + $1)) ]; }
t_ok "Boxes refreshes again (two lists of the boxes)" t_wait_until 30 lists_since 2
kill -STOP "$E2B_LOCAL_PID"
tmux_type 3
dash_check "All opened again shows the last known rows at once" "other-0"
kill -CONT "$E2B_LOCAL_PID"
dash_check "the box is listed on All too" "only-box"
tmux_type q
dash_check "the second dashboard quits" "rc=0"
t_finish
