#!/usr/bin/env bash
# e2b-local's egress proxy with curl inside sandboxes (the SDK's view is sdk_network_test.sh):
# a box reaches the outside only through it; absolute-form HTTP and CONNECT are both decided
# by allowOut/denyOut; a CONNECT tunnel passes bytes unchanged (no TLS termination: rules
# do not apply); a rule naming a missing secret is refused without forwarding the
# placeholder; a non-proxy request and names e2b-local does not map are refused; the
# listener comes back with a new holder (after an idle stop); every decision is logged,
# without header values.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_sdk.sh"
. "$E2B_TUI_ROOT/tests/lib/egress.sh"

egress_echo_start || t_finish
export E2B_LOCAL_EGRESS_HOSTS="allowed.test=127.0.0.1,other.test=127.0.0.2"
export E2B_LOCAL_IDLE_HOLDER_MS=500
e2bl_start "$T_TMP/state" || t_abort "e2b-local did not start"
P=$EGRESS_ECHO_PORT
secret="sk-local-$$-$RANDOM$RANDOM"
jq -cn --arg v "$secret" '{name:"tok",value:$v}' >"$T_TMP/secret.json"
chmod 600 "$T_TMP/secret.json"
e2bl_api POST /secrets -H 'Content-Type: application/json' --data-binary "@$T_TMP/secret.json"
t_eq "the secret is stored" "$E2BL_STATUS" 201

# shellcheck disable=SC2016 # the placeholder is literal
net='{"allowOut":["allowed.test"],"denyOut":["0.0.0.0/0"],"rules":{"*.test":[{"transform":{"headers":{"X-Wild":"w"}}}],"allowed.test":[{"transform":{"headers":{"Authorization":"Bearer ${e2b.secrets.tok}"}}},{"transform":{"headers":{"X-Extra":"e-${e2b.secrets.tok}-e"}}}]}}'
e2bl_create "$(jq -cn --argjson n "$net" '{templateID:"base",timeout:300,network:$n}')" ||
    t_abort "create failed: $E2BL_STATUS $E2BL_BODY"
id=$SBX_ID tok=$SBX_TOKEN

e2bl_run "$id" "$tok" "curl -s -H 'Authorization: Bearer box-placeholder' http://allowed.test:$P/a"
t_eq "absolute-form GET to an allowed host: the exact rule's headers, the secret resolved" \
    "$(printf '%s' "$RUN_OUT" | jq -r '[.headers.Authorization, .headers["X-Extra"], (.headers["X-Wild"] // "none"), .path] | join(" ")')" \
    "Bearer $secret e-$secret-e none /a"
e2bl_run "$id" "$tok" "curl -s -o /dev/null -w '%{http_code}' http://other.test:$P/b; curl -s http://other.test:$P/b"
t_eq "a host outside allowOut: 403 from the proxy" "${RUN_OUT:0:3}" 403
t_contains "the proxy's answer says why" "$RUN_OUT" "e2b-local egress proxy: other.test:$P is not allowed (denyOut 0.0.0.0/0)"
e2bl_run "$id" "$tok" "curl -s -p -o /dev/null -w '%{http_connect}' http://allowed.test:$P/c; echo; curl -s -p -o /dev/null -w '%{http_connect}' http://other.test:$P/c"
t_eq "CONNECT: the allowed host tunnels, the other is refused" "$(printf '%s' "$RUN_OUT" | tr '\n' ' ')" "200 403"
t_ok "a tunnel gets no rule headers (no TLS termination)" \
    sh -c "grep -F '\"/c\"' '$EGRESS_ECHO_LOG' | jq -se 'length == 1 and .[0].auth_sha256 == null' >/dev/null"
e2bl_run "$id" "$tok" "curl -s --noproxy '*' -o /dev/null -w '%{http_code}' --max-time 5 http://127.0.0.1:$P/; echo; curl -s -o /dev/null -w '%{http_code}' --max-time 5 --proxy '' http://allowed.test:$P/"
t_eq "without the proxy there is no way out (own network namespace)" "$(printf '%s' "$RUN_OUT" | tr '\n' ' ')" "000 000"
e2bl_run "$id" "$tok" "curl -s -o /dev/null -w '%{http_code}' -H 'Host: allowed.test' http://127.0.0.1:3128/x"
t_eq "an origin-form request to the proxy is refused (400)" "$RUN_OUT" 400

# a missing secret, a name e2b-local does not resolve, a non-loopback address
e2bl_api PUT "/sandboxes/$id/network" -H 'Content-Type: application/json' \
    --data-binary '{"allowOut":["allowed.test","nowhere.test","10.1.2.3"],"denyOut":["0.0.0.0/0"],"rules":{"allowed.test":[{"transform":{"headers":{"Authorization":"Bearer ${e2b.secrets.gone}"}}}]}}'
