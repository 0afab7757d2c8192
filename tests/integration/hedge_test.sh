#!/usr/bin/env bash
# Hedged health probes (issue 32): while up waits for the box's OpenCode server (the real
# one), a probe that is not answered gets a second one beside it, and the probing goes on
# in that second slot while the first stays unanswered (at most two in flight), so a server
# that ignores its first request costs no more than one probe interval. The first probe is
# held by e2b-local (a delay fault on the health route, longer than a probe's 0.5 s limit);
# counted from e2b-tui's log, where each probe is a line in the order they ended.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/lib/faults.sh"
box_setup || t_finish
log=$XDG_STATE_HOME/e2b-tui/e2b-tui.log
# probes: the health probes of the log, in the order they ended ("STATUS MSms [error: ...]")
probes() { sed -n 's/^.* GET health \([0-9]* [0-9]*ms.*\)$/\1/p' "$log"; }

fault_set '{"kind":"delay","path":"/api/health","delayMs":4000,"count":1}'
rm -f "$log"
box_tui --up hedged
box_rc "up succeeds while the server ignores its first probe" 0 || t_abort "the box did not come up"
t_eq "the first probe was held (the fault was taken)" "$(fault_left)" 0
all=$(probes)
echo "  (probes, in the order they ended: $(tr '\n' '|' <<<"$all"))"
# the held probe: the only one that ended in an error (its limit, or cancelled once another
# found the server healthy)
held=$(grep -n -m1 ' error: ' <<<"$all" | cut -d: -f1)
t_ok "the held probe ended in an error (timed out or cancelled)" test -n "$held"
[ -n "$held" ] || t_finish
while_held=$(head -n $((held - 1)) <<<"$all")
n=$(grep -c . <<<"$while_held")
ok=$(grep -c '^2[0-9][0-9] ' <<<"$while_held")
# without the second slot probing on, exactly one probe (the hedge) ends while the first is
# held, and a "not up yet" answer to it waits for the held one's limit
t_ok "while the first probe was held the others went on: $n ended, $ok healthy (two in flight at most)" \
    test "$ok" -ge 1 -o "$n" -ge 2
t_eq "one probe ended healthy in all" "$(grep -c '^2[0-9][0-9] ' <<<"$all")" 1
t_finish
