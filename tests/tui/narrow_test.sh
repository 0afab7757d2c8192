#!/usr/bin/env bash
# Issue 19 item 19: a narrow terminal hides the least useful columns first (CPU, MEM,
# TEMPLATE...) and keeps NAME and the ID whole (the ID is what users copy); below the
# minimum size, q with a prompt open quits as the screen says, instead of being typed into
# the prompt that cannot be seen.
. "$(dirname "$0")/common.sh"
e2b_local_start || t_finish
sbx_create base running 600 name=a-rather-long-sandbox-name && id=$SBX_ID

dash_start 80 20
tmux_type 3
dash_check "the sandbox is listed" "a-rather-long-sandbox-name"
dash_check "at 80 columns the id is whole" "$id"
dash_check_line "at 80 columns STATE stays" 2 "STATE"
screen=$(tmux_capture)
t_contains "at 80 columns the name is whole" "$screen" "a-rather-long-sandbox-name"
t_not_contains "at 80 columns CPU is hidden first" "$(sed -n 2p <<<"$screen")" "CPU"
tmux_resize 55 20
# (the id was whole at 80 columns too: the row counter at the status line's right end shows
# that the frame was drawn for 55 columns; tmux cuts the old one there)
dash_check_line "at 55 columns the status line is redrawn" 20 "1/1"
dash_check "at 55 columns the id is whole" "$id"
screen=$(tmux_capture)
t_contains "at 55 columns the name is whole" "$screen" "a-rather-long-sandbox-name"
t_not_contains "at 55 columns BRANCH went before STATE" "$(sed -n 2p <<<"$screen")" "BRANCH"

# Below the minimum size with a prompt open: q quits (it is not typed into the prompt).
tmux_resize 100 20
tmux_type '/ab'
dash_check "the filter prompt is open" "/ab_"
tmux_resize 30 8
dash_check "too small" "Terminal too small"
tmux_type q
dash_check "q quits from the too-small screen, prompt or not" "rc=0"
t_finish
