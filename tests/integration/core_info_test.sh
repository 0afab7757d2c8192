#!/usr/bin/env bash
# e2b-tui --info: resolved URLs, paths, and never more of the API key than its last 4 chars.
. "$(dirname "$0")/../lib/lib.sh"
t_isolated_home

out=$(E2B_DOMAIN=e2b.app E2B_API_KEY=e2b_topsecretvalue1234 "$E2B_TUI_BIN" --info); rc=$?
t_eq "--info exits 0" "$rc" 0
t_contains "--info prints the API URL" "$out" "API URL:        https://api.e2b.app"
t_contains "--info prints the E2B sandbox URL form" "$out" "https://sandbox.e2b.app"
t_contains "--info shows the key's last 4 characters" "$out" "set, ends in 1234"
t_not_contains "--info never prints the key" "$out" "topsecret"
t_contains "--info prints the config path" "$out" "$XDG_CONFIG_HOME/e2b-tui/config"
t_contains "--info prints the log path" "$out" "$XDG_STATE_HOME/e2b-tui/e2b-tui.log"

out=$(E2B_DOMAIN=localhost:5555 "$E2B_TUI_BIN" --info); rc=$?
t_contains "a localhost domain is reached over http" "$out" "API URL:        http://api.localhost:5555"
t_contains "a localhost domain uses the direct envd host" "$out" "http://49983-<id>.localhost:5555"
t_contains "an unset key is reported" "$out" "API key:        not set"

mkdir -p "$XDG_CONFIG_HOME/e2b-tui"
printf 'domain = file.example\ntemplate = mine\n' >"$XDG_CONFIG_HOME/e2b-tui/config"
out=$(E2B_DOMAIN= "$E2B_TUI_BIN" --info)
t_contains "the config file sets the domain" "$out" "domain:         file.example (from config file)"
out=$(E2B_DOMAIN=env.example "$E2B_TUI_BIN" --info)
t_contains "the environment beats the config file" "$out" "domain:         env.example (from environment)"
out=$(E2B_DOMAIN=env.example "$E2B_TUI_BIN" --domain flag.example --info)
t_contains "a flag beats the environment" "$out" "domain:         flag.example (from command line)"
out=$("$E2B_TUI_BIN" --api-url=http://127.0.0.1:9/ --info)
t_contains "--api-url=VALUE is accepted" "$out" "API URL:        http://127.0.0.1:9"

printf 'domain = ok\nthis line is wrong\n' >"$T_TMP/bad.conf"
err=$("$E2B_TUI_BIN" --config "$T_TMP/bad.conf" --info 2>&1 >/dev/null); rc=$?
t_eq "a bad config line is a usage error" "$rc" 2
t_contains "a bad config line is named with its number" "$err" "bad.conf:2: expected 'key = value'"
err=$("$E2B_TUI_BIN" --config "$T_TMP/missing.conf" --info 2>&1 >/dev/null); rc=$?
t_contains "a missing --config file is an error" "$err" "cannot read the config file"
err=$("$E2B_TUI_BIN" --domain 2>&1 >/dev/null); rc=$?
t_eq "a global option without a value is a usage error" "$rc" 2
t_finish
