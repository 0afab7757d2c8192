#!/usr/bin/env bash
# tests/run on test files made to go wrong, in a tree of their own (a copy of tests/run and
# tests/lib): a helper that fails (el_create against the real e2b-local with a wrong key)
# followed by `|| t_finish`, a silent `exit 0` in the middle, a crash test whose kills all
# miss, processes and temp files left behind, a file that hangs. Each must make the run
# fail and be named; leftovers are killed. Then JOBS=2: slowest recorded first, a file marked
# "alone" runs with nothing beside it, each file's output stays in one piece, and
# build/test-times.txt is merged.
. "$(dirname "$0")/../lib/lib.sh"

tree=$T_TMP/tree
mkdir -p "$tree/tests/lib" "$tree/tests/unit" "$tree/b"
cp "$E2B_TUI_ROOT/tests/run" "$tree/tests/"
cp "$E2B_TUI_ROOT/tests/lib/lib.sh" "$E2B_TUI_ROOT/tests/lib/e2b_local.sh" "$E2B_TUI_ROOT/tests/lib/tmux.sh" \
    "$tree/tests/lib/"
# A build dir with the binaries the fixtures need and no unit programs.
ln -s "$E2B_LOCAL_BIN" "$tree/b/e2b-local"
ln -s "$E2B_TUI_BIN" "$tree/b/e2b-tui"
pids=$T_TMP/pids
: >"$pids"

fixture() { cat >"$tree/tests/unit/$1_test.sh"; }
head_lines='. "$(dirname "$0")/../lib/lib.sh"'

fixture ok <<EOF
$head_lines
t_pass "ok: fine"
t_finish
EOF
fixture create_fails <<EOF
$head_lines
. "\$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
e2b_local_start || t_finish
E2B_LOCAL_KEY=not-the-key
el_create || t_finish
t_pass "create_fails: after the create"
t_finish
EOF
fixture silent_exit <<EOF
$head_lines
t_pass "silent_exit: before"
exit 0
t_pass "silent_exit: after"
t_finish
EOF
# The shape of a crash test: each run aims a SIGKILL at a process that is already gone;
# the test counts the kills that landed and requires enough of them.
fixture crash_miss <<EOF
$head_lines
landed=0
for i in 1 2 3; do
    sh -c 'exit 0' & pid=\$!
    wait "\$pid"
    kill -KILL "\$pid" 2>/dev/null && landed=\$((landed + 1))
    t_pass "crash_miss: run \$i ends with a consistent state"
done
t_ok "crash_miss: the kill landed in at least 2 of 3 runs" test "\$landed" -ge 2
t_finish
EOF
fixture leftover <<EOF
$head_lines
setsid sleep 300 </dev/null >/dev/null 2>&1 & echo \$! >>"$pids"
bash -c 'sleep 301 </dev/null >/dev/null 2>&1 & echo \$!' >>"$pids"
t_pass "leftover: started two sleeps"
t_finish
EOF
fixture tmpfile <<EOF
echo stray >"\$TMPDIR/stray-file"
$head_lines
t_pass "tmpfile: wrote outside its scratch dir"
t_finish
EOF
# A tmux test that ends as it should leaves no socket; a server started past the library
# (killed, its socket not removed, as tmux never does) leaves one behind.
fixture tmux_clean <<EOF
$head_lines
. "\$E2B_TUI_ROOT/tests/lib/tmux.sh"
tmux_start 40 10 'sleep 100' && t_pass "tmux_clean: a session"
t_finish
EOF
fixture tmux_socket <<EOF
$head_lines
tmux -S "\$T_RUN_TMP/tmux-stray" -f /dev/null new-session -d -s t 'sleep 100'
tmux -S "\$T_RUN_TMP/tmux-stray" kill-server
t_pass "tmux_socket: a server of its own, killed"
t_finish
EOF

out=$T_TMP/run1.out
JOBS=1 bash "$tree/tests/run" B="$tree/b" >"$out" 2>&1
rc=$?
report=$(cat "$out")
t_eq "a run with broken files exits non-zero" "$rc" 1
t_eq "the final line counts the failures" "$(tail -n 1 "$out")" "9 passed, 7 failed"
t_not_contains "the good file has no failure" "$(grep 'ok_test.sh:' "$out")" "ok_test.sh:"
t_contains "a failing el_create prints a FAIL line" "$report" "FAIL create a sandbox: status 401"
t_contains "... and its '|| t_finish' is an early stop" "$report" \
    "FAIL create_fails_test.sh ran to its end: stopped early: t_finish at tests/unit/create_fails_test.sh:5"
t_not_contains "... the checks after it did not run" "$report" "after the create"
t_contains "a silent exit 0 in the middle fails the file" "$report" \
    "FAIL tests/unit/silent_exit_test.sh: ended early (no DONE line"
t_contains "a crash test whose kills all missed fails" "$report" \
    "FAIL crash_miss: the kill landed in at least 2 of 3 runs"
