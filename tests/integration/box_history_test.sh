#!/usr/bin/env bash
# The box gets the history, not the repository's past (issue 29, items 1-3): a project whose
# reflog holds a pull's URL with a token, whose object store holds a blob added with
# `git add -f` then unstaged, a dropped stash, a commit amended to remove a secret and a kept
# stash, and whose .git/config has a token in a section name, is uploaded with `--up` to
# e2b-local. Then none of the markers is anywhere under the sandbox's root, neither in a file
# nor inside a git object (git cat-file --batch-all-objects in the box), while the box's git
# shows the same commits, refs, HEAD, index and status as at home (git fsck --full clean, the
# dropped objects absent); a pack of reachable objects arrives as it is, the pack gc made
# (with the amended-away commit, tree and blobs in it, one blob the base of a reachable
# delta) arrives rewritten without them, its deltas kept, loose reachable objects as their
# files, unreachable loose ones not at all; a pull from it works. With up_stash = true a
# second up (detached HEAD) carries the kept stash too. A third up, with the gc pack's index
# corrupt, falls back to a pack made for the up, and the box's history is whole again.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish
export GIT_CONFIG_NOSYSTEM=1
g() { git -C "$BOX_REPO" "$@"; }

# The repository's past, each with a marker.
g update-ref -m "pull https://ci:REFLOGMARK1@git.example.invalid/r.git main: Fast-forward" HEAD HEAD
printf 'UNSTAGEDMARK2\n' >"$BOX_REPO/added.log"
g add -f added.log && g reset -q -- added.log && rm "$BOX_REPO/added.log"
printf 'DROPSTASHMARK3\n' >"$BOX_REPO/stash-drop.txt"
g stash push -q -u -m "DROPSTASHMSG3" -- stash-drop.txt && g stash drop -q
# A file of many versions, so that git gc packs them as deltas; the commit amended below
# adds a line to it, which the amend takes back: the version it leaves behind, the largest,
# is the base of a reachable one.
first=$(g rev-parse HEAD)
seq -f 'line %g of a file with many versions' 3000 >"$BOX_REPO/big.txt"
g add big.txt && g commit -q -m "big 0" -- big.txt
for i in 1 2 3 4; do
    sed -i "${i}00s/\$/ edit $i/" "$BOX_REPO/big.txt" && g commit -q -m "big $i" -- big.txt
done
printf 'AMENDBLOBMARK4\n' >"$BOX_REPO/secret.txt"
printf 'kept\n' >"$BOX_REPO/kept.txt"
sed -i '50s/$/ AMENDLINEMARK8/' "$BOX_REPO/big.txt"
g add secret.txt kept.txt && g commit -q -m "AMENDMSGMARK5" -- secret.txt kept.txt big.txt
sed -i 's/ AMENDLINEMARK8/ edit 5/' "$BOX_REPO/big.txt"
g rm -q secret.txt && g commit -q --amend -m "history without the secret" -- secret.txt big.txt
t_eq "setup: the amend left the secret behind" "$(g ls-tree --name-only HEAD -- secret.txt kept.txt)" kept.txt
# A pack with unreachable objects in it: git gc packs what the reflog reaches too.
g gc -q
impure=$(basename "$(ls "$BOX_REPO"/.git/objects/pack/*.pack)")
amend_blob=$(printf 'AMENDBLOBMARK4\n' | g hash-object --stdin)
t_contains "setup: the amended-away blob is unreachable (but for the reflog)" \
    "$(g fsck --unreachable --no-reflogs 2>/dev/null)" "$amend_blob"
t_contains "setup: ... and in the pack" "$(g verify-pack -v "$BOX_REPO/.git/objects/pack/${impure%.pack}.idx")" "$amend_blob"
dropped=$(g fsck --unreachable --no-reflogs 2>/dev/null | awk '{print $3}')
amend_big=$(g show "$(g rev-parse HEAD@{1}):big.txt" | g hash-object --stdin)
t_contains "setup: the amended-away version of big.txt is the base of a reachable delta" \
    "$(g verify-pack -v "$BOX_REPO/.git/objects/pack/${impure%.pack}.idx" | awk 'NF == 7 {print $7}')" "$amend_big"
printf 'KEPTSTASHMARK6\n' >"$BOX_REPO/stash-kept.txt"
g stash push -q -u -m "kept" -- stash-kept.txt
g config 'remote.https://ci:SECTIONMARK7@git.example.invalid/x.git.url' https://git.example.invalid/x.git
g config branch.main.remote 'https://ci:SECTIONMARK7@git.example.invalid/x.git'
# What the box must keep: an annotated tag, a remote-tracking branch with its symbolic HEAD,
# a hook of the project's own.
g tag -a v1 -m "release one" HEAD~1
g update-ref refs/remotes/origin/main HEAD~1
g symbolic-ref refs/remotes/origin/HEAD refs/remotes/origin/main
printf '#!/bin/sh\nexit 0\n' >"$BOX_REPO/.git/hooks/pre-commit"
chmod 755 "$BOX_REPO/.git/hooks/pre-commit"
touch "$BOX_REPO/.git/hooks/pre-push.sample"
# A pack of reachable objects only (what the commit before big.txt reaches), made after the
# gc; the tag object stays loose.
pure=pack-$(g rev-list --objects "$first" | g pack-objects -q "$BOX_REPO/.git/objects/pack/pack").pack
tag=$(g rev-parse v1)

