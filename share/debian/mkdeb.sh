#!/usr/bin/env bash
# Turns a `make install DESTDIR=STAGE/root PREFIX=/usr` tree into OUTDIR/e2b-tui_<ver>_<arch>.deb
# laid out as Debian policy wants it. Called by `make deb`; every input is under share/debian/.
#
#   share/debian/mkdeb.sh STAGE UPSTREAM_VERSION OUTDIR
#
# The tree is changed in place (stripped binary, gzip'd man page, copyright, changelog, lintian
# overrides) and the control file is written from control.in. Depends is what dpkg-shlibdeps
# finds in the binary's NEEDED libraries, plus libarchive13, which core/util/archive_dl.c loads
# with dlopen (so shlibdeps cannot see it), at the lowest version that has every symbol it
# resolves, read from libarchive13's dpkg symbols file.
set -euo pipefail
die() { echo "mkdeb: $*" >&2; exit 1; }
[ $# -eq 3 ] || die "usage: mkdeb.sh STAGE UPSTREAM_VERSION OUTDIR"
stage=$1 upstream=$2 outdir=$3
src=$(cd "$(dirname "$0")/../.." && pwd)
deb=$src/share/debian
root=$stage/root
bin=$root/usr/bin/e2b-tui
doc=$root/usr/share/doc/e2b-tui
[ -x "$bin" ] || die "$bin is missing: run make install DESTDIR=$root PREFIX=/usr first"

# The maintainer (a role address of the project) is named once, in share/debian/maintainer,
# for packagers to replace: control.in, copyright and changelog say @MAINTAINER@.
maintainer=$(head -n 1 "$deb/maintainer")
case $maintainer in *'<'*@*'>') ;; *) die "share/debian/maintainer is not 'Name <address>'" ;; esac
mkdir -p "$stage"
for f in changelog copyright control.in; do
    sed "s|@MAINTAINER@|$maintainer|" "$deb/$f" >"$stage/$f"
done

# The package version is the changelog's; its upstream part must be the Makefile's VERSION, so a
# release cannot ship without a changelog entry.
version=$(dpkg-parsechangelog -l "$stage/changelog" -S Version)
[ "${version%-*}" = "$upstream" ] ||
    die "share/debian/changelog is at $version but VERSION is $upstream: add a changelog entry"
arch=$(dpkg --print-architecture)
# Every file's time is the changelog entry's, so two builds of one version are the same bytes.
SOURCE_DATE_EPOCH=$(dpkg-parsechangelog -l "$stage/changelog" -S Timestamp)
export SOURCE_DATE_EPOCH

# Debian's layout: a stripped binary (no debug symbols in the .deb), gzip'd man page and
# changelog (-n: no name or time inside), the copyright file, the overrides for lintian.
strip --remove-section=.comment --remove-section=.note --strip-unneeded "$bin"
gzip -9nf "$root/usr/share/man/man1/e2b-tui.1"
install -d "$root/usr/share/lintian/overrides"
install -m 0644 "$stage/copyright" "$doc/copyright"
gzip -9nc "$stage/changelog" >"$doc/changelog.Debian.gz"
chmod 0644 "$doc/changelog.Debian.gz"
install -m 0644 "$deb/lintian-overrides" "$root/usr/share/lintian/overrides/e2b-tui"
# Whatever the umask was: directories 0755, nothing group- or world-writable.
find "$root" -type d -exec chmod 0755 {} +
chmod -R go-w "$root"

# dpkg-shlibdeps wants a debian/control naming the package, in the directory it runs in.
install -d "$stage/debian" "$root/DEBIAN"
printf 'Source: e2b-tui\n\nPackage: e2b-tui\nArchitecture: any\n' >"$stage/debian/control"
shlibs=$(cd "$stage" && dpkg-shlibdeps -O -e"root/usr/bin/e2b-tui") || die "dpkg-shlibdeps failed"
shlibs=${shlibs#shlibs:Depends=}
[ -n "$shlibs" ] || die "dpkg-shlibdeps found no library"

symfile=$(dpkg-query --control-path libarchive13 symbols 2>/dev/null) ||
    die "libarchive13 is not installed (make deps)"
syms=$(grep -o 'R([a-z_0-9]*, archive_[a-z_0-9]*)' "$src/core/util/archive_dl.c" | sed 's/.*, //; s/)$//')
[ -n "$syms" ] || die "no libarchive symbol found in core/util/archive_dl.c"
minver=
for s in $syms; do
    v=$(awk -v s="$s@Base" '$1 == s { print $2; exit }' "$symfile")
    [ -n "$v" ] || die "$s is not in libarchive13's symbols file"
    if [ -z "$minver" ] || dpkg --compare-versions "$v" gt "$minver"; then minver=$v; fi
done
depends=$({ printf '%s\n' "$shlibs" | sed 's/, /\n/g'; echo "libarchive13 (>= $minver)"; } |
    LC_ALL=C sort -u | paste -sd '\t' | sed 's/\t/, /g')

size=$(du -sk --apparent-size --exclude=DEBIAN "$root" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@INSTALLED_SIZE@/$size/" \
    -e "s/@DEPENDS@/$depends/" "$stage/control.in" >"$root/DEBIAN/control"
(cd "$root" && find usr -type f -print0 | LC_ALL=C sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"
find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

out=$outdir/e2b-tui_${version}_${arch}.deb
rm -f "$outdir"/e2b-tui_*.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$out" >/dev/null
echo "$out"
