#!/usr/bin/env bash
# A project set up once (issue 36): an executable .e2b-tui/setup installs something outside
# the project (a file in the box user's home made from package-lock.json). The first --up
# runs it in a box of the base template, keeps that box as the prepared snapshot and ups
# from it; the second --up starts from it and sends only the delta; a change of the lock
# file (of a sub-folder's that git tracks too; an untracked one is not in the key) or of
# the script makes a new one; --no-prepared skips it; a failing script is a
# clear error that keeps nothing; --prepare makes one explicitly; the template GC keeps the
# newest prepared snapshot of the project only.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_abort "box setup"
SNAPS=$XDG_STATE_HOME/e2b-tui/snapshots
g() { git -C "$BOX_REPO" "$@"; }
home_file() { box_exec "$(box_sandbox_of "$1")" 'cat "$HOME/dep.txt" 2>/dev/null || echo none' | sed -n 's/^stdout //p'; }
prepared() { ls "$SNAPS" 2>/dev/null | grep -c '^prep-' ; }
sandboxes() { el_req GET /v2/sandboxes >/dev/null; el_json length; }
sent_of() { sed -n 's/.*bytes, \([0-9]*\) sent).*/\1/p' "$BOX_ERR"; }

head -c 3000000 /dev/urandom | base64 >"$BOX_REPO/src/big.txt"
mkdir -p "$BOX_REPO/.e2b-tui"
printf '#!/bin/sh\necho "installed from $(cat package-lock.json)" >"$HOME/dep.txt"\necho setup ran\n' \
    >"$BOX_REPO/.e2b-tui/setup"
chmod +x "$BOX_REPO/.e2b-tui/setup"
echo '{"lock": 1}' >"$BOX_REPO/package-lock.json"
g add -A && g commit -qm "setup script"

# ---- the first up prepares, then ups from the prepared snapshot ----
box_tui --up one
box_rc "the first up exits 0" 0 || t_abort "up failed"
t_contains "it sets the project up first" "$(cat "$BOX_ERR")" "creating the set-up sandbox (no prepared snapshot yet)"
t_contains "then it starts from the prepared snapshot" "$(cat "$BOX_ERR")" "from the prepared snapshot (set up just now)"
t_eq "the setup's file is in the box" "$(home_file one)" 'installed from {"lock": 1}'
t_eq "one prepared snapshot is recorded" "$(prepared)" 1
rec=$(ls "$SNAPS"/prep-*.json)
t_ok "its record names its key" jq -e '.setup_key | test("^[0-9a-f]{64}$")' "$rec"
t_ok "its record is private" test "$(stat -c %a "$rec")" = 600
t_eq "the set-up sandbox is gone: one sandbox" "$(sandboxes)" 1
pw=$(jq -r '.[]' "$XDG_STATE_HOME/e2b-tui/passwords" 2>/dev/null | head -1)
t_ok "the box's password is in no snapshot record" sh -c "! grep -rqF -- '${pw:-no-password-here}' '$SNAPS'"

# ---- the second up reuses it and sends only the delta ----
printf 'more\n' >>"$BOX_REPO/src/modified.txt"
box_tui --up two
box_rc "the second up exits 0" 0
t_not_contains "it does not set up again" "$(cat "$BOX_ERR")" "set-up sandbox"
t_contains "it says it is from the prepared snapshot, sending the delta" "$(cat "$BOX_ERR")" \
    "from the prepared snapshot (set up just now): sent only what differs from its commit"
sent=$(sent_of)
t_ok "only the delta went ($sent bytes)" test "${sent:-9999999}" -lt 200000
t_eq "the setup's file is in the second box" "$(home_file two)" 'installed from {"lock": 1}'
t_eq "still one prepared snapshot" "$(prepared)" 1

# ---- a lock file changes: a new one ----
echo '{"lock": 2}' >"$BOX_REPO/package-lock.json"
g commit -qam "lock 2"
box_tui --up three
box_rc "up after a lock file change exits 0" 0
t_contains "a changed lock file sets the project up again" "$(cat "$BOX_ERR")" "creating the set-up sandbox"
t_eq "the new setup's file" "$(home_file three)" 'installed from {"lock": 2}'
t_eq "two prepared snapshots" "$(prepared)" 2

