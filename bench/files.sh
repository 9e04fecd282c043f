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
# The tools take turns (ROUNDS times); the medians of verified I/Os per
# wall-clock second (each tool's own verification inside) are compared.
# DIR: where the tree goes (default: a tmpfs under /dev/shm; give a mounted
# parallel filesystem to measure that instead).  Exit status 1 when
# faultline is slower than fio.
#
# Environment: ROUNDS (3), SECONDS (5), SIZE (16MiB), PROCS (4), DIR,
# FAULTLINE (./faultline)
set -eu

ROUNDS=${ROUNDS:-3}
SECS=${SECONDS_PER_RUN:-${SECONDS:-5}}
SIZE=${SIZE:-16MiB}
PROCS=${PROCS:-4}
FAULTLINE=${FAULTLINE:-./faultline}

for tool in fio jq; do
    command -v $tool >/dev/null || { echo "bench: $tool is missing; run make deps" >&2; exit 2; }
done
WORK=$(mktemp -d /dev/shm/fl-bench-files-XXXXXX)
trap 'rm -rf "$WORK"' EXIT INT TERM
DIR=${DIR:-$WORK/fs}
mkdir -p "$DIR"
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
now() { date +%s.%N; }

run_faultline() {
    rm -rf "$WORK/run"
    t0=$(now)
    "$FAULTLINE" run "$WORK/files.scn" --out "$WORK/run" --quiet >/dev/null
    t1=$(now)
    verdict=$(jq -r .verdict "$WORK/run/report.json")
    [ "$verdict" = pass ] || { echo "bench: faultline verdict $verdict" >&2; exit 2; }
    ios=$(jq '.io.reads + .io.writes + .sweep.reads' "$WORK/run/report.json")
    echo "$ios $t0 $t1" | awk '{printf "%.0f\n", $1 / ($3 - $2)}'
}

# fio's own small files, as many as faultline's tree holds, in a directory
# next to it on the same filesystem (fio lays files out flat).
fio_files() {
    NFILES=$(find "$TREE" -type f -name 'f-*' | wc -l)
    PER=$((NFILES / PROCS))
    mkdir -p "$DIR/fio-files"
}

run_fio() {
    t0=$(now)
    fio --name=small --directory="$DIR/fio-files" --nrfiles="$PER" --filesize=3k \
        --numjobs="$PROCS" --bs=1k --rw=randrw --rwmixread=50 --ioengine=psync --fsync=64 \
        --time_based --runtime="$SECS" --file_service_type=random --openfiles=256 \
        --verify=crc32c --verify_state_save=0 --output-format=json \
        > "$WORK/fio.out" 2> "$WORK/fio.err" || { tail -5 "$WORK/fio.err" >&2; exit 2; }
    t1=$(now)
    sed -n '/^{/,$p' "$WORK/fio.out" > "$WORK/fio.json"
    ios=$(jq '[.jobs[] | .read.total_ios + .write.total_ios] | add' "$WORK/fio.json")
    echo "$ios $t0 $t1" | awk '{printf "%.0f\n", $1 / ($3 - $2)}'
}

median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

run_faultline > /dev/null # makes the tree fio uses
fio_files
echo "bench: $NFILES files of 3 KiB in $(find "$TREE" -type d | wc -l) directories under $DIR, $PROCS streams, ${SECS} s per run, $ROUNDS rounds"
: > "$WORK/fl" && : > "$WORK/fio"
r=0
while [ $r -lt "$ROUNDS" ]; do
    run_faultline >> "$WORK/fl"
    run_fio >> "$WORK/fio"
    r=$((r + 1))
done
FL=$(median < "$WORK/fl")
FIO=$(median < "$WORK/fio")
echo "faultline files (verified, sweep and namespace check included): $FL I/Os per second"
echo "fio psync randrw on as many 3 KiB files (crc32c verify pass included): $FIO I/Os per second"
echo "$FL $FIO" | awk '{printf "ratio faultline / fio: %.2f\n", $1 / $2}'
[ "$FL" -ge "$FIO" ]
