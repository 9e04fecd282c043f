#!/bin/sh
# bench/sweep.sh — faultline's verifying sweep against fio's sequential read
# of the same file, on tmpfs and on XFS over a loop device, in one run.
#
# The sweep is what reads every written block back at the end of a run, and
# what `faultline verify RUNDIR` does on its own (workloads/verify.c,
# sweep_run, started per worker by harness/live/crew_threads.c): each
# worker reads its blocks, `depth` at a time, and checks every one (stamp,
# generation, checksum) against the state the run left.
#
# Prepare (before the first round, not timed): a file of SIZE on each
# filesystem, written whole by one faultline run with `prefill = yes` (every
# block written once before a 1 s read-only workload; the bench refuses to
# go on unless report.json's .prefill.writes is .target.blocks).  Its run
# directory stays in the bench's tmpfs directory: verify only reads the
# workers' state there.  Then each round, the tools in turns:
#
#   faultline verify  re-reads and checks every block of the finished run
#   fio --rw=read     reads the same bytes, the same block size, no checking
#
#   tmpfs  /dev/shm: a buffered file (direct = no), so faultline uses its
#          sync engine: DEPTH threads, each reading every DEPTH-th block
#          with pread; fio: psync, DEPTH jobs (--thread), each reading its
#          own DEPTH-th of the file sequentially
#   XFS    an image in a mktemp -d directory (XFS_IMAGE_DIR, default
#          /dev/shm: memory, so the shared disk's load does not blur it),
#          mkfs.xfs, losetup, mounted; all undone on exit.  direct = yes:
#          faultline reads with O_DIRECT through io_uring, one worker, DEPTH
#          in flight; fio: --direct=1 --ioengine=io_uring --iodepth=DEPTH
#
# The measure is GB/s (10^9 bytes) of each tool's own read of the file,
# the same on both sides: faultline's from verify's report.json, whose .io
# is the sweep, its read of every block (.io.bytes_read / .io.ns; it has
# no .sweep of its own, that is null in a verify's report), fio's from its
# JSON (read bw_bytes: io_bytes over its runtime).  Neither includes the
# command's start and end (faultline: loading the state map, the report;
# fio: loading its engines' libraries, some tenths of a second here, which
# outweighs the read of a small file).  Each round's line also shows both
# tools' rates over the wall clock of the whole command; CLOCK=wall judges
# those instead.  Measures: "sweep, tmpfs" and "sweep, XFS on loop",
# faultline / fio, goal >= 0.9x (bench/lib.sh).
#
# Environment: ROUNDS (5), SIZE (1GiB), BLOCK (4KiB), DEPTH (8), CLOCK (own),
# XFS_IMAGE_DIR (/dev/shm), FAULTLINE (./faultline), BENCH_SMOKE, BENCH_ROWS
# shellcheck disable=SC2317,SC2046 # the rounds' functions are called through
# bench_rounds; jq's fields are split into words on purpose (set -- $(jq ...))
set -eu
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

SIZE=${SIZE:-1GiB}
BLOCK=${BLOCK:-4KiB}
DEPTH=${DEPTH:-8}
XFS_IMAGE_DIR=${XFS_IMAGE_DIR:-/dev/shm}
CLOCK=${CLOCK:-own}
case $CLOCK in own | wall) ;; *) bench_fail "CLOCK=$CLOCK: own or wall" ;; esac
FAULTLINE=${FAULTLINE:-./faultline}
BYTES=$(bench_bytes "$SIZE")
BS=$(bench_bytes "$BLOCK")
[ $((BYTES % (BS * DEPTH))) = 0 ] || bench_fail "SIZE must be a multiple of BLOCK x DEPTH"
SLICE=$((BYTES / DEPTH))

bench_need fio jq
[ -d /dev/shm ] || bench_fail "no /dev/shm tmpfs"
bench_workdir /dev/shm sweep
WORK=$BENCH_WORKDIR
bench_workdir "$XFS_IMAGE_DIR" sweep-xfs
bench_xfs_loop "$BENCH_WORKDIR" $((BYTES / 1048576 + 512))
XFS=$BENCH_XFS

