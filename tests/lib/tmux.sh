# Helpers for tests that drive the real e2b-tui in a detached tmux session and read the
# screen. Source after lib.sh. Every session uses a private server socket (tmux -S), a
# path in the directory the runner gave the test (T_RUN_TMP, not tmux's own folder, where
# dead sockets pile up: tmux never removes one), so tests never touch the user's tmux or
# each other; on exit the server is killed and its socket removed (tests/run fails a test
# that leaves one). tmux_sock NAME is the path of another server's socket.
# tmux_start and tmux_shell print a FAIL line when the session or its prompt does not come.
#
#   tmux_start 100 30 'bash --norc --noprofile'   # a pane of 100x30 running a command
#   tmux_shell 100 30                             # a plain shell with prompt "[sh]$ "
#   tmux_run 'e2b-tui; echo rc=$?'                # type a command line and Enter
#   tmux_type 'abc'; tmux_keys Escape C-l         # literal text; tmux key names
#   tmux_wait 'Boxes'                             # bounded poll until the screen shows it
#   screen=$(tmux_capture)                        # the pane as text (-e: with escapes)
#   tmux_resize 40 8

TMUX_SOCKET_BASE="$T_RUN_TMP/tmux-$$-${RANDOM}"
TMUX_SOCKET=$TMUX_SOCKET_BASE-0
TMUX_SESSIONS=0
TMUX_WAIT_SECONDS=${TMUX_WAIT_SECONDS:-20}

tmux_sock() { echo "$TMUX_SOCKET_BASE-$1"; }
tm() { tmux -S "$TMUX_SOCKET" -f /dev/null "$@"; }

# tmux_kill_sock PATH: stops the server of socket PATH and removes the socket.
tmux_kill_sock() {
    tmux -S "$1" kill-server >/dev/null 2>&1 || true
    rm -f "$1"
}
tmux_kill() { tmux_kill_sock "$TMUX_SOCKET"; }
tmux_kill_all() {
    local i
    for ((i = 0; i <= TMUX_SESSIONS; i++)); do
        tmux_kill_sock "$TMUX_SOCKET_BASE-$i"
    done
}

# tmux_start COLS ROWS COMMAND: a new detached session named t running COMMAND (a string
# for sh -c), on a server of its own (a fresh socket: never racing a server that is still
# shutting down). The pane stays open after the command ends so its last screen can be read.
tmux_start() {
    local cols=$1 rows=$2 cmd=$3
    tmux_kill
    [ "$TMUX_SESSIONS" -eq 0 ] && t_on_exit tmux_kill_all
    TMUX_SESSIONS=$((TMUX_SESSIONS + 1))
    TMUX_SOCKET=$TMUX_SOCKET_BASE-$TMUX_SESSIONS
    if ! tm new-session -d -s t -x "$cols" -y "$rows" "$cmd" 2>"$T_TMP/tmux-start.err"; then
        t_fail "tmux starts a ${cols}x$rows session" "$(head -c 400 "$T_TMP/tmux-start.err")"
        return 1
    fi
    tm set-option -g remain-on-exit on >/dev/null
    tm set-option -g window-size manual >/dev/null 2>&1 || true
}

# tmux_shell COLS ROWS: a bash with the prompt "[sh]$ " and no rc files.
TMUX_PROMPT='[sh]$'
tmux_shell() {
    # No history file: bash would write it while the test's scratch dir is being removed.
    tmux_start "$1" "$2" "env PS1='$TMUX_PROMPT ' HISTFILE=/dev/null bash --norc --noprofile" || return 1
    if ! tmux_wait "$TMUX_PROMPT" 2>"$T_TMP/tmux-shell.err"; then
        t_fail "the shell in tmux shows its prompt" "$(tail -c 1500 "$T_TMP/tmux-shell.err")"
        return 1
    fi
}

# tmux_type TEXT: types TEXT literally.  tmux_keys KEY...: tmux key names (Escape, C-l).
tmux_type() { tm send-keys -t t -l -- "$1"; }
tmux_keys() { tm send-keys -t t -- "$@"; }
# tmux_run LINE: types LINE and Enter (in the pane's shell).
tmux_run() { tmux_type "$1" && tmux_keys Enter; }

