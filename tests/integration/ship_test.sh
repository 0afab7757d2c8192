#!/usr/bin/env bash
# What ships beside the binary agrees with it: every flag of --help is in the man page and
# the README, the man page's KEYS section and share/keys.conf are what the action table
# generates, and the man page lints clean.
. "$(dirname "$0")/../lib/lib.sh"
t_isolated_home
root=$E2B_TUI_ROOT
man=$root/man/e2b-tui.1

help=$("$E2B_TUI_BIN" --help); rc=$?
t_eq "--help exits 0" "$rc" 0
flags=$(printf '%s\n' "$help" | grep -oE -- '--[a-z][a-z-]*' | sort -u)
nflags=$(printf '%s\n' "$flags" | grep -c .)
[ "$nflags" -ge 15 ] && t_pass "--help lists the flags ($nflags)" ||
    t_fail "--help lists the flags" "only $nflags found"

# roff writes a dash as \-; compare against the plain text.
man_text=$(sed 's/\\-/-/g' "$man")
readme=$(cat "$root/README.md")
# A flag must appear whole: --dir must not be satisfied by --directory.
has_flag() { printf '%s\n' "$2" | grep -qE -- "$1([^a-z-]|\$)"; }
miss_man= miss_readme=
for f in $flags; do
    has_flag "$f" "$man_text" || miss_man="$miss_man $f"
    has_flag "$f" "$readme" || miss_readme="$miss_readme $f"
done
t_eq "every --help flag is in the man page" "$miss_man" ""
t_eq "every --help flag is in README.md" "$miss_readme" ""
# The check itself must catch a missing flag.
has_flag --no-such-flag "$man_text" && t_fail "flag check catches a missing flag" "matched" ||
    t_pass "flag check catches a missing flag"
has_flag --dir "--directory" && t_fail "flag check needs the whole flag" "--dir matched --directory" ||
    t_pass "flag check needs the whole flag"

# KEYS: the text between the marker comments equals --print-keys=man.
want=$("$E2B_TUI_BIN" --print-keys=man); rc=$?
t_eq "--print-keys=man exits 0" "$rc" 0
got=$(sed -n '/^\.\\" BEGIN KEYS/,/^\.\\" END KEYS/{/^\.\\" BEGIN KEYS/d;/^\.\\" END KEYS/d;p}' "$man")
[ -n "$got" ] && t_pass "man page has the KEYS markers" ||
    t_fail "man page has the KEYS markers" "no text between BEGIN KEYS and END KEYS"
if [ "$got" = "$want" ]; then t_pass "man page KEYS equals --print-keys=man"
else t_fail "man page KEYS equals --print-keys=man" \
    "differs (regenerate with build/e2b-tui --print-keys=man): $(diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") | head -5)"
fi

conf=$("$E2B_TUI_BIN" --print-keys=conf); rc=$?
t_eq "--print-keys=conf exits 0" "$rc" 0
if [ "$conf" = "$(cat "$root/share/keys.conf")" ]; then t_pass "share/keys.conf equals --print-keys=conf"
else t_fail "share/keys.conf equals --print-keys=conf" \
    "differs: $(diff <(printf '%s\n' "$conf") "$root/share/keys.conf" | head -5)"
fi

if command -v mandoc >/dev/null; then
    lint=$(mandoc -T lint -W warning "$man" 2>&1)
    t_eq "man page passes mandoc -T lint -W warning" "$lint" ""
    rendered=$(mandoc -T ascii "$man" 2>&1 | col -b)
    for s in NAME SYNOPSIS DESCRIPTION MODES OPTIONS KEYS CONFIGURATION FILES ENVIRONMENT \
             "EXIT STATUS" EXAMPLES; do
        printf '%s\n' "$rendered" | grep -qx "$s" && t_pass "man page has section $s" ||
            t_fail "man page has section $s" "no such heading"
    done
else
    t_fail "man page passes mandoc -T lint -W warning" "mandoc is not installed (make deps)"
fi
t_finish
