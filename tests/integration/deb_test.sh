#!/usr/bin/env bash
# make deb: the package lintian finds nothing to say about (every level), with the Debian layout
# and the right Depends, installed with `apt-get install ./build/e2b-tui_*.deb` and purged again
# with nothing left.
#
# Where it is installed: a private mount namespace (unshare, as root) in which /usr, /etc and
# /var are overlays whose upper layers live on a tmpfs of that namespace. apt and dpkg are the
# machine's own and see its real package database, so dependencies resolve as for a user, the
# man-db trigger runs and `man e2b-tui` finds the page the standard way; every write lands in
# the tmpfs, which goes with the namespace. It also has its own PID namespace (everything in it
# ends with its first process) and no network (apt can only use what is here). A dpkg --root or
# apt -o Dir scratch root was the other choice: it needs the system's dpkg state copied into
# it and then runs neither the triggers nor the real lookup paths.
. "$(dirname "$0")/../lib/lib.sh"
root=$E2B_TUI_ROOT
out=$T_TMP/out
mkdir -p "$out" "$T_TMP/ovl"

start=$SECONDS
make -s -C "$root" deb >"$T_TMP/make.log" 2>&1
t_eq "make deb succeeds" "$?" 0
# The changelog names its maintainer @MAINTAINER@ (share/debian/maintainer, as mkdeb.sh does).
version=$(sed "s|@MAINTAINER@|$(head -n 1 "$root/share/debian/maintainer")|" "$root/share/debian/changelog" |
    dpkg-parsechangelog -l - -S Version)
upstream=$(sed -n 's/^VERSION *:= *//p' "$root/Makefile")
arch=$(dpkg --print-architecture)
deb=$root/build/e2b-tui_${version}_${arch}.deb
t_eq "the package version is VERSION plus a Debian revision" "${version%-*}" "$upstream"
t_ok "make deb writes build/e2b-tui_<version>_<arch>.deb" test -f "$deb"
t_eq "make deb leaves one package in build/" "$(ls "$root"/build/e2b-tui_*.deb 2>/dev/null | wc -l)" 1
[ -f "$deb" ] || { echo "--- make deb:"; tail -20 "$T_TMP/make.log"; t_finish; }

# lintian at every level; the overrides in share/debian/lintian-overrides are honoured and
# lintian itself reports an override that no longer matches (unused-override).
if command -v lintian >/dev/null; then
    lstart=$SECONDS
    lint=$(lintian --info --display-experimental --pedantic --display-level '>=pedantic' \
        "$deb" 2>&1 | grep -v '^running with root privileges is not recommended!$')
    t_eq "lintian says nothing, at every level" "$lint" ""
    echo "lintian took $((SECONDS - lstart))s"
else
    t_fail "lintian says nothing, at every level" "lintian is not installed (make deps)"
fi
unexplained=$(awk '/^#/ { why = 1; next } /^[[:space:]]*$/ { why = 0; next }
                   { if (!why) print; why = 0 }' "$root/share/debian/lintian-overrides")
t_eq "every lintian override has a reason above it" "$unexplained" ""

field() { dpkg-deb -f "$deb" "$1"; }
t_eq "control: Package" "$(field Package)" e2b-tui
t_eq "control: Architecture" "$(field Architecture)" "$arch"
t_eq "control: Recommends a Secret Service provider" "$(field Recommends)" "gnome-keyring | keepassxc"
# The maintainer is named once (share/debian/maintainer); the licence is MIT (LICENSE).
t_eq "control: Maintainer is share/debian/maintainer's" "$(field Maintainer)" "$(head -n 1 "$root/share/debian/maintainer")"
t_eq "no @MAINTAINER@ is left in the sources but that one file" \
    "$(grep -rl '@MAINTAINER@' "$root/share/debian" | grep -v -e control.in -e copyright -e changelog -e mkdeb.sh)" ""
dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/share/doc/e2b-tui/copyright >"$T_TMP/copyright"
t_ok "copyright: the licence is Expat (MIT)" grep -qx 'License: Expat' "$T_TMP/copyright"
t_ok "copyright: with the LICENSE file's text" sh -c "grep -q 'Permission is hereby granted, free of charge' '$T_TMP/copyright' && grep -q 'Permission is hereby granted, free of charge' '$root/LICENSE'"
t_eq "changelog: the maintainer signs it" "$(dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/share/doc/e2b-tui/changelog.Debian.gz | gzip -dc | dpkg-parsechangelog -l - -S Maintainer)" \
    "$(head -n 1 "$root/share/debian/maintainer")"
t_ok "copyright: the upstream contact is the maintainer" grep -qxF "Upstream-Contact: $(head -n 1 "$root/share/debian/maintainer")" "$T_TMP/copyright"
depends=$(field Depends)
t_contains "control: Depends on libarchive13 (loaded with dlopen), versioned" "$depends" "libarchive13 (>= "
# Each library the binary links is shipped by a package that Depends names.
bin_x=$T_TMP/x
dpkg-deb -x "$deb" "$bin_x"
missing=
for lib in $(readelf -d "$bin_x/usr/bin/e2b-tui" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    path=$(ldd "$bin_x/usr/bin/e2b-tui" | awk -v l="$lib" '$1 == l { print $3 }')
    # dpkg knows a file by the path its package ships (/lib or /usr/lib on a merged /usr).
    real=$(realpath "$path")
    pkg=$(dpkg -S "$path" "$real" "${real#/usr}" "/usr${path#/usr}" 2>/dev/null | head -1 | cut -d: -f1)
    case ", $depends," in *", $pkg "*|*", $pkg,"*) ;; *) missing="$missing $lib($pkg)" ;; esac
