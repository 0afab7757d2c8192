# Helpers for the fault tests (source after lib.sh, e2b_local.sh and box.sh).
#   fault_set JSON         queues faults on e2b-local (object or array)
#   fault_clear            clears every queued fault
#   fault_left             how many queued faults are still waiting for a request
#   fl_mark                remembers where e2b-local's request log ends
#   fl_count REGEX         how many log lines since the mark match REGEX (e.g. '^POST /v2/sandboxes ')
#   fl_sandboxes           how many sandboxes e2b-local has (any state)
#   fl_records_sound NAME  checks the box records: each parses, is 0600, no temp file is left,
#                          and `--list --json` still works
#   fl_repo_state DIR      HEAD, branches except e2b/*, the index, the work tree's status and
#                          diff (cheaper than box_snapshot, for many cases)
#   fl_stderr_clean NAME FILE
#                          no sanitizer report, no raw JSON, and every line an "e2b-tui: " line
fault_set() {
    curl -sS -o /dev/null -X POST "$E2B_LOCAL_URL/_e2b-local/faults" -d "$1"
}
fault_clear() {
    curl -sS -o /dev/null -X DELETE "$E2B_LOCAL_URL/_e2b-local/faults"
}
fault_left() {
    curl -sS "$E2B_LOCAL_URL/_e2b-local/faults" | jq 'map(.count) | add // 0'
}

FL_LOG_MARK=0
fl_mark() {
    FL_LOG_MARK=$(wc -l <"$E2B_LOCAL_STATE/e2b-local.log")
}
# The request lines of the log look like "<time> METHOD /path STATUS Nms".
fl_count() {
    tail -n +$((FL_LOG_MARK + 1)) "$E2B_LOCAL_STATE/e2b-local.log" | cut -d' ' -f2- | grep -Ec -- "$1"
}
fl_sandboxes() {
    el_req GET /v2/sandboxes >/dev/null
    el_json length
}

fl_records_sound() {
    local dir=$XDG_STATE_HOME/e2b-tui/boxes f bad=
    for f in "$dir"/* "$dir"/.[!.]*; do
        [ -e "$f" ] || continue
        case "$f" in
        *.json) ;;
        *) bad="$bad stray file $(basename "$f");" ; continue ;;
        esac
        jq -e .sandbox_id "$f" >/dev/null 2>&1 || bad="$bad $(basename "$f") does not parse;"
        [ "$(stat -c %a "$f")" = 600 ] || bad="$bad $(basename "$f") is mode $(stat -c %a "$f");"
    done
    if [ -n "$bad" ]; then t_fail "$1: records sound" "$bad"; else t_pass "$1: records sound"; fi
    local out
    if out=$(cd "$BOX_REPO" && "$E2B_TUI_BIN" --list --json 2>&1) && printf '%s' "$out" | jq -e .version >/dev/null 2>&1; then
        t_pass "$1: --list --json works afterwards"
    else
        t_fail "$1: --list --json works afterwards" "$(printf '%s' "$out" | head -c 300)"
    fi
}

fl_stderr_clean() {
    local text
    text=$(cat "$2")
    if grep -Eq 'AddressSanitizer|LeakSanitizer|runtime error:|UndefinedBehavior' "$2"; then
        t_fail "$1: no sanitizer report" "$(head -c 600 "$2")"
        return
    fi
    if grep -q '{"' "$2"; then
        t_fail "$1: no raw JSON in the message" "$text"
        return
    fi
    if grep -vq '^e2b-tui: ' "$2"; then
        t_fail "$1: every stderr line is an e2b-tui message" "$text"
        return
    fi
    t_pass "$1: clean stderr"
}

fl_repo_state() {
    (
        cd "$1" || exit 1
        git rev-parse HEAD
        git symbolic-ref -q HEAD
        git for-each-ref --format='%(refname) %(objectname)' refs/heads | grep -v ' *refs/heads/e2b/'
        sha256sum .git/index
        git --no-optional-locks status --porcelain=v1 -uall --ignored
        git diff HEAD --binary
    ) 2>&1 | sha256sum | cut -c1-64
}
