#!/usr/bin/env bash
# List paging is bounded (issue 13, defect 3): a server that answers every page with the
# same nextToken, or with a new one forever, ends the list with a clear error instead of a
# request loop: a repeated token at once, an endless chain at limit.list_pages (default
# 1000, raised or lowered in the config). Both the sandbox list and the secrets list.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
t_isolated_home
e2b_local_start || t_finish
export E2B_TUI_KEYSTORE=file
mkdir -p "$XDG_CONFIG_HOME/e2b-tui"
run() {
    "$E2B_TUI_BIN" "$@" >"$T_TMP/out" 2>"$T_TMP/err"
    RC=$?
}
fault() { curl -s -X POST "$E2B_LOCAL_URL/_e2b-local/faults" -d "$1" >/dev/null; }
clear_faults() { curl -s -X DELETE "$E2B_LOCAL_URL/_e2b-local/faults" >/dev/null; }
left() { curl -s "$E2B_LOCAL_URL/_e2b-local/faults" | python3 -c 'import json,sys; f=json.load(sys.stdin); print(f[0]["count"] if f else 0)'; }
injected() { grep -c "fault next_token injected on GET $1" "$E2B_LOCAL_STATE/e2b-local.log"; }

fault '{"kind":"next_token","token":"same","count":100,"path":"/v2/sandboxes","method":"GET"}'
run --list
t_eq "a repeated nextToken: --list fails" "$RC" 1
t_contains "and says why" "$(cat "$T_TMP/err")" "next page token repeats an earlier one"
t_eq "after two pages" "$(left)" 98
clear_faults

fault '{"kind":"next_token","count":100000,"path":"/v2/sandboxes","method":"GET"}'
run --list
t_eq "an endless nextToken chain: --list fails" "$RC" 1
t_contains "at the default page cap, naming the key" "$(cat "$T_TMP/err")" \
    "more than 1000 pages (limit.list_pages in the config)"
t_eq "after exactly 1000 pages" "$(left)" $((100000 - 1000))
clear_faults

printf 'limit.list_pages = 7\n' >"$XDG_CONFIG_HOME/e2b-tui/config"
before=$(injected /v2/sandboxes)
fault '{"kind":"next_token","count":100000,"path":"/v2/sandboxes","method":"GET"}'
run --list
t_eq "a lowered cap: --list fails" "$RC" 1
t_contains "at 7 pages" "$(cat "$T_TMP/err")" "more than 7 pages"
t_eq "after 7 requests" "$(($(injected /v2/sandboxes) - before))" 7
clear_faults
run --list
t_eq "a normal list still works with the cap" "$RC" 0

fault '{"kind":"next_token","count":100000,"path":"/secrets","method":"GET"}'
run --secrets list
t_eq "an endless secrets list: fails" "$RC" 1
t_contains "at the cap too" "$(cat "$T_TMP/err")" "more than 7 pages"
clear_faults

printf 'limit.list_pages = many\n' >"$XDG_CONFIG_HOME/e2b-tui/config"
run --list
t_eq "a bad limit value: a usage error of the config" "$((RC != 0))" 1
t_contains "naming the key and the file line" "$(cat "$T_TMP/err")" "config:1: limit.list_pages must be a number"
t_finish
