# The fault matrix (tests/integration/fault_matrix_test.sh says what it checks and why), in
# parts that run side by side. Source after lib.sh, e2b_local.sh, box.sh and faults.sh, once
# box_setup has run; then
#   fm_matrix ERE          runs the cases whose "action path kind" matches ERE (grep -E), with
#                          box fm (the attach, stop and pull cases use it) up, then kills fm
#                          and checks that no sandbox is left
SECRET_VALUE=sk-ant-fault-matrix-$RANDOM$RANDOM
# Request timeout 6 s: "delay" (1.5 s) stays well below it on a loaded machine, "slow" (12 s)
# well beyond it.
export E2B_TUI_HTTP_TIMEOUT=6

#   action      path                          kind      rc  message
CASES='
list        /v2/sandboxes                 429       0   -
list        /v2/sandboxes                 500       1   listing sandboxes: E2B server error 500
list        /v2/sandboxes                 503       1   listing sandboxes: E2B is temporarily busy (503)
list        /v2/sandboxes                 truncate  1   listing sandboxes: the connection
list        /v2/sandboxes                 delay     0   -
list        /v2/sandboxes                 slow      1   listing sandboxes: 127.0.0.1
json        /v2/sandboxes                 429       0   -
json        /v2/sandboxes                 500       1   listing sandboxes: E2B server error 500
json        /v2/sandboxes                 truncate  1   listing sandboxes: the connection
up          /secrets                      429       0   -
up          /secrets                      500       1   reading the secrets
up          /secrets                      truncate  1   reading the secrets
up          GET:/v2/sandboxes             429       0   -
up          GET:/v2/sandboxes             500       1   checking the name: listing sandboxes: E2B server error 500
up          GET:/v2/sandboxes             truncate  1   checking the name: listing sandboxes: the connection
up          POST:/v2/sandboxes            429       0   -
up          POST:/v2/sandboxes            500       1   creating the sandbox: creating a sandbox from template
up          POST:/v2/sandboxes            503       1   creating the sandbox: creating a sandbox from template
up          POST:/v2/sandboxes            truncate  1   creating the sandbox: creating a sandbox from template
up          POST:/v2/sandboxes            drop      1   creating the sandbox: creating a sandbox from template
up          /files                        429       1   uploading the project
up          /files                        500       1   uploading the project
up          /files                        truncate  1   uploading the project
up          /process.Process/Start        429       0   -
up          /process.Process/Start        500       1   extracting the project
up          /process.Process/Start        truncate  1   extracting the project
up          /api/health                   500       0   -
up          /api/health                   truncate  0   -
up          /api/health                   slow      1   did not become healthy within 2 s
attach      /connect                      429       0   -
attach      /connect                      500       1   attaching to box fm: connecting: E2B server error 500
attach      /connect                      503       0   -
attach      /connect                      truncate  1   attaching to box fm: connecting: the connection
attach      /connect                      drop      1   attaching to box fm: connecting: the connection
attach      /process.Process/List         429       0   -
attach      /process.Process/List         500       1   attaching to box fm: listing the box
attach      /process.Process/List         truncate  1   attaching to box fm: listing the box
attach      /api/health                   503       0   -
stop        /pause                        429       0   -
stop        /pause                        500       1   pausing box fm: E2B server error 500
stop        /pause                        503       0   -
stop        /pause                        truncate  0   -
kill        DELETE:/sandboxes/            429       0   -
kill        DELETE:/sandboxes/            500       1   killing box fmk: E2B server error 500
kill        DELETE:/sandboxes/            503       0   -
kill        DELETE:/sandboxes/            drop      0   -
pull        /connect                      429       0   -
pull        /connect                      500       1   pulling box fm: connecting
pull        /connect                      truncate  1   pulling box fm: connecting
pull        /process.Process/Start        429       0   -
pull        /process.Process/Start        500       1   pulling box fm: committing the work in the box
pull        /process.Process/Start        drop      1   pulling box fm: committing the work in the box: the connection
pull        /files                        429       0   -
pull        /files                        500       1   pulling box fm: downloading the bundle
pull        /files                        truncate  1   pulling box fm: downloading the bundle
pull        /files                        drop      1   pulling box fm: downloading the bundle
pull        /filesystem.Filesystem/Remove 500       0   -
secret-set  /secrets                      429       0   -
secret-set  /secrets                      500       1   creating secret anthropic: E2B server error 500
secret-set  /secrets                      503       1   creating secret anthropic: E2B is temporarily busy
secret-set  /secrets                      truncate  1   creating secret anthropic: the connection
secret-list /secrets                      429       0   -
secret-list /secrets                      500       1   listing secrets: E2B server error 500
secret-list /secrets                      drop      1   listing secrets: the connection
secret-list /secrets                      slow      1   listing secrets: 127.0.0.1
secret-rm   /secrets                      429       0   -
secret-rm   /secrets                      500       1   deleting secret anthropic: E2B server error 500
'

