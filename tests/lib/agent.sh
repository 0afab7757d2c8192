# Helpers for tests with the real OpenCode server and the scripted model in e2b-local boxes
# (source after lib.sh, e2b_local.sh and box.sh). Reusable by the dashboard and demo tests.
#
#   agent_setup API          box_setup, then the fixture repo gets an opencode.json that points
#                            OpenCode at the scripted model (tests/lib/scripted_model.py,
#                            committed as .agent/scripted_model.py) and the config a serve
#                            command that starts the model (127.0.0.1:8111 inside the box) and
#                            the real `opencode serve`; API 1 = the `opencode = 1` preset (v1
#                            routes), 2 = v2 (/api/...) against the same server;
#                            AGENT_MODEL_JSON: the model's entry (default {}; e.g.
#                            {"cost":{"input":1,"output":2}}: dollars per million tokens)
#   agent_script ID JSON     the box's script (tests/lib/scripted_model.py says the format);
#                            read again at each model request, restarting when it changed
#   agent_model_log ID       the model's request log (one JSON line per request)
#   agent_server_pid ID      the pid of the box's `opencode serve`
#   agent_get ID NAME PATH   one GET of the box's server (password and token as below)
#   agent_post ID NAME PATH JSON   one POST of JSON to it (the same way)
#   agent_events_start ID API NAME FILE
#                            reads the box's own event stream (v2 /api/event, v1 /event)
#                            into FILE with curl through e2b-local's port proxy (the password
#                            from the server's environment and the traffic token from
#                            connect, given to curl on stdin, never in its argv);
#                            agent_events_stop ends it
AGENT_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

agent_setup() {
    local api=${1:-2}
    box_setup || return 1
    mkdir -p "$BOX_REPO/.agent"
    cp "$AGENT_LIB_DIR/scripted_model.py" "$BOX_REPO/.agent/scripted_model.py"
    cat >"$BOX_REPO/opencode.json" <<EOF
{"\$schema":"https://opencode.ai/config.json","provider":{"mock":{"npm":"@ai-sdk/openai-compatible","name":"Mock","options":{"baseURL":"http://127.0.0.1:8111/v1","apiKey":"x"},"models":{"m1":${AGENT_MODEL_JSON:-{\}}}}},"model":"mock/m1","small_model":"mock/m1","permission":{"bash":"ask"},"autoupdate":false,"share":"disabled"}
EOF
    (cd "$BOX_REPO" && git add -f opencode.json .agent && git commit -q -m "agent fixture" -- opencode.json .agent) || return 1
    {
        printf 'opencode = %s\npreview_columns = 0\n' "$api" # as box_setup's
        # shellcheck disable=SC2016 # expanded by the box's shell
        printf '%s\n' 'serve_command = sh -c '"'"'export OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_LSP_DOWNLOAD=1 OPENCODE_DISABLE_SHARE=1; python3 "$1/.agent/scripted_model.py" --port 8111 --script /tmp/agent-script.json --log /tmp/agent-model.log >/tmp/agent-model.out 2>&1 & exec '"$BOX_OPENCODE"' serve --hostname 0.0.0.0 --port "$2"'"'"' sh {dir} {port}'
    } >"$XDG_CONFIG_HOME/e2b-tui/config"
    export E2B_TUI_HEALTH_TIMEOUT=150
}

agent_script() {
    local f
    f="$(box_root "$1")/tmp/agent-script.json"
    mkdir -p "${f%/*}"
    printf '%s\n' "$2" >"$f.new" && chmod 644 "$f.new" && mv "$f.new" "$f"
}

agent_model_log() {
    cat "$(box_root "$1")/tmp/agent-model.log" 2>/dev/null
}

agent_server_pid() {
    local f d
    for f in /proc/[0-9]*/environ; do
        grep -qaF "E2B_SANDBOX_ID=$1" "$f" 2>/dev/null || continue
        d=${f%/environ}
        if tr '\0' ' ' <"$d/cmdline" 2>/dev/null | grep -q "opencode serve"; then
            basename "$d"
            return 0
        fi
    done
    return 1
}

# agent_curl_config ID NAME: AGENT_CONF is curl's config for -K - (the password from the
# server's environment, the traffic token from connect: on curl's stdin, never in argv),
# AGENT_URL the server's base URL through e2b-local's port proxy, AGENT_RESOLVE its
# --resolve argument.
agent_curl_config() {
    local id=$1 pid pw port tok
    pid=$(agent_server_pid "$id") || return 1
    pw=$(tr '\0' '\n' <"/proc/$pid/environ" | sed -n 's/^OPENCODE_SERVER_PASSWORD=//p')
    [ -n "$pw" ] || return 1
    port=$(jq -r 'if (.port // 0) > 0 then .port else 4096 end' "$XDG_STATE_HOME/e2b-tui/boxes/$2.json")
    local host=$port-$id.localhost
    AGENT_URL=http://$host:$E2B_LOCAL_PORT AGENT_RESOLVE=$host:$E2B_LOCAL_PORT:127.0.0.1
    # a private box's port needs its traffic token (connect tells it; a running box only
    # has its timeout confirmed)
    el_req POST "/v2/sandboxes/$id/connect" '{"timeout":600}' >/dev/null
    tok=$(el_json '.trafficAccessToken // ""')
    AGENT_CONF=$(printf 'user = "opencode:%s"\n' "$pw"
        [ -z "$tok" ] || printf 'header = "e2b-traffic-access-token: %s"\n' "$tok")
}

# agent_get ID NAME PATH: one GET of the box's server; the body on stdout.
agent_get() {
    agent_curl_config "$1" "$2" || return 1
    printf '%s\n' "$AGENT_CONF" | curl -sf -m 20 -K - --resolve "$AGENT_RESOLVE" "$AGENT_URL$3"
}

# agent_post ID NAME PATH JSON: one POST of JSON to the box's server (as agent_get); the
# body on stdout.
agent_post() {
    agent_curl_config "$1" "$2" || return 1
    printf '%s\n' "$AGENT_CONF" | curl -sf -m 20 -K - --resolve "$AGENT_RESOLVE" \
        -H 'content-type: application/json' -d "$4" "$AGENT_URL$3"
}

agent_events_start() {
    local id=$1 path=/event
    [ "$2" = 2 ] && path=/api/event
    agent_curl_config "$id" "$3" || return 1
    printf '%s\n' "$AGENT_CONF" | curl -sN -K - --resolve "$AGENT_RESOLVE" "$AGENT_URL$path" >"$4" 2>/dev/null &
    AGENT_EV_PID=$!
    # the stream is up once its first frame came
    t_wait_until 20 grep -q server.connected "$4"
}

agent_events_stop() {
    [ -n "${AGENT_EV_PID:-}" ] || return 0
    kill "$AGENT_EV_PID" 2>/dev/null
    wait "$AGENT_EV_PID" 2>/dev/null
    AGENT_EV_PID=
}
