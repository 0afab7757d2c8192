#!/usr/bin/env bash
# The published E2B JS SDK (npm e2b@2.51.0), unchanged, with its network options against
# e2b-local's egress proxy (sdk/sdk_network.js): allowOut/denyOut, allowInternetAccess,
# secret rules, updateNetwork. An echo server on the host's loopback is the outside; two
# names reach it through E2B_LOCAL_EGRESS_HOSTS. The node script prints the PASS/FAIL lines.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/e2b_sdk.sh"
. "$(dirname "$0")/../lib/egress.sh"

egress_echo_start || t_finish
export EGRESS_PORT=$EGRESS_ECHO_PORT
export E2B_LOCAL_EGRESS_HOSTS="allowed.test=127.0.0.1,other.test=127.0.0.2"
# The value goes to node in a file: e2b-local's own environment must not hold it (a check
# looks for it in every process of the sandbox).
secret="sk-egress-$$-$RANDOM$RANDOM"
export EGRESS_SECRET_FILE=$T_TMP/secret
(umask 077; printf '%s\n' "$secret" >"$EGRESS_SECRET_FILE")
e2b_sdk_run sdk_network.js || t_finish
t_ok "the request log names the secret, never its value" \
    sh -c "grep -q 'egress .* allowed GET allowed.test:.*(secret egress' '$E2BL_STATE/e2b-local.log' &&
           ! grep -rqF '$secret' '$E2BL_STATE/e2b-local.log' '$E2BL_STATE/sandboxes'"
t_finish
