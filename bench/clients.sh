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
# sweep, the gather, the cross-read judgement) are shown.
#
# Environment: ROUNDS (3), SECONDS (8), SIZE (256MiB), FAULTLINE (./faultline)
set -eu

ROUNDS=${ROUNDS:-3}
SECS=${SECONDS_PER_RUN:-${SECONDS:-8}}
SIZE=${SIZE:-256MiB}
FAULTLINE=$(cd "$(dirname "${FAULTLINE:-./faultline}")" && pwd)/$(basename "${FAULTLINE:-./faultline}")
MPIRUN="mpirun --allow-run-as-root --enable-recovery --bind-to none --mca btl tcp,self"

for tool in mpirun jq; do
    command -v $tool > /dev/null || { echo "bench: $tool is missing; run make deps" >&2; exit 2; }
done
[ -d /dev/shm ] || { echo "bench: no /dev/shm tmpfs" >&2; exit 2; }

WORK=$(mktemp -d /dev/shm/fl-bench-clients-XXXXXX)
trap 'rm -rf "$WORK"' EXIT INT TERM

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
    [ "$verdict" = pass ] || { cat "$WORK/log" >&2; echo "bench: $1: $verdict" >&2; exit 2; }
    jq -r --arg t_end "$t_end" '[(.io.reads + .io.writes) / .io.seconds,
        ($t_end | tonumber) - .t0_wall - .workload_end] | @tsv' "$WORK/run/report.json"
}

median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

for r in $(seq "$ROUNDS"); do
    for v in "one 1" "two 2" "cross 2"; do
        set -- $v
        out=$(run "$1" "$2")
        echo "$out" | cut -f1 >> "$WORK/$1.iops"
        echo "$out" | cut -f2 >> "$WORK/$1.tail"
        printf 'round %s  %-6s %s ranks: %8.0f IOPS, report %.2f s after the workload\n' \
            "$r" "$1" "$2" "$(echo "$out" | cut -f1)" "$(echo "$out" | cut -f2)"
    done
done
one=$(median < "$WORK/one.iops")
two=$(median < "$WORK/two.iops")
cross=$(median < "$WORK/cross.iops")
echo "median verified IOPS: 1 rank $one, 2 ranks $two, 2 ranks with cross_reads 10% $cross"
awk -v a="$one" -v b="$two" -v c="$cross" 'BEGIN {
    printf "scaling 2 ranks / 1 rank: %.2fx; cost of cross_reads = 10%%: %.1f%%\n", b / a,
           100 * (1 - c / b) }'
