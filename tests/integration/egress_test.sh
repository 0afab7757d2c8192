#!/usr/bin/env bash
# Egress end to end (issue 35): `--secrets set openai` stores a key in e2b-local; a box is
# made whose OpenCode's provider is the scripted model served on this machine's loopback as
# "api.openai.com", reachable only through e2b-local's egress proxy. A real turn runs; the
# model got `Authorization: Bearer <the key>` while the box had only the placeholder, and
# no process environment, file, OpenCode config or log in the box holds the key. --up
# --allow-out lets the box reach that host and nothing else (the proxy's 403 for another),
# --list --json shows the egress, --network changes a running box's rules (the secret's
# rule kept), --no-internet refuses everything but the mapped provider host, and bad
# lists are refused with words the user can act on.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/lib/egress.sh"

egress_echo_start || t_finish
E=$EGRESS_ECHO_PORT
# The model's port: one the echo server does not use (both on the host's loopback).
M=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
export E2B_LOCAL_EGRESS_HOSTS="api.openai.com=127.0.0.1,api.example.com=127.0.0.1,other.example.com=127.0.0.2"
box_setup || t_finish
printf '%s\n' '[{"text":"Hello through the proxy."}]' >"$T_TMP/script.json"
python3 "$E2B_TUI_ROOT/tests/lib/scripted_model.py" --host 127.0.0.1 --port "$M" \
    --script "$T_TMP/script.json" --log "$T_TMP/model.log" >"$T_TMP/model.out" 2>&1 &
model_pid=$!
t_on_exit "kill $model_pid"
t_ok "the scripted model listens on the host" t_wait_until 30 curl -sf "http://127.0.0.1:$M/v1/models" -o /dev/null

# OpenCode in the box: the provider is "api.openai.com" (plain HTTP: see the README on
# HTTPS), its key the box's OPENAI_API_KEY, which e2b-tui sets to the placeholder.
cat >"$BOX_REPO/opencode.json" <<EOF2
{"\$schema":"https://opencode.ai/config.json","provider":{"prov":{"npm":"@ai-sdk/openai-compatible","name":"Provider","options":{"baseURL":"http://api.openai.com:$M/v1","apiKey":"{env:OPENAI_API_KEY}"},"models":{"m1":{}}}},"model":"prov/m1","small_model":"prov/m1","autoupdate":false,"share":"disabled"}
EOF2
(cd "$BOX_REPO" && git add -f opencode.json && git commit -q -m "provider behind the egress proxy" -- opencode.json)
{
    printf 'opencode = 2\n'
    printf 'serve_command = env OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_LSP_DOWNLOAD=1 OPENCODE_DISABLE_SHARE=1 OPENCODE_DISABLE_DEFAULT_PLUGINS=1 %s serve --hostname 0.0.0.0 --port {port}\n' "$BOX_OPENCODE"
} >"$XDG_CONFIG_HOME/e2b-tui/config"
export E2B_TUI_HEALTH_TIMEOUT=150

key="sk-egress-$$-$RANDOM$RANDOM$RANDOM"
printf '%s\n' "$key" >"$T_TMP/key.pat"
chmod 600 "$T_TMP/key.pat"
OPENAI_API_KEY=$key box_tui --secrets set openai
box_rc "--secrets set openai stores the key" 0

# bad lists: refused before anything is made
box_tui --up bad --allow-out 10.0.0.0/33
box_rc "--allow-out with a bad CIDR: usage error" 2
t_contains "the error names the entry and the form" "$(cat "$BOX_ERR")" "'10.0.0.0/33' is not a CIDR: the prefix length is 0 to 32"
box_tui --up bad --deny-out example.com
box_rc "--deny-out with a domain: usage error" 2
t_contains "the error says the deny list takes addresses" "$(cat "$BOX_ERR")" "the deny list takes IPv4 addresses and CIDRs only"
box_tui --up bad --allow-out 'exa mple..com'
box_rc "--allow-out with a bad domain: usage error" 2
t_contains "the bad domain is named" "$(cat "$BOX_ERR")" "'mple..com' is not a domain"
box_tui --list --no-internet
box_rc "--no-internet goes only with --up and --network" 2
t_eq "no box was made by the refused ups" "$(ls "$E2B_LOCAL_STATE/sandboxes" 2>/dev/null | wc -l)" 0

