#!/usr/bin/env bash
# The Templates pane (issue 17) against e2b-local with seeded templates: T opens it with the
# team's templates, the managed ones marked and those older than template_ttl flagged; C
# lists what the GC would delete and deletes only after yes (No keeps them); x deletes the
# selected template after a confirmation.
. "$(dirname "$0")/common.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish
export TERM=tmux-256color LANG=C.UTF-8
ago() { date -u -d "@$(($(date +%s) - $1 * 3600))" +%Y-%m-%dT%H:%M:%SZ; }
el_req POST /_e2b-local/templates "{\"templateID\":\"opencode-e2b-stale\",\"createdAt\":\"$(ago 200)\"}" >/dev/null
el_req POST /_e2b-local/templates "{\"templateID\":\"opencode-e2b-fresh\",\"createdAt\":\"$(ago 1)\"}" >/dev/null
el_req POST /_e2b-local/templates "{\"templateID\":\"zz-team-own\",\"createdAt\":\"$(ago 300)\"}" >/dev/null
listed() { el_req GET /templates >/dev/null; el_json '[.[].templateID] | sort | join(" ")'; }

DASH_CWD=$BOX_REPO dash_start 140 30
tmux_wait "Boxes" >/dev/null
tmux_type T
dash_check "T opens the Templates pane" "TEMPLATES  5  (1 the GC would delete"
dash_check "the stale one is marked managed" "managed"
dash_check "and flagged for the GC" "would go"
tmux_type C
dash_check "C lists what it would delete" "opencode-e2b-stale (last used 8d ago)"
tmux_type n
dash_check_gone "No closes the dialog" "Delete old templates"
t_eq "No deletes nothing" "$(listed)" "base opencode opencode-e2b-fresh opencode-e2b-stale zz-team-own"
tmux_type C
dash_check "G asks again" "Delete old templates"
tmux_type y
dash_check "the GC deletes and tells" "deleted opencode-e2b-stale"
t_eq "only the stale managed template is gone" "$(listed)" "base opencode opencode-e2b-fresh zz-team-own"
dash_check "the pane follows" "TEMPLATES  4  (0 the GC would delete"
tmux_type C
dash_check "nothing more to collect" "GC: no managed template is older than template_ttl"
tmux_keys End
tmux_type x
dash_check "x asks before deleting" "Delete template \"zz-team-own\""
tmux_type y
dash_check "x deletes it" "deleted zz-team-own"
t_eq "gone on the server" "$(listed)" "base opencode opencode-e2b-fresh"
tmux_type q
dash_check_gone "q closes the pane" "TEMPLATES"
dash_quit "then quits"
t_finish
