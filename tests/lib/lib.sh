# Shared helpers for shell-driven tests. Source it: . "$(dirname "$0")/../lib/lib.sh"
# Each check prints "PASS <name>" or "FAIL <name>: why"; tests/run counts those lines.
# The binaries under test come from the runner: $E2B_TUI_BIN, $E2B_LOCAL_BIN ($TEST_B).
# A file ends with t_finish, which prints "DONE <n> checks" when it is the file's last
# t_finish (the normal end); tests/run fails a file whose log has no DONE line. A t_finish
# anywhere else (`helper || t_finish`) is an early stop: a FAIL line, and status 1.

set -u
: "${E2B_TUI_ROOT:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${TEST_B:=$E2B_TUI_ROOT/build/asan}"
: "${E2B_TUI_BIN:=$TEST_B/e2b-tui}"
: "${E2B_LOCAL_BIN:=$TEST_B/e2b-local}"
T_FAILED=0
T_CHECKS=0
# The test file itself, by a path that stays valid after the test changes directory.
T_SELF=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")

t_pass() { echo "PASS $1"; T_CHECKS=$((T_CHECKS + 1)); }
t_fail() { echo "FAIL $1: $2"; T_FAILED=1; T_CHECKS=$((T_CHECKS + 1)); }

# t_ok NAME CMD...: passes when CMD exits 0.
t_ok() {
    local name=$1; shift
    if "$@"; then t_pass "$name"; else t_fail "$name" "command failed (status $?): $*"; fi
}

# t_eq NAME GOT WANT
t_eq() {
    if [ "$2" = "$3" ]; then t_pass "$1"; else t_fail "$1" "got [$2], want [$3]"; fi
}

# t_contains NAME HAYSTACK NEEDLE
t_contains() {
    case "$2" in
    *"$3"*) t_pass "$1" ;;
    *) t_fail "$1" "[$3] not found in: $(printf '%s' "$2" | head -c 400)" ;;
    esac
}

# t_not_contains NAME HAYSTACK NEEDLE
t_not_contains() {
    case "$2" in
    *"$3"*) t_fail "$1" "[$3] must not appear in: $(printf '%s' "$2" | head -c 400)" ;;
    *) t_pass "$1" ;;
    esac
}

# t_wait_until SECONDS CMD...: runs CMD (in this shell) every 0.1 s until it succeeds;
# returns 1 when SECONDS pass first. For conditions on a loaded machine: never a fixed sleep.
t_wait_until() {
    local end=$((SECONDS + $1))
    shift
    while :; do
        "$@" && return 0
        [ "$SECONDS" -ge "$end" ] && return 1
        sleep 0.1
    done
}

# A scratch directory removed at exit; cleanup hooks run before it goes. TMPDIR points into
# it, so what the programs under test unpack or leave in "the temp dir" goes with it.
# T_RUN_TMP is the directory the runner gave this program (tests/run fails a program that
# leaves anything in it): what must be gone at the end but may outlive T_TMP (a tmux
# socket, which tmux never removes) is made there.
T_RUN_TMP=${TMPDIR:-/tmp}
T_TMP=$(mktemp -d "$T_RUN_TMP/e2b-tui-test.XXXXXX")
mkdir -p "$T_TMP/tmp"
export TMPDIR=$T_TMP/tmp
T_CLEANUPS=()
t_on_exit() { T_CLEANUPS+=("$*"); }
# A hook that prints a FAIL line (a server that did not stop cleanly) fails the file even
# after t_finish: the exit status is set again here.
t_cleanup() {
    local rc=$? i
    for ((i = ${#T_CLEANUPS[@]} - 1; i >= 0; i--)); do eval "${T_CLEANUPS[$i]}" || true; done
    rm -rf "$T_TMP"
    [ "$T_FAILED" = 0 ] || exit 1
    exit "$rc"
}
trap t_cleanup EXIT

# An isolated user: HOME and XDG folders inside the scratch directory.
t_isolated_home() {
    export HOME=$T_TMP/home
    export XDG_CONFIG_HOME=$HOME/.config XDG_STATE_HOME=$HOME/.local/state
    export XDG_DATA_HOME=$HOME/.local/share XDG_CACHE_HOME=$HOME/.cache
    mkdir -p "$HOME"
}

# t_abort WHY: stops the file here; the checks after this point did not run.
t_abort() {
    t_fail "$(basename "$0") ran to its end" "stopped early: $1"
    exit 1
}

# t_finish: the end of the file. Called from any other place (a library, a function, a
# `|| t_finish` in the middle) it is an early stop.
t_finish() {
    local line file last
    read -r line _ file < <(caller 0)
    last=$(grep -n -w 't_finish' "$T_SELF" 2>/dev/null | grep -v -E '^[0-9]+:[[:space:]]*#' | tail -n 1)
    last=${last%%:*}
    if [ "$file" != "$0" ] || [ "$line" != "$last" ]; then
        t_abort "t_finish at ${file#"$E2B_TUI_ROOT"/}:$line (a step failed before it); the checks after it did not run"
    fi
    echo "DONE $T_CHECKS checks"
    exit "$T_FAILED"
}
