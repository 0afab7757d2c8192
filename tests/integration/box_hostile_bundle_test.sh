#!/usr/bin/env bash
# A hostile box's bundle (issue 13, defects 2 and 3; issue 29, item 4): `--pull` gets, in
# place of the bundle the pull script wrote, one with trees nested 100,000 deep (the import's
# check once recursed per level and crashed), one larger than the download cap, and packs
# that declare far more than they carry: a 1 KB bundle whose one delta expands to 1 GiB (the
# import once built it, 1 GB of memory, and made the branch) and 40 deltas of 250 MiB. Each
# time the pull fails with a clear one-line message that names the limit and a non-zero
# status (no crash), the local refs do not move and no file appears under .git/objects; for
# the bombs the pull's peak memory (/usr/bin/time) stays under 300 MB.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish
g() { git -C "$BOX_REPO" "$@"; }

box_tui --up hb
box_rc "up exits 0" 0 || t_abort "the box did not come up"
hroot=$(box_root "$(box_sandbox_of hb)")
python3 "$BOX_FIXTURES/deep_bundle.py" 100000 "$T_TMP/deep.bundle" >/dev/null
# a well-formed bundle of 3 MiB, with the ref the pull asks for
git init -q "$T_TMP/big" && head -c $((3 * 1024 * 1024)) /dev/urandom >"$T_TMP/big/blob" &&
    git -C "$T_TMP/big" add blob && git -C "$T_TMP/big" -c user.name=B -c user.email=b@box commit -qm big &&
    git -C "$T_TMP/big" update-ref refs/e2b-tui/scratch HEAD &&
    git -C "$T_TMP/big" bundle create -q "$T_TMP/big.bundle" refs/e2b-tui/scratch 2>/dev/null
refs() { g for-each-ref --format='%(refname) %(objectname)'; g symbolic-ref HEAD; }
objects() { (cd "$BOX_REPO/.git/objects" && find . | LC_ALL=C sort); }

# hostile_pull FILE [ARGS...]: --pull hb, with the box's bundle replaced by FILE between the
# pull script and the download (held back by an e2b-local delay: the bundle is replaced
# once that delay has begun), as a box whose git was replaced would do.
hostile_pull() {
    local file=$1 i f n0
    shift
    curl -s -X POST "$E2B_LOCAL_URL/_e2b-local/faults" \
        -d '{"kind":"delay","path":"/files","delayMs":8000}' >/dev/null
    rm -f "$hroot"/tmp/e2b-tui-bundle.*
    n0=$(wc -l <"$E2B_LOCAL_STATE/e2b-local.log")
    (cd "$BOX_REPO" && exec /usr/bin/time -f '%M' -o "$T_TMP/hp.rss" "$E2B_TUI_BIN" "$@" --pull hb) \
        >"$T_TMP/hp.out" 2>"$T_TMP/hp.err" &
    local pull=$!
    for ((i = 0; i < 1200; i++)); do # until the download is held back: the bundle is whole
        tail -n +$((n0 + 1)) "$E2B_LOCAL_STATE/e2b-local.log" | grep -qF "fault delay injected on GET /files" && break
        sleep 0.05
    done
    f=$(ls "$hroot"/tmp/e2b-tui-bundle.* 2>/dev/null | head -1)
    [ -n "${HP_DEBUG:-}" ] && { tail -n +$((n0 + 1)) "$E2B_LOCAL_STATE/e2b-local.log"; ls -la "$hroot"/tmp; } >&2
    HP_REPLACED=no
    if [ -n "$f" ] && cp "$file" "$f.new" && mv "$f.new" "$f"; then HP_REPLACED=yes; fi
    wait "$pull"
    HP_RC=$?
    HP_RSS_MB=$(($(tail -n 1 "$T_TMP/hp.rss") / 1024)) # the pull's peak resident memory
    curl -s -X DELETE "$E2B_LOCAL_URL/_e2b-local/faults" >/dev/null
}

echo "work" >"$hroot$BOX_REPO/box-work.txt"
refs_before=$(refs)
objects_before=$(objects)
hostile_pull "$T_TMP/deep.bundle"
t_eq "deep trees: the box's bundle was replaced before the download" "$HP_REPLACED" yes
t_eq "deep trees: the pull fails (status 1, no crash)" "$HP_RC" 1
t_contains "deep trees: and says why" "$(cat "$T_TMP/hp.err")" "nested more than 4096 levels deep"
t_eq "deep trees: in one line" "$(wc -l <"$T_TMP/hp.err")" 1
t_eq "deep trees: no ref moved" "$(refs)" "$refs_before"
t_eq "deep trees: no file under .git/objects" "$(objects)" "$objects_before"
t_ok "deep trees: the repository is fsck-clean" g fsck --full --no-progress

