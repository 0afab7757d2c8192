#!/usr/bin/env bash
# up's local step and pull's import run on a worker thread (box_worker.c): a project of
# 30,000 files to list, and a box whose work adds 20,000 files to import.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish
BIG_REPO=$T_TMP/work/big
box_big_repo "$BIG_REPO" || t_abort "the big repository could not be made"
box_tui --up pullbox
box_rc "the pull's box is up" 0 || t_abort "the box did not come up"
root=$(box_root "$(box_sandbox_of pullbox)")$BOX_REPO
box_many_files "$root/agent-work" 200 "agent file" || t_abort "the box's files could not be made"
export BIG_REPO BOX_REPO PULL_BOX=pullbox
(cd "$BOX_REPO" && "$TEST_B/tests/integration/box_worker") || T_FAILED=1
t_eq "e2b/pullbox has the box's 20,000 files" \
    "$(git -C "$BOX_REPO" ls-tree -r --name-only e2b/pullbox -- agent-work | wc -l)" 20000
box_tui --kill pullbox
box_rc "kill exits 0" 0
t_finish
