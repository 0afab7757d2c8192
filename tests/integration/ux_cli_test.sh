#!/usr/bin/env bash
# What a demanding user trips over in the one-shot modes (issue 19, items 1-4 and 15-18),
# with the real binary against e2b-local: pull goes to the box's own project, tells a
# mismatch in words and leaves a paused box paused; a resume gives a box its own hours;
# "no new work" says what is true; stop of a paused box is not an error; the argument and
# listing rules a getopt user expects.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish

now_s() { date +%s; }
# end_in ID: seconds from now until the sandbox's endAt.
end_in() {
    el_req GET "/sandboxes/$1" >/dev/null
    echo $(($(date -d "$(el_json .endAt)" +%s) - $(now_s)))
}
state_of() {
    el_req GET "/sandboxes/$1" >/dev/null
    el_json .state
}

box_tui --up px --hours 3 --yes
box_rc "up px --hours 3" 0 || t_abort "the box did not come up"
id=$(box_sandbox_of px)
t_eq "the record keeps the box's hours" "$(jq .hours "$XDG_STATE_HOME/e2b-tui/boxes/px.json")" 3

# 3: nothing new and no earlier pull: no branch is made, and the message says so (a clean
# clone: the fixture's uncommitted files would be new work).
clean=$T_TMP/work/clean
git clone -q "$BOX_REPO" "$clean"
BOX_CWD=$clean box_tui --up pc
box_rc "up pc from a clean clone" 0
BOX_CWD=$clean box_tui --pull pc
box_rc "pull with no new work" 0
t_contains "it says there is nothing to pull" "$(cat "$BOX_OUT")" "no new work in box pc; nothing to pull"
t_not_contains "it does not claim a branch" "$(cat "$BOX_OUT")" "e2b/pc"
t_eq "and no branch was made" "$(git -C "$clean" rev-parse -q --verify refs/heads/e2b/pc >/dev/null; echo $?)" 1
box_tui --kill pc
box_rc "kill pc" 0

# 1: the pull goes to the box's project wherever it runs; a mismatch is told in words.
other=$T_TMP/work/other
git init -q "$other" && git -C "$other" -c user.name=u -c user.email=u@x commit -q --allow-empty -m other
box_exec "$id" "cd '$BOX_REPO' && echo agent >src/agent-1.txt" >/dev/null
BOX_CWD=$other box_tui --pull px
box_rc "pull from another git repository" 0
t_eq "the branch is in the box's project" "$(git -C "$BOX_REPO" rev-parse -q --verify refs/heads/e2b/px >/dev/null; echo $?)" 0
t_eq "not in the repository it ran from" "$(git -C "$other" rev-parse -q --verify refs/heads/e2b/px >/dev/null; echo $?)" 1
t_contains "it says where it went" "$(cat "$BOX_ERR")" "pulled into the box's project $BOX_REPO"
t_not_contains "never the full-history advice" "$(cat "$BOX_ERR")" "full history"
mkdir -p "$T_TMP/work/plain"
BOX_CWD=$T_TMP/work/plain box_tui --pull px
box_rc "pull from a directory that is not git" 0
t_contains "no new work since: up to date" "$(cat "$BOX_OUT")" "e2b/px is up to date"
box_tui --pull px --dir "$other"
t_eq "pull into another project with --dir fails" "$((BOX_RC != 0))" 1
t_contains "the mismatch is told in words" "$(cat "$BOX_ERR")" "box px belongs to $BOX_REPO"
t_contains "with what to do" "$(cat "$BOX_ERR")" "use --dir $BOX_REPO"
t_not_contains "no full-history advice" "$(cat "$BOX_ERR")" "full history"
BOX_CWD=$T_TMP/work/plain box_tui --pull
t_eq "pull without a name outside git fails" "$((BOX_RC != 0))" 1
t_contains "it says to name the box" "$(cat "$BOX_ERR")" "e2b-tui --pull NAME"
t_not_contains "no empty name in the message" "$(cat "$BOX_ERR")" "box :"

# 2: a paused box is pulled and paused again; a resume gives it its own 3 hours.
box_exec "$id" "cd '$BOX_REPO' && echo agent >src/agent-2.txt" >/dev/null
box_tui --stop px
box_rc "stop px" 0
t_eq "px is paused" "$(state_of "$id")" paused
box_tui --pull px
box_rc "pull of a paused box" 0
t_contains "it pulled the new work" "$(cat "$BOX_OUT")" "fast-forwarded"
t_eq "the box is paused again" "$(state_of "$id")" paused
t_contains "and it says so" "$(cat "$BOX_ERR")" "paused again"
# The pause after the pull fails: the pull still succeeds and says the box runs now.
box_exec "$id" "cd '$BOX_REPO' && echo agent >src/agent-3.txt" >/dev/null
box_tui --stop px
curl -sS -o /dev/null -X POST "$E2B_LOCAL_URL/_e2b-local/faults" \
    -d "{\"kind\":\"500\",\"path\":\"/sandboxes/$id/pause\",\"method\":\"POST\",\"count\":10}"
