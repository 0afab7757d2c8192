#!/usr/bin/env bash
# The request log is capped (issue 22): two dashboards refresh every second into the same
# log with log_max = 1K; the log rotates at its cap again and again, never grows past twice
# the cap, keeps one old file (e2b-tui.log.1), stays 0600, and an unchanged refresh writes
# one summary line (its list pages and its metrics request) instead of a line per request.
. "$(dirname "$0")/common.sh"
e2b_local_start || t_finish
cap=1024
mkdir -p "$XDG_CONFIG_HOME/e2b-tui"
echo 'log_max = 1K' >"$XDG_CONFIG_HOME/e2b-tui/config"
t_contains "--info shows the cap" "$("$E2B_TUI_BIN" --info)" "log cap:        $cap bytes"
python3 "$(dirname "$0")/make_sandboxes.py" "$E2B_LOCAL_URL" "$E2B_LOCAL_KEY" 150 many box ||
    t_fail "150 boxes created" "see above" # two list pages, running rows on screen
log=$XDG_STATE_HOME/e2b-tui/e2b-tui.log

dash_start 160 30 -- --refresh 1
# A second dashboard on the same log, on a tmux server of its own.
sock2=$(tmux_sock second)
t_on_exit "tmux_kill_sock $sock2"
tmux -S "$sock2" -f /dev/null new-session -d -s t -x 120 -y 30 "$(printf '%q ' env "HOME=$HOME" "XDG_CONFIG_HOME=$XDG_CONFIG_HOME" \
    "XDG_STATE_HOME=$XDG_STATE_HOME" "E2B_API_URL=$E2B_API_URL" "E2B_API_KEY=$E2B_API_KEY" \
    "E2B_SANDBOX_URL=$E2B_SANDBOX_URL" "E2B_DOMAIN=$E2B_DOMAIN" "TERM=$TERM" \
    "$E2B_TUI_BIN" --refresh 1)"

# Until log.1 has been replaced three times (bounded), watching the sizes all along.
max_log=0 max_old=0 rotations=0 last_ino=
for ((i = 0; i < 900 && rotations < 4; i++)); do
    s=$(stat -c %s "$log" 2>/dev/null || echo 0)
    o=$(stat -c %s "$log.1" 2>/dev/null || echo 0)
    ino=$(stat -c %i "$log.1" 2>/dev/null || echo)
    [ "$s" -gt "$max_log" ] && max_log=$s
    [ "$o" -gt "$max_old" ] && max_old=$o
    if [ -n "$ino" ] && [ "$ino" != "$last_ino" ]; then rotations=$((rotations + 1)); last_ino=$ino; fi
    sleep 0.2
done
t_ok "the log rotated at its cap, again and again ($((rotations)) old files seen)" test "$rotations" -ge 4
if [ "$max_log" -le $((2 * cap)) ]; then t_pass "the log never exceeded twice the cap (at most $max_log bytes)"
else t_fail "the log never exceeded twice the cap" "$max_log bytes"; fi
if [ "$max_old" -le $((2 * cap)) ]; then t_pass "the old log never exceeded twice the cap (at most $max_old bytes)"
else t_fail "the old log never exceeded twice the cap" "$max_old bytes"; fi
t_eq "one old file is kept" "$(find "$(dirname "$log")" -maxdepth 1 -name 'e2b-tui.log*' | wc -l)" 2
t_eq "both files are 0600" "$(stat -c %a "$log" "$log.1" | sort -u)" 600
all=$(cat "$log.1" "$log")
t_contains "an unchanged refresh writes one summary line" "$all" "GET /v2/sandboxes unchanged: 2 pages"
t_eq "no line per list page once nothing changes" "$(grep -c 'GET /v2/sandboxes 200' <<<"$all")" 0
# The running boxes on screen have their metrics asked each refresh: that line joins the
# summary, so an unchanged refresh is exactly one line.
t_contains "the metrics request is in the summary line" "$all" \
    "GET /v2/sandboxes unchanged: 2 pages, "
t_contains "the metrics request joins it" "$(grep 'unchanged' <<<"$all" | tail -1)" "; GET /sandboxes/metrics 200"
t_eq "no line of its own for the metrics request" "$(grep -c 'Z GET /sandboxes/metrics' <<<"$all")" 0
t_not_contains "no API key in the log" "$all" "$E2B_API_KEY"
dash_quit "the dashboard quits"
t_finish