t_eq "PUT network: 204" "$E2BL_STATUS" 204
e2bl_run "$id" "$tok" "curl -s http://allowed.test:$P/d; curl -s http://nowhere.test:$P/; curl -s http://10.1.2.3:$P/"
t_contains "a rule naming a missing secret: 502, not forwarded" "$RUN_OUT" "names secret gone, which does not exist"
t_ok "the placeholder never reached the host" sh -c "! grep -q '\"/d\"' '$EGRESS_ECHO_LOG'"
t_contains "a name e2b-local does not map: 502" "$RUN_OUT" "nowhere.test:$P is allowed (allowOut nowhere.test) but cannot be reached: e2b-local resolves only"
t_contains "a non-loopback address: 502 (never leaves the machine)" "$RUN_OUT" "connects only to loopback addresses"

# the listener comes back with the next holder
t_ok "the idle holder stops" e2bl_poll 30 sh -c "! ls -l /proc/[0-9]*/root 2>/dev/null | grep -q '$E2BL_STATE/roots/$id\$'"
e2bl_api PUT "/sandboxes/$id/network" -H 'Content-Type: application/json' --data-binary '{"allowOut":["other.test"],"denyOut":["0.0.0.0/0"]}'
e2bl_run "$id" "$tok" "curl -s -o /dev/null -w '%{http_code}' http://other.test:$P/e"
t_eq "after a new holder the proxy answers again, with the rules of the PUT" "$RUN_OUT" 200

# what E2B refuses: a domain in denyOut, a domain in allowOut without 0.0.0.0/0 in denyOut
put_net() { e2bl_api PUT "/sandboxes/$id/network" -H 'Content-Type: application/json' --data-binary "$1"; }
put_net '{"denyOut":["other.test"]}'
t_eq "PUT with a domain in denyOut: 400" "$E2BL_STATUS" 400
t_contains "... saying denyOut takes addresses" "$E2BL_BODY" "invalid denied CIDR other.test"
put_net '{"allowOut":["allowed.test"],"denyOut":["10.0.0.0/8"]}'
t_eq "PUT with a domain in allowOut, no 0.0.0.0/0 in denyOut: 400" "$E2BL_STATUS" 400
t_contains "... saying what is missing" "$E2BL_BODY" "needs 0.0.0.0/0 (ALL_TRAFFIC) in denyOut"
put_net '{"allowOut":["allowed.test"],"allow_internet_access":false}'
t_eq "... internet access off does not stand for it (400)" "$E2BL_STATUS" 400
put_net '{"denyOut":"0.0.0.0/0"}'
t_eq "PUT with denyOut not an array: 400" "$E2BL_STATUS" 400
e2bl_run "$id" "$tok" "curl -s -o /dev/null -w '%{http_code}' http://other.test:$P/f"
t_eq "a refused PUT changed nothing" "$RUN_OUT" 200
put_net '{"allowOut":["127.0.0.1/32"],"denyOut":["127.0.0.2"]}'
t_eq "PUT with addresses only in allowOut, no 0.0.0.0/0: 204" "$E2BL_STATUS" 204
e2bl_run "$id" "$tok" "curl -s -o /dev/null -w '%{http_code}' http://other.test:$P/g"
t_eq "... and an address of denyOut is refused" "$RUN_OUT" 403
e2bl_create '{"templateID":"base","network":{"denyOut":["0.0.0.0/0","*.test"]}}'
t_eq "create with a domain in denyOut: 400" "$E2BL_STATUS" 400
t_contains "... naming the entry" "$E2BL_BODY" "invalid denied CIDR *.test"
e2bl_create '{"templateID":"base","allow_internet_access":false,"network":{"allowOut":["allowed.test"]}}'
t_eq "create with a domain in allowOut and no 0.0.0.0/0 in denyOut: 400" "$E2BL_STATUS" 400
e2bl_api GET /v2/sandboxes
t_eq "the refused creates made no sandbox" "$(e2bl_jq 'length')" 1

log=$E2BL_STATE/e2b-local.log
t_ok "logged: allowed with the rule, the header names and the secret's name" \
    grep -qE "egress $id allowed GET allowed.test:$P \(allowOut allowed.test\), rule allowed.test sets Authorization X-Extra \(secret tok, secret tok\)" "$log"
t_ok "logged: denied and why" grep -qE "egress $id denied GET other.test:$P \(denyOut 0.0.0.0/0\)" "$log"
t_ok "logged: the tunnel" grep -qE "egress $id allowed CONNECT allowed.test:$P .*tunnel" "$log"
t_ok "logged: the refusal for the missing secret" grep -qE "egress $id allowed GET allowed.test:$P .*refused: .*secret gone" "$log"
t_ok "no secret value in the log or the records" sh -c "! grep -rqF -- '$secret' '$log' '$E2BL_STATE/sandboxes'"
t_finish
