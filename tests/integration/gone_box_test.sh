#!/usr/bin/env bash
# A box whose sandbox E2B no longer has (issue 36): --attach and --prompt on it are never
# made again silently; they fail (exit 3) naming the commands that make it again, from its
# last snapshot when it has one, and those commands work as said.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_abort "box setup"
sandboxes() { el_req GET /v2/sandboxes >/dev/null; el_json length; }

box_tui --up lost
box_setup_rc "up" 0
id=$(box_sandbox_of lost)
el_req DELETE "/sandboxes/$id" >/dev/null
box_tui --attach lost
t_eq "attach of a gone box: exit 3" "$BOX_RC" 3
t_contains "it names the commands that make it again from its project" "$(cat "$BOX_ERR")" \
    "e2b-tui --kill lost --force (its record), then e2b-tui --up lost --dir $BOX_REPO makes it again from its project"
t_eq "nothing was made silently" "$(sandboxes)" 0

box_tui --kill lost --force
box_setup_rc "kill" 0
box_tui --up lost
box_setup_rc "up again" 0
box_tui --snapshot lost --as lost-snap
box_setup_rc "snapshot" 0
el_req DELETE "/sandboxes/$(box_sandbox_of lost)" >/dev/null
box_tui --attach lost
t_eq "attach of a gone box with a snapshot: exit 3" "$BOX_RC" 3
t_contains "it offers its last snapshot" "$(cat "$BOX_ERR")" \
    "then e2b-tui --up lost --from lost-snap --dir $BOX_REPO makes it again from its last snapshot"
box_tui --prompt lost "hello"
t_eq "--prompt of a gone box: exit 3" "$BOX_RC" 3
t_contains "--prompt offers the same" "$(cat "$BOX_ERR")" "e2b-tui --up lost --from lost-snap --dir $BOX_REPO"
t_eq "nothing was made silently" "$(sandboxes)" 0
box_tui --kill lost --force
box_rc "the hint's kill works" 0
box_tui --up lost --from lost-snap --dir "$BOX_REPO"
box_rc "the hint's up works" 0
t_eq "the box is back" "$(sandboxes)" 1
box_tui --kill lost --force
t_finish
