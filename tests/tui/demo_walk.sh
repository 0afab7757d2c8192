# The README's walkthrough of make demo (tests/demo.sh) in a tmux pane, checked step by step
# (sourced by demo_test.sh as root and demo_user_test.sh as a throwaway user).
#   DEMO_TMP   the demo's TMPDIR (empty, writable by whoever runs the demo)
#   DEMO_AS    a command prefix that runs the demo as another user (empty: as this one)
#   DEMO_USER  the user the demo runs as

tmux_shell 120 32
tmux_run "${DEMO_AS:+$DEMO_AS }env TMPDIR=$(printf %q "$DEMO_TMP") E2B_TUI_BIN=$(printf %q "$E2B_TUI_BIN") E2B_LOCAL_BIN=$(printf %q "$E2B_LOCAL_BIN") $(printf %q "$E2B_TUI_ROOT/tests/demo.sh"); echo demo-rc=\$?"
if tmux_wait "1 Boxes" 300 2>"$T_TMP/wait.err"; then t_pass "the demo opens the dashboard"; else
    t_abort "the dashboard did not open: $(tail -c 1500 "$T_TMP/wait.err")"; fi
proj=$(ls -d "$DEMO_TMP"/e2b-tui-demo.*/todo-app 2>/dev/null)
t_ok "the demo's local E2B server runs as $DEMO_USER" \
    pgrep -u "$DEMO_USER" -f -- "--state $DEMO_TMP/e2b-tui-demo.[^/]*/state"
t_ok "the demo project is a git repository in the demo's temporary directory" git -C "$proj" rev-parse --git-dir
dash_check "the sample box" "demo-box"
dash_check "and the paused box" "paused-box"
tmux_type 2
dash_check "the sample workspace" "demo-workspace"
tmux_type 3
dash_check "all sample sandboxes" "1/5"
dash_check "the others are there" "batch-job"
tmux_type 1

# u: a box from the demo project (name, then template, hours and directory as offered)
tmux_type u
dash_check "u asks for the box's name" "up: box name"
tmux_type feature; tmux_keys Enter
dash_check "then the template" "up: template"
tmux_keys Enter
dash_check "then the hours" "up: hours"
tmux_keys Enter
dash_check "then the project directory" "up: project directory"
tmux_keys Enter
if tmux_wait "box feature is up" 240 2>"$T_TMP/wait.err"; then t_pass "u brings the box up with the real OpenCode server"; else
    t_fail "u brings the box up with the real OpenCode server" "$(tail -c 1500 "$T_TMP/wait.err")"; fi
dash_check "it is listed" "feature "

# m: a task for feature's agent; AGENT goes working -> waiting for you -> (y) -> idle, done
tmux_type /; tmux_type feature; tmux_keys Enter
dash_check "the filter leaves the new box" "1/1"
if tmux_wait "idle" 120 2>"$T_TMP/wait.err"; then t_pass "the AGENT column shows the private box's agent"; else
    t_fail "the AGENT column shows the private box's agent" "$(tail -c 1500 "$T_TMP/wait.err")"; fi
tmux_type m
dash_check "m opens the message editor" "ctrl-d: send"
tmux_type "Add a command that clears the finished items"
tmux_keys C-d
if tmux_wait "! waiting: bash: python3" 120 2>"$T_TMP/wait.err"; then t_pass "the agent works, then waits for you (a shell command)"; else
    t_fail "the agent works, then waits for you (a shell command)" "$(tail -c 1500 "$T_TMP/wait.err")"; fi
tmux_type y
# the AGENT cell may go on with when the idle box pauses ("idle 1m done, pauses in 14m")
if t_wait_until 120 _dash_screen_matches 'idle [^ ]+ done(, pauses in [^ ]+)? +4/4'; then
    t_pass "y lets it run; it ends idle, done, its todo list 4/4"; else
    t_fail "y lets it run; it ends idle, done, its todo list 4/4" "$(tmux_capture | tail -c 1500)"; fi
tmux_type p
if tmux_wait "pulled feature into branch e2b/feature" 120 2>"$T_TMP/wait.err"; then t_pass "p pulls feature's work"; else
    t_fail "p pulls feature's work" "$(tail -c 1500 "$T_TMP/wait.err")"; fi
