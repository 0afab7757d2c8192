#!/usr/bin/env bash
# --kill looks for work not pulled home first (issue 19 item 13), against e2b-local with the
# fixture project (dirty on purpose) and real git in the boxes: a box nobody changed is
# killed without a word (its changes are the work tree's own), a new file in the box is
# refused with exit 8 and nothing killed, a pull makes it quiet again, a commit after the
# pull is refused again, --force kills anyway, a box that does not answer is given up on in
# time, and a paused box is killed with "unpulled work unknown" without being resumed.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/lib/faults.sh"
box_setup || t_finish

rec() { echo "$XDG_STATE_HOME/e2b-tui/boxes/$1.json"; }
commit_in() { # ID MSG FILE: a commit of a new file in the box
    box_exec "$1" "cd '$BOX_REPO' && echo '$2' > '$3' && git add '$3' && git -c user.name=t -c user.email=t@t commit -qm '$2'" >/dev/null
}

# A box nobody changed: its changes against the base are those of the work tree here.
box_tui --up quiet
box_setup_rc "up quiet" 0
id=$(box_sandbox_of quiet)
box_tui --kill quiet
box_rc "--kill of an unchanged box: exit 0" 0
t_not_contains "no warning about unpulled work" "$(cat "$BOX_ERR")" "unpulled"
t_eq "it is killed" "$(sbx_state "$id")" gone

# A new file in the box: refused, and nothing goes.
box_tui --up work
box_setup_rc "up work" 0
id=$(box_sandbox_of work)
box_exec "$id" "cd '$BOX_REPO' && echo made-in-the-box > new-in-box.txt" >/dev/null
box_tui --kill work
box_rc "--kill of a box with an uncommitted file: exit 8" 8
t_contains "it says what is not pulled" "$(cat "$BOX_ERR")" "work has unpulled work: 1 file changed"
t_contains "and what to do" "$(cat "$BOX_ERR")" "--pull work"
t_contains "and how to kill anyway" "$(cat "$BOX_ERR")" "--force"
t_eq "nothing on stdout" "$(cat "$BOX_OUT")" ""
t_eq "the box still runs" "$(sbx_state "$id")" running
t_ok "its record is kept" test -s "$(rec work)"
box_tui --kill "$id"
box_rc "--kill by its sandbox id is refused the same way: exit 8" 8
t_contains "and names the box" "$(cat "$BOX_ERR")" "work has unpulled work"

# After a pull: nothing new, nothing said; a commit after it is new work again.
box_tui --pull work
box_setup_rc "pull work" 0
commit_in "$id" "after the pull" later.txt
box_tui --kill work
box_rc "--kill after a new commit following a pull: exit 8" 8
t_contains "it counts the commit and the file since the pull" "$(cat "$BOX_ERR")" \
    "work has unpulled work: 1 file changed, 1 commit since the last pull"
t_eq "the box still runs after the refusal" "$(sbx_state "$id")" running
box_tui --pull work
box_setup_rc "pull work again" 0
box_tui --kill work
box_rc "--kill after everything was pulled: exit 0" 0
t_not_contains "no warning after the pull" "$(cat "$BOX_ERR")" "unpulled"
t_eq "killed" "$(sbx_state "$id")" gone
t_ok "its record is removed" test ! -e "$(rec work)"

# --force kills a box with unpulled work, and says so.
box_tui --up forced
box_setup_rc "up forced" 0
id=$(box_sandbox_of forced)
box_exec "$id" "cd '$BOX_REPO' && echo edited >> src/main.c" >/dev/null
box_tui --kill forced --force
box_rc "--kill --force of a box with unpulled work: exit 0" 0
t_contains "--force says what it threw away" "$(cat "$BOX_ERR")" "forced has unpulled work: 1 file changed; killing it anyway (--force)"
t_eq "--force killed it" "$(sbx_state "$id")" gone

# A box that does not answer: the look gives up after http_timeout (2 s here; 30 s at
# most), says it could not tell, and the kill goes on.
box_tui --up slow
box_setup_rc "up slow" 0
id=$(box_sandbox_of slow)
fault_set '{"kind":"delay","delayMs":8000,"path":"process.Process/Start","count":1}'
t0=$SECONDS
E2B_TUI_HTTP_TIMEOUT=2 box_tui --kill slow
took=$((SECONDS - t0))
fault_clear
box_rc "--kill of a box that does not answer: exit 0" 0
t_contains "it says it could not tell" "$(cat "$BOX_ERR")" "slow: no answer from the box within 2 s: unpulled work unknown; killing it anyway"
t_ok "the look did not wait for the box (${took} s)" test "$took" -lt 8
t_eq "killed" "$(sbx_state "$id")" gone

# A paused box is not resumed to look: the kill goes on and says it could not tell.
box_tui --up sleepy
box_setup_rc "up sleepy" 0
id=$(box_sandbox_of sleepy)
box_exec "$id" "cd '$BOX_REPO' && echo unseen > unseen.txt" >/dev/null
box_tui --stop sleepy
box_setup_rc "stop sleepy" 0
E2B_API_KEY=wrong-key box_tui --kill sleepy
box_rc "a rejected API key: exit 4" 4
t_eq "one line on stderr (the kill's, not the look's too)" "$(grep -c '' "$BOX_ERR")" 1
log=$E2B_LOCAL_STATE/e2b-local.log
before=$(grep -c "$id/\(connect\|resume\)" "$log")
t_ok "the request log shows this box's connects (so a resume would show)" test "$before" -gt 0
box_tui --kill sleepy
box_rc "--kill of a paused box: exit 0" 0
t_contains "it says the work is unknown" "$(cat "$BOX_ERR")" "sleepy: paused: unpulled work unknown; killing it anyway"
t_eq "the paused box was not resumed to look" "$(grep -c "$id/\(connect\|resume\)" "$log")" "$before"
t_eq "killed" "$(sbx_state "$id")" gone

# --force goes with --kill and --pull only.
box_tui --stop x --force
t_eq "--force with --stop is a usage error" "$BOX_RC" 2
t_finish
