# The boxes of the marks tests (tests/tui/preview_marks_test.sh, batch_marks_test.sh): source
# after box.sh and agent.sh. marks_boxes NAME...: each box up (the test aborts when one is
# not), its sandbox in sid[NAME], and its model scripted to ask for a bash permission, then
# say it is done; the command has no blanks, so the question's wrapped lines never split it.
declare -A sid
marks_boxes() {
    local n
    for n in "$@"; do
        box_tui --up "$n"
        box_rc "box $n is up" 0 || t_abort "$n did not come up"
        sid[$n]=$(box_sandbox_of "$n")
        agent_script "${sid[$n]}" '{"title":"Task '"$n"'","steps":[{"tool":"bash","args":{"command":"date>'"$n"'1.txt","description":"stamp"}},{"text":"Stamped '"$n"'."}]}'
    done
}

# the NAME of the list's row on screen line L (a gutter mark "*" is passed over)
row_name() { tmux_capture | sed -n "${1}p" | sed 's/^\* *//' | awk '{print $1}'; }
