#!/usr/bin/env bash
# The Changes pane of a box (c): what differs from the box's base, read from the box's own
# git through envd — modified, deleted, staged and untracked files with their line counts,
# ignored files left out — and the selected file's diff, coloured and scrollable; R reads
# again after the agent worked; a hostile file name and hostile diff text are drawn
# harmlessly; it still works with the box's OpenCode server down; a paused box is said in
# words; the box's own index and HEAD are not touched.
. "$(dirname "$0")/common.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish
export TERM=tmux-256color LANG=C.UTF-8

box_tui --up
box_rc "a box is up for the changes tests" 0 || t_abort "the box did not come up"
id=$(box_sandbox_of main)
root=$(box_root "$id")
inbox() { box_exec "$id" "cd '$BOX_REPO' && $1" >/dev/null; }
# (GIT_OPTIONAL_LOCKS=0: this status must not refresh the index itself.)
box_state() { box_exec "$id" "cd '$BOX_REPO' && git rev-parse HEAD && sha256sum .git/index && GIT_OPTIONAL_LOCKS=0 git status --porcelain" | sed -n 's/^stdout //p'; }
# file_row PATH: the screen line of that file in the list.
file_row() { tmux_capture | grep -F -- "$1" | head -n 1; }
# step KEY: moves in the file list and waits (bounded) until the diff shown is another file's,
# so that on a loaded machine the search loops below do not step past the file they want.
shown_diff() { tmux_capture | grep -m1 -o 'diff --git a/.*'; }
# (a frame between two files may show no diff at all: wait for the next file's own)
_diff_is_not() { local now; now=$(shown_diff); [ -n "$now" ] && [ "$now" != "$1" ]; }
step() {
    local was
    was=$(shown_diff)
    tmux_type "$1"
    t_wait_until 10 _diff_is_not "$was"
}

# The agent: a committed change, an edit, a new file with 30 lines (for scrolling).
inbox "printf 'agent one\nagent two\n' > src/agent.c && git add src/agent.c && git -c user.name=A -c user.email=a@b commit -qm agent && printf 'int main(void) { return 1; }\n' > src/main.c && seq 1 30 | sed 's/^/line-/' > src/long.txt && printf '\\000\\001\\002' > bin.dat"
before=$(box_state)

DASH_CWD=$BOX_REPO dash_start 120 40 -- --refresh 1
rec=$T_TMP/pty.bytes
tmux_record "$rec"
dash_check "the box is listed" "main "
tmux_type c
dash_check "c opens the Changes pane" "CHANGES  main ($id)"
dash_check "the list is read from the box" "against base"
dash_check_row "a committed file is listed as added with its lines" src/agent.c "+2"
dash_check_row "an edited file is listed as modified" src/main.c " M "
dash_check_row "the fixture's deleted file is listed as deleted" src/deleted.txt " D "
dash_check_row "an untracked file is listed as new" src/untracked.txt "new"
dash_check_row "the new long file has its 30 lines" src/long.txt "+30"
dash_check_row "a binary file says so" bin.dat "bin"
screen=$(tmux_capture)
t_not_contains "ignored files are left out" "$screen" "debug.log"
t_not_contains "files as in the base are left out" "$screen" "tools/run.sh"
t_contains "the totals are in the header" "$(head -n 3 <<<"$screen")" "files  +"
dash_check "the first file's diff is shown" "diff --git a/bin.dat b/bin.dat"

# Moving in the list shows another file's diff.
for _ in $(seq 1 12); do
    file_row src/long.txt | grep -q '^ *new' && tmux_capture | grep -q -- '+line-1$' && break
    step j
done
dash_check "j moves to the long file and its diff" "+line-1"
dash_check_match "added lines are drawn green" $'\033''\[(38;5;114|32)m\+line-1' -e
# Tab: the movement keys scroll the diff.
tmux_keys Tab
dash_check "Tab moves to the diff" "Tab: back to the files"
for _ in $(seq 1 8); do tmux_type j; done
dash_check "j scrolls the diff" "(line 9 of"
tmux_keys PPage
dash_check "PgUp scrolls it back" "(line 1 of"
tmux_keys Tab

# Hostile text from the box: a file name and file content with escapes.
inbox "printf 'x\033]0;PWNED\007\033[2J\n' > \"\$(printf 'ev\033[31mil.txt')\""
tmux_type R
dash_check "R reads again and shows the hostile name harmlessly" "ev?[31mil.txt"
for _ in $(seq 1 20); do
    file_row 'ev?[31mil' | grep -q 'new' && [ "$(tmux_capture | grep -c -- '+x?]0;PWNED')" -ge 1 ] && break
    step k
done
dash_check "the hostile diff text is drawn harmlessly" "+x?]0;PWNED??[2J"
# the bytes the terminal received: the text arrived, the box's escapes did not
t_ok "the terminal received the hostile text" tmux_record_has "$rec" "PWNED"
tmux_record_check "no escape from the box reached the terminal (title, clear screen, colour)" "$rec" \
    $'\033]0;PWNED' $'PWNED\a\033[2J' $'ev\033[31mil'

t_not_contains "the title was not set" "$(tm display-message -p -t t '#{pane_title}')" "PWNED"

# The server down (killed by its pid, gone before the next read): the changes still come
# (envd, not the server).
spid=$(box_server_pid "$id")
t_ok "the box's OpenCode server runs" test -n "$spid"
kill -KILL "$spid" 2>/dev/null
t_ok "the box's OpenCode server is gone" t_wait_until 20 sh -c '! kill -0 "$1" 2>/dev/null' sh "$spid"
inbox "echo after-server-exit > after.txt"
tmux_type R
dash_check "with the server down the changes are still read" "after.txt"
t_eq "the box's HEAD, index and status are as before the pane read them" "$(box_state | grep -v -e after.txt -e 'il.txt')" "$(grep -v -e after.txt -e il.txt <<<"$before")"

# Paused: said in words, with what helps.
el_req POST "/sandboxes/$id/pause" >/dev/null
tmux_type R
dash_check "a paused box is said in words" "sandbox paused — r resumes it"
dash_check "what was read stays on screen" "after.txt"

tmux_keys Escape
dash_check_gone "Esc closes the pane" "CHANGES  main"
dash_quit "quits cleanly after the changes tests"
t_finish
