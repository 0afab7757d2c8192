#!/usr/bin/env bash
# The dashboard's frame, views, help overlay, ':' commands and read-only mode, read from
# the real screen in tmux.
. "$(dirname "$0")/common.sh"

# No API key: the friendly first screen instead of an error.
dash_start 100 30 || { t_fail "dashboard starts" "no first frame"; t_finish; }
dash_check "first frame shows the tabs" "1 Boxes   2 Workspaces   3 All sandboxes   4 Secrets"
dash_check "no-key screen says what is missing" "No E2B API key is set"
dash_check "no-key screen says how to set it" "export E2B_API_KEY="
dash_check "no-key screen offers the demo" "make demo"
dash_check "status line shows the main keys" "? help  : command  / filter  q quit"
t_not_contains "no-key screen is not an error wall" "$(tmux_capture)" "rror"
# stderr goes to the private log file while curses is active.
t_eq "the log file is private (0600)" "$(stat -c %a "$XDG_STATE_HOME/e2b-tui/e2b-tui.log" 2>&1)" 600
t_eq "its directory is private (0700)" "$(stat -c %a "$XDG_STATE_HOME/e2b-tui" 2>&1)" 700
pid=$(tmux_dashboard_pid)
t_eq "the dashboard's stderr is the log file" "$(readlink "/proc/$pid/fd/2")" "$XDG_STATE_HOME/e2b-tui/e2b-tui.log"

# Help overlay open and close.
tmux_type '?'
dash_check "? opens the help overlay" "Help: Boxes"
dash_check "help lists attach" "hand the terminal to the box's OpenCode server"
# The list is longer than the pane: ctrl-d pages it until kill, then the paging keys, show.
help=$(tmux_capture) seen_kill=
for ((i = 0; i < 8; i++)); do
    grep -q "Kill the sandbox" <<<"$help" && seen_kill=1
    grep -q "Half a page down" <<<"$help" && break
    dash_keys_redrawn C-d
    help=$(tmux_capture)
done
t_eq "help lists kill on K (paging down)" "$seen_kill" 1
t_contains "help lists ctrl-d as half a page down (ctrl-d pages the help too)" "$help" "Half a page down"
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
dash_check "Secrets help lists n (set)" "Set a secret"
t_not_contains "Secrets help has no box actions" "$(tmux_capture)" "Attach"
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

# With a key but no server (a closed loopback port): the lists are drawn, the status line
# says what failed in words a user can act on, and the UI keeps working.
dash_start 100 30 E2B_API_KEY=e2b_test_not_a_real_key
t_not_contains "with a key there is no no-key screen" "$(tmux_capture)" "No E2B API key"
dash_check "the header row is drawn" "NAME"
dash_check "an unreachable API is named in the status line" "cannot reach 127.0.0.1:9"
dash_check "the empty list says it is retrying" "Could not list sandboxes yet"
tmux_type 'u'
dash_check "u still asks (the server is needed only once it starts)" "up: box name"
tmux_keys Escape
dash_check "Esc cancels up's question" "up: cancelled"
tmux_type q
dash_check "q quits the dashboard" "rc=0"

# The global options reach the dashboard too: --api-url beats E2B_API_URL.
dash_start 100 30 E2B_API_KEY=e2b_test_not_a_real_key -- --api-url http://127.0.0.1:7 --readonly
dash_check "--api-url is used by the dashboard" "cannot reach 127.0.0.1:7"
tmux_type q
dash_check "q quits the dashboard (--api-url)" "rc=0"
dash_start 100 30 E2B_API_KEY=e2b_test_not_a_real_key
tmux_type 'u'
dash_check "u asks again after a restart" "up: box name"
tmux_keys Escape
dash_check "Esc cancels it" "up: cancelled"
tmux_type 2
tmux_type '?'
# (the tabs line always names every tab: the help's title says which view is shown)
dash_check "the UI keeps working" "Help: Workspaces"
tmux_keys Escape
dash_check_gone "Esc closes the help" "Help: Workspaces"
dash_quit "q quits with status 0"

# Against e2b-local: a wrong key gives the 401 message; an injected 500 is shown while the
# rows stay; a stopped server is reported and the UI keeps working.
e2b_local_start || t_finish
sbx_create base running 3600 name=first-one
dash_start 100 30 E2B_API_KEY=wrong-key
dash_check "a wrong key: the 401 message" "rejected the API key"
dash_quit "quits after the wrong key"
dash_start 120 30 -- --refresh 1
tmux_type 3
dash_check "the list arrives" "first-one"
curl -s -X POST "$E2B_API_URL/_e2b-local/faults" -d '{"kind":"500","count":3,"path":"/v2/sandboxes"}' >/dev/null
dash_check "an injected 500 is shown in the status line" "500"
dash_check "the rows stay while the server fails" "first-one"
# The faults match the create path too: let the refreshes use them up first.
for _ in $(seq 100); do [ "$(curl -s "$E2B_API_URL/_e2b-local/faults")" = "[]" ] && break; sleep 0.1; done
sbx_create base paused 3600 name=second-one
dash_check "after the faults the refresh brings new rows" "second-one"
e2b_local_stop
dash_check "a stopped server is reported" "cannot reach"
tmux_type '/first'
tmux_keys Enter
dash_check "the UI keeps working without the server (filter applied)" "1/1"
dash_quit "quits after the server stopped"

# --readonly hides every action that changes something.
dash_start 100 30 E2B_API_KEY=e2b_test -- --readonly
dash_check "read-only mode is shown" "[read-only]"
tmux_type '?'
tmux_wait "Help: Boxes" >/dev/null 2>&1
dash_check "read-only help keeps detail" "Details of the selected sandbox"
screen=$(tmux_capture)
t_not_contains "read-only help hides kill" "$screen" "Kill the sandbox"
t_not_contains "read-only help hides up" "$screen" "Start a box"
tmux_keys Escape
dash_check_gone "Esc closes the read-only help" "Help: Boxes"
tmux_type 's'
dash_check "read-only refuses stop" "stop: disabled in read-only mode"
dash_quit "read-only dashboard quits"
t_finish
