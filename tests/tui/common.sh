# Shared set-up for the tmux-driven dashboard tests: sources lib.sh and tmux.sh, isolates
# HOME, and provides dash_start to launch the dashboard from a shell in a tmux pane.
. "$(dirname "${BASH_SOURCE[0]}")/../lib/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tmux.sh"
t_isolated_home
# The tests draw with a terminfo entry that matches tmux.
export TERM=tmux-256color
# UTF-8 whatever the machine's default (wide characters are measured by the locale).
export LANG=C.UTF-8
unset LC_ALL LC_CTYPE NO_COLOR ESCDELAY

# dash_start COLS ROWS [ENV=VALUE...] [-- ARGS...]: a shell in a COLS x ROWS pane runs
# "clear; echo '[before the dashboard]'; env ENV... e2b-tui ARGS; echo rc=$?; <tty modes>"
# and waits for the tabs line (a FAIL line when it does not come).
# Once the dashboard ends the screen shows rc=N and "tty: icanon echo" (or "-icanon -echo"
# if the terminal was left in the dashboard's modes).
dash_start() {
    local cols=$1 rows=$2 envs=() args=()
    shift 2
    while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
    [ "${1:-}" = -- ] && shift
    args=("$@")
    tmux_shell "$cols" "$rows" || return 1
    local line="clear; echo '[before the dashboard]'; env" e
    # DASH_CWD: the directory the dashboard starts in (a git project for up and pull).
    [ -n "${DASH_CWD:-}" ] && line="cd $(printf '%q' "$DASH_CWD") && $line"
    for e in "${envs[@]}"; do line+=" $(printf '%q' "$e")"; done
    line+=" $(printf '%q' "$E2B_TUI_BIN")"
    for e in "${args[@]}"; do line+=" $(printf '%q' "$e")"; done
    line+='; echo rc=$?; echo "tty: $(stty -a | tr " ;" "\n\n" | grep -x -e icanon -e -icanon -e echo -e -echo | tr "\n" " ")"'
    tmux_run "$line"
    if ! tmux_wait "1 Boxes" 2>"$T_TMP/dash-start.err"; then
        t_fail "the dashboard draws its first frame" "$(tail -c 2000 "$T_TMP/dash-start.err")"
        return 1
    fi
}

# dash_check NAME TEXT [SECONDS]: passes when the screen shows TEXT (waiting for it, at most
# SECONDS, default TMUX_WAIT_SECONDS: slow steps such as forks and ups give more).
dash_check() {
    if tmux_wait "$2" "${3:-$TMUX_WAIT_SECONDS}" 2>"$T_TMP/wait.err"; then t_pass "$1"; else t_fail "$1" "$(tail -c 2000 "$T_TMP/wait.err")"; fi
}

# dash_check_gone NAME TEXT: passes when TEXT leaves the screen (bounded wait).
dash_check_gone() {
    if tmux_wait_gone "$2" 2>"$T_TMP/wait.err"; then t_pass "$1"; else t_fail "$1" "$(tail -c 2000 "$T_TMP/wait.err")"; fi
}

# switches PID: the process's context switches so far (voluntary and not).
switches() {
    awk '/^(voluntary|nonvoluntary)_ctxt_switches/ { n += $2 } END { print n }' "/proc/$1/status"
}

# dash_quiet NAME PID SECONDS [DEADLINE]: passes once PID has gone SECONDS in a row without
# being scheduled (no context switch), within DEADLINE seconds (default 40). What it does
# once after a change (replies arriving, a redraw) is waited out; a timer that wakes it at
# least every SECONDS never lets it pass.
dash_quiet() {
    local name=$1 pid=$2 secs=$3 limit=${4:-40} a b end
    end=$((SECONDS + limit))
    while :; do
        a=$(switches "$pid") || { t_fail "$name" "process $pid is gone"; return 1; }
        sleep "$secs"
        b=$(switches "$pid") || { t_fail "$name" "process $pid is gone"; return 1; }
        [ "$a" = "$b" ] && { t_pass "$name"; return 0; }
        if [ "$SECONDS" -ge "$end" ]; then
            t_fail "$name" "no ${secs}-s window without a wake-up in ${limit} s (last window: $((b - a)) switches)"
            return 1
        fi
    done
}

# dash_quit NAME: q, then the shell reports rc=0.
dash_quit() {
    tmux_type q
    dash_check "$1" "rc=0"
}

# No test may reach the real E2B service: without a local server the API is a closed
# loopback port (tests that need data start e2b-local, which overrides these).
export E2B_API_URL=http://127.0.0.1:9 E2B_SANDBOX_URL=http://127.0.0.1:9 E2B_DOMAIN=localhost:9
. "$(dirname "${BASH_SOURCE[0]}")/../lib/e2b_local.sh"

# sbx_create TEMPLATE STATE TIMEOUT [KEY=VALUE...]: a sandbox on e2b-local with that
# metadata; STATE paused pauses it after creating. Sets SBX_ID.
sbx_create() {
    local tmpl=$1 state=$2 timeout=$3 md='{}' kv
    shift 3
    for kv in "$@"; do
        md=$(jq -c -n --argjson m "$md" --arg k "${kv%%=*}" --arg v "${kv#*=}" '$m + {($k): $v}')
    done
    local body
    body=$(jq -c -n --arg t "$tmpl" --argjson m "$md" --argjson to "$timeout" \
        '{templateID: $t, metadata: $m, timeout: $to}')
    el_create "$body" || return 1
    SBX_ID=$EL_ID
    if [ "$state" = paused ]; then
        [ "$(el_req POST "/sandboxes/$SBX_ID/pause")" = 204 ] ||
            { t_fail "pause sandbox $SBX_ID" "$(head -c 300 "$EL_BODY_FILE")"; return 1; }
    fi
}

# sbx_many N PREFIX: N running sandboxes named PREFIX-0001... (one keep-alive connection).
sbx_many() {
    python3 "$(dirname "${BASH_SOURCE[0]}")/make_sandboxes.py" "$E2B_LOCAL_URL" "$E2B_LOCAL_KEY" "$1" "$2"
}