# ---- a lock file of a sub-folder that git tracks: a new one; an untracked one: not ----
mkdir -p "$BOX_REPO/packages/web" "$BOX_REPO/scratch"
echo '{"web": 1}' >"$BOX_REPO/packages/web/package-lock.json"
g add packages && g commit -qm "web lock"
box_tui --up sub1
box_rc "up after a sub-folder's lock file came exits 0" 0
t_contains "a tracked sub-folder's lock file sets the project up again" "$(cat "$BOX_ERR")" "creating the set-up sandbox"
t_eq "three prepared snapshots, with it" "$(prepared)" 3
echo junk >"$BOX_REPO/scratch/yarn.lock"
box_tui --up sub2
box_rc "up with an untracked sub-folder lock file exits 0" 0
t_not_contains "an untracked lock file does not set it up again" "$(cat "$BOX_ERR")" "set-up sandbox"
rm -rf "$BOX_REPO/scratch"

# ---- the script changes: a new one ----
printf '#!/bin/sh\necho "v2 from $(cat package-lock.json)" >"$HOME/dep.txt"\n' >"$BOX_REPO/.e2b-tui/setup"
box_tui --up four
box_rc "up after a script change exits 0" 0
t_contains "a changed script sets the project up again" "$(cat "$BOX_ERR")" "creating the set-up sandbox"
t_eq "the new script's file" "$(home_file four)" 'v2 from {"lock": 2}'
t_eq "four prepared snapshots" "$(prepared)" 4

# ---- --no-prepared skips it ----
box_tui --up five --no-prepared
box_rc "--no-prepared exits 0" 0
t_not_contains "--no-prepared does not use it" "$(cat "$BOX_ERR")" "prepared snapshot"
t_eq "the box has no setup's file" "$(home_file five)" none

for b in one two three four five sub1 sub2; do box_tui --kill "$b" --force; done
t_eq "all killed" "$(sandboxes)" 0

# ---- a failing script ----
printf '#!/bin/sh\necho first line\necho boom-line >&2\nexit 3\n' >"$BOX_REPO/.e2b-tui/setup"
box_tui --up six
t_eq "a failing setup: exit 1" "$BOX_RC" 1
t_contains "it says the setup failed and how" "$(cat "$BOX_ERR")" "the project's setup (./.e2b-tui/setup) failed (exit 3)"
t_contains "with its last lines" "$(cat "$BOX_ERR")" "boom-line"
t_eq "no new prepared snapshot" "$(prepared)" 4
t_ok "no record of the box" test ! -e "$XDG_STATE_HOME/e2b-tui/boxes/six.json"
t_eq "no sandbox left" "$(sandboxes)" 0

# ---- --prepare makes one explicitly, --gc-templates keeps the newest ----
printf '#!/bin/sh\necho "v3" >"$HOME/dep.txt"\n' >"$BOX_REPO/.e2b-tui/setup"
box_tui --prepare
box_rc "--prepare exits 0" 0
t_contains "it names the prepared snapshot" "$(cat "$BOX_OUT")" "prepared snapshot prep-"
t_eq "five prepared snapshots" "$(prepared)" 5
newest=$(ls -t "$SNAPS"/prep-*.json | head -1)
t_eq "no sandbox left after --prepare" "$(sandboxes)" 0
box_tui --gc-templates --dry-run
box_rc "--gc-templates --dry-run exits 0" 0
t_contains "the GC would delete the old prepared snapshots" "$(cat "$BOX_OUT")" "prep-"
t_eq "a dry run deletes nothing" "$(prepared)" 5
box_tui --gc-templates
box_rc "--gc-templates exits 0" 0
t_eq "the GC kept one prepared snapshot" "$(prepared)" 1
t_ok "the newest one" test -e "$newest"
box_tui --up seven
box_rc "an up after the GC exits 0" 0
t_contains "it starts from the one kept" "$(cat "$BOX_ERR")" "from the prepared snapshot"
t_eq "with the newest setup's file" "$(home_file seven)" v3
box_tui --kill seven --force
t_finish