box_tui --up eg --allow-out api.example.com --prompt "Say hello."
box_rc "up --allow-out api.example.com --prompt: exit 0" 0 || t_abort "the box did not come up: $(cat "$BOX_ERR")"
id=$(box_sandbox_of eg)
tok=$(box_token "$id")
box_tui --wait eg --timeout 120
box_rc "the turn through the proxy finished (--wait exit 0)" 0
t_ok "the model was asked" test -s "$T_TMP/model.log"
want=$(printf 'Bearer %s' "$key" | sha256sum | cut -c1-64)
t_eq "every request the model got carried Authorization: Bearer <the key>" \
    "$(jq -r '.auth_sha256' "$T_TMP/model.log" | sort -u)" "$want"
t_eq "the requests came as to api.openai.com" "$(jq -r '.host' "$T_TMP/model.log" | sort -u)" "api.openai.com:$M"
t_ok "e2b-local logged the rule with the secret's name" \
    egress_log_has "$id allowed POST api.openai.com:$M \(allowOut api.openai.com\), rule api.openai.com sets Authorization \(secret openai\)"

# nothing in the box holds the key: environments, files (OpenCode's config and logs too)
t_ok "the box's processes have the placeholder, not the key" \
    sh -c "grep -laF 'OPENAI_API_KEY=e2b-secret-placeholder' \$(grep -laF 'E2B_SANDBOX_ID=$id' /proc/[0-9]*/environ 2>/dev/null) 2>/dev/null | grep -q ."
pids=$(grep -laF "E2B_SANDBOX_ID=$id" /proc/[0-9]*/environ 2>/dev/null | sed 's|/environ||; s|/proc/||')
t_ok "the box runs processes (something to scan)" test -n "$pids"
hit=
for p in $pids; do
    grep -qaFf "$T_TMP/key.pat" "/proc/$p/environ" "/proc/$p/cmdline" 2>/dev/null && hit="$hit $p"
done
t_eq "no process of the box has the key in its environment or command line" "$hit" ""
root=$(box_root "$id")
t_ok "OpenCode's logs are in the box (scanned below)" sh -c "ls '$root'/home/user/.local/share/opencode/log/* >/dev/null 2>&1"
box_scan_clean "no file in the box holds the key (its OpenCode config and logs included)" "$T_TMP/key.pat" "$root"
box_scan_clean "no file of this machine's e2b-tui state holds the key" "$T_TMP/key.pat" "$XDG_STATE_HOME" "$XDG_CONFIG_HOME"

# in_box CMD: runs CMD in the box (as user); its stdout in OUT.
in_box() {
    local body
    body=$(jq -cn --arg c "$1" '{process:{cmd:"/bin/bash",args:["-c",$c]},stdin:false}')
    rm -f "$T_TMP/ib".*
    python3 "$E2B_TUI_ROOT/tests/lib/e2b_connect.py" stream --port "$E2B_LOCAL_PORT" --sandbox "$id" \
        --token "$tok" --body "$body" --max-seconds 60 --out-prefix "$T_TMP/ib" >/dev/null
    OUT=$(cat "$T_TMP/ib.stdout" 2>/dev/null)
}
code() { in_box "curl -s -o /dev/null -w '%{http_code}' http://$1/"; echo "$OUT"; }
t_eq "--allow-out: the allowed host answers" "$(code "api.example.com:$E")" 200
t_eq "--allow-out: another host is refused" "$(code "other.example.com:$E")" 403
in_box "curl -s http://other.example.com:$E/"
t_eq "the refusal is the proxy's answer" "$OUT" "e2b-local egress proxy: other.example.com:$E is not allowed (denyOut 0.0.0.0/0)"

box_tui --list --json
t_eq "--list --json: the egress (internet, allow, deny, secret -> host)" \
    "$(jq -cS '.boxes[] | select(.name == "eg") | .egress' "$BOX_OUT")" \
    '{"allow_out":["api.example.com","api.openai.com"],"deny_out":["0.0.0.0/0"],"internet":true,"secrets":[{"host":"api.openai.com","name":"openai"}]}'
t_not_contains "--list --json has no key" "$(cat "$BOX_OUT")" "$key"
el_req GET "/sandboxes/$id" >/dev/null
t_eq "E2B got allowOut, denyOut and the rule with the placeholder" \
    "$(el_json '[.network.allowOut, .network.denyOut, .network.rules["api.openai.com"][0].transform.headers.Authorization]')" \
    '[["api.example.com","api.openai.com"],["0.0.0.0/0"],"Bearer ${e2b.secrets.openai}"]'

