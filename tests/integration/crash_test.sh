#!/usr/bin/env bash
# Crash tests: SIGKILL e2b-tui in the middle of --up and --pull (11 + 11 runs), against the
# real OpenCode server, in three programs that run side by side (tests/lib/crash.sh holds
# the kill and the checks): this one (the orphan below and up kills 1-5; CRASH_UP_RUNS=N
# stops after up kill N), crash_up_test.sh (up kills 6-11) and crash_pull_test.sh. Most runs aim
# at one step: e2b-local holds that step's request (a "delay" fault of 1.5 s), the run waits
# for e2b-tui's log to say the step began and kills 0-300 ms later, so the kill lands inside
# the step whatever the machine's load; the step log then proves where it landed (the last
# step line of the run must be the aimed one). The other runs kill anywhere in the time a
# whole up / pull takes. The delays come from a seeded RNG; the seed is fixed (printed;
# CRASH_SEED=N changes it), so names, counts and delays are the same from run to run.
# The outcomes are counted and printed; each program fails if fewer than 3 in 4 runs were killed
# inside a step (a kill after the action ended tests nothing). CRASH_MISS=1 kills only
# after the action ended, to show that this count catches kills that all miss.
# After every kill:
#   - every record parses (--list --json succeeds) and agrees with the record files, which
#     are 0600 in a 0700 directory, with no temp file left once the list ran;
#   - the user's repository is fsck-clean and its HEAD, branches, index and work tree are
#     unchanged; refs/heads/e2b/<name> is absent, the old tip or the new one, never broken;
#   - a re-run either finishes (--up then --kill; --pull brings the box's latest work) or
#     fails with a clear message: "already exists" when the up got as far as its record;
#     a sandbox left without a record (an orphan) is removed with its password by the
#     next start of e2b-tui (the journal of creates in doubt), which says so.
# Plus one deterministic orphan: the up is killed while it waits for a server that never
# becomes healthy (sandbox made, password stored, no record yet).
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish
. "$E2B_TUI_ROOT/tests/lib/crash.sh"
crash_orphan
crash_up_kills 1 "${CRASH_UP_RUNS:-5}"
crash_end
t_finish
