#!/usr/bin/env bash
# Issue 7, "only changed rows are redrawn": with E2B_TUI_DEBUG_PAINT=1 every drawn list logs
# how many of its screen lines differ from the last frame (the rows ncurses sends). Refreshes
# that bring nothing new draw no frame at all; a state change redraws that one row.
. "$(dirname "$0")/common.sh"

e2b_local_start || t_finish
# Paused sandboxes: no countdown ticks, so only the refresh could cause a frame.
for i in 01 02 03 04 05 06 07 08 09 10 11 12; do
    sbx_create base paused 3600 "name=still-$i" || t_fail "sandbox still-$i created" "no"
done
sbx_create base paused 3600 name=wakes-up && wake_id=$SBX_ID
log=$XDG_STATE_HOME/e2b-tui/e2b-tui.log
paints() { grep -c 'paint: ' "$log" 2>/dev/null || true; }
lists() { grep -c 'GET /v2/sandboxes ' "$log" 2>/dev/null || true; }

dash_start 120 30 E2B_TUI_DEBUG_PAINT=1 -- --refresh 1
tmux_type 3
dash_check "the list is drawn" "wakes-up"
# A window of 4 s with at least two refreshes and no frame, within 40 s: what the first
# replies (the list, the secrets, the metrics) draw is waited out, however late it comes;
# if unchanged refreshes drew frames, no such window would ever come.
quiet_refreshes() {
    p0=$(paints) l0=$(lists)
    sleep 4
    p1=$(paints) l1=$(lists)
    [ "$((l1 - l0))" -ge 2 ] && [ "$((p1 - p0))" -eq 0 ]
}
t_wait_until 40 quiet_refreshes
t_ok "the refresh kept listing meanwhile ($((l1 - l0)) lists in the last 4 s)" test "$((l1 - l0))" -ge 2
t_eq "refreshes of unchanged data draw no frame" "$((p1 - p0))" 0

# One sandbox changes state on the server: its row, and only its row, is redrawn.
ellog=$E2B_LOCAL_STATE/e2b-local.log
# (the bulk metrics call; e2b-local's log ends its line with the query: the sandbox ids)
metrics() { grep -cE "GET /sandboxes/metrics 200 [0-9]+ms .*$wake_id" "$ellog"; }
m0=$(metrics)
code=$(el_req POST "/sandboxes/$wake_id/resume" '{"timeout":3600}')
t_ok "the server resumed it (HTTP $code)" test "$code" = 201 -o "$code" = 200
dash_check "the dashboard shows it running" "running"
# its metrics arrive too (CPU, MEM of the same row): answered twice, the first one drawn
metrics_since() { [ "$(metrics)" -ge "$((m0 + 2))" ]; }
t_ok "its metrics were read" t_wait_until 30 metrics_since
changed=$(tail -n +"$((p1 + 1))" <(grep 'paint: ' "$log") | sed -n 's/.*paint: \([0-9]*\) of.*/\1/p')
most=$(printf '%s\n' $changed | sort -n | tail -n 1)
t_ok "the change was drawn ($(printf '%s' "$changed" | wc -l) frames)" test -n "$most"
t_eq "no frame redrew more than the one changed row" "${most:-none}" 1
still=$(tmux_capture | grep -c 'still-.*paused')
t_eq "the other rows are still shown, unchanged" "$still" 12
dash_quit "quits"
t_finish
