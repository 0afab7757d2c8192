#!/usr/bin/env bash
# The Detail pane of a box lists its listening TCP ports (read in the box when the pane
# opens) and w forwards one to a local URL that only its owner reaches (no password: a dev
# server has none), copying the URL to the clipboard (tmux's, set-clipboard on); the URL
# answers with the dev server, and quitting the dashboard closes it.
. "$(dirname "$0")/common.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish
export TERM=tmux-256color LANG=C.UTF-8
cp "$BOX_FIXTURES/tunnel_server.py" "$BOX_REPO/tools/"
printf 'serve_command = python3 {dir}/tools/tunnel_server.py --port {port}\npreview_columns = 0\n' >"$XDG_CONFIG_HOME/e2b-tui/config"
box_tui --up
box_setup_rc "up" 0
id=$(box_sandbox_of main)
dir=$(jq -r .dir "$XDG_STATE_HOME/e2b-tui/boxes/main.json")
box_exec "$id" "cd $dir && (setsid nohup python3 tools/tunnel_server.py --open --port 5173 >/tmp/dev.log 2>&1 &)" >/dev/null
listening() { box_tui --ports main; grep -qx 5173 "$BOX_OUT"; }
t_wait_until 60 listening || t_abort "setup: the dev server does not listen: $(cat "$BOX_ERR")"

DASH_CWD=$BOX_REPO dash_start 140 30
tm set-option -g set-clipboard on >/dev/null
dash_check "the box is listed" "main "
tmux_type d
# e2b-local's egress proxy listens at 127.0.0.1:3128 in the box (E2B's is outside the VM):
# listed as loopback-only, and never offered first by w (E2B's proxy cannot reach it)
dash_check "the Detail pane lists the box's ports" "Ports        3128 (127.0.0.1 only), 4096, 5173  (w: forward one)" 60
tmux_type w
dash_check "w asks which port, the dev server's first" "forward: which port of the box (a local URL, yours only): 5173"
tmux_keys Enter
dash_check "it copies the local URL" "copied port 5173's local URL (yours only) to the clipboard: http://127.0.0.1:"
dash_check "the pane shows the forward" "Forward      5173 -> http://127.0.0.1:"
url=$(tm show-buffer 2>/dev/null)
case $url in http://127.0.0.1:*) t_pass "the clipboard holds the URL" ;; *) t_fail "the clipboard holds the URL" "[$url]" ;; esac
t_eq "the dev server answers through it, no password asked" \
    "$(curl -s -o /dev/null -w '%{http_code}' "$url/headers")" 200
t_eq "a WebSocket passes" "$(python3 "$E2B_TUI_ROOT/tests/lib/ws_client.py" "$url/ws" hi-dash)" hi-dash
t_eq "another user (nobody) is refused" \
    "$(setpriv --reuid=nobody --regid=nogroup --clear-groups curl -s -o /dev/null -w '%{http_code}' "$url/headers")" 403
tmux_keys Escape
tmux_type d
tmux_type w
tmux_keys Enter
dash_check "w again on the same port copies the forward that is open" "copied port 5173's local URL"
t_eq "still one forward, at the same URL" "$(tm capture-pane -p | grep -c "Forward      5173 -> $url ")" 1
# D in the Detail pane: files of the box brought home
box_exec "$id" "cd $dir && mkdir -p dist && printf 'built\n' >dist/app.js && ln -s /etc/passwd dist/outside" >/dev/null
mkdir -p "$T_TMP/home"
tmux_type D
dash_check "D asks which paths of the box" "get: paths in the box (its project or /tmp; space-separated):"
tmux_type dist
tmux_keys Enter
dash_check "then into which local folder" "get: into the local folder: ."
tmux_keys BSpace
tmux_type "$T_TMP/home"
tmux_keys Enter
dash_check "the copy ends with a message" "fetched 3 entries" 60
t_eq "dist/app.js came home" "$(cat "$T_TMP/home/dist/app.js")" built
t_eq "the link is kept as a link" "$(readlink "$T_TMP/home/dist/outside")" /etc/passwd
tmux_type D
tmux_type dist
tmux_keys Enter
tmux_keys BSpace
tmux_type "$T_TMP/home"
tmux_keys Enter
dash_check "again: existing files are not overwritten" "of the files exist in"
tmux_keys Escape
dash_quit "quits"
t_eq "quitting closes the forward" "$(curl -s -o /dev/null -w '%{http_code}' "$url/headers")" 000
box_tui --kill main --force
t_finish