done
t_eq "control: Depends names the package of every linked library" "$missing" ""

contents=$(dpkg-deb -c "$deb")
files=$(printf '%s\n' "$contents" | awk '$1 ~ /^-/ { print $6 }' | LC_ALL=C sort | tr '\n' ' ')
want="./usr/bin/e2b-tui ./usr/share/bash-completion/completions/e2b-tui ./usr/share/doc/e2b-tui/changelog.Debian.gz ./usr/share/doc/e2b-tui/copyright ./usr/share/doc/e2b-tui/e2b-tui.conf.example ./usr/share/doc/e2b-tui/keys.conf ./usr/share/lintian/overrides/e2b-tui ./usr/share/man/man1/e2b-tui.1.gz ./usr/share/zsh/vendor-completions/_e2b-tui "
t_eq "the package holds exactly these files" "$files" "$want"
t_eq "every entry is owned by root:root" "$(printf '%s\n' "$contents" | awk '$2 != "root/root"')" ""
t_not_contains "the test server is not in the package" "$contents" "e2b-local"
t_ok "the packaged man page is man/e2b-tui.1, gzip'd" \
    cmp -s <(gzip -dc "$bin_x/usr/share/man/man1/e2b-tui.1.gz") "$root/man/e2b-tui.1"
t_ok "the packaged bash completion is the shipped one" \
    cmp -s "$bin_x/usr/share/bash-completion/completions/e2b-tui" "$root/share/completions/e2b-tui.bash"
t_ok "the packaged zsh completion is the shipped one" \
    cmp -s "$bin_x/usr/share/zsh/vendor-completions/_e2b-tui" "$root/share/completions/_e2b-tui"
sections=$(readelf -SW "$bin_x/usr/bin/e2b-tui")
t_not_contains "the binary is stripped (no symbol table)" "$sections" " .symtab "
t_not_contains "the binary carries no debug info" "$sections" " .debug_"
dyn=$(readelf -dW "$bin_x/usr/bin/e2b-tui")
t_contains "the binary is linked with bindnow" "$dyn" "BIND_NOW"
syms=$(readelf --dyn-syms -W "$bin_x/usr/bin/e2b-tui")
t_contains "the binary is built with the stack protector" "$syms" "__stack_chk_fail"
t_ok "the binary uses fortified libc functions" grep -qE ' __[a-z_]+_chk@' <<<"$syms"

