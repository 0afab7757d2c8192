#!/usr/bin/env bash
# The dashboard honours http_timeout (issue 22): with http_timeout = 2 in the config and the
# list request held for 30 s by e2b-local (a delay fault), the status line says the request
# timed out, what was being done and which setting limits it, long before the server would
# have answered; the next refresh lists normally. E2B_TUI_HTTP_TIMEOUT beats the file.
. "$(dirname "$0")/common.sh"
e2b_local_start || t_finish
. "$E2B_TUI_ROOT/tests/lib/faults.sh"

mkdir -p "$XDG_CONFIG_HOME/e2b-tui"
echo 'http_timeout = 2' >"$XDG_CONFIG_HOME/e2b-tui/config"
t_contains "--info shows the configured http_timeout" "$("$E2B_TUI_BIN" --info)" "HTTP timeout:   2 s"
t_contains "E2B_TUI_HTTP_TIMEOUT beats the config file" \
    "$(E2B_TUI_HTTP_TIMEOUT=7 "$E2B_TUI_BIN" --info)" "HTTP timeout:   7 s"
err=$(E2B_TUI_HTTP_TIMEOUT=abc "$E2B_TUI_BIN" --info 2>&1 >/dev/null); rc=$?
t_eq "a bad E2B_TUI_HTTP_TIMEOUT is a usage error" "$rc" 2
t_contains "a bad E2B_TUI_HTTP_TIMEOUT is named" "$err" "E2B_TUI_HTTP_TIMEOUT: http_timeout must be"

sbx_create base running 600 "e2b-tui=box" "e2b-tui.name=slowpoke"
# The first list is held 30 s: only a client-side timeout can end it sooner.
fault_set '{"kind":"delay","path":"/v2/sandboxes","method":"GET","count":1,"delayMs":30000}'
start=$(date +%s)
dash_start 200 30 -- --refresh 1
dash_check "the status line says the list timed out" "listing sandboxes:"
took=$(($(date +%s) - start))
dash_check "it says the server did not answer in time" "did not answer in time"
dash_check "it says how long and names the setting" "(http_timeout is 2 s)"
if [ "$took" -lt 30 ]; then t_pass "the timeout came before the server's 30 s answer (${took}s)"
else t_fail "the timeout came before the server's 30 s answer" "took ${took}s"; fi
dash_check "the next refresh lists the sandboxes" "slowpoke"
dash_quit "the dashboard quits"
t_finish
