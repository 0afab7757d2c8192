#!/usr/bin/env bash
# make install into a DESTDIR installs a working binary and the man page; uninstall removes them.
. "$(dirname "$0")/../lib/lib.sh"
dest=$T_TMP/dest
make -s -C "$E2B_TUI_ROOT" install DESTDIR="$dest" PREFIX=/usr >"$T_TMP/install.log" 2>&1
t_eq "make install succeeds" "$?" 0
t_ok "binary installed executable" test -x "$dest/usr/bin/e2b-tui"
t_ok "man page installed" test -f "$dest/usr/share/man/man1/e2b-tui.1"
out=$("$dest/usr/bin/e2b-tui" --version 2>&1)
t_contains "installed binary runs --version" "$out" "e2b-tui "
if command -v mandoc >/dev/null; then
    lint=$(mandoc -T lint -W warning "$E2B_TUI_ROOT/man/e2b-tui.1" 2>&1)
    t_eq "man page passes mandoc -T lint" "$lint" ""
else
    t_fail "man page passes mandoc -T lint" "mandoc is not installed (make deps)"
fi
make -s -C "$E2B_TUI_ROOT" uninstall DESTDIR="$dest" PREFIX=/usr >/dev/null 2>&1
left=$(find "$dest" -type f | wc -l)
t_eq "make uninstall removes the installed files" "$left" 0
t_finish
