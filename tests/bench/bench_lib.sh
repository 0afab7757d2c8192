# Helpers for the bench scripts (source it). Figures are printed one per line:
#   bench_figure TEXT VALUE UNIT [OP TARGET]   "TEXT: VALUE UNIT (N cores, load L; target OP
#                                              TARGET UNIT: met)" (L: the 1-minute load average)
#   bench_median                               median of the numbers on stdin
#   bench_cores                                the machine's core count
bench_cores() { getconf _NPROCESSORS_ONLN 2>/dev/null || nproc; }

bench_median() {
    sort -g | awk '{v[NR] = $1} END {
        if (NR == 0) { print "nan"; exit }
        if (NR % 2) print v[(NR + 1) / 2]; else printf "%.6g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# bench_figure TEXT VALUE UNIT [OP TARGET]: OP is <= or >=.
bench_figure() {
    local text=$1 value=$2 unit=$3 op=${4:-} target=${5:-} verdict=
    if [ -n "$op" ]; then
        if awk -v v="$value" -v t="$target" -v op="$op" \
            'BEGIN { exit !((op == "<=" && v <= t) || (op == ">=" && v >= t)) }'; then
            verdict="; target $op $target $unit: met"
        else
            verdict="; target $op $target $unit: NOT met"
        fi
    fi
    printf '%-44s %10s %-5s (%s cores, load %s%s)\n' "$text:" "$value" "$unit" "$(bench_cores)" \
        "$(cut -d' ' -f1 /proc/loadavg)" "$verdict"
}

# bench_box_env BUILD_DIR [LIB...]: the test helpers a box bench uses, on BUILD_DIR's
# binaries: sets E2B_TUI_ROOT, BD, E2B_TUI_BIN, E2B_LOCAL_BIN and sources tests/lib's lib.sh,
# e2b_local.sh, box.sh and then each LIB (a name under tests/lib, e.g. agent.sh).
bench_box_env() {
    E2B_TUI_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
    case $1 in /*) BD=$1 ;; *) BD=$E2B_TUI_ROOT/$1 ;; esac
    E2B_TUI_BIN=$BD/e2b-tui
    E2B_LOCAL_BIN=$BD/e2b-local
    shift
    local f
    for f in lib.sh e2b_local.sh box.sh "$@"; do
        . "$E2B_TUI_ROOT/tests/lib/$f"
    done
}
