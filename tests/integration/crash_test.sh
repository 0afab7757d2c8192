#!/usr/bin/env bash
# Crash tests: SIGKILL e2b-tui at random moments of --up and --pull (CRASH_UP_RUNS +
# CRASH_PULL_RUNS runs, 11 + 11 by default). Kill points are spread over the steps: a run
# waits for a step's request to show in e2b-local's log and kills 0-400 ms later, or kills
# anywhere in the time a whole up / pull takes; the delays come from a seeded RNG whose
# seed is printed (CRASH_SEED=N replays them). After every kill:
#   - every record parses (--list --json succeeds) and agrees with the record files, which
#     are 0600 in a 0700 directory, with no temp file left once the list ran;
#   - the user's repository is fsck-clean and its HEAD, branches, index and work tree are
#     unchanged; refs/heads/e2b/<name> is absent, the old tip or the new one, never broken;
#   - a re-run either finishes (--up then --kill; --pull brings the box's latest work) or
#     fails with a clear message: "already exists" when the up got as far as its record;
#     a sandbox left without a record (an orphan) is removed with its password by the
#     next start of e2b-tui (the journal of creates in doubt), which says so.
# Plus one deterministic orphan: the up is killed while it waits for a server that never
# becomes healthy (sandbox made, password stored, no record yet).
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish
boxes=$XDG_STATE_HOME/e2b-tui/boxes
passwords=$XDG_STATE_HOME/e2b-tui/passwords
cfg=$XDG_CONFIG_HOME/e2b-tui/config
good_cfg=$(cat "$cfg")

SEED=${CRASH_SEED:-$(($(date +%s%N) % 1000000))}
RANDOM=$SEED
UP_RUNS=${CRASH_UP_RUNS:-11}
PULL_RUNS=${CRASH_PULL_RUNS:-11}
echo "crash test: seed $SEED ($UP_RUNS up + $PULL_RUNS pull kills; replay with CRASH_SEED=$SEED)"

g() { git -C "$BOX_REPO" "$@"; }
ms_now() { date +%s%3N; }
sleep_ms() { sleep "$(printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)))"; }
# A delay in [0, span) ms from the seeded RNG (two draws: $RANDOM has 15 bits).
draw_ms() { echo $(((RANDOM * 32768 + RANDOM) % $1)); }

# Starts e2b-tui ARGS in the background and SIGKILLs it (if still running) DELAY ms after
# a step boundary: the first new line of e2b-local's request log that contains MARK (a
# request it finished: the step after it is under way), or the start when MARK is "".
# Sets KILLED=1 when the kill landed, else the exit status in KILL_RC.
ellog=$E2B_LOCAL_STATE/e2b-local.log
run_and_kill() {
    local mark=$1 delay=$2 n0 i
    shift 2
    n0=$(wc -l <"$ellog")
    (cd "$BOX_REPO" && exec "$E2B_TUI_BIN" "$@") >"$T_TMP/kill.out" 2>"$T_TMP/kill.err" &
    local pid=$!
    if [ -n "$mark" ]; then
        for ((i = 0; i < 1500; i++)); do
            tail -n +$((n0 + 1)) "$ellog" | grep -qF -- "$mark" && break
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.02
        done
    fi
    sleep_ms "$delay"
    KILLED=0
    kill -KILL "$pid" 2>/dev/null && KILLED=1
    wait "$pid"
    KILL_RC=$?
    # A request the killed process had sent may still be handled by e2b-local (a create
    # finishing after its client died): let it land before looking.
    sleep 0.4
}

# Sandbox ids whose box metadata names NAME.
sandboxes_named() {
    el_req GET /v2/sandboxes >/dev/null
    el_json "[.[] | select((.metadata // {})[\"e2b-tui.name\"] == \"$1\") | .sandboxID] | join(\" \")"
}

