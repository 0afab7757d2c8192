#!/usr/bin/env bash
# One default, one place: the dashboard's refresh default lives in core/e2b/config.h;
# --info prints the configured value and --help is generated from the same constant. The
# README, the man page and the example config are prose: this test fails when they tell
# another number than the binary.
. "$(dirname "$0")/../lib/lib.sh"
t_isolated_home
root=$E2B_TUI_ROOT

info=$("$E2B_TUI_BIN" --info)
want=$(printf '%s\n' "$info" | sed -n 's/^refresh: *\([0-9]*\) s$/\1/p')
if [ -z "$want" ]; then
    t_fail "--info prints the refresh default" "no 'refresh: N s' line in: $info"
    t_finish
fi
t_pass "--info prints the refresh default ($want s)"

help=$("$E2B_TUI_BIN" --help)
got=$(printf '%s\n' "$help" | sed -n 's/.*--refresh SECONDS.*(default \([0-9]*\)).*/\1/p')
t_eq "--help tells the refresh default" "$got" "$want"

got=$(awk '/^\.BI \\-\\-refresh/ {f=1} f && /default [0-9]+/ {match($0, /default [0-9]+/); print substr($0, RSTART+8, RLENGTH-8); exit}' "$root/man/e2b-tui.1")
t_eq "the man page's --refresh tells the default" "$got" "$want"
got=$(awk '/^\.B refresh$/ {f=1} f && /default [0-9]+/ {match($0, /default [0-9]+/); print substr($0, RSTART+8, RLENGTH-8); exit}' "$root/man/e2b-tui.1")
t_eq "the man page's refresh key tells the default" "$got" "$want"

got=$(sed -n 's/^| `refresh` (`--refresh`) | `\([0-9]*\)`.*/\1/p' "$root/README.md")
t_eq "the README's config table tells the refresh default" "$got" "$want"
got=$(grep -o 'background (every [0-9]* s' "$root/README.md" | grep -o '[0-9]*')
t_eq "the README's overview tells the refresh default" "$got" "$want"
got=$(sed -n 's/^# refresh = \([0-9]*\)$/\1/p' "$root/share/e2b-tui.conf.example")
t_eq "the example config tells the refresh default" "$got" "$want"

# The input policy's limits (core/util/limits.h): --info prints each default; the README's
# table, the man page and the example config must tell the same.
limits=$(printf '%s\n' "$info" | sed -n 's/^limits: *//p')
[ -n "$limits" ] || t_fail "--info prints the limits" "no 'limits:' line in: $info"
while read -r key want; do
    got=$(sed -n "s/^| \`limit\.$key\` | \`\([0-9KMG]*\)\`.*/\1/p" "$root/README.md")
    t_eq "the README tells limit.$key's default" "$got" "$want"
    got=$(awk -v k=".B limit.$key" '$0 == k {f=1; next} f && /default [0-9]+[KMG]?/ {match($0, /default [0-9]+[KMG]?/); print substr($0, RSTART+8, RLENGTH-8); exit}' "$root/man/e2b-tui.1")
    t_eq "the man page tells limit.$key's default" "$got" "$want"
    got=$(sed -n "s/^# limit\.$key = \([0-9KMG]*\)$/\1/p" "$root/share/e2b-tui.conf.example")
    t_eq "the example config tells limit.$key's default" "$got" "$want"
done < <(printf '%s\n' "$limits" | sed 's/, /\n/g')

