#!/usr/bin/env bash
# The dashboard shows a box's egress and changes it (issue 35): a box made with
# --allow-out and a stored openai secret; its Detail pane tells internet on/off, the allow
# and deny lists and which secret goes to which host (names only); ':network --allow-out
# LIST' replaces the rules of the running box (the secret's rule kept: the provider's host
# stays allowed) and the pane follows; a bad list is refused on the status line.
. "$(dirname "$0")/common.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_abort "the box could not be set up"
export TERM=tmux-256color LANG=C.UTF-8
key="sk-dash-$$-$RANDOM$RANDOM"
OPENAI_API_KEY=$key box_tui --secrets set openai
box_rc "a secret is stored" 0
box_tui --up eg --allow-out api.example.com,10.1.0.0/16
box_rc "a box with an allow list is up" 0 || t_abort "the box did not come up"
id=$(box_sandbox_of eg)

DASH_CWD=$BOX_REPO dash_start 140 44 -- --refresh 1
dash_check "the box is listed" "eg"
tmux_type d
dash_check "the Detail pane has the egress" "Egress"
dash_check "internet on" "Internet"
dash_check "the allow list, with the secret's provider host" "api.example.com, 10.1.0.0/16, api.openai.com"
dash_check "the deny list (an allow list means only these)" "0.0.0.0/0"
dash_check "which secret goes to which host" "openai -> api.openai.com"
t_not_contains "no secret value on the screen" "$(tmux_capture)" "$key"
tmux_keys Escape
tmux_type ':network --allow-out 10.0.0.0/99'
tmux_keys Enter
dash_check "a bad list is refused, naming the entry" "'10.0.0.0/99' is not a CIDR"
tmux_type ':network --allow-out other.example.com --no-internet'
tmux_keys Enter
dash_check "the change is told" "egress changed"
el_req GET "/sandboxes/$id" >/dev/null
t_eq "E2B got the new rules, the secret's rule kept" \
    "$(el_json '[.allowInternetAccess, .network.allowOut, (.network.rules | keys)]')" \
    '[false,["other.example.com","api.openai.com"],["api.openai.com"]]'
tmux_type d
dash_check "the pane follows: internet off" "off (only what is allowed)"
dash_check "the pane follows: the new list" "other.example.com, api.openai.com"
tmux_type q
tmux_type q
box_tui --kill eg --force
box_rc "kill exits 0" 0
t_finish
