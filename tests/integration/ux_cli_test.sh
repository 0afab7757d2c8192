#!/usr/bin/env bash
# What a demanding user trips over in the one-shot modes (issue 19, items 1-4 and 15-18),
# with the real binary against e2b-local: pull goes to the box's own project, tells a
# mismatch in words and leaves a paused box paused; a resume gives a box its own hours;
# "no new work" says what is true; stop of a paused box is not an error; the argument and
# listing rules a getopt user expects.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish

now_s() { date +%s; }
# end_in ID: seconds from now until the sandbox's endAt.
end_in() {
    el_req GET "/sandboxes/$1" >/dev/null
    echo $(($(date -d "$(el_json .endAt)" +%s) - $(now_s)))
}
state_of() {
    el_req GET "/sandboxes/$1" >/dev/null
    el_json .state
}

box_tui --up px --hours 3
box_rc "up px --hours 3" 0
id=$(box_sandbox_of px)
t_eq "the record keeps the box's hours" "$(jq .hours "$XDG_STATE_HOME/e2b-tui/boxes/px.json")" 3

# 3: nothing new and no earlier pull: no branch is made, and the message says so (a clean
# clone: the fixture's uncommitted files would be new work).
clean=$T_TMP/work/clean
git clone -q "$BOX_REPO" "$clean"
BOX_CWD=$clean box_tui --up pc
box_rc "up pc from a clean clone" 0
BOX_CWD=$clean box_tui --pull pc
box_rc "pull with no new work" 0
t_contains "it says there is nothing to pull" "$(cat "$BOX_OUT")" "no new work in box pc; nothing to pull"
t_not_contains "it does not claim a branch" "$(cat "$BOX_OUT")" "e2b/pc"
t_eq "and no branch was made" "$(git -C "$clean" rev-parse -q --verify refs/heads/e2b/pc >/dev/null; echo $?)" 1
box_tui --kill pc
box_rc "kill pc" 0

# 1: the pull goes to the box's project wherever it runs; a mismatch is told in words.
other=$T_TMP/work/other
git init -q "$other" && git -C "$other" -c user.name=u -c user.email=u@x commit -q --allow-empty -m other
box_exec "$id" "cd '$BOX_REPO' && echo agent >src/agent-1.txt" >/dev/null
BOX_CWD=$other box_tui --pull px
box_rc "pull from another git repository" 0
t_eq "the branch is in the box's project" "$(git -C "$BOX_REPO" rev-parse -q --verify refs/heads/e2b/px >/dev/null; echo $?)" 0
t_eq "not in the repository it ran from" "$(git -C "$other" rev-parse -q --verify refs/heads/e2b/px >/dev/null; echo $?)" 1
t_contains "it says where it went" "$(cat "$BOX_ERR")" "pulled into the box's project $BOX_REPO"
t_not_contains "never the full-history advice" "$(cat "$BOX_ERR")" "full history"
mkdir -p "$T_TMP/work/plain"
BOX_CWD=$T_TMP/work/plain box_tui --pull px
box_rc "pull from a directory that is not git" 0
t_contains "no new work since: up to date" "$(cat "$BOX_OUT")" "e2b/px is up to date"
box_tui --pull px --dir "$other"
t_eq "pull into another project with --dir fails" "$((BOX_RC != 0))" 1
t_contains "the mismatch is told in words" "$(cat "$BOX_ERR")" "box px belongs to $BOX_REPO"
t_contains "with what to do" "$(cat "$BOX_ERR")" "use --dir $BOX_REPO"
t_not_contains "no full-history advice" "$(cat "$BOX_ERR")" "full history"
BOX_CWD=$T_TMP/work/plain box_tui --pull
t_eq "pull without a name outside git fails" "$((BOX_RC != 0))" 1
t_contains "it says to name the box" "$(cat "$BOX_ERR")" "e2b-tui --pull NAME"
t_not_contains "no empty name in the message" "$(cat "$BOX_ERR")" "box :"

# 2: a paused box is pulled and paused again; a resume gives it its own 3 hours.
box_exec "$id" "cd '$BOX_REPO' && echo agent >src/agent-2.txt" >/dev/null
box_tui --stop px
box_rc "stop px" 0
t_eq "px is paused" "$(state_of "$id")" paused
box_tui --pull px
box_rc "pull of a paused box" 0
t_contains "it pulled the new work" "$(cat "$BOX_OUT")" "fast-forwarded"
t_eq "the box is paused again" "$(state_of "$id")" paused
t_contains "and it says so" "$(cat "$BOX_ERR")" "paused again"
FAKE_ATTACH_EXIT=0 box_tui --attach px
box_rc "attach resumes px" 0
left=$(end_in "$id")
t_eq "the resumed box has its own hours, not minutes (ends in ${left}s)" "$((left > 2 * 3600))" 1

# 4: stop of a paused box is not an error.
box_tui --stop px
box_tui --stop px
box_rc "stop of a paused box: exit 0" 0
t_contains "it says it was already paused" "$(cat "$BOX_ERR")" "already paused"

t_finish
