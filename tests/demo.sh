#!/usr/bin/env bash
# make demo: the whole story with no account and no network. Uses the real OpenCode server
# (opencode-ai@1.18.33 from build/npm, which make installs: tests/lib/npm_tools.sh), starts
# the bundled local E2B-compatible server on a free loopback port, makes a small git
# project (a todo list in Python) and a home of its own in a temporary directory, brings
# the sample box demo-box up from the project (a real box: record, password, server, and
# a commit of sample work to pull), adds a few other sample sandboxes (a paused box, a
# workspace, others) and opens the dashboard in the project. When the dashboard quits it
# stops the server and removes the directory (the project too).
#   tests/demo.sh [BUILD_DIR]      (E2B_TUI_BIN / E2B_LOCAL_BIN override the binaries)
set -u
B=${1:-build}
cd "$(dirname "$0")/.." || exit 1
top=$(pwd)
TUI=${E2B_TUI_BIN:-$B/e2b-tui}
LOCAL=${E2B_LOCAL_BIN:-$B/e2b-local}
case $TUI in /*) ;; *) TUI=$top/$TUI ;; esac
case $LOCAL in /*) ;; *) LOCAL=$top/$LOCAL ;; esac
case $B in /*) ;; *) B=$top/$B ;; esac
fail() { echo "demo: $*" >&2; exit 1; }
for f in "$TUI" "$LOCAL"; do
    [ -x "$f" ] || fail "$f is missing; run make first"
done
for c in curl git python3; do
    command -v "$c" >/dev/null || fail "$c is needed"
done

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
# What the programs put in "the temp dir" (OpenCode does) goes with $dir too.
export TMPDIR=$dir/tmp
mkdir -p "$TMPDIR"

# ---- the real OpenCode server: build/npm's (make npm), which every box sees read-only ----
. "$top/tests/lib/npm_tools.sh"
npm_tools_find "$top" || fail "$NPM_TOOLS_WHY"
OC_VERSION=$(npm_tools_version "$top" opencode-ai)

# A home of its own: records, passwords (a 0600 file), OpenCode's state all go with $dir.
export HOME=$dir/home
export XDG_CONFIG_HOME=$HOME/.config XDG_STATE_HOME=$HOME/.local/state
export XDG_DATA_HOME=$HOME/.local/share XDG_CACHE_HOME=$HOME/.cache
export E2B_TUI_KEYSTORE=file
mkdir -p "$XDG_CONFIG_HOME/e2b-tui"
proj=$dir/todo-app

# ---- the scripted model: every box runs it beside its OpenCode server ----
# The boxes see $tools read-only at $box_tools (e2b-local --ro-bind). serve.sh starts the
# model on the box's own loopback, then the real server with a config that uses it (bash
# asks first).
tools=$dir/demo-tools box_tools=/opt/e2b-tui/demo
mkdir -p "$tools"
cp tests/lib/scripted_model.py tests/demo/opencode.json "$tools/" &&
    python3 tests/demo/task.py "$proj" >"$tools/task.json" || fail "could not write the demo's model"
printf '%s\n' '#!/bin/sh' \
    "python3 $box_tools/scripted_model.py --port 8111 --script $box_tools/task.json >/tmp/scripted-model.log 2>&1 &" \
    "OPENCODE_CONFIG=$box_tools/opencode.json exec '$BOX_OPENCODE' serve --hostname 0.0.0.0 --port \"\$1\"" \
    >"$tools/serve.sh"
chmod +x "$tools/serve.sh"
{
    echo "# make demo: the real OpenCode server (opencode-ai $OC_VERSION) and a scripted model in every box"
    echo "opencode = 1"
    echo "serve_command = $box_tools/serve.sh {port}"
    echo "attach_command = $OPENCODE_BIN attach {url} --dir {dir}"
} >"$XDG_CONFIG_HOME/e2b-tui/config"

key=e2b_demo_local_key
"$LOCAL" --listen 127.0.0.1:0 --state "$dir/state" --api-key "$key" --ro-bind "$tools:$box_tools" ${NPM_TOOLS_BIND:+--ro-bind "$NPM_TOOLS_BIND"} \
    >"$dir/out" 2>"$dir/err" &
pid=$!
url=
for _ in $(seq 200); do
    url=$(sed -n 's/^e2b-local listening on //p' "$dir/out" 2>/dev/null | head -n 1)
    [ -n "$url" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
done
[ -n "$url" ] || fail "the local E2B server did not start: $(head -c 400 "$dir/err")"
export E2B_API_KEY=$key E2B_API_URL=$url E2B_SANDBOX_URL=$url E2B_DOMAIN=localhost:${url##*:}

# ---- the project ----
mkdir -p "$proj"
cat >"$proj/README.md" <<'EOF'
# todo-app

A tiny command-line todo list.

    python3 todo.py add "write the release notes"
    python3 todo.py list
EOF
cat >"$proj/todo.py" <<'EOF'
"""A tiny todo list kept in todo.json."""
import json
import sys
from pathlib import Path

STORE = Path("todo.json")


def load():
    return json.loads(STORE.read_text()) if STORE.exists() else []


def save(items):
    STORE.write_text(json.dumps(items, indent=2) + "\n")


def add(items, text):
    items.append({"text": text, "done": False})
    return items


def main(argv):
    items = load()
    if argv[:1] == ["add"] and len(argv) > 1:
        save(add(items, " ".join(argv[1:])))
    elif argv[:1] == ["list"]:
        for n, item in enumerate(items, 1):
            print(f"{n}. [{'x' if item['done'] else ' '}] {item['text']}")
    else:
        print("usage: todo.py add TEXT | list", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
EOF
cat >"$proj/test_todo.py" <<'EOF'
import unittest

import todo


class AddTest(unittest.TestCase):
    def test_add_appends_an_open_item(self):
        self.assertEqual(todo.add([], "milk"), [{"text": "milk", "done": False}])


if __name__ == "__main__":
    unittest.main()
EOF
printf 'todo.json\n__pycache__/\n' >"$proj/.gitignore"
git -C "$proj" init -q -b main &&
    git -C "$proj" add -A &&
    git -C "$proj" -c user.name=Demo -c user.email=demo@example.invalid commit -qm "A tiny todo list" ||
    fail "could not make the demo project"

# ---- the sample box: a real one, with a commit of sample work in it ----
echo "demo: bringing up the sample box demo-box with the real OpenCode server (about 20 s)"
(cd "$proj" && "$TUI" --up demo-box >"$dir/up.out" 2>"$dir/up.err") ||
    fail "the sample box did not come up: $(tail -c 600 "$dir/up.err")"
sid=$(sed -n 's/.*"sandbox_id" *: *"\([^"]*\)".*/\1/p' "$XDG_STATE_HOME/e2b-tui/boxes/demo-box.json")
tok=$(curl -sS -X POST -H "X-API-KEY: $key" -H 'Content-Type: application/json' --data '{}' \
    "$url/v2/sandboxes/$sid/connect" | python3 -c 'import json,sys; print(json.load(sys.stdin)["envdAccessToken"])')