# a running box's rules change; the secret's rule stays
box_tui --network eg --allow-out other.example.com
box_rc "--network eg --allow-out other.example.com: exit 0" 0
t_contains "--network prints what the box may reach now" "$(cat "$BOX_OUT")" "Allow out: other.example.com, api.openai.com"
t_eq "after --network: the new host answers" "$(code "other.example.com:$E")" 200
t_eq "after --network: the old one is refused" "$(code "api.example.com:$E")" 403
printf '%s\n' '[{"text":"Second answer."}]' >"$T_TMP/script.json"
n_before=$(wc -l <"$T_TMP/model.log")
box_tui --prompt eg "Again."
box_tui --wait eg --timeout 120
box_rc "a turn after --network still reaches the provider" 0
t_eq "with the key (the secret's rule was kept)" \
    "$(tail -n +$((n_before + 1)) "$T_TMP/model.log" | jq -r '.auth_sha256' | sort -u)" "$want"
box_tui --list --json
t_eq "--list --json follows the change" \
    "$(jq -c '.boxes[] | select(.name == "eg") | .egress.allow_out' "$BOX_OUT")" '["other.example.com","api.openai.com"]'

box_tui --network eg --no-internet
box_rc "--network eg --no-internet: exit 0" 0
t_eq "--no-internet: api.example.com refused" "$(code "api.example.com:$E")" 403
t_eq "--no-internet: other.example.com refused" "$(code "other.example.com:$E")" 403
in_box "curl -s http://other.example.com:$E/"
t_contains "the proxy says internet access is off" "$OUT" "(internet access off)"
t_eq "--no-internet: the mapped provider host is still reachable" "$(code "api.openai.com:$M")" 200
box_tui --list --json
t_eq "--list --json: internet off, only the provider host allowed" \
    "$(jq -c '.boxes[] | select(.name == "eg") | .egress | [.internet, .allow_out, .deny_out]' "$BOX_OUT")" \
    '[false,["api.openai.com"],["0.0.0.0/0"]]'
box_tui --network eg --deny-out 127.0.0.2
box_rc "--network eg --deny-out ADDRESS (a secret stored): exit 0, E2B takes it" 0
t_eq "--deny-out alone: the denied address is refused" "$(code "other.example.com:$E")" 403
t_eq "--deny-out alone: another host answers" "$(code "api.example.com:$E")" 200
t_eq "--deny-out alone: the provider host answers" "$(code "api.openai.com:$M")" 200
box_tui --list --json
t_eq "--deny-out alone: no domain in the allow list (E2B would refuse it)" \
    "$(jq -c '.boxes[] | select(.name == "eg") | .egress | [.internet, .allow_out, .deny_out]' "$BOX_OUT")" \
    '[true,[],["127.0.0.2"]]'
box_tui --network eg --deny-out 10.0.0.0/99
box_rc "--network with a bad CIDR: usage error" 2
box_tui --network eg
box_rc "--network eg alone: open again" 0
t_eq "open: other.example.com answers again" "$(code "other.example.com:$E")" 200

box_tui --kill eg --force
box_rc "kill exits 0" 0

# the config's lists: checked when read, used by --up without flags
cp "$XDG_CONFIG_HOME/e2b-tui/config" "$T_TMP/config.good"
printf 'network.deny_out = example.com\n' >>"$XDG_CONFIG_HOME/e2b-tui/config"
box_tui --info
t_eq "a config with a domain in network.deny_out: refused" "$BOX_RC" 2
t_contains "the error names the key and the entry" "$(cat "$BOX_ERR")" "network.deny_out: 'example.com' is a domain"
cp "$T_TMP/config.good" "$XDG_CONFIG_HOME/e2b-tui/config"
printf 'network.allow_out = *.example.com\nallow_internet = false\n' >>"$XDG_CONFIG_HOME/e2b-tui/config"
box_tui --info
t_contains "--info tells the configured egress" "$(cat "$BOX_OUT")" "egress:         internet off (allow_internet = false), allow_out: *.example.com, deny_out: (none)"
box_tui --up cfg
box_rc "up with the config's egress: exit 0" 0
box_tui --list --json
t_eq "the config's lists were sent (and the provider host added)" \
    "$(jq -c '.boxes[] | select(.name == "cfg") | .egress | [.internet, .allow_out, .deny_out]' "$BOX_OUT")" \
    '[false,["*.example.com","api.openai.com"],["0.0.0.0/0"]]'
id=$(box_sandbox_of cfg)
tok=$(box_token "$id")
t_eq "a sub-domain of the wildcard answers" "$(code "other.example.com:$E")" 200
t_eq "the model host answers" "$(code "api.openai.com:$M")" 200
box_tui --kill cfg --force
box_rc "kill exits 0" 0
t_finish
