#!/usr/bin/env bash
# The dashboard's frame, views, help overlay, ':' commands and read-only mode, read from
# the real screen in tmux.
. "$(dirname "$0")/common.sh"

# No API key: the friendly first screen instead of an error.
dash_start 100 30 || { t_fail "dashboard starts" "no first frame"; t_finish; }
screen=$(tmux_capture)
t_contains "first frame shows the tabs" "$screen" "1 Boxes   2 Workspaces   3 All sandboxes   4 Secrets"
t_contains "no-key screen says what is missing" "$screen" "No E2B API key is set"
t_contains "no-key screen says how to set it" "$screen" "export E2B_API_KEY="
t_contains "no-key screen offers the demo" "$screen" "make demo"
t_not_contains "no-key screen is not an error wall" "$screen" "rror"
t_contains "status line shows the main keys" "$screen" "? help  : command  / filter  q quit"
# stderr goes to the private log file while curses is active.
t_eq "the log file is private (0600)" "$(stat -c %a "$XDG_STATE_HOME/e2b-tui/e2b-tui.log" 2>&1)" 600
t_eq "its directory is private (0700)" "$(stat -c %a "$XDG_STATE_HOME/e2b-tui" 2>&1)" 700
pid=$(tmux_dashboard_pid)
t_eq "the dashboard's stderr is the log file" "$(readlink "/proc/$pid/fd/2")" "$XDG_STATE_HOME/e2b-tui/e2b-tui.log"

# Help overlay open and close.
tmux_type '?'
dash_check "? opens the help overlay" "Help: Boxes"
screen=$(tmux_capture)
t_contains "help lists kill with both keys" "$screen" "K, ctrl-d"
t_contains "help lists attach" "$screen" "hand the terminal to the box's OpenCode server"
tmux_keys Escape
dash_check_gone "Esc closes the help overlay" "Help: Boxes"
tmux_type '?'
tmux_wait "Help: Boxes" >/dev/null 2>&1
tmux_type '?'
dash_check_gone "? closes the help overlay again" "Help: Boxes"

# ':' commands switch views; the help follows the view.
tmux_type ':secrets'
dash_check "the command line echoes what is typed" ":secrets_"
tmux_keys Enter
tmux_type '?'
dash_check "':secrets' switches to the Secrets view" "Help: Secrets"
screen=$(tmux_capture)
t_contains "Secrets help lists n (set)" "$screen" "Set a secret"
t_not_contains "Secrets help has no box actions" "$screen" "Attach"
tmux_type 'q'
tmux_wait_gone "Help: Secrets" >/dev/null 2>&1
tmux_type ':all'; tmux_keys Enter
tmux_type '?'
dash_check "':all' switches to All sandboxes" "Help: All sandboxes"
tmux_keys Escape
tmux_type ':nope'; tmux_keys Enter
dash_check "an unknown command is named in the status line" "unknown command :nope"
tmux_keys Tab
tmux_type '?'
dash_check "Tab moves to the next view" "Help: Secrets"
tmux_keys Escape
tmux_type ':q'; tmux_keys Enter
dash_check "':q' quits with status 0" "rc=0"

# With a key: the list views are shown (no data source yet, and it says so honestly).
dash_start 100 30 E2B_API_KEY=e2b_test_not_a_real_key
screen=$(tmux_capture)
t_not_contains "with a key there is no no-key screen" "$screen" "No E2B API key"
t_contains "an empty list says why, without pretending" "$screen" "not part of this build"
t_contains "the header row is drawn" "$screen" "NAME"
tmux_type 'u'
dash_check "an action without a backend says so" "up: not available yet in this build"
dash_quit "q quits with status 0"

# --readonly hides every action that changes something.
dash_start 100 30 E2B_API_KEY=e2b_test -- --readonly
t_contains "read-only mode is shown" "$(tmux_capture)" "[read-only]"
tmux_type '?'
tmux_wait "Help: Boxes" >/dev/null 2>&1
screen=$(tmux_capture)
t_not_contains "read-only help hides kill" "$screen" "Kill the sandbox"
t_not_contains "read-only help hides up" "$screen" "Start a box"
t_contains "read-only help keeps detail" "$screen" "Details of the selected sandbox"
tmux_keys Escape
tmux_type 's'
dash_check "read-only refuses stop" "stop: disabled in read-only mode"
dash_quit "read-only dashboard quits"
t_finish