# test_timeout (core/e2b/config.h): --info prints it; README, man page and example config
# tell the same; test_command has no default (none) in all three.
want=$(printf '%s\n' "$info" | sed -n 's/^test command: .*(test_timeout \([0-9]*\) s)$/\1/p')
[ -n "$want" ] || t_fail "--info prints test_timeout" "no 'test command: ... (test_timeout N s)' line in: $info"
t_eq "the README tells test_timeout's default" "$(sed -n 's/^| `test_timeout` | `\([0-9]*\)`.*/\1/p' "$root/README.md")" "$want"
got=$(awk '$0 == ".B test_timeout" {f=1; next} f && /default [0-9]+/ {match($0, /default [0-9]+/); print substr($0, RSTART+8, RLENGTH-8); exit}' "$root/man/e2b-tui.1")
t_eq "the man page tells test_timeout's default" "$got" "$want"
t_eq "the example config tells test_timeout's default" "$(sed -n 's/^# test_timeout = \([0-9]*\)$/\1/p' "$root/share/e2b-tui.conf.example")" "$want"
t_contains "--info says no test_command is set by default" "$(printf '%s\n' "$info" | grep '^test command:')" "(none"
t_eq "the README says test_command has none" "$(sed -n 's/^| `test_command` | \([^|]*\) |.*/\1/p' "$root/README.md")" "(none)"
t_contains "the man page says test_command has none" "$(awk '$0 == ".B test_command" {f=1; next} f && /^\.TP/ {exit} f' "$root/man/e2b-tui.1")" "None by default"
t_ok "the example config shows test_command commented out" grep -q '^# test_command = ' "$root/share/e2b-tui.conf.example"
echo 'test_timeout = 42' >"$T_TMP/tt.conf"
t_contains "a config file's test_timeout replaces the default" "$("$E2B_TUI_BIN" --config "$T_TMP/tt.conf" --info)" "(test_timeout 42 s)"
# The egress defaults (core/e2b/config.c): internet on, no lists; --info, the README's
# table, the man page and the example config tell the same.
t_contains "--info tells the egress defaults" "$info" "egress:         internet on (allow_internet = true), allow_out: (none), deny_out: (none)"
t_eq "the README tells allow_internet's default" "$(sed -n 's/^| `allow_internet` | `\([a-z]*\)`.*/\1/p' "$root/README.md")" true
t_eq "the README tells network.allow_out's default" "$(sed -n 's/^| `network.allow_out` | \([^|]*\) |.*/\1/p' "$root/README.md")" "(none)"
t_eq "the README tells network.deny_out's default" "$(sed -n 's/^| `network.deny_out` | \([^|]*\) |.*/\1/p' "$root/README.md")" "(none)"
got=$(awk '/^\.B allow_internet$/ {f=1; next} f {print; exit}' "$root/man/e2b-tui.1")
t_contains "the man page tells allow_internet's default" "$got" "true (default)"
t_ok "the example config tells allow_internet's default" grep -qx '# allow_internet = true' "$root/share/e2b-tui.conf.example"
t_ok "the example config says the lists are empty by default" grep -qx '# Defaults: no lists, internet on.' "$root/share/e2b-tui.conf.example"
# idle_minutes (core/e2b/config.h): --info, the README's table, the man page and the
# example config tell the same default.
want=$(printf '%s\n' "$info" | sed -n 's/^idle pause: *after \([0-9.]*\) minutes.*/\1/p')
t_ok "--info prints the idle pause default ($want min)" test -n "$want"
got=$(sed -n 's/^| `idle_minutes` | `\([0-9.]*\)`.*/\1/p' "$root/README.md")
t_eq "the README tells idle_minutes's default" "$got" "$want"
got=$(awk '$0 == ".B idle_minutes" {f=1; next} f && /default [0-9]+/ {match($0, /default [0-9]+/); print substr($0, RSTART+8, RLENGTH-8); exit}' "$root/man/e2b-tui.1")
t_eq "the man page tells idle_minutes's default" "$got" "$want"
got=$(sed -n 's/^# idle_minutes = \([0-9.]*\)$/\1/p' "$root/share/e2b-tui.conf.example")
t_eq "the example config tells idle_minutes's default" "$got" "$want"

# With no config, the dashboard uses what --info says: a file value is what it reads.
mkdir -p "$XDG_CONFIG_HOME/e2b-tui"
echo 'refresh = 11' >"$XDG_CONFIG_HOME/e2b-tui/config"
t_contains "a config file's refresh replaces the default" "$("$E2B_TUI_BIN" --info)" "refresh:        11 s"
t_finish
