# The fixture of the "Best of N" tests (tests/integration/try_test.sh, tests/tui/compare_test.sh):
# source after lib.sh, e2b_local.sh, box.sh and agent.sh, then call try_fixture [API]. It
# runs agent_setup API (default 2) and commits a project with two models (mock/m1, mock/m2), bash allowed, a
# check (check.sh, the config's test_command) that passes only when answer.txt says "good",
# and the scripted model's script in the project: m1 writes "good", m2 "bad" (two lines).
try_fixture() {
agent_setup "${1:-2}" || return 1
# The fixture project: two models, bash allowed, a check that passes only for "good", and
# the model's script in the project (each member's model reads it from its own copy).
cat >"$BOX_REPO/opencode.json" <<'EOF'
{"$schema":"https://opencode.ai/config.json","provider":{"mock":{"npm":"@ai-sdk/openai-compatible","name":"Mock","options":{"baseURL":"http://127.0.0.1:8111/v1","apiKey":"x"},"models":{"m1":{},"m2":{}}}},"model":"mock/m1","small_model":"mock/m1","permission":{"bash":"allow"},"autoupdate":false,"share":"disabled"}
EOF
cat >"$BOX_REPO/check.sh" <<'EOF'
#!/bin/sh
# the project's tests: the answer must be good
echo "checking answer.txt"
printf '\033[31m\033]0;pwned\007 raw escapes from the box\n'
grep -qx good answer.txt || { echo "answer.txt is not good"; exit 1; }
echo "all good"
EOF
cat >"$BOX_REPO/.agent/try-script.json" <<'EOF'
{"title":"Answer","steps":[{"text":"m1 here.","tool":"bash","args":{"command":"echo good > answer.txt","description":"answer"}},{"text":"I wrote a good answer."}],
 "by_model":{"m2":{"title":"Answer","steps":[{"text":"m2 here.","tool":"bash","args":{"command":"echo bad > answer.txt; echo extra >> answer.txt","description":"answer"}},{"text":"I wrote a bad answer."}]}}}
EOF
chmod +x "$BOX_REPO/check.sh"
(cd "$BOX_REPO" && git add -f opencode.json check.sh .agent && git commit -q -m "try fixture") ||
    return 1
sed -i 's|--script /tmp/agent-script.json|--script "$1/.agent/try-script.json"|' "$XDG_CONFIG_HOME/e2b-tui/config"
grep -q 'try-script.json' "$XDG_CONFIG_HOME/e2b-tui/config" || return 1
printf 'test_command = sh check.sh\ntest_timeout = 60\n' >>"$XDG_CONFIG_HOME/e2b-tui/config"

}