work=$(cat <<EOF
cd '$proj' && cat >>todo.py <<'PY'


def done(items, n):
    """Marks item n (counted from 1) as done."""
    items[n - 1]["done"] = True
    return items
PY
cat >test_done.py <<'PY'
import unittest

import todo


class DoneTest(unittest.TestCase):
    def test_done_marks_the_item(self):
        items = todo.done([{"text": "milk", "done": False}], 1)
        self.assertTrue(items[0]["done"])


if __name__ == "__main__":
    unittest.main()
PY
git add -A && git -c user.name='OpenCode (sample work)' -c user.email=opencode@example.invalid commit -qm 'Add done(), with a test'
EOF
)
body=$(python3 -c 'import json,sys; print(json.dumps({"process": {"cmd": "/bin/bash", "args": ["-c", sys.argv[1]]}, "stdin": False}))' "$work")
python3 tests/lib/e2b_connect.py stream --port "${url##*:}" --sandbox "$sid" --token "$tok" \
    --method process.Process/Start --body "$body" >"$dir/seed.out" 2>&1
grep -q '"exitCode": *0\|"exited": *{}\|"status": *"exit status 0"' "$dir/seed.out" ||
    echo "demo: (the sample work could not be put in demo-box; p will find nothing to pull there)" >&2

# ---- the other samples: sandboxes seen in the lists, not made by this machine ----
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
create opencode 1800 '{"e2b-tui":"box","e2b-tui.name":"paused-box"}' pause &&
    create opencode-e2b-demo 3600 '{"name":"demo-workspace"}' &&
    create base 900 '{"name":"scratch"}' &&
    create base 600 '{"name":"batch-job"}' pause || fail "could not create the samples"

echo "e2b-tui demo: local E2B server at $url, project $proj (quit the dashboard with q)"
(cd "$proj" && "$TUI")
rc=$?
echo "e2b-tui demo: stopping the local server"
exit "$rc"