password_entries() { # NAME: lines of the password file that hold NAME's password
    [ -f "$passwords" ] || { echo 0; return; }
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

# ---- reference timings (the span the kill delays are drawn from) ----
t0=$(ms_now)
box_tui --up ref
up_ms=$(($(ms_now) - t0))
box_rc "reference up exits 0" 0
box_tui --kill ref
box_rc "reference kill exits 0" 0
[ "$up_ms" -lt 500 ] && up_ms=500
echo "crash test: a whole up takes ${up_ms} ms"

# ---- a deterministic orphan: killed while waiting for a server that never answers ----
printf 'serve_command = sleep 600\n' >"$cfg"
(cd "$BOX_REPO" && exec env E2B_TUI_HEALTH_TIMEOUT=60 "$E2B_TUI_BIN" --up orphan) >"$T_TMP/o.out" 2>"$T_TMP/o.err" &
opid=$!
for ((i = 0; i < 200; i++)); do
    [ -n "$(sandboxes_named orphan)" ] && [ "$(password_entries orphan)" != 0 ] && break
    sleep 0.1
done
sleep 0.3 # now in the health wait
kill -KILL "$opid"
wait "$opid" 2>/dev/null
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
box_rc "orphan: the name is free again" 0
box_tui --kill orphan

# ---- up, killed at random moments ----
outcomes=
# kill points: after each step of an up (the name check, the secrets, the create, the
# upload, the extraction), or anywhere from the start
up_marks=("" "GET /v2/sandboxes" "/secrets" "POST /sandboxes" "/files" "Process/Start")
for ((i = 1; i <= UP_RUNS; i++)); do
    name=up$i
    mark=${up_marks[i % ${#up_marks[@]}]}
    if [ -z "$mark" ]; then delay=$(draw_ms $((up_ms * 11 / 10))); else delay=$(draw_ms 400); fi
    run_and_kill "$mark" "$delay" --up "$name"
    label="up kill $i at ${mark:-start}+${delay} ms"
    [ "$KILLED" = 1 ] || label="$label (finished first, exit $KILL_RC)"
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
echo "crash test: up kills left:$outcomes"

# ---- pull, killed at random moments ----
box_tui --up p
box_rc "pull box up" 0
pid_root=$(box_root "$(box_sandbox_of p)")$BOX_REPO
work() { # I: new work in the box (a changed file and 400 KB that do not compress)
    echo "work $1" >"$pid_root/counter.txt"
    head -c 400000 /dev/urandom >"$pid_root/blob.bin"
}
work 0
t0=$(ms_now)
box_tui --pull p
pull_ms=$(($(ms_now) - t0))
box_rc "reference pull exits 0" 0
[ "$pull_ms" -lt 300 ] && pull_ms=300
echo "crash test: a whole pull takes ${pull_ms} ms"
# after the connect, the pull script, the download (then the import and the branch update
# run), or anywhere from the start
pull_marks=("" "/connect" "Process/Start" "/files" "/files" "Process/Start")
tips=
for ((i = 1; i <= PULL_RUNS; i++)); do
    work "$i"
    old=$(g rev-parse -q --verify refs/heads/e2b/p)
    mark=${pull_marks[i % ${#pull_marks[@]}]}
    if [ -z "$mark" ]; then delay=$(draw_ms $((pull_ms * 11 / 10))); else delay=$(draw_ms 400); fi
    run_and_kill "$mark" "$delay" --pull p
    label="pull kill $i at ${mark:-start}+${delay} ms"
    [ "$KILLED" = 1 ] || label="$label (finished first, exit $KILL_RC)"
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
echo "crash test: pull kills left e2b/p at:$tips"
box_tui --kill p
box_rc "pull box killed" 0
t_eq "no password left at the end" "$(grep -vc '^#' "$passwords" 2>/dev/null || true)" 0
t_eq "no sandbox left at the end" "$(el_req GET /v2/sandboxes >/dev/null; el_json length)" 0
t_finish
