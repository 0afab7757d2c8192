#!/usr/bin/env bash
# --up starts the OpenCode server while the project's files still arrive (serve_early =
# auto): the real `opencode serve` starts as soon as the box made the project directory,
# before the first archive is sent, and still takes the project's git and its
# opencode.json (it reads a project only when a request needs it). A serve command that
# lives in the project waits for the files; serve_early = no waits too; a server that
# fails while the files arrive fails the up cleanly.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/lib/agent.sh"
. "$E2B_TUI_ROOT/tests/lib/faults.sh"
box_setup || t_finish
cfg=$XDG_CONFIG_HOME/e2b-tui/config
good_cfg=$(cat "$cfg")
log=$XDG_STATE_HOME/e2b-tui/e2b-tui.log
boxes=$XDG_STATE_HOME/e2b-tui/boxes

# The project brings its own OpenCode config (a model no default has) and a server script.
cat >"$BOX_REPO/opencode.json" <<'EOF'
{"$schema":"https://opencode.ai/config.json","provider":{"mock":{"npm":"@ai-sdk/openai-compatible","name":"Mock","options":{"baseURL":"http://127.0.0.1:9/v1","apiKey":"x"},"models":{"m1":{}}}},"model":"mock/m1","small_model":"mock/m1","autoupdate":false,"share":"disabled"}
EOF
cat >"$BOX_REPO/tools/serve.sh" <<'EOF'
#!/bin/sh
# a server command that needs the project in place as it starts: the extraction gives the
# directory to the user as its last step
[ "$(stat -c %u .)" = "$(id -u)" ] && [ -f .git/HEAD ] || { echo "serve.sh: the project is not in place" >&2; exit 3; }
exec env OPENCODE_DISABLE_DEFAULT_PLUGINS=1 OPENCODE_DISABLE_AUTOUPDATE=1 BOX_OPENCODE serve --hostname 0.0.0.0 --port "$1"
EOF
sed -i "s|BOX_OPENCODE|$BOX_OPENCODE|" "$BOX_REPO/tools/serve.sh"
chmod 755 "$BOX_REPO/tools/serve.sh"
(cd "$BOX_REPO" && git add opencode.json tools/serve.sh && git commit -q -m "server config" -- opencode.json tools/serve.sh) ||
    t_abort "the fixture commit failed"
root_commit=$(git -C "$BOX_REPO" rev-list --max-parents=0 HEAD)

# up_lines NAME: that up's lines of the log in order (": <step>", " (server): ..."), no times
up_lines() { sed -n "s/^[^ ]* box up $1\([ :].*\)$/\1/p" "$log"; }
# line_of NAME TEXT: the number of the first of those lines that holds TEXT (empty: none)
line_of() { up_lines "$1" | grep -n -m1 -F -- "$2" | cut -d: -f1; }
before() { [ -n "$1" ] && [ -n "$2" ] && [ "$1" -lt "$2" ]; }
sandbox_count() { el_req GET /v2/sandboxes >/dev/null; el_json length; }

# check_project NAME WHAT: the box's server took the project: its id is the root commit
# (OpenCode names a git project so), its directory the box's, its config the project's.
check_project() {
    local id dir body
    id=$(box_sandbox_of "$1")
    dir=$(jq -r .dir "$boxes/$1.json")
    body=$(agent_get "$id" "$1" /project/current)
    t_eq "$2: the server took the project's git (its id is the root commit)" \
        "$(jq -r .id <<<"$body" 2>/dev/null)" "$root_commit"
    t_eq "$2: ... and the project's directory" "$(jq -r .worktree <<<"$body" 2>/dev/null)" "$dir"
    t_eq "$2: ... and the project's opencode.json" \
        "$(agent_get "$id" "$1" /config | jq -r .model 2>/dev/null)" mock/m1
}

# ---- auto: the OpenCode server starts while the files arrive ----
# (once the project's directory exists and the box has said which OpenCode it has: the
# probe's first answer, the names, comes while the first archive is on its way)
# The upload is slow on purpose: e2b-local holds the first archive's upload 8 s. The server
# starts from the probe's first answer, in parallel with the upload: with the files this
# small, a loaded machine could otherwise send them all before the probe answered, and the
# order checked below would be a race, not the product's behaviour.
rm -f "$log"
fault_set '{"kind":"delay","method":"POST","path":"/files","delayMs":8000}'
box_tui --up early
box_rc "auto: up succeeds" 0 || t_abort "the box did not come up"
t_eq "auto: the upload was held (the delay fault was taken)" "$(fault_left)" 0
fault_clear
started=$(line_of early "(server): started while the files arrive")
t_ok "auto: the server started while the files arrived (log: $(up_lines early | tr '\n' '|'))" \
    before "$started" "$(line_of early ": extracting")"
t_eq "auto: no second start once the files are in place" "$(line_of early ": starting the server")" ""
t_ok "auto: the up waited for the server after the files" \
    before "$(line_of early ": extracting")" "$(line_of early ": writing the record")"
check_project early auto

# ---- serve_early = no: the server starts once the files are in place ----
printf '%s\nserve_early = no\n' "$good_cfg" >"$cfg"
rm -f "$log"
box_tui --up late
box_rc "no: up succeeds" 0
t_eq "no: no early start" "$(line_of late "(server): started")" ""
t_ok "no: the server started after the extraction" \
    before "$(line_of late ": extracting")" "$(line_of late ": starting the server")"
check_project late no

# ---- auto, a server command in the project: it waits for the files ----
printf '%s\nserve_command = tools/serve.sh {port}\n' "$good_cfg" >"$cfg"
rm -f "$log"
box_tui --up inproj
box_rc "a command in the project: up succeeds (it found the project in place)" 0
t_eq "a command in the project: no early start" "$(line_of inproj "(server): started")" ""
check_project inproj "a command in the project"

# ---- serve_early = yes, a server that exits at once while the files arrive ----
printf 'serve_command = false\nserve_early = yes\n' >"$cfg"
rm -f "$log"
n_before=$(sandbox_count)
box_tui --up quits
box_rc "early server exits: exit 1" 1
t_contains "early server exits: says so" "$(cat "$BOX_ERR")" "exited at once"
t_contains "early server exits: names the step" "$(cat "$BOX_ERR")" "starting the server"
t_ok "early server exits: it had started early" test -n "$(line_of quits "(server): started")"
t_eq "early server exits: its sandbox is removed" "$(sandbox_count)" "$n_before"
t_ok "early server exits: no record" test ! -e "$boxes/quits.json"

printf '%s\n' "$good_cfg" >"$cfg"
for b in early late inproj; do
    box_tui --kill "$b" --force
    box_setup_rc "kill $b" 0
done
t_finish
