#!/usr/bin/env bash
# The binary's own surface: --version, --help and usage errors.
. "$(dirname "$0")/../lib/lib.sh"
t_isolated_home

out=$("$E2B_TUI_BIN" --version); rc=$?
t_eq "--version exits 0" "$rc" 0
t_contains "--version names the program" "$out" "e2b-tui "
version=$(sed -n 's/^VERSION *:= *//p' "$E2B_TUI_ROOT/Makefile")
t_contains "--version prints the Makefile's version" "$out" "$version"

help=$("$E2B_TUI_BIN" --help); rc=$?
t_eq "--help exits 0" "$rc" 0
for mode in --list --up --attach --stop --kill --resume --extend --pull --secrets --info; do
    t_contains "--help lists $mode" "$help" "$mode"
done

err=$("$E2B_TUI_BIN" --no-such-flag 2>&1 >/dev/null); rc=$?
t_eq "an unknown flag is a usage error (exit 2)" "$rc" 2
t_contains "an unknown flag is named on stderr" "$err" "--no-such-flag"
# Operands may come anywhere; what is left over, or a dashboard option with a one-shot
# mode, is a usage error that says so (no API needed: all caught before any request).
err=$("$E2B_TUI_BIN" --stop a b 2>&1 >/dev/null); rc=$?
t_eq "a second operand is a usage error (exit 2)" "$rc" 2
t_contains "it is named" "$err" "unexpected argument 'b'"
err=$("$E2B_TUI_BIN" --list --mouse 2>&1 >/dev/null); rc=$?
t_eq "a dashboard option with a mode is a usage error (exit 2)" "$rc" 2
t_contains "it says it is the dashboard's" "$err" "--mouse is a dashboard option"
err=$("$E2B_TUI_BIN" --resume 2>&1 >/dev/null); rc=$?
t_eq "--resume needs a name or id (exit 2)" "$rc" 2
err=$("$E2B_TUI_BIN" --stop x --hours 2 2>&1 >/dev/null); rc=$?
t_eq "--hours goes with --up and --extend only (exit 2)" "$rc" 2
err=$("$E2B_TUI_BIN" --secrets set k extra 2>&1 >/dev/null); rc=$?
t_eq "--secrets set NAME extra is a usage error (exit 2)" "$rc" 2
t_finish
