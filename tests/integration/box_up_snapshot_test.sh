#!/usr/bin/env bash
# Up from a snapshot (issue 17): a box with an installed dependency (an ignored directory
# made in the box) is snapshotted; the project then changes (an edit, a new file, a
# deletion, a commit, a staged change); --up --from sends only the delta, the new box has
# exactly the local files (and the dependency), the same git status, and pull works; so does
# --up --template with the snapshot's name. A snapshot whose commit is not here falls back
# to a full upload with a note; a snapshot deleted under a record says what to do and
# leaves no sandbox, record or password.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_abort "box setup"
BOXES=$XDG_STATE_HOME/e2b-tui/boxes
g() { git -C "$BOX_REPO" "$@"; }
# a big tracked file, so that a full upload and a delta are far apart
head -c 3000000 /dev/urandom | base64 >"$BOX_REPO/src/big.txt"
g add src/big.txt && g commit -qm "big file"

box_tui --up main
box_rc "up" 0 || t_abort "up failed"
full=$(sed -n 's/.*bytes, \([0-9]*\) sent).*/\1/p' "$BOX_ERR")
id=$(box_sandbox_of main)
box_exec "$id" "cd '$BOX_REPO' && mkdir -p build && echo installed >build/dep.txt" >/dev/null
box_tui --snapshot main --as base-snap
box_rc "snapshot" 0 || t_abort "snapshot failed"

# ---- the project moves on ----
printf 'a third line\n' >>"$BOX_REPO/src/modified.txt"
printf 'brand new\n' >"$BOX_REPO/src/fresh.txt"
rm "$BOX_REPO/tools/run.sh"
printf 'committed later\n' >"$BOX_REPO/docs/later.txt"
g add docs/later.txt && g commit -qm "later work"
printf 'staged later\n' >"$BOX_REPO/src/staged2.txt"
g add src/staged2.txt

box_tui --up feat --from base-snap
box_rc "up --from exits 0" 0 || t_abort "the box did not come up"
t_contains "it says it sent only the delta" "$(cat "$BOX_ERR")" "from snapshot base-snap: sent only what differs from its commit"
sent=$(sed -n 's/.*bytes, \([0-9]*\) sent).*/\1/p' "$BOX_ERR")
t_ok "the delta is small ($sent bytes sent, the full up sent $full)" test "$sent" -lt 200000 -a "$full" -gt 2000000
# --template naming one of this machine's snapshots starts from it (the up form's rule)
box_tui --up bytpl --template base-snap
box_rc "up --template SNAPSHOT exits 0" 0
t_contains "--template of a snapshot sends only the delta" "$(cat "$BOX_ERR")" "from snapshot base-snap: sent only what differs from its commit"
box_tui --kill bytpl --force
box_rc "the --template box is killed" 0
fid=$(box_sandbox_of feat)
root=$(box_root "$fid")
want=$(cd "$BOX_REPO" && git -c core.quotePath=false ls-files -co --exclude-standard | while read -r f; do [ -e "$f" ] || [ -L "$f" ] && echo "$f"; done | sort)
got=$(cd "$root$BOX_REPO" && find . \( -path ./.git -o -path ./build \) -prune -o \( -type f -o -type l \) -print | sed 's|^\./||' | sort)
t_eq "the box holds exactly the local tracked + untracked files" "$got" "$want"
diffs=$(cd "$BOX_REPO" && git ls-files -co --exclude-standard -z | while IFS= read -r -d '' f; do
    [ -L "$f" ] && { [ "$(readlink "$f")" = "$(readlink "$root$BOX_REPO/$f")" ] || echo "$f"; continue; }
    [ -e "$f" ] && ! cmp -s "$f" "$root$BOX_REPO/$f" && echo "$f"; done)
t_eq "every file's content is the local one" "$diffs" ""
t_eq "the installed dependency is still there" "$(cat "$root$BOX_REPO/build/dep.txt")" installed
t_eq "the box's git sees the same status" "$(box_exec "$fid" "cd '$BOX_REPO' && git status --porcelain" | sed -n 's/^stdout //p' | sort | tr '\n' '|')" \
    "$(g status --porcelain | sort | tr '\n' '|')"
t_eq "the box's HEAD is the local one" "$(box_exec "$fid" "cd '$BOX_REPO' && git rev-parse HEAD" | sed -n 's/^stdout //p')" "$(g rev-parse HEAD)"
t_eq "the box's git is whole (fsck)" "$(box_exec "$fid" "cd '$BOX_REPO' && git fsck --no-dangling >/dev/null 2>&1; echo \$?" | sed -n 's/^stdout //p')" 0
t_ok "no control files left in the box" test ! -e "$root$BOX_REPO/.e2b-tui-deleted" -a ! -e "$root$BOX_REPO/.e2b-tui-delta.pack"
box_exec "$fid" "cd '$BOX_REPO' && git add -A && git -c user.name=A -c user.email=a@b commit -qm 'agent on feat' && echo more >>src/fresh.txt" >/dev/null
box_tui --pull feat
box_rc "pull from the box made from the snapshot" 0
t_eq "the agent's commit came home" "$(g log -1 --format=%s e2b/feat^)" "agent on feat"
t_eq "and the uncommitted edit" "$(g show e2b/feat:src/fresh.txt)" "brand new
more"

# ---- fallback: the snapshot's commit is not here ----
jq '.commit = "0123456789012345678901234567890123456789"' "$XDG_STATE_HOME/e2b-tui/snapshots/base-snap.json" >"$T_TMP/s.json"
cp "$T_TMP/s.json" "$XDG_STATE_HOME/e2b-tui/snapshots/other-snap.json"
jq '.name = "other-snap"' "$T_TMP/s.json" >"$XDG_STATE_HOME/e2b-tui/snapshots/other-snap.json"
box_tui --up whole --from other-snap
box_rc "up from a snapshot of another commit exits 0" 0
t_contains "it says it sent everything and why" "$(cat "$BOX_ERR")" "commit 012345678901 is not in this repository: sent everything"
wid=$(box_sandbox_of whole)
got=$(cd "$(box_root "$wid")$BOX_REPO" && find . -path ./.git -prune -o \( -type f -o -type l \) -print | sed 's|^\./||' | sort)
t_eq "the full upload started from an empty directory" "$got" "$want"

# ---- the snapshot was deleted under its record ----
el_req DELETE "/templates/$(jq -r .snapshot_id "$XDG_STATE_HOME/e2b-tui/snapshots/base-snap.json" | sed 's|/|%2F|')" >/dev/null
nsb=$(el_req GET /v2/sandboxes >/dev/null; el_json length)
box_tui --up gone --from base-snap
t_eq "up from a deleted snapshot fails: exit 3" "$BOX_RC" 3
t_contains "it says the snapshot is gone and what to do" "$(cat "$BOX_ERR")" "snapshot base-snap is gone on E2B (deleted, or it expired): e2b-tui --snapshots --delete base-snap removes its record"
t_ok "no record" test ! -e "$BOXES/gone.json"
t_ok "no password" sh -c "! grep -q '\"gone\"' '$XDG_STATE_HOME/e2b-tui/passwords'"
t_eq "no sandbox" "$(el_req GET /v2/sandboxes >/dev/null; el_json length)" "$nsb"
box_tui --up nope --from no-such-snap
t_eq "an unknown snapshot: exit 3" "$BOX_RC" 3
t_contains "it says how to list them" "$(cat "$BOX_ERR")" "e2b-tui --snapshots lists them"
box_tui --up x --from base-snap --template base
t_eq "--from and --template do not go together" "$BOX_RC" 2
t_finish
