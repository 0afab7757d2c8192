#!/usr/bin/env bash
# Issue 19 item 10: an attach command that fails keeps its last lines on the screen with
# "press Enter to return" (as lazygit does) instead of a redraw that wipes them, and says
# what to install or configure: a command that does not exist shows the system's reason and
# points at attach_command; a non-zero exit keeps the child's own output.
. "$(dirname "$0")/common.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish
export TERM=tmux-256color LANG=C.UTF-8
box_tui --up main
box_rc "the box is up" 0 || t_abort "the box did not come up"
id=$(box_sandbox_of main)
cfg=$XDG_CONFIG_HOME/e2b-tui/config
cp "$cfg" "$T_TMP/config.orig"
printf 'attach_command = no-such-attach-cmd --server {url}\n' >>"$cfg"

DASH_CWD=$BOX_REPO dash_start 120 30
tmux_wait "main " >/dev/null
tmux_type a
dash_check "the child's own error stays on screen" "cannot run no-such-attach-cmd: No such file or directory"
dash_check "with what to do about it" "install OpenCode (opencode or opencode2 on PATH) or set attach_comman"
dash_check "and press Enter to return" "press Enter to return"
t_not_contains "the dashboard is not drawn over it" "$(tmux_capture)" "1 Boxes"
tmux_keys Enter
dash_check "Enter returns to the dashboard" "1 Boxes"
dash_check "the status line says what to do" "install OpenCode (open"
dash_quit "quits after the failed attach"

# A command that runs and fails: its last lines stay.
cp "$T_TMP/config.orig" "$cfg"
cat >"$T_TMP/fail-attach" <<'SH'
#!/bin/sh
echo "attach-output: could not reach the server"
exit 3
SH
chmod +x "$T_TMP/fail-attach"
printf 'attach_command = %s {url}\n' "$T_TMP/fail-attach" >>"$cfg"
DASH_CWD=$BOX_REPO dash_start 120 30
tmux_wait "main " >/dev/null
tmux_type a
dash_check "the child's last line stays" "attach-output: could not reach the server"
dash_check "with its status" "exited with status 3"
tmux_keys Enter
dash_check "Enter returns" "1 Boxes"
dash_quit "quits after the second attach"
rm -f "$T_TMP/fail-attach" "$T_TMP/config.orig"
[ -n "$id" ] && el_req DELETE "/sandboxes/$id" >/dev/null
t_finish
