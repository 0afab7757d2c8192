#!/usr/bin/env bash
# Files that exist only in the box (e2b-tui --get) against e2b-local: a gitignored dist/
# folder with a subfolder, an executable and links (one pointing outside the project) comes
# home as it is, the links as links; a file of /tmp too; an existing file is not overwritten
# without --force (exit 5, nothing written) and is with it; paths outside the project and
# /tmp or with ".." are refused before the box is asked; a local link where the folder goes
# is never written through; limit.get_bytes refuses a big archive before it is downloaded;
# the box's archive is removed afterwards.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish
cp "$BOX_FIXTURES/tunnel_server.py" "$BOX_REPO/tools/"
printf 'serve_command = python3 {dir}/tools/tunnel_server.py --port {port}\n' >"$XDG_CONFIG_HOME/e2b-tui/config"
box_tui --up
box_setup_rc "up" 0
id=$(box_sandbox_of main)
dir=$(jq -r .dir "$XDG_STATE_HOME/e2b-tui/boxes/main.json")
# the agent's build output, only in the box
box_exec "$id" "cd $dir && mkdir -p dist/assets && printf 'console.log(1)\n' >dist/app.js &&
  printf 'body{}' >dist/assets/site.css && printf '#!/bin/sh\necho run\n' >dist/run.sh &&
  chmod 755 dist/run.sh && ln -s /etc/passwd dist/outside && ln -s app.js dist/latest.js &&
  ln -s ../../.. dist/up && printf 'built\n' >/tmp/build.log" >/dev/null

dl=$T_TMP/dl
mkdir -p "$dl"
box_tui --get main dist /tmp/build.log --dir "$dl"
box_rc "--get NAME dist /tmp/build.log --dir DEST exits 0" 0
t_contains "it says what it fetched" "$(cat "$BOX_OUT")" "from box main into $dl"
t_eq "dist/app.js came home" "$(cat "$dl/dist/app.js")" "console.log(1)"
t_eq "with its subfolder" "$(cat "$dl/dist/assets/site.css")" "body{}"
t_eq "an executable stays executable" "$(stat -c %a "$dl/dist/run.sh")" 755
t_eq "a link pointing outside is kept as a link" "$(readlink "$dl/dist/outside")" /etc/passwd
t_ok "never its target's content" test -L "$dl/dist/outside"
t_eq "a link inside stays a link" "$(readlink "$dl/dist/latest.js")" app.js
t_eq "a link up and out is kept as a link, not followed" "$(readlink "$dl/dist/up")" ../../..
t_eq "a file of /tmp comes home by its name" "$(cat "$dl/build.log")" built
t_eq "the box's archive is removed" "$(ls "$(box_root "$id")/tmp" | grep -c e2b-tui-get)" 0

# an existing file: not overwritten without --force
printf 'mine\n' >"$dl/dist/app.js"
box_tui --get main dist --dir "$dl"
t_eq "existing files are a conflict (exit 5)" "$BOX_RC" 5
t_contains "naming --force" "$(cat "$BOX_ERR")" "--force overwrites them"
t_eq "and nothing was overwritten" "$(cat "$dl/dist/app.js")" mine
box_tui --get main dist --dir "$dl" --force
box_rc "--force overwrites" 0
t_eq "the box's file is back" "$(cat "$dl/dist/app.js")" "console.log(1)"

# hostile paths: refused before the box is asked
for p in ../secret dist/../../x /etc/passwd /tmp/../etc/passwd /tmp; do
    box_tui --get main "$p" --dir "$dl"
    t_eq "'$p' is refused (exit 2)" "$BOX_RC" 2
done
t_contains "saying why" "$(box_tui --get main ../x --dir "$dl"; cat "$BOX_ERR")" "'..'"
box_tui --get main nosuch --dir "$dl"
t_eq "a path that is not in the box fails (exit 1)" "$BOX_RC" 1
t_contains "with tar's word" "$(cat "$BOX_ERR")" "nosuch"
box_tui --get main dist --dir "$T_TMP/no-such-dir"
t_eq "a --dir that does not exist is exit 2" "$BOX_RC" 2

# a local link where the folder goes is not written through
mkdir -p "$T_TMP/outside" "$T_TMP/dl2"
ln -s "$T_TMP/outside" "$T_TMP/dl2/dist"
box_tui --get main dist --dir "$T_TMP/dl2"
t_eq "a local link named dist is an existing file (exit 5)" "$BOX_RC" 5
t_eq "and nothing was written through it" "$(ls -A "$T_TMP/outside" | wc -l)" 0
box_tui --get main dist --dir "$T_TMP/dl2" --force
box_rc "with --force the link is replaced" 0
t_eq "still nothing written through it" "$(ls -A "$T_TMP/outside" | wc -l)" 0
t_ok "dist is a folder now" test -d "$T_TMP/dl2/dist" -a ! -L "$T_TMP/dl2/dist"

# limit.get_bytes: refused before a byte is downloaded
printf 'serve_command = python3 {dir}/tools/tunnel_server.py --port {port}\nlimit.get_bytes = 4K\n' >"$XDG_CONFIG_HOME/e2b-tui/config"
box_exec "$id" "head -c 100000 /dev/urandom >$dir/dist/big.bin" >/dev/null
mkdir -p "$T_TMP/dl3"
box_tui --get main dist --dir "$T_TMP/dl3"
t_eq "an archive over limit.get_bytes fails" "$BOX_RC" 1
t_contains "naming the key" "$(cat "$BOX_ERR")" "limit.get_bytes"
t_eq "and nothing was written" "$(ls -A "$T_TMP/dl3" | wc -l)" 0
t_contains "--info shows the limit" "$("$E2B_TUI_BIN" --info)" "get_bytes 4K"
box_tui --kill main --force
t_finish
