#!/usr/bin/env bash
# The local half of up and pull, end to end with real git, tar and bash (no network):
# upload stream -> extracted "box" at the same path under a fake root -> agent work ->
# pull script in the box -> bundle -> import -> e2b/<name>. The local HEAD, index and
# work tree must not change; the box's HEAD, index, work tree and branches neither.
. "$(dirname "$0")/../lib/lib.sh"
TOOL=$TEST_B/tests/integration/git_tool
t_isolated_home
export GIT_CONFIG_NOSYSTEM=1
git config --global user.name 'Pat Local'
git config --global user.email 'pat@example.invalid'
git config --global init.defaultBranch main

L=$T_TMP/work/proj
BOXROOT=$T_TMP/boxroot
B=$BOXROOT$L
mkdir -p "$L"
cd "$L" || exit 1
git init -q
printf 'build/\n*.log\nsecret.env\n' > .gitignore
echo base > tracked.txt
echo mod > modified.txt
echo staged > staged.txt
printf '#!/bin/sh\necho run\n' > run.sh; chmod 755 run.sh
ln -s tracked.txt link
head -c 20000 /dev/urandom > binary.bin
echo caf > "$(printf 'caf\303\251 \346\227\245.txt')"
echo gone > deleted-later.txt
git add -A && git commit -qm base
echo changed >> modified.txt
echo staged-change >> staged.txt && git add staged.txt
echo untracked > untracked.txt
mkdir -p deep/er && echo d > deep/er/file.txt
mkdir -p build && echo obj > build/x.o
echo log > debug.log
echo 'API_KEY=do-not-upload' > secret.env
rm deleted-later.txt
BASE=$(git rev-parse HEAD)

local_state() {
    (cd "$L" && cat .git/HEAD && sha256sum .git/index &&
        find . -path ./.git -prune -o -printf '%p %m %s %l\n' | LC_ALL=C sort &&
        find . -path ./.git -prune -o -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum &&
        git status --porcelain=v1 -uall && git for-each-ref --format='%(refname) %(objectname)' refs/heads/main)
}
box_state() {
    (cd "$B" && cat .git/HEAD && sha256sum .git/index &&
        find . -path ./.git -prune -o -printf '%p %m %s %l\n' | LC_ALL=C sort &&
        find . -path ./.git -prune -o -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum &&
        git status --porcelain=v1 -uall && git for-each-ref)
}
LOCAL_BEFORE=$(local_state)

# ---- info
info=$("$TOOL" info "$L/deep/er")
t_contains "info: branch" "$info" "branch main"
t_contains "info: box name" "$info" "box main"
t_contains "info: head" "$info" "head $BASE"
t_contains "info: workdir found upwards" "$info" "workdir $L"

# ---- up: stream, extract at the same absolute path under the box root
"$TOOL" upload "$L" > "$T_TMP/up.tgz" 2> "$T_TMP/up.err"
t_eq "upload: exit status" "$?" 0
mkdir -p "$B"
tar -xzf "$T_TMP/up.tgz" -C "$B" --no-same-owner 2>"$T_TMP/tar.err"
t_eq "upload: real tar extracts it" "$?" 0
want=$(cd "$L" && git -c core.quotepath=off ls-files -co --exclude-standard | LC_ALL=C sort |
    while IFS= read -r f; do [ -e "$f" ] || [ -L "$f" ] && echo "$f"; done)
got=$(cd "$B" && find . -path ./.git -prune -o \( -type f -o -type l \) -print | sed 's|^\./||' | LC_ALL=C sort)
t_eq "upload: exactly tracked + untracked-not-ignored" "$got" "$want"
t_ok "upload: ignored files never leave" test ! -e "$B/secret.env" -a ! -e "$B/build/x.o" -a ! -e "$B/debug.log"
t_eq "upload: exec bit kept" "$(stat -c %a "$B/run.sh")" 755
t_eq "upload: plain file 0644" "$(stat -c %a "$B/tracked.txt")" 644
t_eq "upload: symlink kept" "$(readlink "$B/link")" tracked.txt
t_ok "upload: binary identical" cmp -s "$L/binary.bin" "$B/binary.bin"
t_ok "upload: non-ASCII name" test -f "$B/$(printf 'caf\303\251 \346\227\245.txt')"
t_eq "upload: box sees the same git status" "$(cd "$B" && git status --porcelain -uall)" \
    "$(cd "$L" && git status --porcelain -uall)"
t_eq "upload: box HEAD is the base" "$(git -C "$B" rev-parse HEAD)" "$BASE"
t_contains "upload: progress complete" "$(cat "$T_TMP/up.err")" "bytes "

# ---- the agent works in the box
(
    cd "$B" || exit 1
    export GIT_AUTHOR_NAME=Agent GIT_AUTHOR_EMAIL=agent@box GIT_COMMITTER_NAME=Agent GIT_COMMITTER_EMAIL=agent@box
    echo agent-commit > agent.txt && git add agent.txt && git commit -qm 'agent: add agent.txt'
    echo wip >> tracked.txt
    rm binary.bin
    head -c 3000 /dev/urandom > new-binary.bin
    printf '#!/bin/sh\necho tool\n' > tool.sh && chmod 755 tool.sh
    ln -s deep/er/file.txt newlink
    echo u > "$(printf 'na\303\257ve.txt')"
    echo ignored-in-box > debug.log
)
BOX_BEFORE=$(box_state)

