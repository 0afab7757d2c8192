# A box stopped at its budget (--up --budget) by `--keepalive` (the dashboard's model with no
# screen), with the real OpenCode server and the scripted model in an e2b-local box; run by
# tests/integration/budget_v1_test.sh and budget_v2_test.sh (API 1 = the `opencode = 1`
# preset, 2 = /api/...). v1 prices the turn (the model has a price: one step of 1M input
# tokens at $1/M passes a $0.50 budget); 1.18.33's v2 prices nothing, so there the sandbox's
# part passes it (price_vcpu_second raised while the turn runs). Then a prompt from a script
# is refused (exit 11) until --budget raises it. Source after lib.sh, e2b_local.sh, box.sh,
# agent.sh and agent_scenarios.sh; call budget_scenarios API.

budget_scenarios() {
    local api=$1 id conf rec kpid
    AGENT_MODEL_JSON='{"cost":{"input":1,"output":2}}' agent_setup "$api" || return 1
    conf=$XDG_CONFIG_HOME/e2b-tui/config
    # the sandbox costs nothing until the v2 case raises its price
    printf 'price_vcpu_second = 0\nprice_gib_second = 0\n' >>"$conf"
    rec=$XDG_STATE_HOME/e2b-tui/boxes/feat.json

    box_tui --up feat --budget nine
    box_rc "v$api: --budget that is not dollars: exit 2" 2
    t_contains "v$api: it says what a budget is" "$(cat "$BOX_ERR")" "--budget must be dollars"
    box_tui --status --budget 2
    box_rc "v$api: --budget with --status: exit 2" 2

    box_tui --up feat --budget 0.50
    box_rc "v$api: up --budget 0.50: exit 0" 0 || return 1
    t_contains "v$api: up tells the budget and who watches it" "$(cat "$BOX_ERR")" \
        "box feat has a budget of \$0.50 (agent + sandbox): a running dashboard or e2b-tui --keepalive interrupts and pauses it there; while neither runs the budget is not watched"
    t_eq "v$api: the record holds the budget" "$(jq -r .budget_usd "$rec")" 0.5
    id=$(box_sandbox_of feat)
    box_tui --status feat --json
    t_eq "v$api: --status --json budget_usd" "$(jq -r '.boxes[0].budget_usd' "$BOX_OUT")" 0.5
    t_eq "v$api: not stopped yet" "$(jq -r '.boxes[0].budget_stopped' "$BOX_OUT")" false

    # one step of 1M input tokens ($1.00 where priced), then a step that takes its time: the
    # turn still runs when the budget is passed
    agent_script "$id" '{"title":"Big","steps":[{"tool":"todowrite","args":{"todos":[{"content":"think hard","status":"in_progress","priority":"high"}]},"usage":{"prompt_tokens":1000000,"completion_tokens":0}},{"text":"Still thinking.","delay":120}]}'
    box_tui --prompt feat "think hard"
    box_rc "v$api: --prompt under the budget: exit 0" 0
    agent_until feat 90 "feat	working" || t_fail "v$api: the turn runs" "$(cat "$BOX_OUT")"
    if [ "$api" = 2 ]; then # the agent's part is unknown: the sandbox's passes the budget
        printf 'price_vcpu_second = 1\n' >>"$conf"
    fi

    (cd "$BOX_REPO" && exec "$E2B_TUI_BIN" --keepalive 2>"$T_TMP/keep.err") &
    kpid=$!
    t_on_exit "kill $kpid 2>/dev/null; wait $kpid 2>/dev/null"
    paused() { el_req GET "/sandboxes/$id" >/dev/null; [ "$(el_json .state)" = paused ]; }
    t_ok "v$api: --keepalive pauses the box at its budget" t_wait_until 120 paused
    t_contains "v$api: it says so" "$(cat "$T_TMP/keep.err")" "feat stopped at its \$0.50 budget: pausing it"
    t_contains "v$api: its turn was interrupted first" "$(cat "$T_TMP/keep.err")" "feat: interrupted"
    kill -INT $kpid
    wait $kpid
    t_eq "v$api: the record says stopped at the budget" "$(jq -r .budget_stopped "$rec")" true
    box_tui --status feat
    t_contains "v$api: --status says paused at its budget" "$(cat "$BOX_OUT")" "paused	budget \$0.50 (stopped there)"
    box_tui --status feat --json
    t_eq "v$api: --status --json budget_stopped" "$(jq -r '.boxes[0].budget_stopped' "$BOX_OUT")" true
    t_eq "v$api: --status --json sandbox paused" "$(jq -r '.boxes[0].sandbox' "$BOX_OUT")" paused

    # a prompt from a script does not go past it
    box_tui --prompt feat "more"
    box_rc "v$api: --prompt of a box at its budget: exit 11" 11
    t_contains "v$api: it says why and how to raise it" "$(cat "$BOX_ERR")" \
        "box feat is at its \$0.50 budget (stopped there): nothing was sent (e2b-tui --prompt feat TEXT --budget 1.00 raises it to \$1.00)"
    t_ok "v$api: the box stays paused (not resumed)" paused
    if [ "$api" = 2 ]; then
        sed -i '$d' "$conf" # the sandbox free again: the raised budget is not reached at once
    fi
    box_tui --prompt feat "more" --budget 0.20
    box_rc "v$api: --budget no more than the one it stopped at: exit 11" 11
    t_contains "v$api: it says a raise must be more" "$(cat "$BOX_ERR")" "was stopped at its \$0.50 budget: nothing was sent (give --budget more than that)"
    t_ok "v$api: still paused" paused
    agent_script "$id" '{"steps":[{"text":"More done."}]}'
    box_tui --prompt feat "more" --budget 5
    box_rc "v$api: --prompt --budget 5 raises it and sends: exit 0" 0
    t_contains "v$api: it says the new budget" "$(cat "$BOX_ERR")" "box feat's budget is \$5.00 now"
    t_eq "v$api: the record has the new budget" "$(jq -r .budget_usd "$rec")" 5
    t_eq "v$api: and is no longer stopped" "$(jq -r '.budget_stopped // false' "$rec")" false
    done_turn() { box_tui --wait feat --timeout 30 && grep -q "idle: done" "$BOX_OUT"; }
    t_ok "v$api: the new turn runs to its end" t_wait_until 120 done_turn
    box_tui --kill feat --force
}
