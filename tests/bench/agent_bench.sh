#!/usr/bin/env bash
# The agent figures of issue 15 (tests/bench/agent_bench.c) against the real OpenCode server
# (opencode-ai 1.18.33) on loopback with the scripted model, both APIs:
#   tests/bench/agent_bench.sh [BUILD_DIR]   (BENCH_AGENT_TURNS, BENCH_AGENT_WATCHES,
#                                             BENCH_AGENT_IDLE seconds)
set -u
B=${1:-build}
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/npm_tools.sh
npm_tools_find "$(pwd)" || { echo "agent bench: $NPM_TOOLS_WHY"; exit 1; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/e2b-tui-agent-bench.XXXXXX") || exit 1
mpid= spid=
cleanup() {
    [ -n "$spid" ] && { kill -TERM "$spid" 2>/dev/null; wait "$spid" 2>/dev/null; }
    [ -n "$mpid" ] && { kill -TERM "$mpid" 2>/dev/null; wait "$mpid" 2>/dev/null; }
    rm -rf "$dir"
}
trap cleanup EXIT
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
mport=$(port) sport=$(port)
mkdir -p "$dir/proj" "$dir/home"
git -C "$dir/proj" init -q .
printf '{"steps":[{"text":"Hello.","times":100000}]}\n' >"$dir/script.json"
cat >"$dir/proj/opencode.json" <<JSON
{"provider":{"mock":{"npm":"@ai-sdk/openai-compatible","name":"Mock","options":{"baseURL":"http://127.0.0.1:$mport/v1","apiKey":"x"},"models":{"m1":{}}}},"model":"mock/m1","small_model":"mock/m1","autoupdate":false,"share":"disabled"}
JSON
python3 tests/lib/scripted_model.py --port "$mport" --script "$dir/script.json" >"$dir/model.out" 2>&1 &
mpid=$!
pw=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
(cd "$dir/proj" && HOME=$dir/home XDG_CONFIG_HOME=$dir/home/.config XDG_DATA_HOME=$dir/home/.local/share \
    XDG_STATE_HOME=$dir/home/.local/state XDG_CACHE_HOME=$dir/home/.cache OPENCODE_SERVER_PASSWORD=$pw \
    OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_LSP_DOWNLOAD=1 \
    OPENCODE_DISABLE_SHARE=1 exec "$OPENCODE_BIN" serve --hostname 127.0.0.1 --port "$sport") >"$dir/serve.out" 2>&1 &
spid=$!
for _ in $(seq 360); do
    curl -s -m 5 -o /dev/null -u "opencode:$pw" "http://127.0.0.1:$sport/api/health" && break
    sleep 0.5
done
# the v2 catalog needs a few seconds before a prompt is not lost
for _ in $(seq 60); do
    curl -s -m 5 -u "opencode:$pw" "http://127.0.0.1:$sport/api/model" | grep -q '"providerID":"mock"' && break
    sleep 0.5
done
echo "--- agents: event -> state, memory per watched box, idle CPU ($(getconf _NPROCESSORS_ONLN) cores) ---"
for api in 2 1; do
    AGENT_PW=$pw AGENT_DIR=$dir/proj "$B/tests/bench/agent_bench" "$api" "http://127.0.0.1:$sport" \
        "${BENCH_AGENT_TURNS:-20}" "${BENCH_AGENT_WATCHES:-20}" "${BENCH_AGENT_IDLE:-60}"
done
