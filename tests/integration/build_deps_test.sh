#!/usr/bin/env bash
# The build's dependencies of the test programs (what `make mutants` relies on): a unit test
# that #includes a .c of tui/ (test_tui_agent.c includes tui/agent_text.c) or a header is
# rebuilt when that file changes. Asked of make without building anything (make -n -W FILE:
# "what if FILE had just changed"), in the tree of the build under test.
. "$(dirname "$0")/../lib/lib.sh"
root=$E2B_TUI_ROOT
b=${TEST_B#"$root"/}
prog=$b/tests/unit/test_tui_agent
case $b in /*) t_abort "the build under test ($TEST_B) is not under the tree ($root)" ;; esac
[ -f "$prog.d" ] || t_fail "the test program has a dependency file" "no $prog.d"
# relinks FILE: make -n, as if FILE had changed, would build $prog again.
relinks() {
    make -C "$root" --no-print-directory -n -W "$1" B="$b" "$prog" 2>&1 | grep -q -- "-o $prog "
}
if relinks tui/agent_text.c; then
    t_pass "a change of tui/agent_text.c (#included by the test) rebuilds $prog"
else
    t_fail "a change of tui/agent_text.c (#included by the test) rebuilds $prog" \
        "make -n -W tui/agent_text.c: $(make -C "$root" --no-print-directory -n -W tui/agent_text.c B="$b" "$prog" 2>&1 | tail -n 3)"
fi
hdr=$(sed -n 's/^\(tui\/[a-z_]*\.h\):$/\1/p' "$prog.d" 2>/dev/null | head -n 1)
if [ -n "$hdr" ] && relinks "$hdr"; then
    t_pass "a change of a header it includes ($hdr) rebuilds $prog"
else
    t_fail "a change of a header it includes rebuilds $prog" "header [${hdr:-none in $prog.d}]"
fi
if relinks tui/views/agent_actions.c; then
    t_fail "a change of a file it does not include leaves $prog alone" "make -n -W tui/views/agent_actions.c relinks it"
else
    t_pass "a change of a file it does not include leaves $prog alone"
fi
t_finish
