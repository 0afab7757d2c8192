#!/usr/bin/env bash
# up makes the sandbox while its worker lists the project (issue 16, "up: overlap
# everything"), and a failure on either side settles both before the up ends:
#   - with the create slowed to 1 s, the create is sent before the file list of a project
#     of 30,000 files is ready (e2b-tui's step log and its "file list" line say when), also
#     with --from a snapshot (the create waits for the snapshot's record only);
#   - the create refused, or the name taken, while the listing runs: the listing is
#     stopped, the message and exit code are the create's (the name check's), nothing is
#     left;
#   - the listing fails (a .git/info nested too deeply to archive) while the create is in
#     flight, and after the sandbox exists: the sandbox is killed, no record, no password,
#     the journal of creates in doubt is empty.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/lib/faults.sh"
box_setup || t_finish
LOG=$XDG_STATE_HOME/e2b-tui/e2b-tui.log
boxes=$XDG_STATE_HOME/e2b-tui/boxes
journal=$XDG_STATE_HOME/e2b-tui/in-doubt
passwords=$XDG_STATE_HOME/e2b-tui/passwords

BIG=$T_TMP/work/big
box_big_repo "$BIG" || t_abort "the big repository could not be made"

# deep_info DIR: a directory under .git/info (archived as it is; refs/ is not, the up
# writes the refs itself) nested deeper than an archive takes (257 levels): the
# repository opens and its status walk works, the archive of .git fails.
deep_info() {
    local p=$1/.git/info/deep i
    for ((i = 0; i < 260; i++)); do p=$p/d; done
    mkdir -p "$p"
}
# when NAME PATTERN: the time (seconds since the epoch, ms) of the first line of e2b-tui's
# log matching PATTERN (grep -E), or "none"
when() {
    local line
    line=$(grep -E -m1 -- "$1" "$LOG") || { echo none; return; }
    date -u -d "$(echo "$line" | cut -d' ' -f1 | sed 's/Z$//')" +%s.%3N
}
before() { # A B: both times known and A < B
    [ "$1" != none ] && [ "$2" != none ] && [ "$(echo "$1 < $2" | bc)" = 1 ]
}
not_after() { # A B: both times known and A <= B (the log's times are in ms)
    [ "$1" != none ] && [ "$2" != none ] && [ "$(echo "$1 <= $2" | bc)" = 1 ]
}
sandbox_count() { fl_sandboxes; }
password_lines() {
    if [ -f "$passwords" ]; then grep -vc '^#' "$passwords"; else echo 0; fi
}
no_leftovers() { # WHAT
    t_eq "$1: no sandbox left" "$(sandbox_count)" 0
    t_eq "$1: no record (nor a temp file)" "$(ls -A "$boxes" 2>/dev/null | wc -l)" 0
    t_eq "$1: no password left" "$(password_lines)" 0
    t_eq "$1: the journal of creates in doubt is empty" "$(find "$journal" -mindepth 1 2>/dev/null | wc -l)" 0
}

# ---- the create is sent while the files are listed ----
rm -f "$LOG"
fault_set '{"kind":"delay","path":"/v2/sandboxes","method":"POST","count":1,"delayMs":1000}'
BOX_REPO=$BIG box_tui --up ovl
box_rc "overlap: up exits 0" 0 || t_abort "the box did not come up"
sent=$(when 'box up ovl: creating the sandbox$')
listed=$(when 'up ovl: the file list is ready after')
t_ok "overlap: the create was sent ($sent) before the file list was ready ($listed)" before "$sent" "$listed"
t_ok "overlap: the password was stored after both" \
    not_after "$listed" "$(when 'box up ovl: storing the password$')"
t_contains "overlap: all 30,000 files went up" "$(cat "$BOX_ERR")" "uploaded 300"
fl_stderr_clean "overlap: stderr" "$BOX_ERR"
BOX_REPO=$BIG box_tui --snapshot ovl --as ovlsnap
box_setup_rc "overlap: snapshot" 0
BOX_REPO=$BIG box_tui --kill ovl --force
box_setup_rc "overlap: kill" 0
fault_clear

# ---- --from: the create waits for the snapshot's record only, not for the archives ----
rm -f "$LOG"
fl_mark
fault_set '{"kind":"delay","path":"/v2/sandboxes","method":"POST","count":1,"delayMs":1000}'
BOX_REPO=$BIG box_tui --up ovlfrom --from ovlsnap
box_rc "--from: up exits 0" 0
t_ok "--from: the create was sent before the file list was ready" \
    before "$(when 'box up ovlfrom: creating the sandbox$')" "$(when 'up ovlfrom: the file list is ready after')"
