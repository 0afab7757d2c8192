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

# Refreshing every second: back on Boxes its lists (boxes only, the filter checked on the
# wire) keep the other rows as last known, so All opened again shows them even while the server does not answer.
dash_start 120 30 -- --refresh 1
dash_check "the second dashboard shows the box" "only-box"
tmux_type 3
dash_check "All shows the other sandboxes" "other-0"
tmux_type 1
dash_check "back on Boxes" "only-box"
# On the wire (e2b-local's request log, which ends a control-plane line with its query):
# Boxes' lists carry the boxes' metadata filter, and the secrets are not listed again.
ellog=$E2B_LOCAL_STATE/e2b-local.log
box_lists() { grep -cE 'GET /v2/sandboxes 200 [0-9]+ms .*[?&]metadata=e2b-tui%3Dbox(&|$)' "$ellog"; }
n=$(box_lists)
lists0=$(grep -c 'GET /v2/sandboxes ' "$ellog")
secrets0=$(grep -c 'GET /secrets ' "$ellog")
lists_since() { [ "$(box_lists)" -ge $((n + $1)) ]; }
t_ok "Boxes refreshes again (two lists with the boxes' metadata filter)" t_wait_until 30 lists_since 2
t_eq "... and every list of the refresh had the filter" \
    "$(($(grep -c 'GET /v2/sandboxes ' "$ellog") - lists0))" "$(($(box_lists) - n))"
t_eq "the refresh of Boxes lists no secrets (they are listed while the view shows them)" \
    "$(grep -c 'GET /secrets ' "$ellog")" "$secrets0"
kill -STOP "$E2B_LOCAL_PID"
tmux_type 3
dash_check "All opened again shows the last known rows at once" "other-0"
kill -CONT "$E2B_LOCAL_PID"
dash_check "the box is listed on All too" "only-box"
tmux_type q
dash_check "the second dashboard quits" "rc=0"
t_finish