unreachable="UNSTAGEDMARK2 DROPSTASHMARK3 AMENDBLOBMARK4 AMENDMSGMARK5 KEPTSTASHMARK6 AMENDLINEMARK8"
markers="REFLOGMARK1 $unreachable SECTIONMARK7"
# Sanity: each marker is at home, where the box would have found it before.
objects_home=$(g cat-file --batch-all-objects --batch | tr '\0' ' ')
for m in $unreachable; do
    t_contains "at home, $m is in a git object (sanity)" "$objects_home" "$m"
done
t_ok "at home, the reflog holds REFLOGMARK1 (sanity)" grep -rqF REFLOGMARK1 "$BOX_REPO/.git/logs"
t_ok "at home, a section name holds SECTIONMARK7 (sanity)" grep -qF SECTIONMARK7 "$BOX_REPO/.git/config"

box_tui --up hist
box_rc "up of a project with a past exits 0" 0
id=$(box_sandbox_of hist)
root=$(box_root "$id")
boxgit=$root$BOX_REPO/.git
bg() { git --git-dir="$boxgit" --work-tree="$root$BOX_REPO" -c safe.directory='*' "$@"; }
objects_box=$(bg cat-file --batch-all-objects --batch 2>&1 | tr '\0' ' ')
t_ok "the box's git lists its objects" test -n "$objects_box"
for m in $markers; do
    t_ok "no $m in any file of the box" sh -c "! grep -rqaF '$m' '$root'"
    t_not_contains "no $m in any git object of the box" "$objects_box" "$m"
done
t_ok "the pack of reachable objects arrived as it is (same name, same bytes)" \
    cmp "$BOX_REPO/.git/objects/pack/$pure" "$boxgit/objects/pack/$pure"
t_ok "... with its index" cmp "$BOX_REPO/.git/objects/pack/${pure%.pack}.idx" "$boxgit/objects/pack/${pure%.pack}.idx"
t_ok "the pack with unreachable objects did not" test ! -e "$boxgit/objects/pack/$impure"
t_eq "the box's packs: that one and one made of the other's reachable objects" \
    "$(cd "$boxgit/objects/pack" && ls | grep -v "${pure%.pack}" | sed 's/pack-[0-9a-f]*/pack-H/' | tr '\n' ' ')" \
    "pack-H.idx pack-H.pack "
LOG=$XDG_STATE_HOME/e2b-tui/e2b-tui.log
t_ok "... a copy of the gc pack without them, a delta whose base went written whole" \
    grep -qE "up: $impure rewritten without what is not sent: [0-9]+ objects, [0-9]+ copied as they are, [1-9][0-9]* deltas written whole" "$LOG"
rewritten=$(cd "$boxgit/objects/pack" && ls pack-*.idx | grep -v "${pure%.pack}")
t_ok "... in which the other deltas stayed deltas" \
    sh -c "git verify-pack -v '$boxgit/objects/pack/$rewritten' | awk 'NF == 7' | grep -q ."
for h in $dropped; do
    t_ok "the dropped object $h is not in the box" sh -c "! git --git-dir='$boxgit' cat-file -e $h 2>/dev/null"
done
t_ok "a loose reachable object arrived as its file (the tag)" test -f "$boxgit/objects/${tag:0:2}/${tag:2}"
unstaged=$(printf 'UNSTAGEDMARK2\n' | g hash-object --stdin)
t_ok "setup: the unstaged blob is loose at home" test -f "$BOX_REPO/.git/objects/${unstaged:0:2}/${unstaged:2}"
t_ok "an unreachable loose object did not arrive" test ! -e "$boxgit/objects/${unstaged:0:2}/${unstaged:2}"
t_ok "no reflog in the box" test ! -e "$boxgit/logs"
t_eq "the same commits (git log --all but the stash)" "$(bg log --all --format='%H %P')" \
    "$(g log --exclude=refs/stash --all --format='%H %P')"
t_eq "the same refs but refs/stash" "$(bg for-each-ref --format='%(refname) %(objectname) %(*objectname)')" \
    "$(g for-each-ref --format='%(refname) %(objectname) %(*objectname)' | grep -v '^refs/stash ')"
