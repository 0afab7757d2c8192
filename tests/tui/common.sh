# Shared set-up for the tmux-driven dashboard tests: sources lib.sh and tmux.sh, isolates
# HOME, and provides dash_start to launch the dashboard from a shell in a tmux pane and the
# dash_check* helpers. A check of the screen waits (bounded) for what it expects: after a key
# or a resize the frame comes when it comes, later on a loaded machine; only a check that
# something is absent reads the screen once, after waiting for what the same frame shows.
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

# dash_check_line NAME N TEXT [SECONDS]: passes when line N of the screen shows TEXT
# (waiting for it, as dash_check does).
dash_check_line() {
    if tmux_wait_line "$2" "$3" "${4:-$TMUX_WAIT_SECONDS}" 2>"$T_TMP/wait.err"; then t_pass "$1"; else t_fail "$1" "$(tail -c 2000 "$T_TMP/wait.err")"; fi
}

# dash_check_format NAME FORMAT VALUE [SECONDS]: passes when tmux's #{...} FORMAT for the
# pane (e.g. '#{alternate_on}') has VALUE (waiting for it).
dash_check_format() {
    if tmux_wait_format "$2" "$3" "${4:-$TMUX_WAIT_SECONDS}" 2>"$T_TMP/wait.err"; then t_pass "$1"; else t_fail "$1" "$(tail -c 2000 "$T_TMP/wait.err")"; fi
}

# dash_check_row NAME ROW TEXT [SECONDS]: passes when the screen lines holding ROW hold TEXT
# (waiting for it).
_dash_row_has() { case "$(tmux_capture 2>/dev/null | grep -F -- "$1")" in *"$2"*) return 0 ;; esac; return 1; }
dash_check_row() {
    if t_wait_until "${4:-$TMUX_WAIT_SECONDS}" _dash_row_has "$2" "$3"; then t_pass "$1"; else
        t_fail "$1" "no line with [$2] shows [$3]; those lines: $(tmux_capture | grep -F -- "$2" | head -c 1500)"; fi
}

# dash_check_line_gone NAME N TEXT [SECONDS]: passes when line N no longer holds TEXT.
_dash_line_lacks() { case "$(tmux_capture 2>/dev/null | sed -n "$1p")" in *"$2"*) return 1 ;; esac; return 0; }
dash_check_line_gone() {
    if t_wait_until "${4:-$TMUX_WAIT_SECONDS}" _dash_line_lacks "$2" "$3"; then t_pass "$1"; else
        t_fail "$1" "line $2 still shows [$3]: $(tmux_capture | sed -n "$2p")"; fi
}

# dash_check_match NAME ERE [CAPTURE-OPTION...]: passes when the screen (tmux_capture with
# the options, e.g. -e for the escapes) matches the extended regular expression (waiting).
_dash_screen_matches() { local re=$1; shift; tmux_capture "$@" 2>/dev/null | grep -Eq -- "$re"; }
dash_check_match() {
    local name=$1; shift
    if t_wait_until "$TMUX_WAIT_SECONDS" _dash_screen_matches "$@"; then t_pass "$name"; else
        t_fail "$name" "the screen never matched [$1]: $(tmux_capture | tail -c 1500)"; fi
}

# dash_keys_redrawn KEY...: sends tmux key names and waits (bounded) until the screen is
# no longer what it was, so that a loop pressing a key until something shows does not press
# again before the last press was drawn. Returns 1 when nothing changed in time.
_dash_screen_is_not() { [ "$(tmux_capture -e 2>/dev/null)" != "$1" ]; }
dash_keys_redrawn() {
    local was
    was=$(tmux_capture -e)
    tmux_keys "$@"
    t_wait_until 10 _dash_screen_is_not "$was"
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