box_tui --pull px
box_rc "pull whose re-pause fails still succeeds" 0
t_contains "it says the box could not be paused again" "$(cat "$BOX_ERR")" "could not be paused again"
t_not_contains "and does not claim it was" "$(cat "$BOX_ERR")" "was paused: paused again"
curl -sS -o /dev/null -X DELETE "$E2B_LOCAL_URL/_e2b-local/faults"
box_tui --stop px
FAKE_ATTACH_EXIT=0 box_tui --attach px
box_rc "attach resumes px" 0
left=$(end_in "$id")
t_eq "the resumed box has its own hours, not minutes (ends in ${left}s)" "$((left > 2 * 3600))" 1

# 4: stop of a paused box is not an error.
box_tui --stop px
box_tui --stop px
box_rc "stop of a paused box: exit 0" 0
t_contains "it says it was already paused" "$(cat "$BOX_ERR")" "already paused"

# 17: arguments as getopt users expect.
box_tui --up --template opencode --hours 2 --yes zz
box_rc "the up name may come after the options" 0
t_eq "the box is named zz" "$(jq -r .name "$XDG_STATE_HOME/e2b-tui/boxes/zz.json")" zz
box_tui --up zz
t_eq "up of a name in use: exit 5" "$BOX_RC" 5
t_contains "it says the name is in use here" "$(cat "$BOX_ERR")" "a box named zz already exists on this machine"
t_not_contains "not an E2B conflict" "$(cat "$BOX_ERR")" "409"
box_tui --info --refresh 10
t_eq "--info --refresh: usage error" "$BOX_RC" 2
t_contains "it says --refresh is the dashboard's" "$(cat "$BOX_ERR")" "--refresh is a dashboard option"
box_tui --kill zz extra
t_eq "--kill zz extra: usage error" "$BOX_RC" 2
t_contains "it names the extra argument" "$(cat "$BOX_ERR")" "unexpected argument 'extra'"
t_eq "and nothing was killed" "$(state_of "$(box_sandbox_of zz)")" running
box_tui --stop '../bad'
t_eq "an invalid box name: exit 2" "$BOX_RC" 2
t_contains "it says why" "$(cat "$BOX_ERR")" "not a valid box name"
box_tui --info extra
t_eq "--info takes no operand: exit 2" "$BOX_RC" 2

# 16: --list for people; stop/kill by sandbox id; --resume and --extend.
el_create '{"templateID":"base","metadata":{"name":"web-worker"}}'
other_id=$EL_ID
box_tui --list
box_rc "--list" 0
t_eq "header: NAME first, ID its own column" "$(head -1 "$BOX_OUT" | awk '{print $1, $4}')" "NAME ID"
t_eq "a sandbox's NAME is its name, as in the dashboard" "$(awk -v id="$other_id" '$4 == id {print $1}' "$BOX_OUT")" web-worker
t_eq "a box's NAME is the box name" "$(awk -v id="$id" '$4 == id {print $1}' "$BOX_OUT")" px
t_eq "AGE and ENDS in one unit each" "$(awk 'NR > 1 && $6 !~ /^[0-9]+[smhd]$/ {print "age:" $6} NR > 1 && $7 !~ /^([0-9]+[smhd]|paused|expired|-)$/ {print "ends:" $7}' "$BOX_OUT")" ""
cols=$(awk 'NR == 1 {print index($0, "PATH")}' "$BOX_OUT")
t_eq "every row's columns line up with the header" "$(awk -v c="$cols" 'NR > 1 && $NF != "-" && index($0, $NF) != c {print NR}' "$BOX_OUT")" ""
long=$T_TMP/work/longbranch
git clone -q "$BOX_REPO" "$long"
git -C "$long" checkout -q -b feature/a-really-long-branch-name-that-goes-on-and-on-and-on
BOX_CWD=$long box_tui --up lb
box_rc "up of a box with a long branch" 0
box_tui --list
t_eq "a long branch does not break the alignment" "$(awk -v c="$(awk 'NR == 1 {print index($0, "PATH")}' "$BOX_OUT")" 'NR > 1 && $NF != "-" && index($0, $NF) != c {print NR}' "$BOX_OUT")" ""
t_contains "it is cut, not dropped" "$(grep '^lb ' "$BOX_OUT")" "feature/a-really-long-branc..."
box_tui --kill lb
box_tui --stop "$other_id"
box_rc "--stop of a sandbox id" 0
t_eq "it is paused" "$(state_of "$other_id")" paused
box_tui --stop "$other_id"
box_rc "--stop of a paused sandbox id: not an error" 0
box_tui --resume "$other_id"
box_rc "--resume of a sandbox id" 0
t_eq "it runs again" "$(state_of "$other_id")" running
box_tui --extend "$other_id" --hours 5
box_rc "--extend --hours 5" 0
left=$(end_in "$other_id")
t_eq "it ends in about 5 hours (${left}s)" "$((left > 4 * 3600 && left <= 5 * 3600))" 1
box_tui --stop zz
box_tui --resume zz
box_rc "--resume of a box by name" 0
t_contains "it says so" "$(cat "$BOX_OUT")" "box zz resumed; it now ends in 2 hours"
left=$(end_in "$(box_sandbox_of zz)")
t_eq "with the box's own 2 hours (${left}s)" "$((left > 3600 && left <= 2 * 3600))" 1
zz_id=$(box_sandbox_of zz)
box_tui --kill "$zz_id"
box_rc "--kill of a box by its sandbox id" 0
t_eq "its sandbox is gone" "$(el_req GET "/sandboxes/$zz_id")" 404
t_eq "and its record" "$(test -e "$XDG_STATE_HOME/e2b-tui/boxes/zz.json"; echo $?)" 1
box_tui --kill "$other_id"
box_rc "--kill of a sandbox id" 0
box_tui --resume nosuch
t_eq "--resume of an unknown name: exit 3" "$BOX_RC" 3