# ---- pull
res=$("$TOOL" pull-run "$L" "$B" "$BASE" "" main)
t_eq "pull: script status" "$?" 0
read -r kind commit mode size bundle <<<"$res"
t_eq "pull: a bundle" "$kind" bundle
t_eq "pull: thin from the base" "$mode" thin
t_eq "pull: box untouched (HEAD, index, work tree, refs)" "$(box_state)" "$BOX_BEFORE"
out=$("$TOOL" import "$L" e2b/main < "$bundle")
t_eq "import: status" "$?" 0
t_eq "import: created" "$out" "created e2b/main $commit"
tree=$(git -C "$L" -c core.quotepath=off ls-tree -r --name-only e2b/main)
boxfiles=$(cd "$B" && git -c core.quotepath=off ls-files -co --exclude-standard | LC_ALL=C sort |
    while IFS= read -r f; do [ -e "$f" ] || [ -L "$f" ] && echo "$f"; done)
t_eq "import: branch holds the box's files" "$tree" "$boxfiles"
if grep -qx binary.bin <<<"$tree"; then t_fail "import: deleted file gone" "binary.bin still there"
else t_pass "import: deleted file gone"; fi
t_not_contains "import: ignored file absent" "$tree" "debug.log"
bad=0
while IFS= read -r f; do
    if [ -L "$B/$f" ]; then
        [ "$(git -C "$L" cat-file -p "e2b/main:$f")" = "$(readlink "$B/$f")" ] || bad=1
    else
        git -C "$L" cat-file -p "e2b/main:$f" | cmp -s - "$B/$f" || bad=1
    fi
done <<<"$boxfiles"
t_eq "import: every file's content matches the box" "$bad" 0
t_eq "import: modes" "$(git -C "$L" ls-tree e2b/main tool.sh newlink tracked.txt | cut -c1-6 | tr '\n' ' ')" \
    "120000 100755 100644 "
t_eq "import: author is the local user" "$(git -C "$L" log -1 --format='%an <%ae>' e2b/main)" \
    "Pat Local <pat@example.invalid>"
t_eq "import: agent commit kept" "$(git -C "$L" log -1 --format=%s e2b/main~1)" "agent: add agent.txt"
t_ok "import: fsck clean" git -C "$L" fsck --full --no-progress
t_eq "local: HEAD, index, work tree untouched" "$(local_state)" "$LOCAL_BEFORE"
rm -f "$bundle"

# ---- pull again: nothing new
PREV=$(git -C "$L" rev-parse e2b/main)
res=$("$TOOL" pull-run "$L" "$B" "$BASE" "$PREV" main)
t_eq "pull again: no new work" "$res" "nowork $PREV"

# ---- more work, then a fast-forward
echo more >> "$B/agent.txt"
res=$("$TOOL" pull-run "$L" "$B" "$BASE" "$PREV" main)
read -r kind commit mode size bundle <<<"$res"
out=$("$TOOL" import "$L" e2b/main < "$bundle")
t_eq "pull 2: fast-forward" "$out" "fast-forwarded e2b/main $commit"
t_eq "pull 2: content" "$(git -C "$L" show e2b/main:agent.txt)" "$(printf 'agent-commit\nmore')"

# ---- an interrupted download imports nothing
size=$(stat -c %s "$bundle")
before_objs=$(find "$L/.git/objects" -type f | LC_ALL=C sort)
git -C "$L" branch -q e2b/cut "$BASE"
head -c $((size / 2)) "$bundle" | "$TOOL" import "$L" e2b/cut >/dev/null 2>"$T_TMP/cut.err"
t_eq "interrupted: fails" "$?" 1
t_contains "interrupted: says why" "$(cat "$T_TMP/cut.err")" "truncated"
t_eq "interrupted: no stray objects" "$(find "$L/.git/objects" -type f | LC_ALL=C sort)" "$before_objs"
t_eq "interrupted: branch unchanged" "$(git -C "$L" rev-parse e2b/cut)" "$BASE"
rm -f "$bundle"

# ---- diverged: exit 5, unless --force
git -C "$L" branch -q -f e2b/div "$BASE"
(cd "$L" && git worktree add -q "$T_TMP/wt" e2b/div && cd "$T_TMP/wt" && echo x > local-only.txt &&
    git add local-only.txt && git commit -qm local && cd "$L" && git worktree remove "$T_TMP/wt")
DIV=$(git -C "$L" rev-parse e2b/div)
echo div >> "$B/tracked.txt"
res=$("$TOOL" pull-run "$L" "$B" "$BASE" "$DIV" div)
read -r kind commit mode size bundle <<<"$res"
"$TOOL" import "$L" e2b/div < "$bundle" >/dev/null 2>"$T_TMP/div.err"
t_eq "diverged: exit 5" "$?" 5
t_contains "diverged: message" "$(cat "$T_TMP/div.err")" "--force"
t_eq "diverged: branch kept" "$(git -C "$L" rev-parse e2b/div)" "$DIV"
out=$("$TOOL" import "$L" e2b/div --force < "$bundle")
t_eq "diverged: --force overwrites" "$out" "forced e2b/div $commit"
rm -f "$bundle"

# ---- the unknown-base (full bundle) pull into a repository that never saw the project
git init -q "$T_TMP/elsewhere"
res=$("$TOOL" pull-run "$L" "$B" "" "" main)
read -r kind commit mode size bundle <<<"$res"
t_eq "full: mode" "$mode" full
out=$("$TOOL" import "$T_TMP/elsewhere" e2b/main < "$bundle")
t_eq "full: imported into an empty repository" "$out" "created e2b/main $commit"
t_ok "full: fsck clean" git -C "$T_TMP/elsewhere" fsck --full --no-progress
rm -f "$bundle"
t_eq "local: still untouched at the end" "$(local_state)" "$LOCAL_BEFORE"
t_finish
