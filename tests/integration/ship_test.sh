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

# The test keystore (memory) is not offered to users anywhere; the health timeout's default
# is given everywhere it is named.
t_not_contains "--help offers no test keystore" "$help" "memory"
t_not_contains "the man page's --keystore offers no test keystore" \
    "$(printf '%s\n' "$man_text" | sed -n '/^\.BI --keystore/,/^\.TP/p')" "memory"
t_not_contains "the completions offer no test keystore" \
    "$(grep -h keystore "$root/share/completions/e2b-tui.bash" "$root/share/completions/_e2b-tui")" "memory"
t_contains "--help gives E2B_TUI_HEALTH_TIMEOUT's default" "$help" "healthy, default 90"
t_contains "the man page gives E2B_TUI_HEALTH_TIMEOUT's default" \
    "$(printf '%s\n' "$man_text" | sed -n '/^\.B E2B_TUI_HEALTH_TIMEOUT/,/^\.TP/p')" "(default 90)"
t_contains "README gives E2B_TUI_HEALTH_TIMEOUT's default" "$(grep E2B_TUI_HEALTH_TIMEOUT "$root/README.md")" "\`90\`"
t_contains "keys.conf's --print-keys=conf is documented in the man page" "$man_text" "--print-keys"

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
# share/e2b-tui.conf.example: every key of the config (core/e2b/config.c) is there, and with
# its example lines uncommented the file is a config e2b-tui accepts.
example=$root/share/e2b-tui.conf.example
for k in domain api_url sandbox_url template hours serve_command attach_command health_path \
         opencode workspace_keys keystore refresh; do
    grep -qE "^# $k = " "$example" && t_pass "example config has $k" ||
        t_fail "example config has $k" "no '# $k = ' line"
done
sed -n 's/^# \([a-z_.]* = .*\)/\1/p' "$example" | sed 's/^hours = .*/hours = 7/' >"$T_TMP/config"
info=$("$E2B_TUI_BIN" --config "$T_TMP/config" --info 2>&1); rc=$?
t_eq "the uncommented example config is accepted" "$rc" 0
t_contains "a value of the example config is read" "$info" "7 h"

# Bash completion, against e2b-local and two box records made here.
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
e2b_local_start >/dev/null 2>&1 || t_fail "e2b-local starts" "see $T_TMP"
records=$XDG_STATE_HOME/e2b-tui/boxes
mkdir -p "$records"; chmod 700 "$XDG_STATE_HOME/e2b-tui" "$records"
for n in feat-x fix-y; do
    printf '{"version":1,"name":"%s","sandbox_id":"sbx-%s","template":"opencode","branch":"%s","base":"","dir":"/tmp","port":4096,"opencode":2,"created_at":"2026-01-01T00:00:00Z"}\n' \
        "$n" "$n" "$n" >"$records/$n.json"
    chmod 600 "$records/$n.json"
done
names=$("$E2B_TUI_BIN" --list --json 2>/dev/null | jq -r '.boxes[].name' | sort | tr '\n' ' ')
t_eq "--list --json lists the records" "$names" "feat-x fix-y "

comp=$root/share/completions/e2b-tui.bash
complete_line() { # complete_line [PATH] WORD...: COMPREPLY for the last word, sorted
    local path=$PATH
    [ "$1" = --path ] && { path=$2; shift 2; }
    PATH=$path bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _e2b_tui
        printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' _ "$comp" "$E2B_TUI_BIN" "$@"
}
t_eq "bash: modes after the program" "$(complete_line --a)" "--all --allow-out --answer --any --api-url --approve --as --attach "
t_eq "bash: options" "$(complete_line --no)" "--no-color --no-internet --no-prepared "
t_eq "bash: box names after --attach" "$(complete_line --attach '')" "feat-x fix-y "
t_eq "bash: box names filtered by prefix" "$(complete_line --kill fi)" "fix-y "
t_eq "bash: --secrets actions" "$(complete_line --secrets '')" "list remove set "
t_eq "bash: --keystore backends" "$(complete_line --keystore s)" "secret-service "
# Without jq the sed fallback gives the same names: a PATH with everything but jq.
nojq=$T_TMP/nojq; mkdir -p "$nojq"
for c in bash sed grep tr sort cat env; do ln -sf "$(command -v $c)" "$nojq/$c"; done
t_eq "bash: box names without jq (sed)" "$(complete_line --path "$nojq" --stop '')" "feat-x fix-y "
bash -c '. "$1"; complete -p e2b-tui' _ "$comp" | grep -q -- '-F _e2b_tui e2b-tui' &&
    t_pass "bash: completion registered for e2b-tui" ||
    t_fail "bash: completion registered for e2b-tui" "no complete -F _e2b_tui"
# zsh: a syntax check (make deps installs zsh); every --help flag is offered by both scripts.
if command -v zsh >/dev/null; then
    t_ok "zsh completion parses" zsh -n "$root/share/completions/_e2b-tui"
else
    t_fail "zsh completion parses" "zsh is not installed (make deps)"
fi
miss=
for f in $flags; do
    grep -qE -- "$f([^a-z-]|\$)" "$comp" || miss="$miss bash:$f"
    grep -qE -- "$f([^a-z-]|\$)" "$root/share/completions/_e2b-tui" || miss="$miss zsh:$f"
done
t_eq "every --help flag is offered by the completions" "$miss" ""
t_finish
