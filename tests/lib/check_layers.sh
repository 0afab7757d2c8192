#!/usr/bin/env bash
# Checks every #include in core/, keystore/ and tui/ against the include graph written in
# core/README.md (the block between <!-- layers:begin --> and <!-- layers:end -->).
#
#   tests/lib/check_layers.sh [ROOT]     prints one line per violation; exit 1 if any
#
# A file obeys the row of the longest folder that contains it. A row lists what its files may
# include: folders or files (by path from the root) and libraries as <name>. Any other <...>
# header counts as the C library/POSIX. A quoted include must name a file from the root.
set -u
root=${1:-.}
readme=$root/core/README.md
[ -f "$readme" ] || { echo "check_layers: $readme not found"; exit 2; }

declare -A allow=()
while read -r folder rest; do
    case "$folder" in '' | '#'* | '<!--'* | '```'*) continue ;; esac
    allow[$folder]=$rest
done < <(sed -n '/<!-- layers:begin -->/,/<!-- layers:end -->/p' "$readme")
[ "${#allow[@]}" -gt 0 ] || { echo "check_layers: no layer table in $readme"; exit 2; }

# lib_of HEADER: sets lib to the library a <header> belongs to, "" for the C library and
# POSIX. (These helpers set a variable: a $(...) per include forked thousands of times.)
lib_of() {
    lib=
    case "$1" in
    curses.h | ncurses.h | ncursesw/* | ncurses/* | term.h | panel.h | menu.h | form.h | \
        unctrl.h | termcap.h) lib=curses ;;
    glib.h | glib/* | glib-object.h | gobject/* | gio/* | gmodule.h) lib=glib ;;
    libsecret/*) lib=libsecret ;;
    curl/*) lib=curl ;;
    jansson.h | jansson_config.h) lib=jansson ;;
    git2.h | git2/*) lib=git2 ;;
    archive.h | archive_entry.h) lib=archive ;;
    microhttpd.h) lib=microhttpd ;;
    zlib.h | zconf.h) lib=zlib ;;
    openssl/*) lib=openssl ;;
    esac
}

rule_of() { # sets rule to the longest folder with a row that contains file $1
    local f=$1 folder
    rule=
    for folder in "${!allow[@]}"; do
        case "$f" in "$folder"/*) [ "${#folder}" -gt "${#rule}" ] && rule=$folder ;; esac
    done
}

bad=0
violation() { echo "$1"; bad=1; }

cd "$root" || exit 2
# Every file's row first, then one grep over them all (not one a file: forks are the cost).
mapfile -t files < <(find core keystore tui -name '*.[ch]' 2>/dev/null | sort)
declare -A rule_of_file=()
for file in "${files[@]}"; do
    rule_of "$file"
    if [ -z "$rule" ]; then
        violation "$file: its folder has no row in core/README.md's include table"
        continue
    fi
    rule_of_file[$file]=$rule
done
[ "${#files[@]}" -gt 0 ] || exit "$bad"
while IFS= read -r hit; do
    file=${hit%%:*}
    hit=${hit#*:}
    rule=${rule_of_file[$file]:-}
    [ -n "$rule" ] || continue
    read -r -a tokens <<<"${allow[$rule]}"
    line=${hit%%:*}
    text=${hit#*:}
    if [[ $text =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*\"([^\"]+)\" ]]; then
        target=${BASH_REMATCH[1]}
        if [ ! -f "$target" ]; then
            violation "$file:$line: \"$target\" is not a path from the repository root"
            continue
        fi
        ok=0
        for t in "${tokens[@]}"; do
            case "$t" in '<'*) continue ;; esac
            case "$target" in "$t" | "$t"/*) ok=1; break ;; esac
        done
    elif [[ $text =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*\<([^\>]+)\> ]]; then
        target=${BASH_REMATCH[1]}
        lib_of "$target"
        [ -z "$lib" ] && continue
        ok=0
        for t in "${tokens[@]}"; do
            [ "$t" = "<$lib>" ] && { ok=1; break; }
        done
        target="<$target> ($lib)"
    else
        violation "$file:$line: an include that is neither \"path\" nor <header>"
        continue
    fi
    [ "$ok" = 1 ] || violation "$file:$line: includes $target; $rule may include only: ${allow[$rule]}"
done < <(grep -H -n '^[[:space:]]*#[[:space:]]*include' "${files[@]}")
exit "$bad"