# Inside the namespace (see the top): overlays, install, use, purge. Results go to files in
# $out, which is outside the overlays, and are checked below.
in_sandbox() {
    set -u
    local out=$1 ovl=$2 root=$3 d
    mount -t tmpfs -o mode=0755 deb-test "$ovl" || { echo "tmpfs mount failed" >"$out/error"; exit 1; }
    for d in usr etc var; do
        # lower/: the real tree, read-only, to tell what the upper layer adds to it.
        mkdir -p "$ovl/$d/up" "$ovl/$d/work" "$ovl/lower/$d"
        mount --bind "/$d" "$ovl/lower/$d" && mount -o remount,bind,ro "$ovl/lower/$d" &&
            mount -t overlay overlay -o "lowerdir=/$d,upperdir=$ovl/$d/up,workdir=$ovl/$d/work" "/$d" ||
            { echo "overlay over /$d failed" >"$out/error"; exit 1; }
    done
    export HOME=$out/home TMPDIR=$out/tmp PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8
    export DEBIAN_FRONTEND=noninteractive XDG_STATE_HOME=$out/home/state XDG_CONFIG_HOME=$out/home/config
    unset MANPATH MANPAGER PAGER
    mkdir -p "$HOME" "$TMPDIR"
    man -w e2b-tui >"$out/man-before" 2>&1
    cd "$root" || exit 1
    # --path-include: a machine whose dpkg drops man pages or docs (slim container images do)
    # would hide what this test checks; the package is what is tested, not that setting.
    apt-get install -y --no-install-recommends -o 'DPkg::Options::=--path-include=*' \
        ./build/e2b-tui_*.deb >"$out/install.log" 2>&1
    echo $? >"$out/install.rc"
    [ -f "$ovl/usr/up/bin/e2b-tui" ] && echo yes >"$out/in-overlay"
    dpkg-query -W -f='${Status}' e2b-tui >"$out/status-installed" 2>&1
    dpkg -L e2b-tui 2>&1 | while read -r p; do [ -f "$p" ] && [ ! -L "$p" ] && echo ".$p"; done |
        LC_ALL=C sort >"$out/files"
    command -v e2b-tui >"$out/which"
    e2b-tui --version >"$out/version" 2>&1; echo $? >"$out/version.rc"
    e2b-tui --help >"$out/help" 2>&1; echo $? >"$out/help.rc"
    man -w e2b-tui >"$out/man-path" 2>&1
    MANWIDTH=80 man e2b-tui >"$out/man" 2>"$out/man.err"; echo $? >"$out/man.rc"
    bash -c '. /usr/share/bash-completion/completions/e2b-tui && complete -p e2b-tui' \
        >"$out/complete" 2>&1
    apt-get purge -y e2b-tui >"$out/purge.log" 2>&1
    echo $? >"$out/purge.rc"
    dpkg-query -W -f='${Status}' e2b-tui >"$out/status-purged" 2>&1
    # What install and purge left, from the upper layers (only this namespace writes there, so
    # the machine's own changes meanwhile do not count): a path the real tree lacks is new; a
    # whiteout or an opaque directory hides something of the real tree.
    python3 -c '
import os, stat, sys
ovl = sys.argv[1]
for d in ("usr", "etc", "var"):
    up = os.path.join(ovl, d, "up")
    for top, dirs, files in os.walk(up):
        for name in sorted(dirs + files):
            p = os.path.join(top, name)
            rel = p[len(up):]
            st = os.lstat(p)
            if stat.S_ISCHR(st.st_mode) and st.st_rdev == 0:
                print("gone /" + d + rel)
            elif not os.path.lexists(os.path.join(ovl, "lower", d) + rel):
                print("new /" + d + rel)
            elif stat.S_ISDIR(st.st_mode):
                try:
                    if os.getxattr(p, "trusted.overlay.opaque", follow_symlinks=False) == b"y":
                        print("gone /" + d + rel + "/*")
                except OSError:
                    pass
' "$ovl" >"$out/changes" 2>&1
    echo done >"$out/done"
}

host_pkg_before=$(dpkg-query -W -f='${Status}' e2b-tui 2>&1)
host_doc_before=$(test -e /usr/share/doc/e2b-tui && echo present || echo absent)
# The scratch namespace needs root: as root, or through sudo without a password (a developer
# who is not root); what it wrote is handed back to the caller afterwards.
as_root=
if [ "$(id -u)" != 0 ]; then
    if sudo -n true 2>/dev/null; then
        as_root="sudo -n"
    else
        t_fail "install in a scratch namespace" "needs root or sudo without a password (mount namespaces with overlays)"
        t_finish
    fi
fi
istart=$SECONDS
timeout --kill-after=10 300 $as_root unshare --mount --propagation private --pid --fork --kill-child \
    --mount-proc --net -- bash -c "$(declare -f in_sandbox); in_sandbox '$out' '$T_TMP/ovl' '$root'" \
    >"$T_TMP/sandbox.log" 2>&1
