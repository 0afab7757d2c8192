#!/usr/bin/env bash
# No dead public API: every public function of core/, keystore/ and tui/ has a caller in the
# product, or a line saying why in tests/lib/dead_api_keep.txt (tests/lib/check_dead_api.sh
# on the sanitizer build's objects). A fixture shows the check tells each case apart: a
# function called from another file, one called only in its own file, one called only by
# a test, one not called at all, and a kept line that has gone stale.
source "$(dirname "$0")/../lib/lib.sh"
cd "$E2B_TUI_ROOT" || exit 2
check=tests/lib/check_dead_api.sh

out=$(bash "$check" . "$TEST_B" tests/lib/dead_api_keep.txt 2>&1)
rc=$?
if [ "$rc" = 0 ]; then t_pass "dead api: every public function is called or kept with a reason"
else t_fail "dead api: the tree" "$(printf '%s' "$out" | grep -v '^note:' | head -n 20)"; fi

fx=$T_TMP/fixture
mkdir -p "$fx/core/thing" "$fx/tui" "$fx/tests" "$fx/obj/core/thing" "$fx/obj/tui"
cat >"$fx/core/thing/thing.c" <<'C'
/* e2b_thing_dead is named in this comment only */
int e2b_thing_used(int x) { return x + 1; }
int e2b_thing_self(int x) { return x * 2; }
int e2b_thing_twice(int x) { return e2b_thing_self(x) + 1; }
int e2b_thing_dead(int x) { return x - 1; }
int e2b_thing_tested(int x) { return x; }
int e2b_thing_kept(int x) { return -x; }
C
cat >"$fx/tui/main.c" <<'C'
int e2b_thing_used(int x);
int e2b_thing_twice(int x);
int main(void) { return e2b_thing_used(0) + e2b_thing_twice(0); }
C
cat >"$fx/tests/test_thing.c" <<'C'
int e2b_thing_tested(int x);
int e2b_thing_dead(int x);
int main(void) { return e2b_thing_tested(0) + e2b_thing_dead(0); }
C
cc -c -o "$fx/obj/core/thing/thing.o" "$fx/core/thing/thing.c" &&
    cc -c -o "$fx/obj/tui/main.o" "$fx/tui/main.c" || t_finish
# check_with KEEP-LINES...: runs the check on the fixture with that kept list; sets got, rc.
check_with() {
    printf '%s\n' "$@" >"$fx/keep.txt"
    got=$(bash "$check" "$fx" "$fx/obj" "$fx/keep.txt" 2>&1)
    rc=$?
}

check_with '# fixture' 'e2b_thing_kept  kept on purpose'
t_eq "dead api: a dead function fails the check" "$rc" 1
t_contains "dead api: names the function never called" "$got" "dead: e2b_thing_dead (core/thing/thing.c)"
t_contains "dead api: a caller in a test does not count" "$got" "dead: e2b_thing_tested"
t_not_contains "dead api: a caller in another file counts" "$got" "e2b_thing_used"
t_not_contains "dead api: a caller in the same file counts" "$got" "e2b_thing_self"
t_not_contains "dead api: a kept function is not listed" "$got" "e2b_thing_kept"
t_not_contains "dead api: main is no API" "$got" "main"

check_with 'e2b_thing_kept  kept' 'e2b_thing_dead  kept' 'e2b_thing_tested  kept' \
    'e2b_thing_used  kept' 'e2b_gone  kept'
t_eq "dead api: a stale kept line fails the check" "$rc" 1
t_contains "dead api: names a kept function that is called now" "$got" "stale: e2b_thing_used is called now"
t_contains "dead api: names a kept function that is gone" "$got" "stale: e2b_gone is no longer a public function"
t_not_contains "dead api: no dead line when all are kept" "$got" "dead:"

check_with 'e2b_thing_kept  kept' 'e2b_thing_dead  kept' 'e2b_thing_tested  kept' '[pending]' \
    'e2b_thing_used  waits for a caller'
t_eq "dead api: a pending line that gained a caller is a note, not a failure" "$rc" 0
t_contains "dead api: the note names it" "$got" "note: e2b_thing_used (pending) is called now"
t_finish