# 15: --secrets list has a header, says so when empty, accepts --json.
box_tui --secrets list
box_rc "--secrets list with none" 0
t_contains "it says there are none" "$(cat "$BOX_OUT")" "No secrets"
ANTHROPIC_API_KEY=sk-ant-ux-1 box_tui --secrets set anthropic
ANTHROPIC_API_KEY=sk-ant-ux-2 box_tui --secrets set anthropic
t_contains "set again: updated with its version" "$(cat "$BOX_OUT")" "updated secret anthropic (version 2)"
box_tui --secrets list
t_eq "a header" "$(head -1 "$BOX_OUT" | tr -s ' ')" "NAME HOSTS CREATED"
t_eq "the host and a time for people" "$(awk '$1 == "anthropic" {print $2, ($3 ~ /^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]$/ && $4 ~ /^[0-9][0-9]:[0-9][0-9]$/)}' "$BOX_OUT")" "api.anthropic.com 1"
box_tui --secrets list --json
box_rc "--secrets list --json" 0
t_eq "json: the secret with its host" "$(jq -r '.version, (.secrets[] | .name + " " + .hosts[0] + " " + (.version|tostring))' "$BOX_OUT" | tr '\n' ' ')" "1 anthropic api.anthropic.com 2 "
t_not_contains "json: never the value" "$(cat "$BOX_OUT")" "sk-ant-ux"

# 18: the keyring warning only where a password is stored; docs agree.
# nobus_tui ARGS...: box_tui with the keystore on auto and no D-Bus (the file fallback).
nobus_tui() {
    (unset E2B_TUI_KEYSTORE DISPLAY; DBUS_SESSION_BUS_ADDRESS=unix:path=$T_TMP/no-bus box_tui "$@"
     echo "$BOX_RC" >"$T_TMP/nobus.rc")
    BOX_OUT=$T_TMP/box.out BOX_ERR=$T_TMP/box.err BOX_RC=$(cat "$T_TMP/nobus.rc")
}
nobus_tui --attach nosuch
t_eq "attach of an unknown box with the file fallback: exit 3" "$BOX_RC" 3
t_not_contains "attach of an unknown box: no keyring warning" "$(cat "$BOX_ERR")" "no keyring"
nobus_tui --up kw
box_rc "up with the file fallback" 0
t_contains "up, which stores a password, warns" "$(cat "$BOX_ERR")" "no keyring"
nobus_tui --kill kw
box_rc "kill kw with the file fallback" 0
t_not_contains "kill does not warn" "$(cat "$BOX_ERR")" "no keyring"
box_tui --help
t_not_contains "--help does not offer the test keystore" "$(cat "$BOX_OUT")" "memory"
t_contains "--help gives the health timeout's default" "$(cat "$BOX_OUT")" "default 90"
t_contains "--help documents --print-keys" "$(cat "$BOX_OUT")" "--print-keys"

t_finish