t_eq "e2b/feature holds the agent's work" "$(git -C "$proj" show --name-only --format= e2b/feature | sort | tr '\n' ' ')" "test_clear.py todo.py "
tmux_keys Escape

# the sample box: Detail, Log, attach, pull
tmux_type /; tmux_type demo-box; tmux_keys Enter
dash_check "the filter leaves the sample box" "1/1"
tmux_type d
dash_check "the Detail pane says the box is private" "private: its ports need"
tmux_keys Escape
tmux_type l
dash_check "l shows the box server's output" "opencode server listening"
tmux_keys Escape
dash_check_gone "the Log pane closes" "opencode server listening"
tmux_type a
if tmux_wait "Ask anything" 120 2>"$T_TMP/wait.err"; then t_pass "a hands the terminal to the real opencode attach (through the tunnel)"; else
    t_fail "a hands the terminal to the real opencode attach (through the tunnel)" "$(tail -c 1500 "$T_TMP/wait.err")"; fi
t_ok "the attach command got the tunnel's loopback URL" pgrep -f "opencode attach http://127.0.0.1:[0-9]* --dir $proj"
tunnel=$(pgrep -af "opencode attach http://127.0.0.1:[0-9]* --dir $proj" | grep -o 'http://127.0.0.1:[0-9]*' | head -1)
t_eq "the tunnel adds the token, not the password (401 without it)" \
    "$(curl -s -o /dev/null -w '%{http_code}' "$tunnel/global/health")" 401
dash_check "the box's OpenCode uses the demo's scripted model" "Scripted demo model"
tmux_type "Add a command that clears the finished items"
tmux_keys Enter
if tmux_wait "Permission required" 120 2>"$T_TMP/wait.err"; then t_pass "the agent plans, edits, writes a test, then asks to run a shell command"; else
    t_fail "the agent plans, edits, writes a test, then asks to run a shell command" "$(tail -c 1500 "$T_TMP/wait.err")"; fi
dash_check "the command it asks for" "python3 -m unittest"
tmux_keys Enter
if tmux_wait "The tests pass" 120 2>"$T_TMP/wait.err"; then t_pass "allowed, it runs the tests and answers"; else
    t_fail "allowed, it runs the tests and answers" "$(tail -c 1500 "$T_TMP/wait.err")"; fi
dash_check "with its todo list done" "[✓] Run the tests"
back=0
for _ in 1 2 3 4 5; do
    tmux_keys C-c
    tmux_wait "back from demo-box" 8 2>/dev/null && { back=1; break; }
done
t_eq "quitting opencode returns to the dashboard" "$back" 1
t_ok "the attach command has ended" sh -c "! pgrep -f 'opencode attach http://127.0.0.1:[0-9]* --dir $proj' >/dev/null"
t_eq "and the tunnel with it (its port is closed)" "$(curl -s -o /dev/null -w '%{http_code}' "$tunnel/global/health")" 000
tmux_type p
if tmux_wait "pulled demo-box into branch e2b/demo-box" 120 2>"$T_TMP/wait.err"; then t_pass "p pulls the work and says where"; else
    t_fail "p pulls the work and says where" "$(tail -c 1500 "$T_TMP/wait.err")"; fi
t_eq "the branch e2b/demo-box holds the sample commit" "$(git -C "$proj" log -1 --format=%s e2b/demo-box~1 2>&1)" "Add done(), with a test"
t_eq "and the agent's work on top" "$(git -C "$proj" show --name-only --format= e2b/demo-box | sort | tr '\n' ' ')" "test_clear.py todo.py "
t_ok "todo.py has the agent's clear()" sh -c "git -C '$proj' show e2b/demo-box:todo.py | grep -q 'def clear(items):'"
t_eq "the project's own branch is untouched" "$(git -C "$proj" log -1 --format=%s main)" "A tiny todo list"
tmux_keys Escape

# q: the server stops, everything goes
tmux_type q
if tmux_wait "demo-rc=0" 60 2>"$T_TMP/wait.err"; then t_pass "quitting ends the demo"; else
    t_fail "quitting ends the demo" "$(tail -c 1500 "$T_TMP/wait.err")"; fi
t_eq "the temporary directory is removed (project, home, server state)" "$(ls -A "$DEMO_TMP")" ""
t_eq "no e2b-local is left running" "$(pgrep -f -- "$DEMO_TMP" | wc -l)" 0
