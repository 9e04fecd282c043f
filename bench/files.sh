#!/bin/sh
# bench/files.sh — faultline's files backend against fio on the same small
# files, in one run.
#
# Workload: the small-file class (3 KiB files, 100 per directory), 1 KiB
# random reads and writes 50/50 from PROCS threads, one I/O each, a flush
# (fsync of the files written) every 64 writes per thread, for SECONDS per
# run.  fio gets as many 3 KiB files as faultline's tree holds, on the same
# filesystem next to it (PROCS psync jobs, each on its share of the files,
# --file_service_type=random, --fsync=64): the same file count, sizes and
# I/O shape (fio lays its files out flat, one directory).
#
#   faultline  every read verified online, metadata = 0 (data only), then a
#              sweep over every written block, and the namespace check
#   fio        --rw=randrw --verify=crc32c: the verify pass after the run
#              reads the written blocks back; reads during the run are not
#              verified
#
# Before the first round, one faultline run (not timed) makes its tree and
# fio lays out its files (--create_only=1).  The tools take turns (ROUNDS
# times, bench/lib.sh); the medians of verified I/Os per wall-clock second
# of the whole command (each tool's own verification inside) are compared.
# Measure: "small files (N x 3 KiB, FS)", faultline / fio, goal >= 1.2x.
# DIR: where the tree goes (default: a tmpfs under /dev/shm; give a mounted
# parallel filesystem to measure that instead).
#
# Environment: ROUNDS (5), SECONDS (5), SIZE (16MiB), PROCS (4), DIR,
# FAULTLINE (./faultline), BENCH_SMOKE, BENCH_ROWS (bench/lib.sh)
# shellcheck disable=SC2317 # the rounds' functions are called through bench_rounds
set -eu
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC3028 # SECONDS: this bench's knob (sh does not count it)
SECS=${SECONDS_PER_RUN:-${SECONDS:-5}}
SIZE=${SIZE:-16MiB}
PROCS=${PROCS:-4}
FAULTLINE=${FAULTLINE:-./faultline}

bench_need fio jq
bench_workdir /dev/shm files
WORK=$BENCH_WORKDIR
DIR=${DIR:-$WORK/fs}
mkdir -p "$DIR"
FSTYPE=$(stat -f -c %T "$DIR")
cat > "$WORK/files.scn" <<EOS
[scenario]
name = bench-files
duration = ${SECS}s
[target]
kind = files
path = $DIR
size = $SIZE
[workload]
class = small
block = 1KiB
read = 50%
procs = $PROCS
flush = 64
metadata = 0
EOS
TREE=$DIR/faultline-bench-files

run_faultline() {
    rm -rf "$WORK/run"
    t0=$(bench_now)
    "$FAULTLINE" run "$WORK/files.scn" --out "$WORK/run" --quiet >/dev/null
    t1=$(bench_now)
    verdict=$(jq -r .verdict "$WORK/run/report.json")
    [ "$verdict" = pass ] || bench_fail "faultline verdict $verdict"
    ios=$(jq '.io.reads + .io.writes + .sweep.reads' "$WORK/run/report.json")
    bench_rate "$ios" "$t0" "$t1"
}

# fio's own small files, as many as faultline's tree holds, in a directory
# next to it on the same filesystem (fio lays files out flat).
run_fio() { # [--create_only=1]
    t0=$(bench_now)
    fio --name=small --directory="$DIR/fio-files" --nrfiles="$PER" --filesize=3k \
        --numjobs="$PROCS" --bs=1k --rw=randrw --rwmixread=50 --ioengine=psync --fsync=64 \
        --time_based --runtime="$SECS" --file_service_type=random --openfiles=256 \
        --verify=crc32c --verify_state_save=0 --output-format=json "$@" \
        > "$WORK/fio.out" 2> "$WORK/fio.err" || { tail -5 "$WORK/fio.err" >&2; bench_fail "fio failed"; }
    t1=$(bench_now)
    sed -n '/^{/,$p' "$WORK/fio.out" > "$WORK/fio.json"
    ios=$(jq '[.jobs[] | .read.total_ios + .write.total_ios] | add' "$WORK/fio.json")
    bench_rate "$ios" "$t0" "$t1"
}

# Prepare: faultline's tree (one run, not timed) and fio's files.
run_faultline > /dev/null
NFILES=$(find "$TREE" -type f -name 'f-*' | wc -l)
PER=$((NFILES / PROCS))
mkdir -p "$DIR/fio-files"
run_fio --create_only=1 > /dev/null
echo "bench: $NFILES files of 3 KiB in $(find "$TREE" -type d | wc -l) directories under $DIR ($FSTYPE), $PROCS streams, ${SECS} s per run, $ROUNDS rounds"

round() {
    a=$(run_faultline)
    b=$(run_fio)
    bench_record faultline "$a"
    bench_record fio "$b"
    printf 'round %s/%s: faultline %.0f, fio %.0f (verified I/Os per second)\n' "$1" "$ROUNDS" "$a" "$b"
}
bench_rounds round
bench_tool faultline "faultline files (verified, sweep and namespace check)" "I/Os per second"
bench_tool fio "fio psync randrw (crc32c verify pass)" "I/Os per second"
bench_measure "small files ($NFILES x 3 KiB, $FSTYPE)" IOPS faultline fio 1.2
bench_exit
