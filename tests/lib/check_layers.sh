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

# The library a <header> belongs to, or nothing for the C library and POSIX.
lib_of() {
    case "$1" in
    curses.h | ncurses.h | ncursesw/* | ncurses/* | term.h | panel.h | menu.h | form.h | \
        unctrl.h | termcap.h) echo curses ;;
    glib.h | glib/* | glib-object.h | gobject/* | gio/* | gmodule.h) echo glib ;;
    libsecret/*) echo libsecret ;;
    curl/*) echo curl ;;
    jansson.h | jansson_config.h) echo jansson ;;
    git2.h | git2/*) echo git2 ;;
    archive.h | archive_entry.h) echo archive ;;
    microhttpd.h) echo microhttpd ;;
    zlib.h | zconf.h) echo zlib ;;
    openssl/*) echo openssl ;;
    esac
}

rule_of() { # the longest folder with a row that contains file $1
    local f=$1 best=
    for folder in "${!allow[@]}"; do
        case "$f" in "$folder"/*) [ "${#folder}" -gt "${#best}" ] && best=$folder ;; esac
    done
    echo "$best"
}

bad=0
violation() { echo "$1"; bad=1; }

cd "$root" || exit 2
while IFS= read -r file; do
    rule=$(rule_of "$file")
    if [ -z "$rule" ]; then
        violation "$file: its folder has no row in core/README.md's include table"
        continue
    fi
    read -r -a tokens <<<"${allow[$rule]}"
    while IFS= read -r hit; do
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
            lib=$(lib_of "$target")
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
    done < <(grep -n '^[[:space:]]*#[[:space:]]*include' "$file")
done < <(find core keystore tui -name '*.[ch]' 2>/dev/null | sort)
exit "$bad"
