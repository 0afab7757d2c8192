#!/usr/bin/env bash
# make demo: the dashboard against the bundled local E2B-compatible server, no account
# needed. Starts e2b-local on a free loopback port with a temporary state directory, makes
# a few sample sandboxes (a box, a workspace, others), opens the dashboard, and when the
# dashboard quits stops the server and removes the directory.
#   tests/demo.sh [BUILD_DIR]      (E2B_TUI_BIN / E2B_LOCAL_BIN override the binaries)
set -u
B=${1:-build}
cd "$(dirname "$0")/.." || exit 1
TUI=${E2B_TUI_BIN:-$B/e2b-tui}
LOCAL=${E2B_LOCAL_BIN:-$B/e2b-local}
for f in "$TUI" "$LOCAL"; do
    [ -x "$f" ] || { echo "demo: $f is missing; run make first" >&2; exit 1; }
done
command -v curl >/dev/null || { echo "demo: curl is needed" >&2; exit 1; }

dir=$(mktemp -d "${TMPDIR:-/tmp}/e2b-tui-demo.XXXXXX") || exit 1
pid=
cleanup() {
    if [ -n "$pid" ]; then
        kill -TERM "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    fi
    rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

key=e2b_demo_local_key
"$LOCAL" --listen 127.0.0.1:0 --state "$dir/state" --api-key "$key" >"$dir/out" 2>"$dir/err" &
pid=$!
url=
for _ in $(seq 200); do
    url=$(sed -n 's/^e2b-local listening on //p' "$dir/out" 2>/dev/null | head -n 1)
    [ -n "$url" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
done
if [ -z "$url" ]; then
    echo "demo: the local E2B server did not start: $(head -c 400 "$dir/err")" >&2
    exit 1
fi

# create TEMPLATE TIMEOUT METADATA-JSON [pause]: one sample sandbox.
create() {
    local out
    out=$(curl -sS -X POST -H "X-API-KEY: $key" -H 'Content-Type: application/json' \
        --data-binary "{\"templateID\":\"$1\",\"timeout\":$2,\"metadata\":$3}" "$url/v2/sandboxes") || return 1
    if [ "${4:-}" = pause ]; then
        local id=${out#*\"sandboxID\":\"}
        id=${id%%\"*}
        curl -sS -o /dev/null -X POST -H "X-API-KEY: $key" "$url/sandboxes/$id/pause"
    fi
}
create opencode 3600 '{"e2b-tui":"box","e2b-tui.name":"demo-box","e2b-tui.branch":"main"}' &&
    create opencode 1800 '{"e2b-tui":"box","e2b-tui.name":"paused-box"}' pause &&
    create opencode-e2b-demo 3600 '{"name":"demo-workspace"}' &&
    create base 900 '{"name":"scratch"}' &&
    create base 600 '{"name":"batch-job"}' pause || { echo "demo: could not create the samples" >&2; exit 1; }

echo "e2b-tui demo: local E2B server at $url (quit the dashboard with q)"
E2B_API_KEY=$key E2B_API_URL=$url E2B_SANDBOX_URL=$url E2B_DOMAIN=localhost:${url##*:} "$TUI"
rc=$?
echo "e2b-tui demo: stopping the local server"
exit "$rc"
