#!/bin/sh
# bench/vs-fio.sh — faultline against fio on the same tmpfs file, in one run.
#
# Workload: 4 KiB random reads and writes, 50/50, depth 8, a flush every 64
# writes, one thread, io_uring, for SECONDS per run.  The tools take turns
# (ROUNDS times, bench/lib.sh), so all see the same machine noise; the
# medians are compared.  The measure is verified-workload I/Os per
# wall-clock second of the whole command: each tool's own final
# verification pass is inside it (faultline's setup, sweep and report too).
# The file is laid out once before the first round (fio --create_only=1),
# so that no tool's timed part allocates it.
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
# the same thread-per-I/O shape.  Measures (bench/lib.sh judges them):
#   random 4 KiB on a tmpfs file  faultline / the best fio variant of each
#                                 round (goal >= 1.0x, aim 1.2x)
#   journal cost                  faultline / faultline-nojrnl (goal >= 0.9x:
#                                 the journal costs less than 10%)
#
# Environment: ROUNDS (5), SECONDS (8: shorter rounds let one slow second of
# the machine move a round past the 15% spread), SIZE (256MiB), FAULTLINE (./faultline),
# BENCH_SMOKE, BENCH_ROWS (bench/lib.sh)
# shellcheck disable=SC2317 # the rounds' functions are called through bench_rounds
set -eu
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC3028 # SECONDS: this bench's knob (sh does not count it)
SECS=${SECONDS_PER_RUN:-${SECONDS:-8}}
SIZE=${SIZE:-256MiB}
FAULTLINE=${FAULTLINE:-./faultline}
BYTES=$(bench_bytes "$SIZE")
EIGHTH=$((BYTES / 8))

bench_need fio jq
[ -d /dev/shm ] || bench_fail "no /dev/shm tmpfs"

bench_workdir /dev/shm vs-fio
WORK=$BENCH_WORKDIR
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

# Prints verified I/Os per wall second.
run_faultline() { # $1: journal yes|no
    rm -rf "$WORK/run"
    t0=$(bench_now)
    "$FAULTLINE" run "$WORK/bench-$1.scn" --out "$WORK/run" --quiet >/dev/null
    t1=$(bench_now)
    ios=$(jq '.io.reads + .io.writes + .sweep.reads' "$WORK/run/report.json")
    verdict=$(jq -r .verdict "$WORK/run/report.json")
    [ "$verdict" = pass ] || bench_fail "faultline verdict $verdict"
    bench_rate "$ios" "$t0" "$t1"
}

run_fio() { # $@: fio job options
    t0=$(bench_now)
    # fio warns on stdout ("multiple writers may overwrite...") before the JSON
    # even when offset_increment keeps the jobs apart: keep only the JSON.
    fio --name=bench --filename="$FILE" --bs=4k --time_based --runtime="$SECS" \
        --verify_state_save=0 \
        --output-format=json "$@" > "$WORK/fio.out" 2>"$WORK/fio.err" \
        || { cat "$WORK/fio.err" >&2; bench_fail "fio failed"; }
    t1=$(bench_now)
    sed -n '/^{/,$p' "$WORK/fio.out" > "$WORK/fio.json"
    err=$(jq '.jobs[0].error' "$WORK/fio.json")
    [ "$err" = 0 ] || bench_fail "fio reported error $err"
    ios=$(jq '.jobs[0].read.total_ios + .jobs[0].write.total_ios' "$WORK/fio.json")
    bench_rate "$ios" "$t0" "$t1"
}

echo "bench: $ROUNDS rounds of ${SECS}s each, 4 KiB random 50/50, depth 8, flush every 64 writes, $SIZE file on tmpfs"
echo "bench: $("$FAULTLINE" --version), $(fio --version)"
URING="--size=$BYTES --ioengine=io_uring --iodepth=8"
PSYNC8="--size=$EIGHTH --offset_increment=$EIGHTH --numjobs=8 --thread --group_reporting --ioengine=psync"
# Prepare: the file, allocated once for every tool.
fio --name=layout --filename="$FILE" --size="$BYTES" --create_only=1 > /dev/null 2>"$WORK/fio.err" \
    || { cat "$WORK/fio.err" >&2; bench_fail "fio could not lay out $FILE"; }

# shellcheck disable=SC2086 # URING and PSYNC8: one option a word
round() {
    a=$(run_faultline yes)
    b=$(run_fio $URING --rw=randrw --rwmixread=50 --verify=crc32c --fsync=64)
    c=$(run_faultline no)
    d=$(run_fio $URING --rw=randwrite --verify=crc32c --verify_backlog=8 --fsync=64)
    e=$(run_fio $PSYNC8 --rw=randrw --rwmixread=50 --verify=crc32c --fsync=64)
    bench_record faultline "$a"; bench_record fio-randrw "$b"
    bench_record faultline-nojrnl "$c"; bench_record fio-backlog "$d"
    bench_record fio-psync8 "$e"
    printf 'round %s/%s: faultline %.0f, fio-randrw %.0f, faultline-nojrnl %.0f, fio-backlog %.0f, fio-psync8 %.0f (I/Os per second)\n' \
        "$1" "$ROUNDS" "$a" "$b" "$c" "$d" "$e"
}
bench_rounds round
bench_best fio-best fio-randrw fio-backlog fio-psync8
for t in faultline faultline-nojrnl fio-randrw fio-backlog fio-psync8 fio-best; do
    bench_tool "$t" "$t" "I/Os per second"
done
bench_measure "random 4 KiB on a tmpfs file" IOPS faultline fio-best 1.0
bench_measure "journal cost" IOPS faultline faultline-nojrnl 0.9
bench_exit
