#!/usr/bin/env bash
# make install into a DESTDIR installs exactly the binary (which runs), the man page, the bash and
# zsh completions, keys.conf and the example config; uninstall removes them all.
. "$(dirname "$0")/../lib/lib.sh"
dest=$T_TMP/dest
make -s -C "$E2B_TUI_ROOT" install DESTDIR="$dest" PREFIX=/usr >"$T_TMP/install.log" 2>&1
t_eq "make install succeeds" "$?" 0
t_ok "binary installed executable" test -x "$dest/usr/bin/e2b-tui"
t_ok "man page installed" test -f "$dest/usr/share/man/man1/e2b-tui.1"
files=$(cd "$dest" && find . -type f | sort | tr '\n' ' ')
t_eq "make install installs exactly these files" "$files" \
    "./usr/bin/e2b-tui ./usr/share/bash-completion/completions/e2b-tui ./usr/share/doc/e2b-tui/e2b-tui.conf.example ./usr/share/doc/e2b-tui/keys.conf ./usr/share/man/man1/e2b-tui.1 ./usr/share/zsh/vendor-completions/_e2b-tui "
for f in usr/share/bash-completion/completions/e2b-tui usr/share/zsh/vendor-completions/_e2b-tui \
         usr/share/doc/e2b-tui/keys.conf usr/share/doc/e2b-tui/e2b-tui.conf.example \
         usr/share/man/man1/e2b-tui.1; do
    mode=$(stat -c %a "$dest/$f")
    t_eq "$f installed 0644" "$mode" 644
done
t_ok "installed keys.conf is share/keys.conf" cmp -s "$dest/usr/share/doc/e2b-tui/keys.conf" "$E2B_TUI_ROOT/share/keys.conf"
t_ok "installed bash completion is the shipped one" \
    cmp -s "$dest/usr/share/bash-completion/completions/e2b-tui" "$E2B_TUI_ROOT/share/completions/e2b-tui.bash"
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
t_ok "make uninstall removes the doc folder" test ! -e "$dest/usr/share/doc/e2b-tui"
t_finish