# prepare NAME FILE DIRECT: the file written whole by one faultline run,
# whose run directory is $WORK/run-NAME
prepare() {
    cat > "$WORK/$1.scn" <<EOF
[scenario]
name = sweep-$1
duration = 1s
[target]
kind = file
path = $2
size = $SIZE
[workload]
block = $BLOCK
depth = $DEPTH
direct = $3
read = 100%
prefill = yes
EOF
    "$FAULTLINE" run "$WORK/$1.scn" --out "$WORK/run-$1" --quiet > "$WORK/log" 2>&1 ||
        { cat "$WORK/log" >&2; bench_fail "the run that writes $2 failed"; }
    set -- "$1" "$2" "$3" $(jq -r '[.verdict, .prefill.writes, .target.blocks, .target.description]
                                   | @tsv' "$WORK/run-$1/report.json")
    [ "$4" = pass ] || bench_fail "the run that writes $2: verdict $4"
    [ "$5" = "$6" ] || bench_fail "the run wrote $5 of the $6 blocks of $2: the sweep would not read them all"
    n=$6
    shift 6
    echo "bench: $n blocks of $BLOCK written on $*"
}

# faultline NAME: "OWN WALL": GB/s of `faultline verify`'s read of every
# block, and over the command's wall clock
run_faultline() {
    t0=$(bench_now)
    "$FAULTLINE" verify "$WORK/run-$1" --quiet > "$WORK/log" 2>&1 ||
        { cat "$WORK/log" >&2; bench_fail "faultline verify of $1 failed"; }
    t1=$(bench_now)
    set -- $(jq -r '[.verdict, .io.bytes_read, .io.ns] | @tsv' "$WORK/run-$1/report.json")
    [ "$1" = pass ] || bench_fail "faultline verify: verdict $1"
    [ "$2" = "$BYTES" ] || bench_fail "faultline verify read $2 bytes, not $BYTES"
    echo "$2 $3 $t0 $t1" | awk '{ printf "%.6f %.6f\n", $1 / $2, $1 / ($4 - $3) / 1e9 }'
}

# fio FILE OPTION...: "OWN WALL": GB/s of fio --rw=read as fio tells it,
# and over the command's wall clock
run_fio() {
    f=$1
    shift
    t0=$(bench_now)
    fio --name=sweep --filename="$f" --rw=read --bs="$BS" --output-format=json "$@" \
        > "$WORK/fio.out" 2> "$WORK/fio.err" || { cat "$WORK/fio.err" >&2; bench_fail "fio failed"; }
    t1=$(bench_now)
    sed -n '/^{/,$p' "$WORK/fio.out" > "$WORK/fio.json"
    set -- $(jq -r '[([.jobs[].error] | add), ([.jobs[].read.io_bytes] | add),
                     ([.jobs[].read.bw_bytes] | add)] | @tsv' "$WORK/fio.json")
    [ "$1" = 0 ] || bench_fail "fio reported error $1"
    [ "$2" = "$BYTES" ] || bench_fail "fio read $2 bytes, not $BYTES"
    echo "$3 $2 $t0 $t1" | awk '{ printf "%.6f %.6f\n", $1 / 1e9, $2 / ($4 - $3) / 1e9 }'
}

prepare tmpfs "$WORK/target.img" no
prepare xfs "$XFS/target.img" yes
PSYNC="--ioengine=psync --numjobs=$DEPTH --thread --size=$SLICE --offset_increment=$SLICE --group_reporting"
URING="--ioengine=io_uring --iodepth=$DEPTH --direct=1 --size=$BYTES"
echo "bench: $ROUNDS rounds, $SIZE read whole in $BLOCK blocks, depth $DEPTH, GB/s over the $CLOCK clock; $("$FAULTLINE" --version), $(fio --version)"

# record TOOL "OWN WALL": the figure CLOCK picks
record() {
    if [ "$CLOCK" = own ]; then
        bench_record "$1" "${2% *}"
    else
        bench_record "$1" "${2#* }"
    fi
}

# shellcheck disable=SC2086 # PSYNC and URING: one option a word
round() {
    a=$(run_faultline tmpfs)
    b=$(run_fio "$WORK/target.img" $PSYNC)
    c=$(run_faultline xfs)
    d=$(run_fio "$XFS/target.img" $URING)
    record fl-tmpfs "$a"; record fio-tmpfs "$b"
    record fl-xfs "$c"; record fio-xfs "$d"
    printf 'round %s/%s: tmpfs: faultline %.2f, fio %.2f; XFS: faultline %.2f, fio %.2f GB/s' \
        "$1" "$ROUNDS" "${a% *}" "${b% *}" "${c% *}" "${d% *}"
    printf ' (over the whole command: %.2f, %.2f; %.2f, %.2f)\n' \
        "${a#* }" "${b#* }" "${c#* }" "${d#* }"
}
bench_rounds round
bench_tool fl-tmpfs "faultline verify, tmpfs" GB/s
bench_tool fio-tmpfs "fio psync read x $DEPTH, tmpfs" GB/s
bench_tool fl-xfs "faultline verify, XFS on loop (O_DIRECT)" GB/s
bench_tool fio-xfs "fio io_uring read, XFS on loop (O_DIRECT)" GB/s
bench_measure "sweep, tmpfs" GB/s fl-tmpfs fio-tmpfs 0.9
bench_measure "sweep, XFS on loop" GB/s fl-xfs fio-xfs 0.9
bench_exit
