#!/bin/sh
# bench/vs-fio.sh — faultline against fio on the same tmpfs file, in one run.
#
# Workload: 4 KiB random reads and writes, 50/50, depth 8, a flush every 64
# writes, one thread, io_uring, for SECONDS per run.  The tools take turns
# (ROUNDS times), so both see the same machine noise; the medians are
# compared.  The measure is verified-workload I/Os per wall-clock second of
# the whole command: each tool's own final verification pass is inside it.
#
#   faultline         every read verified (online), then a sweep over every
#                     written block; journal on (run directory on the same tmpfs)
#   faultline-nojrnl  the same with `journal = no`: shows what the journal costs
#   fio-randrw        fio --rw=randrw --verify=crc32c --fsync=64: writes carry
#                     crc32c headers, the verify phase after the run reads them
#                     back; the random reads during the run are NOT verified
#   fio-backlog       fio --rw=randwrite --verify=crc32c --verify_backlog=8:
#                     every read is a verifying read, as in faultline
#   fio-psync8        fio-randrw with 8 psync jobs, each on its own eighth of the
#                     file (--offset_increment): depth 8 the way faultline's sync
#                     engine gets it, one thread per I/O in flight
#
# faultline picks its sync engine here (buffered file): 8 workers, one I/O in
# flight each.  The fio variants are the io_uring default at iodepth 8 and
# the same thread-per-I/O shape; the ratio that counts is against the faster.
# Exit status 1 when faultline is slower than the best fio variant.
#
# Environment: ROUNDS (3), SECONDS (5), SIZE (256MiB), FAULTLINE (./faultline)
set -eu

ROUNDS=${ROUNDS:-3}
SECS=${SECONDS_PER_RUN:-${SECONDS:-5}}
SIZE=${SIZE:-256MiB}
FAULTLINE=${FAULTLINE:-./faultline}
FIO_SIZE=$(echo "$SIZE" | sed 's/iB$//')
BYTES=$(echo "$SIZE" | awk '{n=$1+0; u=$1; sub(/^[0-9]+/,"",u); m=(u=="GiB")?1073741824:(u=="MiB")?1048576:(u=="KiB")?1024:1; print n*m}')
EIGHTH=$((BYTES / 8))

for tool in fio jq; do
    command -v $tool >/dev/null || { echo "bench: $tool is missing; run make deps" >&2; exit 2; }
done
[ -d /dev/shm ] || { echo "bench: no /dev/shm tmpfs" >&2; exit 2; }

WORK=$(mktemp -d /dev/shm/fl-bench-XXXXXX)
trap 'rm -rf "$WORK"' EXIT INT TERM
FILE=$WORK/target.img

scenario() { # $1: journal yes|no
    cat > "$WORK/bench-$1.scn" <<EOF
[scenario]
name = bench
duration = ${SECS}s
journal = $1
[target]
kind = file
path = $FILE
size = $SIZE
[workload]
block = 4KiB
pattern = random
read = 50%
depth = 8
flush = 64
direct = no
EOF
}
scenario yes
scenario no

now() { date +%s.%N; }

# Prints verified I/Os per wall second.
run_faultline() { # $1: journal yes|no
    rm -rf "$WORK/run"
    t0=$(now)
    "$FAULTLINE" run "$WORK/bench-$1.scn" --out "$WORK/run" --quiet >/dev/null
    t1=$(now)
    ios=$(jq '.io.reads + .io.writes + .sweep.reads' "$WORK/run/report.json")
    verdict=$(jq -r .verdict "$WORK/run/report.json")
    [ "$verdict" = pass ] || { echo "bench: faultline verdict $verdict" >&2; exit 2; }
    echo "$ios $t0 $t1" | awk '{printf "%.0f\n", $1 / ($3 - $2)}'
}

run_fio() { # $@: fio job options
    t0=$(now)
    # fio warns on stdout ("multiple writers may overwrite...") before the JSON
    # even when offset_increment keeps the jobs apart: keep only the JSON.
    fio --name=bench --filename="$FILE" --bs=4k --time_based --runtime="$SECS" \
        --verify_state_save=0 \
        --output-format=json "$@" > "$WORK/fio.out" 2>"$WORK/fio.err" \
        || { cat "$WORK/fio.err" >&2; exit 2; }
    sed -n '/^{/,$p' "$WORK/fio.out" > "$WORK/fio.json"
    t1=$(now)
    err=$(jq '.jobs[0].error' "$WORK/fio.json")
    [ "$err" = 0 ] || { echo "bench: fio reported error $err" >&2; exit 2; }
    ios=$(jq '.jobs[0].read.total_ios + .jobs[0].write.total_ios' "$WORK/fio.json")
    echo "$ios $t0 $t1" | awk '{printf "%.0f\n", $1 / ($3 - $2)}'
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2)}'; }

echo "bench: $ROUNDS rounds of ${SECS}s each, 4 KiB random 50/50, depth 8, flush every 64 writes, $SIZE file on tmpfs"
echo "bench: $("$FAULTLINE" --version), $(fio --version)"
URING="--size=$FIO_SIZE --ioengine=io_uring --iodepth=8"
PSYNC8="--size=$EIGHTH --offset_increment=$EIGHTH --numjobs=8 --thread --group_reporting --ioengine=psync"
for f in faultline faultline-nojrnl fio-randrw fio-backlog fio-psync8; do : > "$WORK/$f"; done
i=1
while [ "$i" -le "$ROUNDS" ]; do
    a=$(run_faultline yes)
    b=$(run_fio $URING --rw=randrw --rwmixread=50 --verify=crc32c --fsync=64)
    c=$(run_faultline no)
    d=$(run_fio $URING --rw=randwrite --verify=crc32c --verify_backlog=8 --fsync=64)
    e=$(run_fio $PSYNC8 --rw=randrw --rwmixread=50 --verify=crc32c --fsync=64)
    echo "round $i: faultline $a, fio-randrw $b, faultline-nojrnl $c, fio-backlog $d, fio-psync8 $e (I/Os per second)"
    echo "$a" >> "$WORK/faultline"; echo "$b" >> "$WORK/fio-randrw"
    echo "$c" >> "$WORK/faultline-nojrnl"; echo "$d" >> "$WORK/fio-backlog"
    echo "$e" >> "$WORK/fio-psync8"
    i=$((i + 1))
done
fl=$(median < "$WORK/faultline"); fj=$(median < "$WORK/faultline-nojrnl")
fa=$(median < "$WORK/fio-randrw"); fb=$(median < "$WORK/fio-backlog"); fp=$(median < "$WORK/fio-psync8")
echo "median: faultline $fl, faultline-nojrnl $fj, fio-randrw $fa, fio-backlog $fb, fio-psync8 $fp"
awk -v fl="$fl" -v fj="$fj" -v fa="$fa" -v fb="$fb" -v fp="$fp" 'BEGIN {
    best = fa; if (fb > best) best = fb; if (fp > best) best = fp
    printf "ratio faultline / fio-randrw  = %.2fx\n", fl / fa
    printf "ratio faultline / fio-backlog = %.2fx\n", fl / fb
    printf "ratio faultline / fio-psync8  = %.2fx\n", fl / fp
    printf "ratio faultline / best fio    = %.2fx (goal >= 1.0x, aim 1.2x)\n", fl / best
    printf "journal cost: %.1f%% of throughput (goal < 10%%)\n", 100 * (1 - fl / fj)
    exit (fl < best) ? 1 : 0
}'