t_contains "--from: the note about the snapshot is told" "$(cat "$BOX_ERR")" "snapshot ovlsnap"
snap_id=$(jq -r .snapshot_id "$XDG_STATE_HOME/e2b-tui/snapshots/ovlsnap.json" 2>/dev/null)
t_ok "--from: the snapshot has an id" test -n "$snap_id"
t_eq "--from: the box was made from the snapshot" "$(jq -r .template "$boxes/ovlfrom.json" 2>/dev/null)" "$snap_id"
BOX_REPO=$BIG box_tui --kill ovlfrom --force
box_setup_rc "--from: kill" 0
box_tui --snapshots --delete ovlsnap
box_setup_rc "--from: the snapshot deleted" 0
fault_clear

# ---- the create refused while the listing runs ----
rm -f "$LOG"
fault_set '{"kind":"500","path":"/v2/sandboxes","method":"POST","count":5}'
BOX_REPO=$BIG box_tui --up refused
box_rc "create refused: exit 1" 1
t_contains "create refused: names the step" "$(cat "$BOX_ERR")" "up refused: creating the sandbox"
t_contains "create refused: and the cause" "$(cat "$BOX_ERR")" "500"
t_ok "create refused: the listing was stopped, not waited for" grep -q 'up refused: the file list failed after' "$LOG"
t_ok "create refused: the up ended after the listing did" \
    not_after "$(when 'up refused: the file list failed')" "$(when 'box up refused: failed after')"
no_leftovers "create refused"
fl_stderr_clean "create refused: stderr" "$BOX_ERR"
fault_clear

# ---- the name taken while the listing runs ----
el_create '{"templateID":"base","metadata":{"e2b-tui":"box","e2b-tui.name":"taken"}}' || t_abort "no sandbox to hold the name"
foreign=$EL_ID
rm -f "$LOG"
BOX_REPO=$BIG box_tui --up taken
box_rc "name taken: exit 5" 5
t_contains "name taken: says so" "$(cat "$BOX_ERR")" "name in use: sandbox $foreign is box taken"
t_ok "name taken: the listing was stopped, not waited for" grep -q 'up taken: the file list failed after' "$LOG"
t_eq "name taken: only the other sandbox is there" "$(el_req GET /v2/sandboxes >/dev/null; el_json '[.[].sandboxID] | join(" ")')" "$foreign"
el_req DELETE "/sandboxes/$foreign" >/dev/null
no_leftovers "name taken"

# ---- the listing fails while the create is in flight ----
SMALL=$T_TMP/work/small
cp -a "$BOX_REPO" "$SMALL"
deep_info "$SMALL"
rm -f "$LOG"
fl_mark
fault_set '{"kind":"delay","path":"/v2/sandboxes","method":"POST","count":1,"delayMs":1000}'
BOX_REPO=$SMALL box_tui --up early
box_rc "listing fails during the create: exit 1" 1
t_contains "listing fails during the create: names the step" "$(cat "$BOX_ERR")" "up early: listing the project's files"
t_contains "listing fails during the create: and the cause" "$(cat "$BOX_ERR")" "nested too deeply"
t_ok "listing fails during the create: it failed while the create was in flight" \
    before "$(when 'box up early: creating the sandbox$')" "$(when 'up early: the file list failed')"
t_eq "listing fails during the create: the create was answered (and made a sandbox)" "$(fl_count '^POST /v2/sandboxes 201')" 1
t_eq "listing fails during the create: which was killed" "$(fl_count '^DELETE /sandboxes/[^ ]+ 204')" 1
no_leftovers "listing fails during the create"
fl_stderr_clean "listing fails during the create: stderr" "$BOX_ERR"
fault_clear

# ---- the listing fails after the sandbox exists ----
deep_info "$BIG"
rm -f "$LOG"
fl_mark
BOX_REPO=$BIG box_tui --up late
box_rc "listing fails after the create: exit 1" 1
t_contains "listing fails after the create: names the step" "$(cat "$BOX_ERR")" "up late: listing the project's files"
t_contains "listing fails after the create: and the cause" "$(cat "$BOX_ERR")" "nested too deeply"
# "listing files" again (now with the box's name) once the create was answered: the up
# waited for the listing with its sandbox made
waited=$(when 'box up late: listing files$')
t_ok "listing fails after the create: the create was answered first, then the up waited for the listing" \
    not_after "$(when 'box up late: creating the sandbox$')" "$waited"
t_ok "listing fails after the create: the sandbox existed when the listing failed" \
    not_after "$waited" "$(when 'up late: the file list failed')"
t_ok "listing fails after the create: the failed sandbox was removed after" \
    not_after "$(when 'up late: the file list failed')" "$(when 'box up late: removing the failed sandbox')"
t_eq "listing fails after the create: the create made a sandbox" "$(fl_count '^POST /v2/sandboxes 201')" 1
t_eq "listing fails after the create: which was killed" "$(fl_count '^DELETE /sandboxes/[^ ]+ 204')" 1
no_leftovers "listing fails after the create"
fl_stderr_clean "listing fails after the create: stderr" "$BOX_ERR"
t_finish
