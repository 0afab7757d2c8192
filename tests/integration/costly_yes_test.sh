#!/usr/bin/env bash
# Issue 30: the one-shot modes that cost more than usual need --yes above the thresholds
# the dashboard asks at (a fork of more than 3 copies, an up of more hours than the
# config's): without it the exit status is 2 with the reason on stderr; with it the mode goes on; --yes with another mode is a usage error.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
t_isolated_home
e2b_local_start || t_finish
mkdir -p "$T_TMP/notgit"
# run ARGS...: the binary in a directory that is no git project; sets rc, out, err.
run() {
    (cd "$T_TMP/notgit" && "$E2B_TUI_BIN" "$@") >"$T_TMP/out" 2>"$T_TMP/err"
    rc=$?
    out=$(cat "$T_TMP/out")
    err=$(cat "$T_TMP/err")
}
run --fork demo --count 4
t_eq "a fork of 4 without --yes exits 2" "$rc" 2
t_contains "it says why and what to add" "$err" "--fork --count 4 makes 4 boxes, each the size of demo: add --yes"
run --up --hours 2
t_eq "an up of 2 hours (the config's: 1) without --yes exits 2" "$rc" 2
t_contains "it names the config's hours" "$err" "more than the config's hours (1): add --yes"

run --fork demo --count 3
t_eq "a fork of 3 needs no --yes: it looks for the box (none: exit 3)" "$rc" 3
run --fork demo --count 4 --yes
t_eq "with --yes a fork of 4 goes on (no such box: exit 3)" "$rc" 3
mkdir -p "$XDG_CONFIG_HOME/e2b-tui"
printf 'hours = 2\n' >>"$XDG_CONFIG_HOME/e2b-tui/config"
run --up --hours 2
t_not_contains "the config's own hours need no --yes" "$err" "--yes"
run --up --hours 3 --yes
t_not_contains "with --yes more hours go on" "$err" "--yes"
t_contains "(to the project check)" "$err" "git"
run --list --yes
t_eq "--yes with --list is a usage error" "$rc" 2
t_contains "that says so" "$err" "--yes does not go with this mode"
t_finish
