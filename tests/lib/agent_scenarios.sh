# The agent scenarios through the one-shot modes, with the real OpenCode server and the
# scripted model in an e2b-local box; run by tests/integration/agent_v1_test.sh and
# agent_v2_test.sh (API 1 = the `opencode = 1` preset's root routes, 2 = /api/...).
# Source after lib.sh, e2b_local.sh, box.sh, faults.sh and agent.sh; call agent_scenarios API.

# agent_until NAME SECONDS PATTERN: polls --status NAME until its output holds PATTERN.
agent_until() {
    local end=$((SECONDS + $2))
    while :; do
        box_tui --status "$1"
        grep -qF -- "$3" "$BOX_OUT" && return 0
        [ "$SECONDS" -ge "$end" ] && return 1
        sleep 0.3
    done
}

# agent_idle_as WANT NAME: the last --status output says idle, how long ago, then WANT.
agent_idle_as() {
    if grep -qE "^feat	idle [0-9]+[smhd]: $1" "$BOX_OUT"; then t_pass "$2"; else t_fail "$2" "$(head -c 400 "$BOX_OUT")"; fi
}

# agent_owed_mark REC MS SESSION: the record says a turn is owed to a prompt sent at MS (as
# --prompt writes it once the server accepted the prompt), its mode kept.
agent_owed_mark() {
    jq --argjson t "$2" --arg s "$3" '.turn_owed_ms = $t | .turn_owed_session = $s' "$1" >"$T_TMP/owed.json" &&
        cat "$T_TMP/owed.json" >"$1" && rm -f "$T_TMP/owed.json"
}

# agent_owed_scenarios API ID SESSION REC: --wait on an idle box that is owed a turn. The box
# is idle, its last turn done.
agent_owed_scenarios() {
    local api=$1 id=$2 sid=$3 rec=$4 wout werr pid rc asked path body
    # ---- a turn owed starts late: --wait waits for it, not the last turn's end ----
    # (a loaded server may begin an accepted prompt's turn seconds later: with the old 2 s
    # grace --wait took the last turn's end for it. Here the turn starts as late as can be:
    # the record says the prompt was accepted, and the server is given it only once --wait
    # has said it waits for it, past the grace.)
    agent_script "$id" '{"steps":[{"text":"The late turn.","delay":2}]}'
    asked=$(agent_model_log "$id" | grep -c '"title": false')
    agent_owed_mark "$rec" "$(date +%s%3N)" "$sid" || t_fail "v$api: the owed mark is written" "$(cat "$rec")"
    wout=$T_TMP/wait-owed.out werr=$T_TMP/wait-owed.err
    (cd "$BOX_REPO" && exec "$E2B_TUI_BIN" --wait feat --timeout 150) >"$wout" 2>"$werr" &
    pid=$!
    t_ok "v$api: owed: --wait says the idle box is owed a turn and waits for it" \
        t_wait_until 90 grep -q "has not had its turn yet: waiting for it" "$werr"
    sleep 3 # past the old grace: nothing ends a wait for an owed turn but that turn (or --timeout)
    t_ok "v$api: owed: --wait still waits, past the 2 s grace (stderr: $(head -c 300 "$werr"))" kill -0 "$pid"
    if [ "$api" = 1 ]; then
        path=/session/$sid/prompt_async body='{"parts":[{"type":"text","text":"the late prompt"}]}'
    else
        path=/api/session/$sid/prompt body='{"prompt":{"text":"the late prompt"}}'
    fi
    agent_post "$id" feat "$path" "$body" >/dev/null || t_fail "v$api: owed: the late prompt is sent" "POST $path"
    wait "$pid"
    rc=$?
    t_eq "v$api: owed: --wait ends with the late turn: exit 0 (stderr: $(head -c 300 "$werr"))" "$rc" 0
    t_contains "v$api: owed: and says how it ended" "$(cat "$wout")" "idle: done"
    t_ok "v$api: owed: the late turn had reached the model before --wait ended" \
        test "$(agent_model_log "$id" | grep -c '"title": false')" -gt "$asked"
    t_eq "v$api: owed: the mark is gone once the turn was seen" "$(jq -r '.turn_owed_ms // 0' "$rec")" 0

    # ---- a prompt the server refused marks nothing ----
    fault_set '{"kind":"500","method":"POST","path":"/prompt","count":3}'
    box_tui --prompt feat "refused, please"
    t_ok "v$api: owed: a refused prompt fails (exit $BOX_RC: $(head -c 200 "$BOX_ERR"))" test "$BOX_RC" -ne 0
    fault_clear
    t_eq "v$api: owed: and marks no turn owed" "$(jq -r '.turn_owed_ms // 0' "$rec")" 0

    # ---- a mark older than the bound, no turn seen: dropped, said, --wait ends ----
    agent_owed_mark "$rec" "$(($(date +%s%3N) - 11 * 60 * 1000))" "$sid"
    box_tui --wait feat --timeout 60
    box_rc "v$api: owed, lost: --wait ends with the last turn's end (exit 0)" 0
    t_contains "v$api: owed, lost: it says the prompt never started a turn" "$(cat "$BOX_ERR")" "never started a turn (within 10 min): not waited for any more"
    t_eq "v$api: owed, lost: the mark is gone" "$(jq -r '.turn_owed_ms // 0' "$rec")" 0
    t_ok "v$api: owed: the record stays private (0600)" test "$(stat -c %a "$rec")" = 600
}

