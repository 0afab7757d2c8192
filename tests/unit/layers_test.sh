#!/usr/bin/env bash
# The include graph of core/README.md holds for the tree (tests/lib/check_layers.sh), and the
# checker catches each kind of violation: each case copies the tree, adds one bad include
# and expects the checker to fail and name the file.
source "$(dirname "$0")/../lib/lib.sh"
cd "$E2B_TUI_ROOT" || exit 2
check=tests/lib/check_layers.sh

out=$(bash "$check" . 2>&1)
rc=$?
if [ "$rc" = 0 ]; then t_pass "layers: every include of core/, keystore/, tui/ follows core/README.md"
else t_fail "layers: the tree" "$(printf '%s' "$out" | head -n 10)"; fi

# violation NAME FILE INCLUDE-LINE: the checker must reject the tree with that line added.
violation() {
    local name=$1 file=$2 line=$3 copy=$T_TMP/copy
    rm -rf "$copy" && mkdir -p "$copy"
    cp -r core keystore tui "$copy"/
    mkdir -p "$copy/$(dirname "$file")"
    printf '%s\n' "$line" >>"$copy/$file"
    local got
    got=$(bash "$check" "$copy" 2>&1)
    rc=$?
    if [ "$rc" = 1 ] && [[ $got == *"$file:"* ]]; then t_pass "layers: rejects $name"
    else t_fail "layers: rejects $name" "status $rc, output: $(printf '%s' "$got" | head -c 300)"; fi
}
violation "core/util including core/box" core/util/str.c '#include "core/box/box.h"'
violation "core/e2b including core/git" core/e2b/envd.c '#include "core/git/bundle.h"'
violation "core including tui" core/box/box_op.c '#include "tui/ui.h"'
violation "keystore including core" keystore/job.c '#include "core/util/error.h"'
violation "curses in tui/cli" tui/cli/cli.c '#include <curses.h>'
violation "curses in core" core/net/loop.c '# include <ncursesw/curses.h>'
violation "GLib outside keystore" core/util/log.c '#include <glib.h>'
violation "jansson in tui" tui/app.c '#include <jansson.h>'
violation "libcurl in tui/term" tui/term/term.c '#include <curl/curl.h>'
violation "tui/term including the screen state" tui/term/keys.c '#include "tui/ui.h"'
violation "tui/term including a widget" tui/term/term.c '#include "tui/widgets/draw.h"'
violation "a widget including a view" tui/widgets/table.c '#include "tui/views/view_detail.h"'
violation "a widget including app.h" tui/widgets/list.c '#include "tui/app.h"'
violation "a widget including the live model" tui/widgets/draw.c '#include "core/live/live.h"'
violation "a view including app.h" tui/views/view_help.c '#include "tui/app.h"'
violation "a view including keystore" tui/views/view_secrets.c '#include "keystore/keystore.h"'
violation "tui/cli including a view" tui/cli/cli_box.c '#include "tui/views/view_detail.h"'
violation "tui/cli including the screen state" tui/cli/cli.c '#include "tui/ui.h"'
violation "an include not from the root" core/net/http.c '#include "loop.h"'
violation "a folder without a row" core/newlayer/thing.c '#include <stdio.h>'
t_finish