HEALTH_POLLS=1000 # the "slow" health fault holds this many polls (more than 2 s can make)
# The fault JSON of a kind: "delay" stays below the request timeout (6 s here), "slow" goes
# beyond it (or, on the health poll, beyond E2B_TUI_HEALTH_TIMEOUT, for every poll).
fault_json() {
    local m=
    case $1 in
    *:*) m=",\"method\":\"${1%%:*}\""; set -- "${1#*:}" "$2" ;;
    esac
    fault_json_of "$1" "$2" | sed "s/}\$/$m}/"
}
fault_json_of() {
    case $2 in
    429) echo "{\"kind\":\"429\",\"path\":\"$1\",\"retryAfter\":1}" ;;
    delay) echo "{\"kind\":\"delay\",\"path\":\"$1\",\"delayMs\":1500}" ;;
    slow) if [ "$1" = /api/health ]; then
              # every poll: a probe gives up after 0.5 s and the next one would be answered
              echo "{\"kind\":\"delay\",\"path\":\"$1\",\"delayMs\":6000,\"count\":$HEALTH_POLLS}"
          else
              echo "{\"kind\":\"delay\",\"path\":\"$1\",\"delayMs\":12000}"
          fi ;;
    *) echo "{\"kind\":\"$2\",\"path\":\"$1\"}" ;;
    esac
}

boxes=$XDG_STATE_HOME/e2b-tui/boxes
g() { git -C "$BOX_REPO" "$@"; }
passwords() { grep -vc '^#' "$XDG_STATE_HOME/e2b-tui/passwords" 2>/dev/null || true; }
state_of() { el_req GET "/sandboxes/$1" >/dev/null; el_json .state; }
resume() { el_req POST "/v2/sandboxes/$1/connect" '{}' >/dev/null; }

n=0
# ---- per action: prepare (no fault yet), run, check what the action must leave behind ----
prep() {
    case $1 in
    up) UP_NAME=fu$n UP_BEFORE=$(fl_sandboxes) PW_BEFORE=$(passwords) ;;
    stop) [ "$(state_of "$FM")" = running ] || resume "$FM" ;;
    kill) box_tui --up fmk; box_setup_rc "$2: up fmk" 0; KILL_ID=$(box_sandbox_of fmk) ;;
    pull)
        box_exec "$FM" "cd '$BOX_REPO' && echo change $n >>src/main.c" >/dev/null
        PULL_SNAP=$(fl_repo_state "$BOX_REPO")
        PULL_BRANCH=$(g rev-parse -q --verify refs/heads/e2b/fm || echo none)
        ;;
    secret-set) el_req DELETE /secrets/anthropic >/dev/null ;;
    secret-rm) printf '%s\n' "$SECRET_VALUE" | E2B_TUI_HTTP_TIMEOUT= "$E2B_TUI_BIN" --secrets set anthropic >/dev/null 2>&1 ;;
    esac
}

run() {
    case $1 in
    list) box_tui --list ;;
    json) box_tui --list --json ;;
    # A short health deadline only where it must run out (every poll held beyond it); the
    # others wait as long as a loaded machine needs for the server to answer.
    up) if [ "$kind" = slow ] && [ "$path" = /api/health ]; then
            E2B_TUI_HEALTH_TIMEOUT=2 box_tui --up "$UP_NAME"
        else
            E2B_TUI_HEALTH_TIMEOUT=60 box_tui --up "$UP_NAME"
        fi ;;
    attach) box_tui --attach fm ;;
    stop) box_tui --stop fm ;;
    kill) box_tui --kill fmk ;;
    pull) box_tui --pull fm ;;
    secret-set) BOX_OUT=$T_TMP/box.out BOX_ERR=$T_TMP/box.err
                printf '%s\n' "$SECRET_VALUE" | "$E2B_TUI_BIN" --secrets set anthropic >"$BOX_OUT" 2>"$BOX_ERR"
                BOX_RC=$? ;;
    secret-list) box_tui --secrets list ;;
    secret-rm) box_tui --secrets remove anthropic ;;
    esac
}