# tmux_record FILE: from now on every byte the pane's program writes to its terminal is
# appended to FILE (tmux pipe-pane). Escapes a program sent are checked there: capture-pane
# shows the screen tmux made of them, never the sequences (an OSC 0 only sets the title).
tmux_record() { : >"$1" && tm pipe-pane -o -t t "cat >>'$1'"; }
# tmux_record_has FILE BYTES: FILE holds BYTES (a string, escapes written as $'\033').
tmux_record_has() { grep -qaF -- "$2" "$1"; }
# tmux_record_check NAME FILE BYTES...: passes when FILE holds none of BYTES (no newline in
# one: grep -F reads it as two patterns), else fails naming the first found (cat -v).
tmux_record_check() {
    local name=$1 file=$2 b
    shift 2
    for b in "$@"; do
        case $b in '' | *$'\n'*) t_fail "$name" "tmux_record_check: an empty or multi-line pattern"; return 1 ;; esac
        if grep -qaF -- "$b" "$file"; then
            t_fail "$name" "the terminal received $(printf '%s' "$b" | cat -v): $(grep -aF -- "$b" "$file" | head -n 1 | cat -v | head -c 300)"
            return 1
        fi
    done
    t_pass "$name"
}

# tmux_capture [-e] [-J]: the pane's text (-e with escapes, -J wrapped lines joined).
tmux_capture() { tm capture-pane -p -t t "$@"; }

# tmux_wait TEXT [SECONDS]: polls the screen (every 50 ms) until it contains TEXT; returns
# 1 and prints the screen to stderr when the time runs out.
tmux_wait() {
    local text=$1 limit=${2:-$TMUX_WAIT_SECONDS} end
    end=$((SECONDS + limit))
    while [ "$SECONDS" -le "$end" ]; do
        case "$(tmux_capture 2>/dev/null)" in *"$text"*) return 0 ;; esac
        sleep 0.05
    done
    echo "tmux_wait: [$text] did not appear within ${limit}s; screen:" >&2
    tmux_capture >&2 2>/dev/null
    return 1
}

# tmux_wait_gone TEXT [SECONDS]: until the screen no longer contains TEXT.
tmux_wait_gone() {
    local text=$1 limit=${2:-$TMUX_WAIT_SECONDS} end
    end=$((SECONDS + limit))
    while [ "$SECONDS" -le "$end" ]; do
        case "$(tmux_capture 2>/dev/null)" in *"$text"*) ;; *) return 0 ;; esac
        sleep 0.05
    done
    echo "tmux_wait_gone: [$text] still there after ${limit}s; screen:" >&2
    tmux_capture >&2 2>/dev/null
    return 1
}

# tmux_wait_line N TEXT [SECONDS]: until line N of the screen contains TEXT.
tmux_wait_line() {
    local n=$1 text=$2 limit=${3:-$TMUX_WAIT_SECONDS} end
    end=$((SECONDS + limit))
    while [ "$SECONDS" -le "$end" ]; do
        case "$(tmux_capture 2>/dev/null | sed -n "${n}p")" in *"$text"*) return 0 ;; esac
        sleep 0.05
    done
    echo "tmux_wait_line: [$text] not on line $n within ${limit}s; screen:" >&2
    tmux_capture >&2 2>/dev/null
    return 1
}

# tmux_wait_format FORMAT VALUE [SECONDS]: until tmux's #{...} FORMAT for the pane (e.g.
# '#{alternate_on}') has VALUE.
tmux_wait_format() {
    local fmt=$1 want=$2 limit=${3:-$TMUX_WAIT_SECONDS} end
    end=$((SECONDS + limit))
    while [ "$SECONDS" -le "$end" ]; do
        [ "$(tm display-message -p -t t "$fmt" 2>/dev/null)" = "$want" ] && return 0
        sleep 0.05
    done
    echo "tmux_wait_format: $fmt is not $want after ${limit}s" >&2
    return 1
}

tmux_resize() { tm resize-window -t t -x "$1" -y "$2"; }

# tmux_pane_pid: the pid of the process running in the pane (the shell or the command).
tmux_pane_pid() { tm display-message -p -t t '#{pane_pid}'; }

# tmux_dashboard_pid: the e2b-tui process under the pane's shell (empty when none).
tmux_dashboard_pid() { pgrep -P "$(tmux_pane_pid)" -f e2b-tui | head -n 1; }
