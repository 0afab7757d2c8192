#!/usr/bin/env bash
# Lists the public functions of core/, keystore/ and tui/ that nothing in the product calls.
#
#   tests/lib/check_dead_api.sh ROOT OBJDIR KEEP
#
# ROOT holds the sources (core/, keystore/, tui/), OBJDIR their objects at the same paths
# (build/asan/core/net/loop.o for core/net/loop.c). A public function is a global text symbol
# (nm type T) of one of those objects; it has a caller when another of those objects needs
# it (nm: undefined there) or its own file names it again outside comments (a call, a
# pointer in an ops table). Tests are not the product: their objects are not read.
#
# KEEP lists the functions kept on purpose, one "name  why" a line ('#' comments; a line
# "[pending]" starts the part kept only until another change lands). Prints one line per
# dead function not kept, and one per kept function that is no longer dead (a stale line,
# to be removed; in the pending part it is only a note). Exit 1 when either was printed.
set -u
root=${1:?root} objdir=${2:?object dir} keep=${3:?keep list}
cd "$root" || exit 2
[ -f "$keep" ] || { echo "check_dead_api: $keep not found"; exit 2; }
CC=${CC:-cc}

declare -A def=() needed=() kept=() pending=()
mapfile -t sources < <(find core keystore tui -name '*.c' 2>/dev/null | sort)
[ "${#sources[@]}" -gt 0 ] || { echo "check_dead_api: no sources under $root"; exit 2; }
for src in "${sources[@]}"; do
    obj=$objdir/${src%.c}.o
    [ -f "$obj" ] || { echo "check_dead_api: $obj not built"; exit 2; }
    while read -r name type _; do
        [ "$type" = T ] && def[$name]=$src
    done < <(nm -g --defined-only -P "$obj")
    while read -r name _; do
        needed[$name]=1
    done < <(nm -u -P "$obj")
done

part=kept
while read -r name _; do
    case "$name" in '' | '#'*) continue ;; '[pending]') part=pending; continue ;; esac
    if [ "$part" = kept ]; then kept[$name]=1; else pending[$name]=1; fi
done <"$keep"

# Does src name $2 twice or more outside comments (its definition and a use)?
used_in_own_file() {
    local n
    n=$("$CC" -fpreprocessed -dD -E -P "$1" 2>/dev/null | grep -ow -- "$2" | wc -l)
    [ "$n" -ge 2 ]
}

bad=0
mapfile -t names < <(printf '%s\n' "${!def[@]}" | sort)
for name in "${names[@]}"; do
    [ "$name" = main ] && continue
    dead=1
    if [ -n "${needed[$name]:-}" ] || used_in_own_file "${def[$name]}" "$name"; then dead=0; fi
    if [ "$dead" = 1 ] && [ -z "${kept[$name]:-}" ] && [ -z "${pending[$name]:-}" ]; then
        echo "dead: $name (${def[$name]}) has no caller in core/, keystore/ or tui/"
        bad=1
    elif [ "$dead" = 0 ] && [ -n "${kept[$name]:-}" ]; then
        echo "stale: $name is called now; remove its line from $keep"
        bad=1
    elif [ "$dead" = 0 ] && [ -n "${pending[$name]:-}" ]; then
        echo "note: $name (pending) is called now; its line in $keep can go"
    fi
done
for name in "${!kept[@]}" "${!pending[@]}"; do
    [ -n "${def[$name]:-}" ] && continue
    echo "stale: $name is no longer a public function; remove its line from $keep"
    bad=1
done
exit "$bad"
