# The crash tests' kill, checks and sections (source after lib.sh, e2b_local.sh and box.sh,
# once box_setup has run). A crash program is one or more sections, then crash_end:
#   crash_orphan           the deterministic orphan: an up killed while it waits for a server
#                          that never becomes healthy (sandbox made, password stored, no record)
#   crash_up_kills F L     up kills number F to L (the aims cycle through the steps by
#                          number: the same kill has the same aim and delay whichever program
#                          runs it)
#   crash_pull_kills N     pull kills 1 to N, against box p
#   crash_end              the count of kills inside a step, and nothing left at the end
# What every kill checks is said in tests/integration/crash_test.sh. The delays come from
# an RNG seeded once (CRASH_SEED=N changes it) and advanced past the draws of the kills that
# come before in the order up 1-11, pull 1-11: a split run draws the delays an unsplit one
# did.
boxes=$XDG_STATE_HOME/e2b-tui/boxes
passwords=$XDG_STATE_HOME/e2b-tui/passwords
cfg=$XDG_CONFIG_HOME/e2b-tui/config
good_cfg=$(cat "$cfg")
SEED=${CRASH_SEED:-2121}
CRASH_UP_ALL=11 # the up kills an unsplit run made before its pull kills (for the RNG)
echo "crash test: seed $SEED (CRASH_SEED=N for other delays)"

g() { git -C "$BOX_REPO" "$@"; }
ms_now() { date +%s%3N; }
sleep_ms() { sleep "$(printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)))"; }
# draw_ms SPAN: sets delay to a delay in [0, SPAN) ms from the seeded RNG (two draws: $RANDOM
# has 15 bits). Not in a $(...): a subshell reseeds RANDOM, the delays would not repeat.
draw_ms() { delay=$(((RANDOM * 32768 + RANDOM) % $1)); }

tuilog=$XDG_STATE_HOME/e2b-tui/e2b-tui.log
ellog=$E2B_LOCAL_STATE/e2b-local.log
# lines_of FILE: its line count (0 when it does not exist yet).
lines_of() { if [ -e "$1" ]; then wc -l <"$1"; else echo 0; fi; }
# held_count FROM METHOD PATH: e2b-local log lines after line FROM for METHOD ... PATH.
held_count() { tail -n +$(($1 + 1)) "$ellog" | awk -v m="$2" -v p="$3" '$2 == m && index($0, p) { n++ } END { print n + 0 }'; }

# run_and_kill ACTION NAME AIM HOLD DELAY ARGS...: starts e2b-tui ARGS in the background
# and SIGKILLs it DELAY ms after its log says step AIM began ("" = after the start). HOLD
# ("METHOD PATH" or "") is the request of that step e2b-local holds for 1.5 s, so that the
# process is still in the step when the kill comes. Sets KILLED=1 when the process was
# still running, KILL_RC, and LANDED: the last step e2b-tui's log shows for this run
# ("done" when it had finished, "failed" when it had failed).
run_and_kill() {
    local action=$1 name=$2 aim=$3 hold=$4 delay=$5 t0 e0 i held0=0 method= path=
    shift 5
    t0=$(lines_of "$tuilog")
    e0=$(lines_of "$ellog")
    if [ -n "$hold" ]; then
        method=${hold%% *} path=${hold#* }
        el_req POST /_e2b-local/faults \
            "{\"kind\":\"delay\",\"delayMs\":1500,\"method\":\"$method\",\"path\":\"$path\"}" >/dev/null
    fi
    (cd "$BOX_REPO" && exec "$E2B_TUI_BIN" "$@") >"$T_TMP/kill.out" 2>"$T_TMP/kill.err" &
    local pid=$!
    if [ -n "$aim" ]; then
        for ((i = 0; i < 1500; i++)); do
            tail -n +$((t0 + 1)) "$tuilog" 2>/dev/null | grep -qF -- "box $action $name: $aim" && break
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.02
        done
    fi
    # CRASH_MISS=1: every kill comes after the action ended (the count below must catch it).
    [ "${CRASH_MISS:-0}" = 1 ] && while kill -0 "$pid" 2>/dev/null && ! tail -n +$((t0 + 1)) "$tuilog" | grep -q "box $action $name: \(done\|failed\) after"; do sleep 0.05; done && sleep 0.3
    sleep_ms "$delay"
    [ -n "$hold" ] && held0=$(held_count "$e0" "$method" "$path")
    KILLED=0
    kill -KILL "$pid" 2>/dev/null && KILLED=1
    wait "$pid" 2>/dev/null
    KILL_RC=$?
    LANDED=$(tail -n +$((t0 + 1)) "$tuilog" | sed -n "s/^[^ ]* box $action $name: //p" | tail -n 1)
    case $LANDED in
    "done after"*) LANDED=done ;;
    "failed after"*) LANDED=failed ;;
    "") LANDED=none ;;
    esac
    # The held request is still handled by e2b-local (a create finishing after its client
    # died): let it land before looking. A hold nobody asked for is dropped.
    if [ -n "$hold" ]; then
        el_req GET /_e2b-local/faults >/dev/null
        if [ "$(el_json length)" != 0 ]; then
            el_req DELETE /_e2b-local/faults >/dev/null
        else
            for ((i = 0; i < 100; i++)); do
                [ "$(held_count "$e0" "$method" "$path")" -gt "$held0" ] && break
                sleep 0.1
            done
        fi
    fi
    sleep 0.4
}