agent_scenarios() {
    local api=$1 id out sid sid2 pid rec
    agent_setup "$api" || return 1

    # ---- a turn with a todo list and a bash call that asks permission, given at --up ----
    printf 'Write a note, please.\n' >"$T_TMP/task.md"
    box_tui --up feat --prompt-file "$T_TMP/task.md"
    box_rc "v$api: up --prompt-file: exit 0" 0 || return 1
    id=$(box_sandbox_of feat)
    [ -n "$id" ] || return 1
    # the script goes in before the model is asked (the title request needs none)
    agent_script "$id" '{"title":"Note task","steps":[{"tool":"todowrite","args":{"todos":[{"content":"write the note","status":"completed","priority":"high"},{"content":"check it","status":"pending","priority":"low"}]}},{"text":"Writing it.","tool":"bash","args":{"command":"echo hi > note.txt","description":"write the note"}},{"text":"Wrote note.txt."}]}'
    sid=$(tail -n 1 "$BOX_OUT")
    t_contains "v$api: up --prompt prints the session id" "$sid" "ses_"
    box_tui --wait feat --timeout 90
    box_rc "v$api: --wait: exit 6 while the bash call waits for permission" 6
    t_contains "v$api: --wait tells the request on stderr" "$(cat "$BOX_ERR")" "bash: echo hi > note.txt"
    box_tui --status feat
    out=$(cat "$BOX_OUT")
    t_contains "v$api: --status: waiting for you, with what it asks" "$out" "waiting for you: bash: echo hi > note.txt"
    box_tui --status --json
    t_eq "v$api: --status --json: the state" "$(jq -r '.boxes[0].state' "$BOX_OUT")" "waiting for you"
    t_eq "v$api: --status --json: one pending bash request" \
        "$(jq -r '[.boxes[0].requests[] | .action] | join(",")' "$BOX_OUT")" "bash"
    if [ "$api" = 1 ]; then
        # v1 has a todo route; 1.18.33's v2 has none (its todos come only as events, which a
        # one-shot process that starts after them does not see: the dashboard does)
        t_contains "v$api: --status: the todo progress" "$out" "todo 1/2"
        t_eq "v$api: --status --json: the todo items" "$(jq -r '.boxes[0].todos.items | length' "$BOX_OUT")" 2
    fi
    t_ok "v$api: the file is not written before the reply" test ! -e "$(box_root "$id")$BOX_REPO/note.txt"
    box_tui --reply feat once
    box_rc "v$api: --reply once: exit 0" 0
    box_tui --wait feat --timeout 90
    box_rc "v$api: --wait after the reply: exit 0 (the turn finished)" 0
    t_contains "v$api: --wait says how it ended" "$(cat "$BOX_OUT")" "idle: done"
    t_eq "v$api: the tool ran in the box" "$(cat "$(box_root "$id")$BOX_REPO/note.txt" 2>/dev/null)" "hi"
    box_tui --pull feat
    box_rc "v$api: --pull: exit 0" 0
    t_eq "v$api: --pull brings the file the agent wrote home" \
        "$(git -C "$BOX_REPO" show e2b/feat:note.txt 2>/dev/null)" "hi"

    # ---- reject ----
    agent_script "$id" '{"steps":[{"tool":"bash","args":{"command":"rm -rf build","description":"clean"}},{"text":"Cleaned."}]}'
    box_tui --prompt feat "clean up"
    box_rc "v$api: --prompt TEXT: exit 0" 0
    box_tui --wait feat --timeout 90
    box_rc "v$api: --wait: 6 for the rm" 6
    t_contains "v$api: the request says the command" "$(cat "$BOX_ERR")" "bash: rm -rf build"
    box_tui --reply feat reject
    box_rc "v$api: --reply reject: exit 0" 0
    box_tui --wait feat --timeout 90
    box_rc "v$api: --wait after reject: exit 10 (not finished)" 10
    # (the turn may end before --wait starts: a process that never saw it end reads how it
    # ended from the session's newest message)
    t_contains "v$api: a rejected turn ends interrupted" "$(cat "$BOX_OUT")" "idle: interrupted"
    box_tui --status feat
    agent_idle_as "interrupted" "v$api: --status after the reject: idle, how long ago, interrupted"

    # ---- a text-only turn in a new session, the prompt from stdin ----
    agent_script "$id" '{"steps":[{"text":"Hello from the scripted model."}]}'
    BOX_OUT=$T_TMP/box.out BOX_ERR=$T_TMP/box.err
    (cd "$BOX_REPO" && printf 'say hello\n' | "$E2B_TUI_BIN" --prompt feat --new-session) >"$BOX_OUT" 2>"$BOX_ERR"
    BOX_RC=$?
    box_rc "v$api: --prompt from stdin --new-session: exit 0" 0
    sid2=$(tail -n 1 "$BOX_OUT")
    t_contains "v$api: a new session id" "$sid2" "ses_"
    t_ok "v$api: not the first session" test "$sid2" != "$sid"
    rec=$XDG_STATE_HOME/e2b-tui/boxes/feat.json
    t_ok "v$api: the accepted prompt marked its record: a turn is owed (to that session)" \
        jq -e --arg s "$sid2" '.turn_owed_ms > 0 and .turn_owed_session == $s' "$rec"
    box_tui --wait feat --timeout 90
    box_rc "v$api: text-only turn: --wait exit 0" 0
    t_eq "v$api: --wait saw the owed turn end: the mark is gone" "$(jq -r '.turn_owed_ms // 0' "$rec")" 0
    box_tui --wait feat --timeout 30
    box_rc "v$api: --wait again on the finished turn: exit 0" 0
    t_contains "v$api: and it says the turn was done" "$(cat "$BOX_OUT")" "idle: done"
    box_tui --status feat
    agent_idle_as "done" "v$api: --status: idle, how long ago, done"
    box_tui --status feat --json
    t_eq "v$api: the active session is the new one" "$(jq -r '.boxes[0].session.id' "$BOX_OUT")" "$sid2"
    t_eq "v$api: --status --json: last_end done" "$(jq -r '.boxes[0].last_end' "$BOX_OUT")" "done"

    agent_owed_scenarios "$api" "$id" "$sid2" "$rec"

    # ---- hostile text from the model: escapes, bidi, a 100 KB line ----
    agent_script "$id" '{"title":"\u001b]0;pwned\u0007T\u202eitle","steps":[{"text":["\u001b[2J\u001b[31mred\u001b]52;c;Zm9v\u0007 \u202eevil\u202c ", {"repeat":"x","count":100000}, "\u0000end"]},{"text":"ok"}]}'
    box_tui --prompt feat "be hostile"
    box_rc "v$api: hostile turn: --prompt exit 0" 0
    box_tui --wait feat --timeout 90
    box_rc "v$api: hostile turn: --wait exit 0" 0
    box_tui --status feat
    t_ok "v$api: --status output has no escape or bidi control" \
        sh -c "! grep -qP '\\x1b|\\x07|\\xe2\\x80\\xae' '$BOX_OUT'"
    box_tui --status feat --json
    t_ok "v$api: --status --json is valid JSON" jq -e .boxes "$BOX_OUT"
    t_ok "v$api: --status --json has no raw control byte" sh -c "! grep -qP '[\\x00-\\x08\\x0b-\\x1f\\x7f]' '$BOX_OUT'"

    # ---- --wait timing out, then interrupt ----
    agent_script "$id" '{"steps":[{"text":"thinking...","hang":true}]}'
    box_tui --prompt feat "take your time"
    box_rc "v$api: slow turn: --prompt exit 0" 0
    agent_until feat 60 "working" || t_fail "v$api: the slow turn is working" "$(cat "$BOX_OUT")"
    box_tui --wait feat --timeout 2
    box_rc "v$api: --wait --timeout 2 on a working agent: exit 7" 7
    box_tui --interrupt feat
    box_rc "v$api: --interrupt: exit 0" 0
    box_tui --wait feat --timeout 90
    box_rc "v$api: --wait after the interrupt: exit 10 (not finished)" 10
    t_contains "v$api: an interrupted turn ends interrupted (not failed, not done)" "$(cat "$BOX_OUT")" "idle: interrupted"

    # ---- a turn interrupted before its first step, seen by a watch that lives through it ----
    # (found by make soak: v2 says nothing after session.next.prompted when the interrupt
    # comes while the provider's first request waits; the dashboard stayed "working" with
    # the server idle. The watch now asks the server after 5 s of silence while working.)
    agent_script "$id" '{"steps":[{"error":{"status":500,"type":"server_error","message":"overloaded"},"delay":4,"times":3},{"text":"recovered"}]}'
    box_tui --prompt feat "interrupted as it starts"
    box_rc "v$api: early interrupt: --prompt exit 0" 0
    local wout=$T_TMP/early.out
    (cd "$BOX_REPO" && exec "$E2B_TUI_BIN" --wait feat --timeout 60) >"$wout" 2>&1 &
    pid=$!
    # the --wait's watch is to be up before the interrupt (the provider's answer is 4 s away;
    # a slower start only makes this a turn seen ended at connect)
    sleep 1.5
    box_tui --interrupt feat
    box_rc "v$api: early interrupt: --interrupt exit 0" 0
    wait "$pid"
    t_eq "v$api: a watch across an interrupt before the first step sees the turn end (exit 10, not 7)" "$?" 10
    t_contains "v$api: and says it ended interrupted" "$(cat "$wout")" "idle: interrupted"
    rm -f "$wout"
    box_tui --wait feat --timeout 30 # a late model answer (none is asked for) would show here
    box_rc "v$api: the server is idle after the early interrupt (10: interrupted)" 10
    box_tui --status feat
    t_contains "v$api: a process started after it also says the turn was interrupted" "$(cat "$BOX_OUT")" "interrupted"

    # ---- the event stream dropped by a fault while a request waits: reconnected, shown once ----
    agent_script "$id" '{"steps":[{"tool":"bash","args":{"command":"echo dropped > d.txt","description":"d"}},{"text":"ok"}]}'
    box_tui --prompt feat "write d"
    agent_until feat 60 "waiting for you" || t_fail "v$api: waiting before the drop" "$(cat "$BOX_OUT")"
    local evpath=/event
    [ "$api" = 2 ] && evpath=/api/event
    fault_set "{\"kind\":\"drop\",\"path\":\"$evpath\",\"afterBytes\":0,\"count\":1}"
    box_tui --wait feat --timeout 60
    box_rc "v$api: --wait across a dropped stream: exit 6" 6
    t_eq "v$api: the drop fault was used" "$(fault_left)" 0
    t_eq "v$api: the request is told once" "$(grep -c 'echo dropped' "$BOX_ERR")" 1
    box_tui --reply feat once
    box_tui --wait feat --timeout 90
    box_rc "v$api: after the drop the turn finishes: exit 0" 0

    # ---- a snapshot call refused once (a busy server) while the stream is up: taken again ----
    # (found by make soak: 20 servers starting answered the request lists after 30 s; the
    # watch stayed unsynced, and --prompt said "server down" at the end of its wait)
    agent_script "$id" '{"steps":[{"text":"after the refused list"}]}'
    fault_set '{"kind":"500","path":"/permission","count":1}'
    local t0=$SECONDS
    box_tui --prompt feat "after a refused list"
    box_rc "v$api: the permission list refused once: --prompt exit 0" 0
    t_eq "v$api: the refusal was used" "$(fault_left)" 0
    t_ok "v$api: the snapshot was taken again within seconds, not at the end of the wait" \
        test $((SECONDS - t0)) -lt 60
    box_tui --wait feat --timeout 90
    box_rc "v$api: that turn finishes: exit 0" 0
    # a server that answers but whose request list keeps failing is not called "down"
    fault_set '{"kind":"500","path":"/permission","count":1000}'
    E2B_TUI_HEALTH_TIMEOUT=4 box_tui --prompt feat "never sent"
    box_rc "v$api: state never read: --prompt exit 1" 1
    t_contains "v$api: it says the server answers but did not tell its state" "$(cat "$BOX_ERR")" "answers but did not tell its state within 4 s"
    t_not_contains "v$api: and does not call it down" "$(cat "$BOX_ERR")" "server is down"
    fault_clear

    # ---- a provider error: retrying, then failed ----
    local mark events why=overloaded
    if [ "$api" = 1 ]; then
        why="scripted failure" # the retry's answer
        agent_script "$id" '{"steps":[{"error":{"status":500,"type":"server_error","message":"the provider is overloaded"},"delay":3},{"error":{"status":400,"type":"invalid_request_error","message":"scripted failure"},"delay":6,"times":20}]}'
    else
        # v2 (1.18.33) has no retry state to show: its loop does not retry, and the
        # provider's own client retries a 5xx twice before the step begins, unseen. Seen on
        # its /api/event for three 500s: session.next.prompt.admitted, session.next.prompted,
        # session.next.step.started, session.next.step.failed {"error":{"type":"unknown",
        # "message":"Provider request failed with HTTP 500: {…overloaded…}"}}; no
        # session.next.retried (its /doc defines one) and /api/session/active only ever says
        # {"type":"running"}. So checked here: the stream says exactly that, the model was
        # asked three times, the state is never "retrying", and the turn fails with the
        # provider's words (a fourth request would have been answered and the turn done).
        agent_script "$id" '{"steps":[{"error":{"status":500,"type":"server_error","message":"the provider is overloaded"},"delay":1,"times":3},{"text":"recovered"}]}'
        mark=$(agent_model_log "$id" | wc -l)
        events=$T_TMP/events.v2
        agent_events_start "$id" 2 feat "$events" || t_fail "v$api: the event stream is read" "no first frame in 20 s: $(head -c 300 "$events")"
    fi
    box_tui --prompt feat "fail please"
    box_rc "v$api: failing turn: --prompt exit 0" 0
    if [ "$api" = 1 ]; then
        # the v1 loop retries a server_error (the retry is in /session/status)
        if agent_until feat 30 "retrying"; then
            t_pass "v$api: --status shows retrying"
            t_contains "v$api: with the provider's message" "$(cat "$BOX_OUT")" "overloaded"
            t_ok "v$api: and the attempt" grep -qE 'retrying \(attempt [1-9][0-9]*\)' "$BOX_OUT"
            box_tui --status feat --json
            if [ "$(jq -r '.boxes[0].state' "$BOX_OUT")" = retrying ]; then
                t_ok "v$api: --status --json: when the next try is" jq -e '.boxes[0].retry.next | test("^20[0-9-]+T")' "$BOX_OUT"
            fi
        else
            t_fail "v$api: --status shows retrying" "$(cat "$BOX_OUT")"
        fi
    else
        local seen="" end=$((SECONDS + 60))
        while [ "$SECONDS" -lt "$end" ]; do
            box_tui --status feat
            seen+=$(cut -f2 "$BOX_OUT" | head -n 1)$'\n'
            grep -q "idle.*failed" "$BOX_OUT" && break
            sleep 0.3
        done
        t_not_contains "v$api: the state is never retrying (v2 says no retry)" "$seen" "retrying"
        t_contains "v$api: it fails with the provider's words" "$seen" "failed: Provider request failed with HTTP 500: the provider is overloaded"
    fi
    # --wait from before the failure (v1: the model answers after 3 s, then 6 s)
    box_tui --wait feat --timeout 120
    box_rc "v$api: --wait on a failed turn: exit 1" 1
    t_contains "v$api: --wait tells the error" "$(cat "$BOX_ERR")" "failed"
    if [ "$api" = 2 ]; then
        agent_events_stop
        t_eq "v$api: the model was asked three times (the provider client's retries)" \
            "$(agent_model_log "$id" | tail -n +"$((mark + 1))" | grep -c '"title": false, "step": 0,')" 3
        t_eq "v$api: and never a fourth (no retry by the server)" \
            "$(agent_model_log "$id" | tail -n +"$((mark + 1))" | grep -c '"step": 1,')" 0
        t_ok "v$api: the event stream was read" grep -q '"server.connected"' "$events"
        t_ok "v$api: the stream says the step failed with the provider's message" \
            grep -q '"session.next.step.failed".*overloaded' "$events"
        t_ok "v$api: and has no retry event" sh -c "! grep -q 'session.next.retried' '$events'"
        rm -f "$events"
    fi
    # a process that starts after the failure reads it from the session's last message
    box_tui --wait feat --timeout 30
    box_rc "v$api: --wait on a box whose last turn failed: exit 1" 1
    t_contains "v$api: with the provider's words" "$(cat "$BOX_ERR")" "$why"
    box_tui --status feat
    agent_idle_as "failed: " "v$api: --status: idle, how long ago, failed"
    t_contains "v$api: --status tells the error" "$(cat "$BOX_OUT")" "$why"

    # ---- the server killed mid-turn: server down ----
    agent_script "$id" '{"steps":[{"text":"long...","hang":true,"times":50}]}'
    # (times: a retry of the failed turn above may still come and take the first)
    box_tui --prompt feat --new-session "hang"
    # (v1 does not always show this turn as working to a new process: not checked here; the
    # slow turn above checks "working")
    agent_until feat 20 "working" || true
    pid=$(agent_server_pid "$id")
    if [ -n "$pid" ]; then
        kill -9 "$pid"
        agent_until feat 60 "server down" && t_pass "v$api: --status shows server down after the kill" ||
            t_fail "v$api: --status shows server down after the kill" "$(cat "$BOX_OUT")"
        box_tui --wait feat --timeout 30
        box_rc "v$api: --wait with the server down: exit 1" 1
    else
        t_fail "v$api: the box's opencode serve is found" "no pid"
    fi

    # ---- no such box ----
    box_tui --wait nosuchbox --timeout 5
    box_rc "v$api: --wait on no such box: exit 3" 3
    box_tui --kill feat --force # the agent wrote files that are not pulled
    box_rc "v$api: kill: exit 0" 0
    return 0
}