# ---- bombs: packs whose declared sizes are refused before anything is inflated
python3 "$BOX_FIXTURES/pack_bomb.py" huge-delta "$T_TMP/delta1g.bundle" 1G >/dev/null
python3 "$BOX_FIXTURES/pack_bomb.py" many-deltas "$T_TMP/deltas10g.bundle" 40 250M >/dev/null
t_ok "the 1 GiB delta's bundle is about 1 KB" test "$(wc -c <"$T_TMP/delta1g.bundle")" -lt 1500
for bomb in "delta1g:holds a delta whose result is 1024 MiB, more than 256 MiB (limit.object_bytes in the config); nothing was imported" \
    "deltas10g:the bundle's objects inflate to more than 8192 MiB (limit.inflated_bytes in the config); nothing was imported"; do
    name=${bomb%%:*} says=${bomb#*:}
    hostile_pull "$T_TMP/$name.bundle"
    t_eq "$name: the box's bundle was replaced before the download" "$HP_REPLACED" yes
    t_eq "$name: the pull fails" "$HP_RC" 1
    t_contains "$name: and says what was refused and which limit raises it" "$(cat "$T_TMP/hp.err")" "$says"
    t_eq "$name: in one line" "$(wc -l <"$T_TMP/hp.err")" 1
    t_ok "$name: the pull's peak memory stays under 300 MB (was $HP_RSS_MB MB)" test "$HP_RSS_MB" -lt 300
    t_eq "$name: no ref moved (no e2b/hb)" "$(refs)" "$refs_before"
    t_eq "$name: no file under .git/objects" "$(objects)" "$objects_before"
done
t_ok "the repository is fsck-clean after the bombs" g fsck --full --no-progress

# ---- over the download cap (limit.bundle_bytes, lowered to 1 MiB here)
config=$XDG_CONFIG_HOME/e2b-tui/config
cp "$config" "$T_TMP/config.saved"
printf 'limit.bundle_bytes = 1M\n' >>"$config"
hostile_pull "$T_TMP/big.bundle"
t_eq "over the cap: the box's bundle was replaced before the download" "$HP_REPLACED" yes
t_eq "over the cap: the pull fails" "$HP_RC" 1
t_contains "over the cap: and says which limit" "$(cat "$T_TMP/hp.err")" \
    "larger than 1 MiB (limit.bundle_bytes in the config)"
t_eq "over the cap: in one line" "$(wc -l <"$T_TMP/hp.err")" 1
t_eq "over the cap: no ref moved" "$(refs)" "$refs_before"
t_eq "over the cap: no file under .git/objects" "$(objects)" "$objects_before"
# a box that says how big its bundle is: refused before the download
head -c $((2 * 1024 * 1024)) /dev/urandom >"$hroot$BOX_REPO/big-work.bin"
box_tui --pull hb
box_rc "a box's bundle said to be over the cap: the pull fails" 1
t_contains "before the download" "$(cat "$BOX_ERR")" \
    "more than 1 MiB (limit.bundle_bytes in the config); nothing was downloaded"
t_eq "and nothing was imported" "$(objects)" "$objects_before"
# limit.object_bytes is the user's: lowered under the size of a file of the box's work, an
# honest pull is refused, naming the key
cp "$T_TMP/config.saved" "$config"
printf 'limit.object_bytes = 1K\n' >>"$config"
head -c 4096 /dev/urandom | base64 -w 0 >"$hroot$BOX_REPO/object-work.txt"
box_tui --pull hb
box_rc "a box's file over limit.object_bytes: the pull fails" 1
t_contains "naming the limit" "$(cat "$BOX_ERR")" "more than 1 KiB (limit.object_bytes in the config)"
t_eq "and nothing was imported" "$(objects)" "$objects_before"
cp "$T_TMP/config.saved" "$config"
box_tui --pull hb
box_rc "with the default cap the same pull works" 0
t_eq "e2b/hb has the box's work" "$(g show e2b/hb:box-work.txt 2>&1)" "work"

box_tui --kill hb
box_rc "kill exits 0" 0
t_finish
