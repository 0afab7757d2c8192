#!/usr/bin/env bash
# Issue 30 item 6: sorting has keys of its own, so no action's capital collides with it:
# > and < move the sort column (the header marks it; after the last the list's own order
# comes back), I reverses; STATE, TEMPLATE and TODO, whose letters S and T are actions, can
# be sorted; rows that tie go by name. S in All is no sort any more.
. "$(dirname "$0")/common.sh"
e2b_local_start || t_finish
sbx_create base running 600 name=c-run
sbx_create base paused 600 name=a-paused
sbx_create base running 600 name=b-run

# sort_to TITLE: presses > until the header marks TITLE ascending (at most 14 presses).
sort_to() {
    local i
    for ((i = 0; i < 14; i++)); do
        case "$(tmux_capture | sed -n 2p)" in *"$1↑"*) return 0 ;; esac
        dash_keys_redrawn '>' || true
    done
    return 1
}

dash_start 160 24
tmux_type 3
dash_check "All lists the three" "b-run"
tmux_type '>'
dash_check "> sorts by the first column" "sorted by NAME (ascending)"
dash_check_line "the header marks it" 2 "NAME↑"
dash_check_line "a-paused first" 3 "a-paused"
if sort_to STATE; then t_pass "> moves on to STATE"; else t_fail "> moves on to STATE" "$(tmux_capture | sed -n 2p)"; fi
dash_check "the status line says so" "sorted by STATE (ascending)"
dash_check_line "paused before running" 3 "a-paused"
dash_check_line "running rows tie: by name, b-run" 4 "b-run"
dash_check_line "then c-run" 5 "c-run"
tmux_type 'I'
dash_check_line "I reverses: the header says so" 2 "STATE↓"
dash_check_line "running first, ties still by name: b-run" 3 "b-run"
dash_check_line "then c-run" 4 "c-run"
dash_check_line "paused last" 5 "a-paused"
if sort_to TODO; then t_pass "> reaches TODO"; else t_fail "> reaches TODO" "$(tmux_capture | sed -n 2p)"; fi
tmux_type '>'
dash_check "after the last column the list's own order comes back" "unsorted: the list's own order"
t_not_contains "the header marks no column" "$(tmux_capture | sed -n 2p)" "↑"
if sort_to TEMPLATE; then t_pass "> goes round to TEMPLATE (T is Templates)"; else t_fail "> goes round to TEMPLATE (T is Templates)" "$(tmux_capture | sed -n 2p)"; fi
tmux_type '<'
dash_check "< goes back a column" "sorted by"
tmux_type S
dash_check "S is no sort key (in All it does nothing)" "key S does nothing here"
t_not_contains "and sorted nothing" "$(tmux_capture | tail -n 1)" "sorted by"
dash_quit "quits"

# A narrow screen: > passes over the columns it hides (CPU, MEM at 80 columns).
dash_start 80 24
tmux_type 3
dash_check "All lists the three" "b-run"
seen=""
for ((i = 0; i < 14; i++)); do
    dash_keys_redrawn '>' || true
    said=$(tmux_capture | tail -n 1)
    case "$said" in *"unsorted"*) break ;; esac
    seen+=" $(grep -o 'sorted by [A-Z]*' <<<"$said")"
done
t_contains "at 80 columns > goes through NAME" "$seen" "sorted by NAME"
t_contains "and STATE" "$seen" "sorted by STATE"
t_not_contains "but not the hidden CPU" "$seen" "sorted by CPU"
t_contains "and after the last comes the list's own order" "$(tmux_capture | tail -n 1)" "unsorted"
dash_quit "quits at 80 columns"
t_finish