# A kill inside a step is a crash; one after the action ended tested nothing.
CRASHES=0 RUNS=0
count_crash() {
    RUNS=$((RUNS + 1))
    if [ "$KILLED" = 1 ] && [ "$LANDED" != done ] && [ "$LANDED" != failed ] && [ "$LANDED" != none ]; then
        CRASHES=$((CRASHES + 1))
    fi
}

# Sandbox ids whose box metadata names NAME.
sandboxes_named() {
    el_req GET /v2/sandboxes >/dev/null
    el_json "[.[] | select((.metadata // {})[\"e2b-tui.name\"] == \"$1\") | .sandboxID] | join(\" \")"
}

password_entries() { # NAME: lines of the password file that hold NAME's password
    # (the file exists from the first up on: its absence is no proof of anything)
    [ -f "$passwords" ] || { echo "no password file"; return; }
    grep -c "^$1"$'\t' "$passwords" || true
}

# Checks shared by up and pull after a kill. LABEL
check_local_state() {
    local label=$1 bad=
    box_tui --list --json
    if [ "$BOX_RC" != 0 ] || ! jq -e . "$BOX_OUT" >/dev/null 2>&1; then
        t_fail "$label: records parse (--list --json)" "exit $BOX_RC: $(head -c 300 "$BOX_ERR")"
        return
    fi
    local f n
    for f in "$boxes"/*.json; do
        [ -e "$f" ] || continue
        n=$(basename "$f" .json)
        jq -e --arg n "$n" '.name == $n and (.sandbox_id | length) > 0' "$f" >/dev/null 2>&1 ||
            bad="$bad $n(unparsable)"
        [ "$(stat -c %a "$f")" = 600 ] || bad="$bad $n(mode $(stat -c %a "$f"))"
        jq -e --arg n "$n" '[.. | objects | select(.name? == $n and .local? == true)] | length == 1' \
            "$BOX_OUT" >/dev/null || bad="$bad $n(not listed as local)"
    done
    [ ! -d "$boxes" ] || [ "$(stat -c %a "$boxes")" = 700 ] || bad="$bad dir-mode"
    local tmps
    tmps=$(find "$boxes" -name '*.tmp' 2>/dev/null | wc -l)
    [ "$tmps" = 0 ] || bad="$bad $tmps-temp-files"
    if [ -n "$bad" ]; then t_fail "$label: records whole, private, listed" "$bad"; else t_pass "$label: records whole, private, listed"; fi
    local fsck
    if fsck=$(g fsck --full --no-progress 2>&1) && ! grep -qiE 'error|missing|broken|corrupt' <<<"$fsck"; then
        t_pass "$label: git fsck --full clean"
    else
        t_fail "$label: git fsck --full clean" "$(head -c 400 <<<"$fsck")"
    fi
    t_eq "$label: HEAD, branches, index and work tree unchanged" "$(box_snapshot "$BOX_REPO")" "$before"
}

before=$(box_snapshot "$BOX_REPO")

# crash_rng_at K: the RNG as it was after K delays were drawn (two draws each).
crash_rng_at() {
    local k
    RANDOM=$SEED
    for ((k = 0; k < $1 * 2; k++)); do : $RANDOM; done
}

# crash_reference_up: the time a whole up takes (the span the "anywhere" kills are drawn
# from), in up_ms.
crash_reference_up() {
    t0=$(ms_now)
    box_tui --up ref
    up_ms=$(($(ms_now) - t0))
    box_setup_rc "reference up" 0
    box_tui --kill ref
    box_setup_rc "reference kill" 0
    [ "$up_ms" -lt 500 ] && up_ms=500
    echo "crash test: a whole up takes ${up_ms} ms"
}

crash_orphan() {
    printf 'serve_command = sleep 600\n' >"$cfg"
    (cd "$BOX_REPO" && exec env E2B_TUI_HEALTH_TIMEOUT=60 "$E2B_TUI_BIN" --up orphan) >"$T_TMP/o.out" 2>"$T_TMP/o.err" &
    opid=$!
    for ((i = 0; i < 200; i++)); do
        [ -n "$(sandboxes_named orphan)" ] && [ "$(password_entries orphan)" != 0 ] && break
        sleep 0.1
    done
    t_ok "orphan: the up reached its health wait" t_wait_until 30 \
        sh -c '[ "$(sed -n "s/^[^ ]* box up orphan: //p" "$1" | tail -n 1)" = "waiting for the server" ]' sh "$tuilog"
    kill -KILL "$opid"
    wait "$opid" 2>/dev/null
    t_eq "orphan: the kill landed while it waited for the server" \
        "$(sed -n 's/^[^ ]* box up orphan: //p' "$tuilog" | tail -n 1)" "waiting for the server"
    printf '%s\n' "$good_cfg" >"$cfg"
    oid=$(sandboxes_named orphan)
    t_ok "orphan: the killed up left its sandbox" test -n "$oid"
    t_ok "orphan: and no record" test ! -e "$boxes/orphan.json"
    check_local_state "orphan"
    t_contains "orphan: the next start (--list) removed it and said so" "$(cat "$BOX_ERR")" \
        "removed sandbox $oid"
    t_eq "orphan: --list --json no longer shows it" \
        "$(jq -c '[.. | objects | select(.name? == "orphan")]' "$BOX_OUT")" "[]"
    t_eq "orphan: no sandbox left" "$(sandboxes_named orphan)" ""
    t_eq "orphan: its password is deleted" "$(password_entries orphan)" 0
    box_tui --up orphan
    box_rc "orphan: the name is free again" 0 || t_abort "the box did not come up"
    box_tui --kill orphan
}

# ---- up, killed in each step (and at random moments) ----
crash_up_kills() {
    [ "$1" -le "$2" ] || return 0
    crash_reference_up
    crash_rng_at $(($1 - 1))
    # AIM|HOLD: the step, and the request of it e2b-local holds (the name check, the secrets,
    # the create, the start of the extracting process, the upload into it, the first health
    # probe); "|" = anywhere. The extraction runs during the upload: what is left of it after
    # the last byte (the "extracting" step) is too short to hold, the random kills reach it.
    up_aims=("|" "checking the name|GET /v2/sandboxes" "reading the secrets|GET /secrets"
        "creating the sandbox|POST /v2/sandboxes" "starting the extraction|POST Process/Start"
        "uploading|POST /files" "waiting for the server|GET /api/health")
    outcomes= landed_at=
    for ((i = $1; i <= $2; i++)); do
        name=up$i
        entry=${up_aims[(i - 1) % ${#up_aims[@]}]}
        aim=${entry%%|*} hold=${entry#*|}
        if [ -z "$aim" ]; then draw_ms $((up_ms * 11 / 10)); else draw_ms 300; fi
        run_and_kill up "$name" "$aim" "$hold" "$delay" --up "$name"
        label="up kill $i at ${aim:-start}+${delay} ms"
        echo "crash test: $label: killed=$KILLED, landed in: $LANDED"
        count_crash
        landed_at="$landed_at|$LANDED"
        [ -z "$aim" ] || t_eq "$label: the kill landed in the step it aimed at" "$LANDED" "$aim"
        check_local_state "$label"
        ids=$(sandboxes_named "$name")
        nids=$(wc -w <<<"$ids")
        t_ok "$label: at most one sandbox carries the name" test "$nids" -le 1
        if [ -e "$boxes/$name.json" ]; then
            t_eq "$label: the record names the box's sandbox" "$(box_sandbox_of "$name")" "$ids"
            state=recorded
        elif [ "$nids" = 1 ]; then
            state=orphan
        else
            state=nothing
            t_eq "$label: no sandbox and no record: no password left either" "$(password_entries "$name")" 0
        fi
        outcomes="$outcomes $state"
        box_tui --up "$name"
        case $state in
        recorded)
            box_rc "$label: re-run says the box exists (exit 5)" 5
            t_contains "$label: clearly" "$(cat "$BOX_ERR")" "already exists" ;;
        orphan) # made after the list's sweep looked: the re-run's own start removes it first
            box_rc "$label: re-run finishes the up" 0
            t_contains "$label: after removing the orphan" "$(cat "$BOX_ERR")" "removed sandbox $ids" ;;
        nothing)
            box_rc "$label: re-run finishes the up" 0
            t_ok "$label: re-run wrote the record" test -e "$boxes/$name.json" ;;
        esac
        box_tui --kill "$name"
        box_rc "$label: --kill cleans up" 0
        t_eq "$label: nothing left after --kill" \
            "$(sandboxes_named "$name")|$(test -e "$boxes/$name.json" && echo rec)|$(password_entries "$name")" "||0"
    done
    echo "crash test: up kills left:$outcomes ($(tr ' ' '\n' <<<"$outcomes" | grep . | sort | uniq -c | awk '{printf "%s%s=%s", (NR > 1 ? ", " : ""), $2, $1}'))"
    echo "crash test: up kills landed in: $(sed 's/^|//; s/|/; /g' <<<"$landed_at")"
}

# ---- pull, killed in each step (and at random moments) ----
crash_pull_kills() {
    [ "$1" -gt 0 ] || return 0
    crash_rng_at "$CRASH_UP_ALL"
    box_tui --up p
    box_setup_rc "pull box up" 0
    pid_root=$(box_root "$(box_sandbox_of p)")$BOX_REPO
    work() { # I: new work in the box (a changed file and 400 KB that do not compress)
        echo "work $1" >"$pid_root/counter.txt"
        head -c 400000 /dev/urandom >"$pid_root/blob.bin"
    }
    work 0
    t0=$(ms_now)
    box_tui --pull p
    pull_ms=$(($(ms_now) - t0))
    box_setup_rc "reference pull" 0
    [ "$pull_ms" -lt 300 ] && pull_ms=300
    echo "crash test: a whole pull takes ${pull_ms} ms"
    # the connect, the commit in the box (its script), the download, the clean-up; the import
    # runs here and cannot be held: the kills "anywhere" may land in it.
    pull_aims=("|" "connecting|POST /connect" "committing the work in the box|POST Process/Start"
        "downloading|GET /files" "cleaning up|POST Filesystem/Remove")
    tips= landed_at=
    for ((i = 1; i <= $1; i++)); do
        work "$i"
        old=$(g rev-parse -q --verify refs/heads/e2b/p)
        entry=${pull_aims[(i - 1) % ${#pull_aims[@]}]}
        aim=${entry%%|*} hold=${entry#*|}
        if [ -z "$aim" ]; then draw_ms $((pull_ms * 11 / 10)); else draw_ms 300; fi
        run_and_kill pull p "$aim" "$hold" "$delay" --pull p
        label="pull kill $i at ${aim:-start}+${delay} ms"
        echo "crash test: $label: killed=$KILLED, landed in: $LANDED"
        count_crash
        landed_at="$landed_at|$LANDED"
        [ -z "$aim" ] || t_eq "$label: the kill landed in the step it aimed at" "$LANDED" "$aim"
        check_local_state "$label"
        tip=$(g rev-parse -q --verify refs/heads/e2b/p)
        if [ "$tip" = "$old" ]; then
            t_pass "$label: e2b/p is the old tip"
            tips="$tips old"
        elif g merge-base --is-ancestor "$old" "$tip" 2>/dev/null &&
            [ "$(g show "$tip:counter.txt" 2>/dev/null)" = "work $i" ]; then
            t_pass "$label: e2b/p is the new tip"
            tips="$tips new"
        else
            t_fail "$label: e2b/p is the old or the new tip" "old $old, now '$tip'"
        fi
        # The import sweeps libgit2 temp packs older than its grace period (5 s, in case another
        # libgit2 program is fetching here); the reference file is that moment, plus a margin.
        touch -d "@$(($(date +%s) - 6))" "$T_TMP/sweep_ref"
        box_tui --pull p
        box_rc "$label: re-run of the pull exits 0" 0
        t_eq "$label: the re-run brought the latest work" "$(g show e2b/p:counter.txt 2>&1)" "work $i"
        t_ok "$label: byte for byte" cmp -s <(g show e2b/p:blob.bin) "$pid_root/blob.bin"
        stray=$(find "$BOX_REPO/.git/objects" -type f ! -name 'pack-*.pack' ! -name 'pack-*.idx' \
            ! -name 'pack-*.rev' ! -path '*/objects/info/*' ! -path '*/objects/[0-9a-f][0-9a-f]/*' \
            ! -newer "$T_TMP/sweep_ref")
        t_eq "$label: no temporary pack past the grace period left once the re-run is done" "$stray" ""
    done
    echo "crash test: pull kills left e2b/p at:$tips ($(tr ' ' '\n' <<<"$tips" | grep . | sort | uniq -c | awk '{printf "%s%s=%s", (NR > 1 ? ", " : ""), $2, $1}'))"
    echo "crash test: pull kills landed in: $(sed 's/^|//; s/|/; /g' <<<"$landed_at")"
    box_tui --kill p
    box_setup_rc "pull box killed" 0
}

crash_end() {
    echo "crash test: $CRASHES of $RUNS kills landed inside a step"
    t_ok "at least 3 in 4 kills landed inside a step (a crash, not a kill after the end)" \
        test "$((CRASHES * 4))" -ge "$((RUNS * 3))"
    t_eq "no password left at the end" "$(grep -vc '^#' "$passwords" 2>/dev/null || true)" 0
    t_eq "no sandbox left at the end" "$(el_req GET /v2/sandboxes >/dev/null; el_json length)" 0
}
