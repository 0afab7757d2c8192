#!/usr/bin/env bash
# u (up) of a project large enough for its upload to be seen: the status line shows the
# step and a bytes figure that grows; ctrl-x cancels a running up: "cancelled" in the status
# line, no sandbox left on the server, no record (not even half-written), the UI keeps
# working. A delay fault on envd's /files holds the upload so both can be watched.
. "$(dirname "$0")/common.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish
export TERM=tmux-256color LANG=C.UTF-8

# 40 MiB that gzip cannot shrink: the upload takes a while even on loopback.
head -c $((40 * 1024 * 1024)) /dev/urandom >"$BOX_REPO/big.bin"
git -C "$BOX_REPO" add big.bin && git -C "$BOX_REPO" -c user.name=t -c user.email=t@t commit -qm big
records=$XDG_STATE_HOME/e2b-tui/boxes

DASH_CWD=$BOX_REPO dash_start 120 30
el_req POST /_e2b-local/faults '{"kind":"delay","path":"/files","delayMs":1500}' >/dev/null
tmux_type u
dash_check "u asks for the box name" "up: box name"
tmux_keys Enter
dash_check "then the template" "up: template"
tmux_keys Enter
dash_check "then the hours" "up: hours"
tmux_keys Enter
dash_check "then the project directory" "up: project directory"
tmux_keys Enter

# Sample the status line until the box is up: every bytes figure shown while uploading.
seen=$T_TMP/progress.txt
: >"$seen"
end=$((SECONDS + 120))
while [ "$SECONDS" -le "$end" ]; do
    screen=$(tmux_capture)
    printf '%s\n' "$screen" | grep -o 'up (current branch): uploading[^(]*' >>"$seen"
    case "$screen" in *"box main is up"*) break ;; esac
    sleep 0.05
done
dash_check "the up finishes" "box main is up"
t_ok "the step name is shown while uploading" grep -q 'uploading' "$seen"
# "[####....] 1234.5/40960.0 KiB": the first number, in order of appearance, distinct.
figures=$(grep -oE '[0-9]+\.[0-9]/[0-9]+\.[0-9] KiB' "$seen" | cut -d/ -f1 | uniq)
n=$(printf '%s\n' "$figures" | grep -c .)
[ "$n" -ge 2 ] && t_pass "the bytes figure moves during the upload ($n values)" ||
    t_fail "the bytes figure moves during the upload" "values seen: $(printf '%s ' $figures)"
sorted=$(printf '%s\n' "$figures" | sort -n -s)
t_eq "the bytes figure only grows" "$figures" "$sorted"
first=$(printf '%s\n' "$figures" | head -1) last=$(printf '%s\n' "$figures" | tail -1)
awk -v a="$first" -v b="$last" 'BEGIN { exit !(b > a) }' && t_pass "the bytes figure increases" ||
    t_fail "the bytes figure increases" "first $first, last $last"
t_ok "the bar is drawn" grep -qE '\[#+\.*\]' "$seen"

# ctrl-x during a running up (held at the upload by a long delay).
el_req POST /_e2b-local/faults '{"kind":"delay","path":"/files","delayMs":6000}' >/dev/null
tmux_type u
dash_check "u again" "up: box name"
tmux_type cancelme
tmux_keys Enter
dash_check "template again" "up: template"
tmux_keys Enter
dash_check "hours again" "up: hours"
tmux_keys Enter
dash_check "project directory again" "up: project directory"
tmux_keys Enter
dash_check "the second up is uploading" "up cancelme: uploading"
tmux_keys C-x
dash_check "ctrl-x: the status line says cancelled" "up cancelme: cancelled"
# The cancelled up kills the sandbox it made.
left=1
for ((i = 0; i < 100; i++)); do
    el_req GET "/v2/sandboxes?limit=100" >/dev/null
    left=$(el_json '[.[] | select(.metadata["e2b-tui.name"] == "cancelme")] | length')
    [ "$left" = 0 ] && break
    sleep 0.1
done
t_eq "no sandbox of the cancelled up is left on the server" "$left" 0
t_ok "no record of the cancelled box" test ! -e "$records/cancelme.json"
t_eq "nothing half-written beside the records" "$(ls -A "$records" | grep -v '^main\.' | grep cancelme)" ""
t_ok "the first box's record is intact" jq -e '.name == "main"' "$records/main.json"
tmux_type 3
dash_check "the UI keeps working after the cancel" "3 All sandboxes"
dash_check "and lists the first box" "main "
tmux_type 1
tmux_type u
dash_check "a new up can start after the cancel" "up: box name"
tmux_keys Escape
dash_quit "quits after the cancelled up"
t_finish
