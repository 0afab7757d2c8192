# Questions answered without attaching, and what a box's agent costs, through the one-shot
# modes (--status, --answer, --wait), with the real OpenCode server and the scripted model in
# an e2b-local box; run by tests/integration/needs_v1_test.sh and needs_v2_test.sh (API 1 =
# the `opencode = 1` preset's root routes, 2 = /api/...). The model has a price (dollars per
# million tokens) so the server reports a cost. Source after lib.sh, e2b_local.sh, box.sh
# and agent.sh; call needs_scenarios API.

# needs_server_sum ID API FIELD: the sum of FIELD (cost, tokens.input, ...) over the box's
# sessions, as its server lists them (its own totals).
needs_server_sum() {
    local path=/session q='.'
    [ "$2" = 2 ] && path=/api/session q='.data'
    agent_get "$1" feat "$path" | jq -r "[$q[] | .$3 // 0] | add // 0"
}

needs_scenarios() {
    local api=$1 id qid
    AGENT_MODEL_JSON='{"cost":{"input":1,"output":2}}' agent_setup "$api" || return 1
    box_tui --up feat
    box_rc "v$api: up: exit 0" 0 || return 1
    id=$(box_sandbox_of feat)
    [ -n "$id" ] || return 1
    box_tui --status feat --json
    t_eq "v$api: --status --json has the cost's two parts" \
        "$(jq -r '.boxes[0].cost | has("agent_usd") and has("sandbox_usd")' "$BOX_OUT")" true
    # the sandbox: running time x its vCPUs and memory x the config's prices (> 0 once it ran)
    t_ok "v$api: a running sandbox's cost is more than 0" jq -e '.boxes[0].cost.sandbox_usd > 0' "$BOX_OUT"

    # ---- a question with options, answered by its number ----
    agent_script "$id" '{"title":"Colours","steps":[{"tool":"question","args":{"questions":[{"question":"Which colour?","header":"Colour","options":[{"label":"red","description":"warm"},{"label":"blue","description":"cool"}]}]},"usage":{"prompt_tokens":100000,"completion_tokens":50000}},{"text":"Blue it is.","usage":{"prompt_tokens":200000,"completion_tokens":10000}}]}'
    local before_at asked_at
    # the turn begins after this; on v1 (prompt_async) a loaded machine may begin it after
    # --prompt returned, so the question's time is its upper bound
    before_at=$(date -u +%s)
    box_tui --prompt feat "pick a colour"
    box_rc "v$api: --prompt: exit 0" 0
    # (a loaded machine may start the turn after a --wait's grace: --status until it asks)
    agent_until feat 90 "question que_" || t_fail "v$api: the question is asked" "$(cat "$BOX_OUT")"
    asked_at=$(date -u +%s) # and it was asked before this
    box_tui --wait feat --timeout 90
    box_rc "v$api: --wait: exit 6 while the question waits" 6
    t_contains "v$api: --wait tells the question" "$(cat "$BOX_ERR")" "Colour: Which colour?"
    box_tui --status feat
    t_contains "v$api: --status lists the question" "$(cat "$BOX_OUT")" "question que_"
    t_contains "v$api: with its first option" "$(cat "$BOX_OUT")" "    1. red - warm"
    t_contains "v$api: and its second" "$(cat "$BOX_OUT")" "    2. blue - cool"
    t_contains "v$api: and that a typed answer is allowed" "$(cat "$BOX_OUT")" "(or a typed answer)"
    # the look below comes a second after the question at least, so a time taken at the
    # moment of the look is told from the question's
    while [ "$(date -u +%s)" -le "$asked_at" ]; do sleep 0.2; done
    box_tui --status feat --json
    t_eq "v$api: --status --json: a question" "$(jq -r '.boxes[0].requests[0].kind' "$BOX_OUT")" question
    t_eq "v$api: --status --json: its options" \
        "$(jq -r '[.boxes[0].requests[0].options[] | "\(.n)=\(.label)/\(.description)"] | join(",")' "$BOX_OUT")" "1=red/warm,2=blue/cool"
    t_eq "v$api: --status --json: typed answers allowed" "$(jq -r '.boxes[0].requests[0].custom' "$BOX_OUT")" true
    # times a fresh process reads from the server (the session's newest messages), not the
    # moment it looked: the turn began before --prompt returned, the question was asked
    # before the --status that saw it, and the box has waited since then
    t_ok "v$api: a fresh process: turn_started is the turn's start (after --prompt began, before the question)" \
        jq -e --argjson a "$before_at" --argjson t "$asked_at" \
        '.boxes[0].turn_started | fromdateiso8601 | . >= $a and . <= $t' "$BOX_OUT"
    t_ok "v$api: waiting_since is when the question was asked" \
        jq -e --argjson t "$asked_at" '.boxes[0] | (.waiting_since | fromdateiso8601) <= $t and
            (.waiting_since | fromdateiso8601) >= (.turn_started | fromdateiso8601)' "$BOX_OUT"
    t_eq "v$api: state_since is waiting_since (waiting since it was asked)" \
        "$(jq -r '.boxes[0] | .state_since == .waiting_since' "$BOX_OUT")" true
    t_ok "v$api: last_activity is in this turn" \
        jq -e '.boxes[0] | (.last_activity | fromdateiso8601) >= (.turn_started | fromdateiso8601)' "$BOX_OUT"
    qid=$(jq -r '.boxes[0].requests[0].id' "$BOX_OUT")
    box_tui --reply feat once
    t_ok "v$api: --reply does not answer a question (non-zero exit)" test "$BOX_RC" != 0
    box_tui --answer feat --option 3
    box_rc "v$api: --answer --option 3 of 2 options: exit 1" 1
    t_contains "v$api: it says which options there are" "$(cat "$BOX_ERR")" "options 1 to 2, not 3"
    box_tui --answer feat "$qid" --option 2
    box_rc "v$api: --answer NAME REQUEST_ID --option 2: exit 0" 0
    t_contains "v$api: it says answered" "$(cat "$BOX_OUT")" "answered"
    box_tui --wait feat --timeout 90
    box_rc "v$api: the turn goes on and finishes: exit 0" 0
    t_contains "v$api: the model was given the option's label as the answer" "$(agent_model_log "$id")" '\"Which colour?\"=\"blue\"'

    # ---- the cost and tokens of that turn, the server's own figures ----
    box_tui --status feat --json
    local cost want tin
    if [ "$api" = 1 ]; then
        cost=$(jq -r '.boxes[0].cost.agent_usd' "$BOX_OUT")
        want=$(needs_server_sum "$id" "$api" cost)
        t_eq "v$api: --status --json cost.agent_usd is the server's total" "$(printf '%.6f' "$cost")" "$(printf '%.6f' "$want")"
        t_ok "v$api: and it is more than 0 (the model has a price)" awk -v c="$cost" 'BEGIN{exit !(c > 0)}'
        t_eq "v$api: the price table's figure: 300000 in at \$1/M + 60000 out at \$2/M" "$(printf '%.4f' "$cost")" 0.4200
        tin=$(jq -r '.boxes[0].tokens.input' "$BOX_OUT")
        t_eq "v$api: tokens.input is the server's total" "$tin" "$(needs_server_sum "$id" "$api" tokens.input)"
        t_eq "v$api: tokens.output" "$(jq -r '.boxes[0].tokens.output' "$BOX_OUT")" 60000
        t_eq "v$api: usage is filled (no longer null after a turn)" "$(jq -r '.boxes[0].usage.input' "$BOX_OUT")" 300000
        box_tui --status feat
        # (the sandbox's part grows with its running time: "$0.003", or "<$0.001" when new)
        t_ok "v$api: --status tells the cost" grep -qE 'cost \$0\.42 agent \+ <?\$[0-9.]+ sandbox' "$BOX_OUT"
        t_contains "v$api: and the tokens" "$(cat "$BOX_OUT")" "tokens 300000 in / 60000 out"
    else
        # 1.18.33's v2 API does not price a turn: its session list says cost 0 and 0 tokens
        # after one (and step.ended says cost 0 with the tokens): a one-shot process, which
        # sees no step end, does not know the figures and says so (null), never 0
        t_eq "v$api: the server's session list says 0 (its own figure)" "$(needs_server_sum "$id" "$api" cost)" 0
        t_eq "v$api: --status --json cost.agent_usd is unknown: null, not 0" "$(jq -r '.boxes[0].cost.agent_usd' "$BOX_OUT")" null
        t_eq "v$api: tokens unknown: null" "$(jq -r '.boxes[0].tokens' "$BOX_OUT")" null
        t_ok "v$api: the sandbox's cost is known (a running box)" jq -e '.boxes[0].cost.sandbox_usd > 0' "$BOX_OUT"
        # the last step's figures: a fresh process reads them from the session's newest
        # messages (the step's tokens; its cost 0 for tokens used is not priced: null)
        t_eq "v$api: --status --json usage: the last step's, read from the server" \
            "$(jq -r '.boxes[0].usage | "\(.input) \(.output) \(.reasoning) \(.cost)"' "$BOX_OUT")" "200000 10000 0 null"
        box_tui --status feat
        t_contains "v$api: --status says the agent's cost is unknown" "$(cat "$BOX_OUT")" "cost ? agent + "
    fi
    box_tui --status feat --json
    t_ok "v$api: idle: turn_started is the last turn's start, before its end" \
        jq -e --argjson t "$asked_at" '.boxes[0] | (.turn_started | fromdateiso8601) <= $t and
            (.turn_started | fromdateiso8601) <= (.state_since | fromdateiso8601)' "$BOX_OUT"
    t_ok "v$api: last_activity is the turn's end or later" \
        jq -e '.boxes[0] | (.last_activity | fromdateiso8601) >= (.state_since | fromdateiso8601)' "$BOX_OUT"

    # ---- a typed answer, to a question given by id ----
    agent_script "$id" '{"steps":[{"tool":"question","args":{"questions":[{"question":"Which shade?","header":"Shade","options":[{"label":"light","description":""}]}]}},{"text":"Noted."}]}'
    box_tui --prompt feat "pick a shade"
    agent_until feat 90 "Shade: Which shade?" || t_fail "v$api: the second question is asked" "$(cat "$BOX_OUT")"
    box_tui --wait feat --timeout 90
    box_rc "v$api: the second question waits: exit 6" 6
    box_tui --status feat --json
    qid=$(jq -r '.boxes[0].requests[0].id' "$BOX_OUT")
    box_tui --answer feat "$qid" "sea green"
    box_rc "v$api: --answer NAME REQUEST_ID TEXT: exit 0" 0
    box_tui --wait feat --timeout 90
    box_rc "v$api: that turn finishes: exit 0" 0
    t_contains "v$api: the model was given the typed answer" "$(agent_model_log "$id")" '\"Which shade?\"=\"sea green\"'

    # ---- a question in a new session, answered with an option's label as the text ----
    # (1.18.33's question tool drops "custom": every question it asks takes typed answers;
    # the options-only refusal is checked on a parsed request in tests/unit/test_needs.c)
    agent_script "$id" '{"steps":[{"tool":"question","args":{"questions":[{"question":"Ship it?","header":"Ship","options":[{"label":"yes","description":"now"},{"label":"no","description":"later"}]}]}},{"text":"Shipped.","usage":{"prompt_tokens":10000,"completion_tokens":0}}]}'
    box_tui --prompt feat "ship?" --new-session
    box_rc "v$api: --prompt --new-session: exit 0" 0
    # (a new session's turn may not have begun when a --wait starts: --status until it asks)
    agent_until feat 90 "Ship: Ship it?" && t_pass "v$api: the question waits, in a new session" ||
        t_fail "v$api: the question waits, in a new session" "$(cat "$BOX_OUT")"
    box_tui --answer feat yes
    box_rc "v$api: an option's label as the text: exit 0" 0
    box_tui --wait feat --timeout 90
    box_rc "v$api: that turn finishes: exit 0" 0
    t_contains "v$api: the model was given the label" "$(agent_model_log "$id")" '\"Ship it?\"=\"yes\"'

    # ---- costs add up across turns and sessions ----
    if [ "$api" = 1 ]; then
        box_tui --status feat --json
        cost=$(jq -r '.boxes[0].cost.agent_usd' "$BOX_OUT")
        want=$(needs_server_sum "$id" "$api" cost)
        t_eq "v$api: after three turns in two sessions, agent_usd is still the server's sum" \
            "$(printf '%.6f' "$cost")" "$(printf '%.6f' "$want")"
        t_ok "v$api: and more than the first turn's" awk -v c="$cost" 'BEGIN{exit !(c > 0.42)}'
        t_eq "v$api: tokens across sessions too" "$(jq -r '.boxes[0].tokens.input' "$BOX_OUT")" \
            "$(needs_server_sum "$id" "$api" tokens.input)"
    fi

    # ---- usage errors ----
    box_tui --answer feat
    box_rc "v$api: --answer without an answer: exit 2" 2
    box_tui --answer feat --option x
    box_rc "v$api: --option x: exit 2" 2
    box_tui --answer feat "words"
    box_rc "v$api: --answer with no question pending: exit 3" 3
    t_contains "v$api: it says no question waits" "$(cat "$BOX_ERR")" "asks no question"
    # ---- the price table is the config's ----
    if [ "$api" = 1 ]; then
        local conf=$XDG_CONFIG_HOME/e2b-tui/config
        cp "$conf" "$conf.orig"
        printf 'price_vcpu_second = 1\nprice_gib_second = 0\n' >>"$conf"
        box_tui --status feat --json
        t_ok "v$api: price_vcpu_second = 1: the sandbox costs its vCPUs x seconds run (> \$1)" \
            jq -e '.boxes[0].cost.sandbox_usd > 1' "$BOX_OUT"
        t_contains "v$api: --info shows the prices" "$("$E2B_TUI_BIN" --info)" "price_vcpu_second 1, price_gib_second 0"
        printf 'price_gib_second = cheap\n' >>"$conf"
        box_tui --status feat
        box_rc "v$api: a price that is not a number: exit 2" 2
        t_contains "v$api: it says what a price is" "$(cat "$BOX_ERR")" "price_gib_second must be dollars per second"
        mv "$conf.orig" "$conf"
    fi
    box_tui --kill feat --force
    box_rc "v$api: kill: exit 0" 0
    return 0
}
