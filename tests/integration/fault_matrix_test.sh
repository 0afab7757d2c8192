#!/usr/bin/env bash
# Every injected fault of e2b-local on every request path of every one-shot action, in four
# programs that run side by side (the table and the checks: tests/lib/fault_matrix.sh): this
# one (list, --json, secrets, attach, stop), fault_matrix_up_test.sh (up until the create),
# fault_matrix_upload_test.sh (up from the upload on) and fault_matrix_pull_test.sh (kill, pull).
#
# One row of the table in tests/lib/fault_matrix.sh is one case: the action, the request path the fault is aimed
# at (a substring, as e2b-local matches it; METHOD:path to hit one method only), the fault kind, the expected exit status, and
# the phrase the one-line error message must contain ("-" when the action must succeed).
# For every case: the fault was really hit (e2b-local's queue is empty afterwards), the exit
# status is the documented one, stderr is only "e2b-tui: " lines with no raw JSON and no
# sanitizer report, and after a failure the box records still parse (0600, no temp files)
# and --list --json works. Each action adds its own checks (no stray sandbox after a failed up, the git
# repository untouched and the e2b/<name> branch not moved after a failed pull, ...).
#
# What is retried, and why (core/net/http.c, core/e2b/api.c, core/e2b/envd.c):
#   * 429 with an integer Retry-After, on every request whose body is in memory: the server
#     did not act on the request, so sending it again is always safe (the SDK's rule, extended
#     to envd). The streamed upload of --up cannot be replayed: a 429 there fails the up.
#   * 503 on pause, connect (resume) and kill: idempotent by nature (pause answers 409 when
#     already paused, connect only extends, kill answers 404 when gone), and E2B documents
#     503 as "node busy, retry".
#   * Nothing else. In particular POST /v2/sandboxes is sent once whatever happens (a retry
#     could make two sandboxes); when its reply is lost (broken connection, 5xx, timeout),
#     up looks for the sandbox by the random e2b-tui.up metadata it sent and kills it.
#   * The health check of a box's server is a poll: a failed poll is followed by another
#     until the health deadline (E2B_TUI_HEALTH_TIMEOUT).
#   * Transport failures (truncated or dropped replies) are not retried: the one-shot modes
#     say what broke and the user runs the command again; the dashboard refreshes anyway.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
. "$E2B_TUI_ROOT/tests/lib/faults.sh"
box_setup || t_finish
. "$E2B_TUI_ROOT/tests/lib/fault_matrix.sh"
fm_matrix '^(list|json|secret-[a-z]+|attach|stop) '
t_finish
