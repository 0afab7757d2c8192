# The start of the dashboard's "Best of N" tests (compare, group_tui, group_reload, try_tui):
# source it first. It brings the libraries, sets up tests/lib/try_fixture.sh's project and
# boxes' home, the terminal, and BOXES (the records' folder).
. "$(dirname "$0")/common.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/lib/agent.sh"
. "$E2B_TUI_ROOT/tests/lib/try_fixture.sh"
try_fixture || t_abort "the fixture could not be set up"
export TERM=tmux-256color LANG=C.UTF-8
BOXES=$XDG_STATE_HOME/e2b-tui/boxes