check() { # action name rc
    local a=$1 name=$2 rc=$3
    case $a in
    json)
        if [ "$rc" = 0 ]; then
            t_ok "$name: stdout is the JSON listing" jq -e '.version == 1' "$BOX_OUT"
        else
            t_eq "$name: nothing half-printed on stdout" "$(wc -c <"$BOX_OUT")" 0
        fi ;;
    up)
        if [ "$rc" = 0 ]; then
            t_ok "$name: the record was written" test -f "$boxes/$UP_NAME.json"
            box_tui --kill "$UP_NAME"
        else
            t_eq "$name: no stray sandbox" "$(fl_sandboxes)" "$UP_BEFORE"
            t_ok "$name: no record" test ! -e "$boxes/$UP_NAME.json"
            t_eq "$name: no password left" "$(passwords)" "$PW_BEFORE"
        fi
        local creates=$(($(fl_count '^POST .*/v2/sandboxes [0-9]') - $(fl_count '^POST .*/v2/sandboxes 429')))
        t_eq "$name: the create was sent at most once (plus 429 retries)" "$((creates <= 1))" 1 ;;
    stop)
        if [ "$rc" = 0 ]; then
            t_eq "$name: the box is paused" "$(state_of "$FM")" paused
        else
            t_eq "$name: the box still runs" "$(state_of "$FM")" running
        fi ;;
    kill)
        if [ "$rc" = 0 ]; then
            t_ok "$name: record removed" test ! -e "$boxes/fmk.json"
            t_eq "$name: sandbox gone" "$(el_req GET "/sandboxes/$KILL_ID")" 404
        else
            t_ok "$name: record kept (the sandbox still exists)" test -f "$boxes/fmk.json"
            t_eq "$name: sandbox still there" "$(el_req GET "/sandboxes/$KILL_ID")" 200
            box_tui --kill fmk
        fi ;;
    pull)
        t_eq "$name: HEAD, index and work tree unchanged" "$(fl_repo_state "$BOX_REPO")" "$PULL_SNAP"
        t_eq "$name: repository fsck-clean" "$(g fsck --no-progress 2>&1)" ""
        t_eq "$name: no temporary pack left" "$(find "$BOX_REPO/.git/objects" -name '*tmp*' | wc -l)" 0
        if [ "$rc" = 0 ]; then
            t_ok "$name: e2b/fm holds the new work" sh -c "git -C '$BOX_REPO' show e2b/fm:src/main.c | grep -q 'change $n'"
        else
            t_eq "$name: e2b/fm not moved" "$(g rev-parse -q --verify refs/heads/e2b/fm || echo none)" "$PULL_BRANCH"
        fi ;;
    secret-set | secret-list | secret-rm)
        t_not_contains "$name: the secret value is never printed" "$(cat "$BOX_OUT" "$BOX_ERR")" "$SECRET_VALUE" ;;
    esac
}

fm_matrix() {
    # The box the attach, stop and pull cases use.
    box_tui --up fm
    box_setup_rc "up fm" 0
    FM=$(box_sandbox_of fm)
    echo "remember me" | E2B_TUI_HTTP_TIMEOUT= "$E2B_TUI_BIN" --secrets set anthropic >/dev/null 2>&1

    local start=$SECONDS cases=0
    while read -r action path kind want msg; do
        [ -n "$action" ] || continue
        n=$((n + 1)) # counts every row: a case has the same box names in any part
        grep -Eq -- "$1" <<<"$action $path $kind" || continue
        cases=$((cases + 1))
        name="$action $kind on $path"
        fault_clear
        prep "$action" "$name"
        fl_mark
        # attach lists the box's processes only when its server does not answer: a failed
        # health probe first leads it there.
        [ "$action $path" = "attach /process.Process/List" ] &&
            fault_set '{"kind":"500","path":"/api/health","count":1}'
        fault_set "$(fault_json "$path" "$kind")"
        t0=$SECONDS
        run "$action"
        took=$((SECONDS - t0))
        left=$(fault_left)
        fault_clear
        if [ "$kind" = slow ] && [ "$path" = /api/health ]; then
            t_ok "$name: the fault was hit" test "$left" -lt "$HEALTH_POLLS"
        else
            t_eq "$name: the fault was hit" "$left" 0
        fi
        box_rc "$name: exit $want" "$want"
        if [ "$msg" != - ]; then
            t_eq "$name: one line on stderr" "$(grep -c '' "$BOX_ERR")" 1
            t_contains "$name: the message says what failed" "$(head -n1 "$BOX_ERR")" "$msg"
        fi
        fl_stderr_clean "$name" "$BOX_ERR"
        if [ "$kind" = 429 ]; then
            re=${path#*:} # with the method when the case names one (kill's look GETs the sandbox)
            [[ $path == *:* ]] && re="${path%%:*} $re"
            t_eq "$name: retried after the 429" "$(($(fl_count "$re.* [0-9]{3} ") >= 2))" \
                "$([ "$path" = /files ] && [ "$action" = up ] && echo 0 || echo 1)"
        fi
        [ "$took" -le 60 ] || t_fail "$name: ends (hang check)" "took $took s"
        check "$action" "$name" "$BOX_RC"
        # A failure must not leave a half-written record behind (the actions that write them).
        case $action:$BOX_RC in
        up:0 | kill:0 | pull:0 | attach:0 | stop:0) ;;
        up:* | kill:* | pull:* | attach:* | stop:*) fl_records_sound "$name" ;;
        esac
        echo "# $name: ${took}s"
    done <<<"$CASES"
    echo "# $cases cases in $((SECONDS - start)) s"

    box_tui --kill fm
    t_eq "after the matrix: no sandbox left" "$(fl_sandboxes)" 0
}
