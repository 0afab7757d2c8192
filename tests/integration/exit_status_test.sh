#!/usr/bin/env bash
# One mapping from an error to an exit status (man/e2b-tui.1, EXIT STATUS), in every
# one-shot mode: a rejected API key is 4, an unreachable API 1, an unknown box 3, a box name
# that several sandboxes carry 5 (both named, nothing done). Against e2b-local with one real
# box of this machine ("real", so that the modes that need a record get past it) and two
# sandboxes of another machine called "twin".
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish
box_tui --up real
box_rc "setup: up real" 0 || t_abort "up failed"
twins=()
for _ in 1 2; do
    el_create '{"templateID":"base","timeout":3600,"metadata":{"e2b-tui":"box","e2b-tui.name":"twin"}}' ||
        t_abort "twin not made"
    twins+=("$EL_ID")
done

# The modes on a box (NAME is replaced), then those with no box.
box_modes=("--status NAME" "--prompt NAME hello" "--reply NAME once" "--interrupt NAME"
    "--wait NAME --timeout 5" "--snapshot NAME" "--fork NAME" "--pull NAME" "--attach NAME"
    "--kill NAME" "--stop NAME" "--resume NAME" "--extend NAME" "--tunnel NAME")
plain_modes=("--status" "--list" "--templates" "--snapshots" "--secrets list" "--up fresh")

run_mode() { # run_mode MODE NAME [ENV=VALUE...]
    local mode=${1//NAME/$2}
    shift 2
    # shellcheck disable=SC2086 # the mode's words
    BOX_OUT=$T_TMP/box.out BOX_ERR=$T_TMP/box.err
    (cd "$BOX_REPO" && env "$@" timeout 60 "$E2B_TUI_BIN" $mode) >"$BOX_OUT" 2>"$BOX_ERR" </dev/null
    BOX_RC=$?
}

for m in "${box_modes[@]}" "${plain_modes[@]}"; do
    run_mode "$m" real E2B_API_KEY=e2b_rejected_key_0000
    box_rc "${m//NAME/real} with a rejected API key: 4" 4
    run_mode "$m" real E2B_API_URL=http://127.0.0.1:9
    box_rc "${m//NAME/real} with the API unreachable: 1" 1
done
for m in "${box_modes[@]}"; do
    run_mode "$m" nosuch
    box_rc "${m//NAME/nosuch}: no such box: 3" 3
    run_mode "$m" twin
    box_rc "${m//NAME/twin}: two sandboxes carry the name: 5" 5
    t_contains "${m//NAME/twin}: the conflict names both" "$(cat "$BOX_ERR")" "${twins[0]}"
    t_contains "${m//NAME/twin}: and the second" "$(cat "$BOX_ERR")" "${twins[1]}"
done
t_eq "neither twin was touched" "$(sbx_state "${twins[0]}") $(sbx_state "${twins[1]}")" "running running"
t_eq "the real box still runs" "$(sbx_state "$(box_sandbox_of real)")" running

# --interrupt on an idle box: nothing to interrupt, said so.
run_mode "--interrupt NAME" real
box_rc "--interrupt of an idle box: exit 0" 0
t_contains "it says there was nothing to interrupt" "$(cat "$BOX_ERR" "$BOX_OUT")" "nothing to interrupt"
t_finish