t_eq "the symbolic remote HEAD" "$(bg symbolic-ref refs/remotes/origin/HEAD)" refs/remotes/origin/main
t_eq "the same HEAD" "$(bg symbolic-ref HEAD) $(bg rev-parse HEAD)" "$(g symbolic-ref HEAD) $(g rev-parse HEAD)"
t_eq "the same index" "$(bg ls-files -s --debug | grep -v -e ctime -e mtime -e dev: -e uid:)" \
    "$(g ls-files -s --debug | grep -v -e ctime -e mtime -e dev: -e uid:)"
t_eq "the same status" "$(bg status --porcelain -uall 2>&1)" "$(g status --porcelain -uall)"
t_eq "git fsck --full in the box finds nothing wrong" "$(bg fsck --full --no-dangling --no-progress 2>&1; echo "exit $?")" "exit 0"
t_eq "the section named by URL, without user info, still tracked" \
    "$(bg config remote.https://git.example.invalid/x.git.url) $(bg config branch.main.remote)" \
    "https://git.example.invalid/x.git https://git.example.invalid/x.git"
t_ok "the project's hook is in the box" test -x "$boxgit/hooks/pre-commit"
t_ok "git's hook samples are not" test ! -e "$boxgit/hooks/pre-push.sample"

# The pull path on a box whose history came as a pack.
printf 'made in the box\n' >"$root$BOX_REPO/from-box.txt"
box_tui --pull hist
box_rc "pull from the box exits 0" 0
t_eq "the box's work is in e2b/hist" "$(g show e2b/hist:from-box.txt 2>&1)" "made in the box"
box_tui --kill hist
box_rc "kill exits 0" 0

# up_stash = true: refs/stash and its objects go too; a detached HEAD on a commit no branch
# has is the box's HEAD, with that commit.
echo 'up_stash = true' >>"$XDG_CONFIG_HOME/e2b-tui/config"
c=$(g commit-tree -p HEAD -m "only HEAD has me" "HEAD^{tree}")
g update-ref --no-deref HEAD "$c"
box_tui --up hist2
box_rc "up with up_stash and a detached HEAD exits 0" 0
id=$(box_sandbox_of hist2)
root=$(box_root "$id")
boxgit=$root$BOX_REPO/.git
t_eq "the detached HEAD" "$(bg rev-parse HEAD) $(bg symbolic-ref -q HEAD || echo detached)" "$c detached"
t_eq "the stash is in the box" "$(bg rev-parse refs/stash)" "$(g rev-parse refs/stash)"
t_contains "its objects too" "$(bg cat-file --batch-all-objects --batch 2>&1 | tr '\0' ' ')" KEPTSTASHMARK6
t_eq "the same commits (git log --all)" "$(bg log --all --format='%H %P')" "$(g log --all --format='%H %P')"
for m in REFLOGMARK1 UNSTAGEDMARK2 DROPSTASHMARK3 AMENDBLOBMARK4 AMENDMSGMARK5; do
    t_not_contains "still no $m in the box's objects" "$(bg cat-file --batch-all-objects --batch 2>&1 | tr '\0' ' ')" "$m"
done
t_eq "the same status" "$(bg status --porcelain -uall 2>&1)" "$(g status --porcelain -uall)"
box_tui --kill hist2
box_rc "kill exits 0" 0

# The gc pack's index corrupt (HEAD's entry's CRC-32 wrong; the pack itself is sound): the
# rewrite refuses it, the log says why, and its objects go in a pack made for the up.
g update-ref --no-deref HEAD "$(g rev-parse main)"
idx=$BOX_REPO/.git/objects/pack/${impure%.pack}.idx
n=$(od -An -tu1 -j1028 -N4 "$idx" | awk '{print $1*16777216+$2*65536+$3*256+$4}')
ord=$(g show-index <"$idx" | awk -v h="$(g rev-parse HEAD)" '$2 == h {print NR - 1}')
chmod u+w "$idx"
printf '\377' | dd of="$idx" bs=1 seek=$((1032 + 20 * n + 4 * ord)) conv=notrunc status=none
rm -f "$LOG"
box_tui --up hist3
box_rc "up with a corrupt pack index exits 0" 0
id=$(box_sandbox_of hist3)
root=$(box_root "$id")
boxgit=$root$BOX_REPO/.git
t_ok "the log says the pack could not be rewritten, and why" \
    grep -qF "$impure cannot be rewritten: an entry's bytes do not match their checksum in the index; its objects are packed here instead" "$LOG"
t_eq "git fsck --full in that box finds nothing wrong" "$(bg fsck --full --no-dangling --no-progress 2>&1; echo "exit $?")" "exit 0"
t_eq "the same commits" "$(bg log --all --format='%H %P')" "$(g log --all --format='%H %P')"
for h in $dropped; do
    t_ok "the dropped object $h is not in that box either" sh -c "! git --git-dir='$boxgit' cat-file -e $h 2>/dev/null"
done
box_tui --kill hist3
box_rc "kill exits 0" 0
t_finish