[ -n "$as_root" ] && $as_root chown -R "$(id -u):$(id -g)" "$out" "$T_TMP/ovl"
t_eq "the sandbox ran to its end" "$(cat "$out/done" 2>/dev/null)" done
[ -s "$out/error" ] && t_fail "sandbox set-up" "$(cat "$out/error")"
echo "install, checks and purge in the sandbox took $((SECONDS - istart))s"

t_eq "apt-get install ./build/e2b-tui_*.deb succeeds" "$(cat "$out/install.rc" 2>/dev/null)" 0
[ "$(cat "$out/install.rc" 2>/dev/null)" = 0 ] || tail -n 20 "$out/install.log" "$T_TMP/sandbox.log"
t_eq "the install wrote into the sandbox's overlay" "$(cat "$out/in-overlay" 2>/dev/null)" yes
t_eq "dpkg has it installed" "$(cat "$out/status-installed" 2>/dev/null)" "install ok installed"
t_eq "dpkg -L lists the package's files, all installed" "$(tr '\n' ' ' <"$out/files" 2>/dev/null)" "$want"
t_eq "e2b-tui on PATH is /usr/bin/e2b-tui" "$(cat "$out/which" 2>/dev/null)" /usr/bin/e2b-tui
t_eq "installed e2b-tui --version exits 0" "$(cat "$out/version.rc" 2>/dev/null)" 0
t_eq "installed e2b-tui --version prints the version" "$(cat "$out/version" 2>/dev/null)" "e2b-tui $upstream"
t_eq "installed e2b-tui --help exits 0" "$(cat "$out/help.rc" 2>/dev/null)" 0
t_contains "installed e2b-tui --help prints the usage" "$(cat "$out/help" 2>/dev/null)" "Usage: e2b-tui"
t_not_contains "before the install, man finds no packaged page" "$(cat "$out/man-before")" \
    /usr/share/man/man1/e2b-tui.1.gz
t_eq "man -w e2b-tui finds the packaged page" "$(cat "$out/man-path" 2>/dev/null)" \
    /usr/share/man/man1/e2b-tui.1.gz
t_eq "man e2b-tui exits 0" "$(cat "$out/man.rc" 2>/dev/null)" 0
man_text=$(tr -s ' ' <"$out/man" 2>/dev/null)
t_contains "man e2b-tui shows the page" "$man_text" "terminal dashboard for E2B sandboxes"
t_contains "man e2b-tui shows the synopsis" "$man_text" "SYNOPSIS"
t_contains "the installed bash completion loads" "$(cat "$out/complete" 2>/dev/null)" "complete -F "

t_eq "apt-get purge e2b-tui succeeds" "$(cat "$out/purge.rc" 2>/dev/null)" 0
t_not_contains "dpkg no longer knows the package" "$(cat "$out/status-purged" 2>/dev/null)" "ok installed"
t_not_contains "no config-files remain" "$(cat "$out/status-purged" 2>/dev/null)" "config-files"
if [ -f "$out/changes" ]; then
    # What purge may leave: apt's and dpkg's logs, and the formatted page that `man` (as root)
    # cached in man-db's own cache, which man-db's daily job drops once the source is gone.
    new=$(sed -n 's/^new //p' "$out/changes" |
        grep -vE '^/var/log/(apt/|apt$|dpkg\.log$)|^/var/cache/man/cat1/e2b-tui\.1\.gz$' | tr '\n' ' ')
    t_eq "nothing new is left in /usr, /etc or /var after purge" "$new" ""
    t_eq "nothing that was there before is gone after purge" \
        "$(grep -v -e '^new ' "$out/changes" | tr '\n' ' ')" ""
else
    t_fail "nothing new is left in /usr, /etc or /var after purge" "no list of changes from the sandbox"
fi

t_eq "the machine's dpkg state is unchanged" "$(dpkg-query -W -f='${Status}' e2b-tui 2>&1)" \
    "$host_pkg_before"
t_eq "the machine has no /usr/share/doc/e2b-tui afterwards, as before" \
    "$(test -e /usr/share/doc/e2b-tui && echo present || echo absent)" "$host_doc_before"
t_eq "the sandbox's mounts went with it" "$(findmnt -n -o TARGET "$T_TMP/ovl" 2>/dev/null)" ""
echo "deb test took $((SECONDS - start))s"
t_finish
