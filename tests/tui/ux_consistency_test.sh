#!/usr/bin/env bash
# The dashboard says and does what the one-shot modes do (issue 19, items 1-4 and 15), in
# tmux against e2b-local: p pulls into the box's own project (not the directory the
# dashboard runs in) and leaves a paused box paused; with nothing new it says there is
# nothing to pull; s on a paused box is not an error; r gives a box its own hours; the
# Secrets view shows the provider's host and a readable time, and an update says its version.
. "$(dirname "$0")/common.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish
export TERM=tmux-256color LANG=C.UTF-8

clean=$T_TMP/work/clean
git clone -q "$BOX_REPO" "$clean"
other=$T_TMP/work/other
git init -q "$other" && git -C "$other" -c user.name=u -c user.email=u@x commit -q --allow-empty -m other
BOX_CWD=$clean box_tui --up cm --hours 3 --yes
box_rc "up cm --hours 3 (CLI)" 0 || t_abort "the box did not come up"
id=$(box_sandbox_of cm)
end_in() {
    el_req GET "/sandboxes/$1" >/dev/null
    echo $(($(date -d "$(el_json .endAt)" +%s) - $(date +%s)))
}

DASH_CWD=$other dash_start 140 30
dash_check "the box is listed" "cm "
tmux_type p
dash_check "p with nothing new says so" "no new work in cm; nothing to pull"
t_eq "no branch was made" "$(git -C "$clean" rev-parse -q --verify refs/heads/e2b/cm >/dev/null; echo $?)" 1

box_exec "$id" "cd '$clean' && echo agent >agent.txt" >/dev/null
tmux_type s
dash_check "s pauses the box" "cm paused"
t_eq "paused on the server" "$(sbx_state "$id")" paused
tmux_type s
dash_check "s on a paused box is not an error" "cm was already paused"
t_not_contains "no 409 on screen" "$(tmux_capture)" "409"
tmux_type p
dash_check "p pulls into the box's own project" "pulled cm into branch e2b/cm (created) in $clean"
t_eq "the branch is in the box's project" "$(git -C "$clean" show e2b/cm:agent.txt 2>/dev/null)" agent
t_eq "not in the directory the dashboard runs in" "$(git -C "$other" rev-parse -q --verify refs/heads/e2b/cm >/dev/null; echo $?)" 1
t_eq "the box is paused again" "$(sbx_state "$id")" paused
tmux_type r
dash_check "r resumes it" "cm resumed"
left=$(end_in "$id")
t_eq "with its own 3 hours, not minutes (${left}s)" "$((left > 2 * 3600))" 1

[ "$(el_req POST /secrets '{"name":"anthropic","value":"sk-ant-UX-1","allowedHosts":["api.anthropic.com"]}')" = 201 ] ||
    t_fail "a secret made on the server" "$(cat "$EL_BODY_FILE")"
tmux_type 4
dash_check "the Secrets view lists it" "anthropic"
dash_check "HOSTS shows where the key goes, as --secrets list does" "api.anthropic.com"
dash_check_match "CREATED is a time for people, not ISO" 'anthropic +api\.anthropic\.com +20[0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]'
tmux_type n
tmux_type anthropic
tmux_keys Enter
tmux_type 'sk-ant-UX-2'
tmux_keys Enter
dash_check "an update says so with its version, as the CLI does" "updated secret anthropic (version 2)"
dash_quit "quits"
t_finish
