#!/usr/bin/env bash
# --remake NAME (issue 36): a box whose sandbox E2B no longer has (deleted behind its back
# through the local server) is made again in one command under its name, with its record's
# settings (hours, budget, approval rules, egress, model), from its newest snapshot when it
# has one, else from its project; it says what it remakes from and what is lost; a new
# password; a box whose sandbox is still there is refused (exit 5) and nothing changes.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_abort "box setup"
export E2B_TUI_HEALTH_TIMEOUT=180 # four ups: generous under load, never deciding pass or fail
REC=$XDG_STATE_HOME/e2b-tui/boxes/lost.json
PW=$XDG_STATE_HOME/e2b-tui/passwords
sandboxes() { el_req GET /v2/sandboxes >/dev/null; el_json length; }
in_box() { box_exec "$(box_sandbox_of lost)" "$1" | sed -n 's/^stdout //p'; }

box_tui --up lost --hours 2 --yes --budget 3 --approve 'bash:ls*' --no-internet
box_setup_rc "up" 0
first=$(box_sandbox_of lost)
pw1=$(sha256sum <"$PW")
# a member's task, as --try records it: the remade box keeps it
jq '.model = "prov/model-x" | .group = "grp"' "$REC" >"$REC.new" && mv "$REC.new" "$REC" && chmod 600 "$REC"

# ---- refused while its sandbox exists ----
box_tui --remake lost
t_eq "--remake of a box whose sandbox exists: exit 5" "$BOX_RC" 5
t_contains "it says the sandbox still exists" "$(cat "$BOX_ERR")" "box lost's sandbox $first still exists (running): nothing was remade"
t_eq "the same sandbox, one in all" "$(box_sandbox_of lost)/$(sandboxes)" "$first/1"

# ---- a remake that fails keeps the record (nothing of its settings is lost) ----
el_req DELETE "/sandboxes/$first" >/dev/null
mv "$BOX_REPO" "$BOX_REPO.away"
BOX_CWD=$T_TMP box_tui --remake lost
t_ok "a remake whose project is not there fails (exit $BOX_RC)" test "$BOX_RC" != 0
t_eq "the record is back, its settings with it" "$(jq -r '(.hours|tostring) + " " + .sandbox_id + " " + .model' "$REC")" "2 $first prov/model-x"
mv "$BOX_REPO.away" "$BOX_REPO"

# ---- from the project ----
box_tui --remake lost
box_rc "--remake of a gone box exits 0" 0
t_contains "it says it remakes from the project and what is lost" "$(cat "$BOX_ERR")" \
    "box lost's sandbox is gone: remaking it from its project $BOX_REPO, branch main (it has no snapshot); everything the box did that was not pulled is lost"
t_contains "it prints the new box" "$(cat "$BOX_OUT")" "box lost is remade: sandbox "
second=$(box_sandbox_of lost)
t_ok "a new sandbox ($second)" test -n "$second" -a "$second" != "$first" -a "$second" != null
t_eq "one sandbox" "$(sandboxes)" 1
t_eq "its hours are kept" "$(jq -r .hours "$REC")" 2
t_eq "its budget is kept" "$(jq -r .budget_usd "$REC")" 3
t_eq "its approval rules are kept" "$(jq -c .approve "$REC")" '["bash:ls*"]'
t_eq "its egress is kept (no internet)" "$(jq -r '.egress.internet' "$REC")" false
t_eq "its model and group are kept" "$(jq -r '.model + " " + .group' "$REC")" "prov/model-x grp"
t_ok "a new password" test "$(sha256sum <"$PW")" != "$pw1"
t_eq "the project's files are in it" "$(in_box "test -f $BOX_REPO/src/main.c && echo yes")" yes
box_tui --status lost
box_rc "its agent answers (the new password works)" 0

# ---- from its newest snapshot ----
in_box 'echo built >"$HOME/built.txt"' >/dev/null
box_tui --snapshot lost --as lost-snap
box_setup_rc "snapshot" 0
el_req DELETE "/sandboxes/$second" >/dev/null
box_tui --remake lost
box_rc "--remake from the snapshot exits 0" 0
t_contains "it says it remakes from the snapshot, and what is lost" "$(cat "$BOX_ERR")" \
    "box lost's sandbox is gone: remaking it from its snapshot lost-snap (taken just now); what the box did after that and was not pulled is lost"
t_eq "what the box had at the snapshot is back" "$(in_box 'cat "$HOME/built.txt"')" built
t_eq "its settings again" "$(jq -r '(.hours|tostring) + " " + .model' "$REC")" "2 prov/model-x"

# ---- the hint of --attach names it ----
el_req DELETE "/sandboxes/$(box_sandbox_of lost)" >/dev/null
box_tui --attach lost
t_eq "attach of a gone box: exit 3" "$BOX_RC" 3
t_contains "it names --remake" "$(cat "$BOX_ERR")" "e2b-tui --remake lost makes it again from its last snapshot lost-snap"

# ---- no record here ----
box_tui --remake nosuch
t_eq "--remake of a box this machine has no record of: exit 3" "$BOX_RC" 3
t_contains "it says why" "$(cat "$BOX_ERR")" "remaking box nosuch: no box named nosuch"
box_tui --kill lost --force
t_eq "nothing left" "$(sandboxes)" 0
t_finish