t_contains "processes left behind fail the file and are named" "$report" \
    "FAIL tests/unit/leftover_test.sh: left processes running:"
t_contains "... the daemonised one too" "$(grep 'leftover_test.sh: left' "$out" | head -n 1)" "sleep 301"
alive=
# (a zombie waiting for init to reap it is gone)
for p in $(cat "$pids"); do
    st=$(awk '{ print $3 }' "/proc/$p/stat" 2>/dev/null)
    [ -n "$st" ] && [ "$st" != Z ] && alive+=" $p"
done
t_eq "... and the runner killed them" "$alive" ""
t_contains "a file left in TMPDIR fails the file" "$report" \
    "FAIL tests/unit/tmpfile_test.sh: left files in its TMPDIR: stray-file"
t_contains "a tmux socket left behind fails the file, named" "$report" \
    "FAIL tests/unit/tmux_socket_test.sh: left a socket: tmux-stray"
t_not_contains "... and only once (it is removed)" "$report" "tmux_socket_test.sh: left files"
t_not_contains "a tmux test through tests/lib/tmux.sh leaves none" "$(grep 'tmux_clean_test.sh:' "$out")" \
    "tmux_clean_test.sh:"
t_contains "each failure is listed at the end" "$(sed -n '/^Failures:/,$p' "$out")" \
    "tests/unit/silent_exit_test.sh: ended early"
grep -q '^[0-9][0-9]* tests/unit/ok_test.sh$' "$tree/build/test-times.txt" 2>/dev/null
t_ok "each file's time is recorded in build/test-times.txt" test $? = 0

# A file that hangs is stopped by the timeout, with its processes.
rm -f "$tree"/tests/unit/*_test.sh
fixture hang <<EOF
$head_lines
t_pass "hang: started"
sleep 600
t_finish
EOF
TEST_TIMEOUT=3 bash "$tree/tests/run" B="$tree/b" >"$out" 2>&1
t_eq "a hanging file fails the run" "$?" 1
t_contains "... named as timed out" "$(cat "$out")" "FAIL tests/unit/hang_test.sh: timed out after 3s"
t_not_contains "... and its sleep was stopped with it" "$(cat "$out")" "left processes running"

# JOBS=2: four files of about a second; p4 runs alone. Recorded times put p3 and p1 first.
rm -f "$tree"/tests/unit/*_test.sh
order=$T_TMP/order
: >"$order"
for n in p1 p2 p3 p4; do
    {
        [ "$n" = p4 ] && echo '# tests/run: alone'
        echo "$head_lines"
        echo "echo start $n >>$(printf %q "$order")"
        echo "t_pass \"$n: one\"; sleep 0.7; t_pass \"$n: two\"; sleep 0.3"
        echo "echo end $n >>$(printf %q "$order")"
        echo "t_finish"
    } | fixture "$n"
done
printf '%s\n' "7 tests/unit/gone_test.sh" "20 tests/unit/p4_test.sh" "30 tests/unit/p2_test.sh" \
    "40 tests/unit/p1_test.sh" "50 tests/unit/p3_test.sh" >"$tree/build/test-times.txt"
JOBS=2 bash "$tree/tests/run" B="$tree/b" >"$out" 2>&1
t_eq "the parallel run passes" "$?" 0
t_eq "... its final line" "$(tail -n 1 "$out")" "8 passed, 0 failed"
t_eq "the slowest recorded start first, two at a time" "$(head -n 2 "$order" | sort | tr '\n' ' ')" \
    "start p1 start p3 "
t_eq "the file marked alone starts after every other ended" \
    "$(grep -n '' "$order" | awk -F: '/start p4/ { s = $1 } /end p[123]/ { e = $1 } END { print (s > e) }')" 1
t_eq "... and nothing starts while it runs" "$(tail -n 2 "$order" | tr '\n' ' ')" "start p4 end p4 "
contiguous=1
for n in p1 p2 p3 p4; do
    block=$(grep -A 2 -x "  PASS $n: one" "$out" | tr '\n' '|' | sed 's/([0-9]*s)/(Ns)/')
    [ "$block" = "  PASS $n: one|  PASS $n: two|== tests/unit/${n}_test.sh (Ns)|" ] || contiguous=0
done
t_eq "each file's output stays in one piece" "$contiguous" 1
t_eq "the summary lists the slowest files, slowest first" \
    "$(sed -n '/^The ten slowest:/,/^$/p' "$out" | sed -n '2,5p' | awk '{ print $2 }' | sort | tr '\n' ' ')" \
    "tests/unit/p1_test.sh tests/unit/p2_test.sh tests/unit/p3_test.sh tests/unit/p4_test.sh "
t_contains "the times file keeps a file that did not run" "$(cat "$tree/build/test-times.txt")" \
    "7 tests/unit/gone_test.sh"
t_not_contains "... and replaces the figures of those that ran" "$(cat "$tree/build/test-times.txt")" \
    "50 tests/unit/p3_test.sh"
t_finish
