#!/bin/sh
# bench/clients.sh — a run over several clients (MPI ranks) against the same
# run with one, on one tmpfs file, in one run; and what cross reads cost.
#
# Workload: 4 KiB random reads and writes, 50/50, depth 2 per client (the
# sync engine: two workers per client, one I/O each), a flush every 64
# writes, SECONDS per run.  Variants take turns (ROUNDS times) so that all
# see the same machine noise; the medians are compared.  The measure is the
# workload's verified I/Os (reads and writes of every client, each read
# checked) per second of the workload, from report.json.
#
#   1 rank      faultline run alone (no MPI)
#   2 ranks     mpirun -n 2 faultline run: each rank owns every other block,
#               the same depth on each: scaling = 2 ranks / 1 rank
#   2 ranks+x   the same with cross_reads = 10%: a tenth of the reads go to
#               the other client's blocks (logged, judged at the end against
#               the owner's journal): cost = 1 - (2 ranks+x / 2 ranks)
#
# The machine has 2 cores: with one client keeping two I/Os in flight the
# scaling tells how much of the machine one client leaves idle.  Besides
# throughput, the seconds from the end of the workload to the report (the
# sweep, the gather, the cross-read judgement) are shown.  The file is
# allocated once before the first round (fallocate).
#
# Measures (bench/lib.sh; report only, no goal): "2 clients / 1 client"
# (2 ranks against 1 rank) and "cross reads 10%" (2 ranks+x against 2 ranks).
#
# Environment: ROUNDS (5), SECONDS (8), SIZE (256MiB), FAULTLINE (./faultline),
# BENCH_SMOKE, BENCH_ROWS (bench/lib.sh)
# shellcheck disable=SC2317 # the rounds' functions are called through bench_rounds
set -eu
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC3028 # SECONDS: this bench's knob (sh does not count it)
SECS=${SECONDS_PER_RUN:-${SECONDS:-8}}
SIZE=${SIZE:-256MiB}
FAULTLINE=$(cd "$(dirname "${FAULTLINE:-./faultline}")" && pwd)/$(basename "${FAULTLINE:-./faultline}")
MPIRUN="mpirun --allow-run-as-root --enable-recovery --bind-to none --mca btl tcp,self"

bench_need mpirun jq fallocate
[ -d /dev/shm ] || bench_fail "no /dev/shm tmpfs"

bench_workdir /dev/shm clients
WORK=$BENCH_WORKDIR
fallocate -l "$(bench_bytes "$SIZE")" "$WORK/target.img"

scenario() { # NAME CROSS_PERCENT
    cat > "$WORK/$1.scn" << EOF
[scenario]
name = $1
duration = ${SECS}s
[target]
kind = file
path = $WORK/target.img
size = $SIZE
[workload]
block = 4KiB
pattern = random
read = 50%
depth = 2
flush = 64
cross_reads = $2%
EOF
}
scenario one 0
scenario two 0
scenario cross 10

# run NAME RANKS: prints "IOPS TAIL_SECONDS" (verified workload I/Os per
# second of the workload; seconds from the workload's end to the report)
run() {
    rm -rf "$WORK/run"
    if [ "$2" = 1 ]; then
        "$FAULTLINE" run "$WORK/$1.scn" --out "$WORK/run" --quiet > "$WORK/log" 2>&1
    else
        $MPIRUN -n "$2" "$FAULTLINE" run "$WORK/$1.scn" --out "$WORK/run" --quiet \
            > "$WORK/log" 2>&1
    fi
    t_end=$(date +%s.%N)
    verdict=$(jq -r .verdict "$WORK/run/report.json" 2> /dev/null || echo none)
    [ "$verdict" = pass ] || { cat "$WORK/log" >&2; bench_fail "$1: $verdict"; }
    jq -r --arg t_end "$t_end" '[(.io.reads + .io.writes) / .io.seconds,
        ($t_end | tonumber) - .t0_wall - .workload_end] | @tsv' "$WORK/run/report.json"
}

# shellcheck disable=SC2086 # v: a name and a count of ranks
round() {
    line="round $1/$ROUNDS:"
    for v in "one 1" "two 2" "cross 2"; do
        set -- "$1" $v # the round, the name, the ranks
        out=$(run "$2" "$3")
        bench_record "$2" "$(echo "$out" | cut -f1)"
        bench_record "$2-tail" "$(echo "$out" | cut -f2)"
        line="$line $(printf '%s %s ranks %.0f IOPS (report %.2f s after),' "$2" "$3" \
                          "$(echo "$out" | cut -f1)" "$(echo "$out" | cut -f2)")"
    done
    echo "${line%,}"
}
bench_rounds round
bench_tool one "1 rank" "verified IOPS"
bench_tool two "2 ranks" "verified IOPS"
bench_tool cross "2 ranks with cross_reads 10%" "verified IOPS"
bench_tool one-tail "1 rank, report after the workload" s
bench_tool two-tail "2 ranks, report after the workload" s
bench_tool cross-tail "2 ranks with cross_reads 10%, report after the workload" s
bench_measure "2 clients / 1 client (MPI ranks, tmpfs file)" IOPS two one -
bench_measure "cross reads 10% / none (2 ranks)" IOPS cross two -
bench_exit
