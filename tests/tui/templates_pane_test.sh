#!/usr/bin/env bash
# The Templates pane (issue 17) against e2b-local with seeded templates: T opens it with the
# team's templates, the managed ones marked and those older than template_ttl flagged; C
# lists what the GC would delete and deletes only after yes (No keeps them); x deletes the
# selected template after a confirmation. Only this machine's managed templates (the name
# ends in -m<machine id>, the id kept in the state dir) are the GC's; another machine's is
# shown as such, kept by the GC, and deleted only by x on it, after a yes that says whose.
. "$(dirname "$0")/common.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish
export TERM=tmux-256color LANG=C.UTF-8
ago() { date -u -d "@$(($(date +%s) - $1 * 3600))" +%Y-%m-%dT%H:%M:%SZ; }
m=5e1f0c2a9b7d
mkdir -p "$XDG_STATE_HOME/e2b-tui" && (umask 077 && echo $m >"$XDG_STATE_HOME/e2b-tui/machine-id")
el_req POST /_e2b-local/templates "{\"templateID\":\"opencode-e2b-stale\",\"alias\":\"opencode-e2b-stale-m$m\",\"createdAt\":\"$(ago 200)\"}" >/dev/null
el_req POST /_e2b-local/templates "{\"templateID\":\"opencode-e2b-fresh\",\"alias\":\"opencode-e2b-fresh-m$m\",\"createdAt\":\"$(ago 1)\"}" >/dev/null
el_req POST /_e2b-local/templates "{\"templateID\":\"zz-far\",\"alias\":\"opencode-e2b-far-m0123456789ab\",\"createdAt\":\"$(ago 300)\"}" >/dev/null
el_req POST /_e2b-local/templates "{\"templateID\":\"zz-team-own\",\"createdAt\":\"$(ago 300)\"}" >/dev/null
listed() { el_req GET /templates >/dev/null; el_json '[.[].templateID] | sort | join(" ")'; }

DASH_CWD=$BOX_REPO dash_start 140 30
tmux_wait "Boxes" >/dev/null
tmux_type T
dash_check "T opens the Templates pane" "TEMPLATES  6  (1 the GC would delete, 1 another machine's it keeps"
dash_check "the stale one is marked managed" "managed"
dash_check "and flagged for the GC" "would go"
dash_check "another machine's is shown as such" "another machine's"
t_ok "with its project" grep -Eq "^ *zz-far .*another machine's +far " <<<"$(tmux_capture)"
tmux_type C
dash_check "C lists what it would delete" "opencode-e2b-stale (last used 8d ago)"
tmux_type n
dash_check_gone "No closes the dialog" "Delete old templates"
t_eq "No deletes nothing" "$(listed)" "base opencode opencode-e2b-fresh opencode-e2b-stale zz-far zz-team-own"
tmux_type C
dash_check "G asks again" "Delete old templates"
tmux_type y
dash_check "the GC deletes and tells" "deleted opencode-e2b-stale"
t_eq "only the stale managed template is gone" "$(listed)" "base opencode opencode-e2b-fresh zz-far zz-team-own"
t_not_contains "the GC did not offer another machine's" "$(tmux_capture)" "deleted zz-far"
dash_check "the pane follows" "TEMPLATES  5  (0 the GC would delete"
tmux_type C
dash_check "nothing more to collect" "GC: no managed template of this machine is older than template_ttl"
tmux_keys End
tmux_type x
dash_check "x asks before deleting" "Delete template \"zz-team-own\""
tmux_type y
dash_check "x deletes it" "deleted zz-team-own"
t_eq "gone on the server" "$(listed)" "base opencode opencode-e2b-fresh zz-far"
tmux_keys End
tmux_type x
dash_check "x on another machine's says whose it is" "Another machine made it"
tmux_type y
dash_check "and deletes it after the yes" "deleted zz-far"
t_eq "gone too" "$(listed)" "base opencode opencode-e2b-fresh"
tmux_type q
dash_check_gone "q closes the pane" "TEMPLATES"
dash_quit "then quits"
t_finish
