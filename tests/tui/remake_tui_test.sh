#!/usr/bin/env bash
# The dashboard offers to remake a gone box (issue 36): a box whose sandbox E2B no longer
# has (deleted behind its back through the local server) is told once in the status line,
# naming :remake and what it would be made from (its project, later its snapshot);
# :remake NAME asks, saying what is lost; n leaves it; y remakes it (a new sandbox under its
# name); a box whose sandbox is still there is refused.
. "$(dirname "$0")/common.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish
export E2B_TUI_HEALTH_TIMEOUT=180 # generous under load, never deciding pass or fail
REC=$XDG_STATE_HOME/e2b-tui/boxes/lost.json
sandboxes() { el_req GET /v2/sandboxes >/dev/null; el_json length; }
# wait_new OLD: waits (bounded, generous) for the record to name a sandbox other than OLD
wait_new() {
    local i id
    for ((i = 0; i < 1800; i++)); do
        id=$(jq -r '.sandbox_id // empty' "$REC" 2>/dev/null)
        [ -n "$id" ] && [ "$id" != "$1" ] && { echo "$id"; return 0; }
        sleep 0.1
    done
    return 1
}

box_tui --up lost --hours 2 --yes
box_setup_rc "up" 0
first=$(box_sandbox_of lost)
DASH_CWD=$BOX_REPO dash_start 250 32 -- --refresh 1
dash_check "the box is listed" "lost "

# ---- its sandbox goes behind its back: told, naming :remake ----
el_req DELETE "/sandboxes/$first" >/dev/null
dash_check "the status line says the sandbox is gone and names :remake" \
    "box lost: its sandbox is gone; :remake lost makes it again from its project $BOX_REPO"

# ---- a box whose sandbox is listed is no remake ----
box_tui --up here --yes
box_setup_rc "up here" 0
dash_check "the second box is listed" "here "
dash_check "its agent answers (its notices have come)" "idle, pauses in" 120
tmux_type ":remake here"
tmux_keys Enter
dash_check ":remake of a box whose sandbox is there is refused" "remake: box here's sandbox is still there"
tmux_type ":remake nosuch"
tmux_keys Enter
dash_check ":remake of a name with no record is refused" "remake: this machine has no box named nosuch"

# ---- :remake asks; n leaves it ----
tmux_type ":remake lost"
tmux_keys Enter
dash_check ":remake asks, naming the source" "Remake box \"lost\" from its project"
dash_check "it says what is lost" "What is lost: everything the box did that was not pulled."
tmux_type n
dash_check "n cancels" "Remake box: cancelled"
t_eq "n: nothing was made (the other box only)" "$(sandboxes)" 1
t_eq "n: the record is unchanged" "$(jq -r .sandbox_id "$REC")" "$first"

# ---- y remakes it ----
tmux_type ":remake lost"
tmux_keys Enter
dash_check "asked again" "Remake box \"lost\" from its project"
tmux_type y
second=$(wait_new "$first")
t_ok "y: the record names a new sandbox ($second)" test -n "$second"
dash_check "the dashboard says it is remade" "box lost is remade: sandbox $second" 180
t_eq "y: its new sandbox runs" "$(sandboxes)" 2
t_eq "its hours are kept" "$(jq -r .hours "$REC")" 2

# ---- told once: a later gone sandbox of the same box is told again, from its snapshot ----
box_tui --snapshot lost --as lost-snap
box_setup_rc "snapshot" 0
el_req DELETE "/sandboxes/$second" >/dev/null
dash_check "gone again: told from its snapshot" \
    "box lost: its sandbox is gone; :remake lost makes it again from its snapshot lost-snap (taken "
tmux_type ":messages"
tmux_keys Enter
dash_check "the Messages view has the notices" "makes it again from its snapshot lost-snap"
tmux_capture >"$T_TMP/messages.txt"
t_eq "the first gone sandbox is told once" "$(grep -c "its sandbox is gone; :remake lost makes it again from its project" "$T_TMP/messages.txt")" 1
grep "its sandbox is gone" "$T_TMP/messages.txt" | sed 's/^/# /' # for the log
tmux_keys Escape
dash_quit "the dashboard quits"
box_tui --kill lost --force
box_tui --kill here --force
t_finish
