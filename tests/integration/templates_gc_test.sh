#!/usr/bin/env bash
# --templates and --gc-templates [--dry-run] against seeded templates in e2b-local: only the
# plugin's managed templates (opencode-e2b- id or alias) made on this machine (the name ends
# in -m<machine id>) whose most recent of lastSpawnedAt, updatedAt and createdAt is older
# than template_ttl are deleted; another machine's, or one whose maker is not known, is
# listed as another machine's and never deleted; a dry run deletes nothing, and
# template_ttl from the config moves the line. The machine id is made on first use (0600).
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_abort "box setup"

# first use makes this machine's id, private
box_tui --templates
box_rc "--templates exits 0 with no managed template" 0
idf=$XDG_STATE_HOME/e2b-tui/machine-id
t_ok "the machine id is made on first use" grep -Eqx '[0-9a-f]{12}' "$idf"
t_eq "and kept private" "$(stat -c %a "$idf")" 600
t_not_contains "it is not the hostname" "$(cat "$idf")" "$(hostname)"
m=$(cat "$idf")
other=0123456789ab
[ "$m" != "$other" ] || other=ba9876543210

ago() { date -u -d "@$(($(date +%s) - $1 * 3600))" +%Y-%m-%dT%H:%M:%SZ; }
seed() { el_req POST /_e2b-local/templates "$1" >/dev/null; }
seed "{\"templateID\":\"opencode-e2b-old\",\"alias\":\"opencode-e2b-old-m$m\",\"createdAt\":\"$(ago 200)\"}"
seed "{\"templateID\":\"opencode-e2b-new\",\"alias\":\"opencode-e2b-new-m$m\",\"createdAt\":\"$(ago 1)\"}"
seed "{\"templateID\":\"opencode-e2b-spawned\",\"alias\":\"opencode-e2b-sp-m$m\",\"createdAt\":\"$(ago 200)\",\"lastSpawnedAt\":\"$(ago 2)\"}"
seed "{\"templateID\":\"opencode-e2b-updated\",\"alias\":\"opencode-e2b-up-m$m\",\"createdAt\":\"$(ago 200)\",\"updatedAt\":\"$(ago 30)\"}"
seed "{\"templateID\":\"tpl7x9\",\"alias\":\"opencode-e2b-aliased-m$m\",\"createdAt\":\"$(ago 100)\"}"
seed "{\"templateID\":\"tplthere\",\"alias\":\"opencode-e2b-proj-m$other\",\"createdAt\":\"$(ago 300)\"}"
seed "{\"templateID\":\"opencode-e2b-nomark\",\"createdAt\":\"$(ago 300)\"}"
seed "{\"templateID\":\"mine-old\",\"createdAt\":\"$(ago 500)\"}"
listed() { el_req GET /templates >/dev/null; el_json '[.[].templateID] | sort | join(" ")'; }
all="base mine-old opencode opencode-e2b-new opencode-e2b-nomark opencode-e2b-old opencode-e2b-spawned opencode-e2b-updated tpl7x9 tplthere"
t_eq "seeded" "$(listed)" "$all"

box_tui --templates
box_rc "--templates exits 0" 0
t_ok "a managed template is marked" grep -Eq "^opencode-e2b-old +opencode-e2b-old-m$m +1 +8d +managed\$" "$BOX_OUT"
t_ok "one managed by its alias too" grep -Eq "^tpl7x9 +opencode-e2b-aliased-m$m +1 +4d +managed\$" "$BOX_OUT"
t_ok "another machine's is marked so" grep -Eq "^tplthere +opencode-e2b-proj-m$other +1 +12d +managed, another machine's\$" "$BOX_OUT"
t_ok "and so is one whose maker is not known" grep -Eq "^opencode-e2b-nomark +- +1 +12d +managed, another machine's\$" "$BOX_OUT"
t_ok "a public one is marked" grep -Eq '^base +base .*public$' "$BOX_OUT"
t_ok "the team's own is not marked" grep -Eq '^mine-old +- +1 +20d +$' "$BOX_OUT"

box_tui --gc-templates --dry-run
box_rc "dry run exits 0" 0
t_eq "the dry run names what it would delete" "$(sort "$BOX_OUT")" "would delete opencode-e2b-old (last used 8d ago)
would delete tpl7x9 (last used 4d ago)"
t_contains "and says nothing was deleted" "$(cat "$BOX_ERR")" "2 managed templates of this machine unused for more than 72 h (dry run: nothing deleted)"
t_eq "nothing deleted" "$(listed)" "$all"

box_tui --gc-templates
box_rc "gc exits 0" 0
t_eq "it names what it deleted" "$(sort "$BOX_OUT")" "deleted opencode-e2b-old (last used 8d ago)
deleted tpl7x9 (last used 4d ago)"
t_eq "only those are gone (another machine's old ones stay)" "$(listed)" "base mine-old opencode opencode-e2b-new opencode-e2b-nomark opencode-e2b-spawned opencode-e2b-updated tplthere"

printf 'template_ttl = 1d\n' >>"$XDG_CONFIG_HOME/e2b-tui/config"
box_tui --gc-templates --dry-run
t_eq "template_ttl = 1d takes the 30 h old one too" "$(cat "$BOX_OUT")" "would delete opencode-e2b-updated (last used 30h ago)"
printf 'template_ttl = soon\n' >>"$XDG_CONFIG_HOME/e2b-tui/config"
box_tui --gc-templates --dry-run
t_eq "a bad template_ttl is refused" "$((BOX_RC != 0))" 1
t_contains "and named" "$(cat "$BOX_ERR")" "template_ttl"
t_finish
