#!/bin/sh
# bench/meta.sh — faultline's metadata streams against fio's file engines
# (filecreate, filedelete) on the same filesystem, tmpfs and XFS over a
# loop device, in one run.
#
#   faultline  `faultline run` of a files target with no data streams
#              ([workload] procs = 0), a tiny tree (class = small, 1 MiB)
#              and STREAMS metadata streams (metadata = STREAMS) doing only
#              creates and unlinks (metadata_mix = create:50, unlink:50),
#              for SECONDS.  Each create is open(O_EXCL), 0 to 8 KiB
#              written, close; before the operations, their intents go to
#              the stream's journal in the run directory, synced a batch
#              (up to 16 name changes) at a time; every 16 changes a
#              durability point fsyncs the files changed and the
#              directories; at the end every name is checked against the
#              model and the report written.  The run directory (--out) is
#              on the same filesystem as the tree, so that those syncs cost
#              what they cost there.  Rate: (report.json .metadata.ops.create
#              + .unlink) / the wall clock of the whole command.
#   fio        STREAMS jobs of --ioengine=filecreate (each file opened with
#              O_CREAT and closed: empty, no data, no sync), FILES files a
#              job in one directory, then STREAMS jobs of
#              --ioengine=filedelete (unlink) on the same files
#              (--create_on_open=1, so that fio's setup only stats them and
#              does not lay them out again).  The engines count each file
#              as one write I/O of its job: total_ios is the files, the
#              job's runtime the time of their opens (or unlinks) from the
#              job's start, without fio's own start and setup.  fio's rate
#              is by that clock (the slowest job's runtime), not the
#              command's: fio's setup keeps its files in a list it walks
#              for every file it adds (these engines have no file hash), so
#              it grows with the square of FILES (25 s of 26 for 2 x 28571
#              files on tmpfs here), which is fio's bookkeeping, not the
#              filesystem.  C = files / create's runtime, D = files /
#              delete's; for equal numbers of creates and removes the
#              combined rate is the harmonic one, 2 / (1/C + 1/D).  Each
#              round's line also shows fio's rates over its wall clock.
#
# So faultline does more per operation (data, journal, syncs, the check)
# than fio (empty files, no syncs, nothing checked): the goal is half
# fio's rate.  Measures: "creates+removes, tmpfs" and "creates+removes, XFS
# on loop", faultline / fio, goal >= 0.5x (bench/lib.sh).  Before the
# first round (not timed): the loop XFS (an image in a mktemp -d directory
# under XFS_IMAGE_DIR, default /dev/shm, mkfs.xfs, losetup, mounted; all
# undone on exit) and one faultline run on each filesystem (its tree).
# Tools in turns, per round: faultline and fio on tmpfs, then on XFS.
#
# Environment: ROUNDS (5), SECONDS (5), STREAMS (2), FILES (5000),
# XFS_IMAGE_DIR (/dev/shm), FAULTLINE (./faultline), BENCH_SMOKE, BENCH_ROWS
# (bench/lib.sh)
# shellcheck disable=SC2317,SC2046 # the rounds' functions are called through
# bench_rounds; jq's fields are split into words on purpose (set -- $(jq ...))
set -eu
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC3028 # SECONDS: this bench's knob (sh does not count it)
SECS=${SECONDS_PER_RUN:-${SECONDS:-5}}
STREAMS=${STREAMS:-2}
FILES=${FILES:-5000}
XFS_IMAGE_DIR=${XFS_IMAGE_DIR:-/dev/shm}
FAULTLINE=${FAULTLINE:-./faultline}

bench_need fio jq
[ -d /dev/shm ] || bench_fail "no /dev/shm tmpfs"
bench_workdir /dev/shm meta
WORK=$BENCH_WORKDIR
bench_workdir "$XFS_IMAGE_DIR" meta-xfs
bench_xfs_loop "$BENCH_WORKDIR" 512
XFS=$BENCH_XFS

# dir NAME: the directory on that filesystem where both tools work
dir() {
    if [ "$1" = tmpfs ]; then echo "$WORK/fs"; else echo "$XFS"; fi
}

# faultline NAME: creates+unlinks per second of the whole command; the
# counts go to $WORK/counts
run_faultline() {
    d=$(dir "$1")
    rm -rf "$d/run"
    t0=$(bench_now)
    "$FAULTLINE" run "$WORK/$1.scn" --out "$d/run" --quiet > "$WORK/log" 2>&1 ||
        { cat "$WORK/log" >&2; bench_fail "faultline run on $1 failed"; }
    t1=$(bench_now)
    set -- $(jq -r '[.verdict, .metadata.ops.create, .metadata.ops.unlink] | @tsv' \
                   "$d/run/report.json")
    [ "$1" = pass ] || bench_fail "faultline verdict $1"
    echo "$2 creates, $3 unlinks" > "$WORK/counts"
    bench_rate $(($2 + $3)) "$t0" "$t1"
}

# fio ENGINE NAME FILES [OPTION...]: STREAMS jobs of ENGINE on FILES files
# each; prints "WALL_SECONDS JOB_SECONDS" (the command's, the slowest job's)
fio_files() {
    e=$1 d=$(dir "$2") n=$3
    shift 3
    t0=$(bench_now)
    fio --name=meta --directory="$d/fio" --ioengine="$e" --rw=write --filesize=4k --bs=4k \
        --nrfiles="$n" --openfiles=1 --numjobs="$STREAMS" --create_on_open=1 \
        --output-format=json "$@" > "$WORK/fio.out" 2> "$WORK/fio.err" ||
        { cat "$WORK/fio.err" >&2; bench_fail "fio $e failed"; }
    t1=$(bench_now)
    sed -n '/^{/,$p' "$WORK/fio.out" > "$WORK/fio.json"
    set -- $(jq -r '[([.jobs[].error] | add), ([.jobs[].write.total_ios] | add),
                     ([.jobs[].job_runtime] | max)] | @tsv' "$WORK/fio.json")
    [ "$1" = 0 ] || bench_fail "fio $e reported error $1"
    [ "$2" = $((n * STREAMS)) ] || bench_fail "fio $e did $2 files, not $((n * STREAMS))"
    echo "$t0 $t1 $3" | awk '{ j = ($3 > 0) ? $3 / 1000 : 0.001; printf "%.6f %.3f\n", $2 - $1, j }'
}

# fio NAME: the combined rate of creating FILES files per job and removing
# them, 2 / (1/C + 1/D) by fio's clock; C and D, and the same over the
# commands' wall clocks, go to $WORK/counts
run_fio() {
    c=$(fio_files filecreate "$1" "$FILES" --fallocate=none)
    [ "$(find "$(dir "$1")/fio" -type f | wc -l)" = $((FILES * STREAMS)) ] ||
        bench_fail "fio filecreate left another count of files than $((FILES * STREAMS))"
    r=$(fio_files filedelete "$1" "$FILES" --unlink=0)
    [ -z "$(ls -A "$(dir "$1")/fio")" ] || bench_fail "fio filedelete left files behind"
    echo "$((FILES * STREAMS)) $c $r" | awk '{ c = $1 / $3; d = $1 / $5; cw = $1 / $2; dw = $1 / $4
        printf "%.0f creates/s, %.0f deletes/s; over the wall clock %.0f, %.0f\n", c, d, cw, dw \
            > "'"$WORK/counts"'"
        printf "%.10g\n", 2 / (1 / c + 1 / d) }'
}

# prepare NAME: faultline's scenario and tree, fio's directory
prepare() {
    d=$(dir "$1")
    mkdir -p "$d/fio"
    cat > "$WORK/$1.scn" <<EOF
[scenario]
name = meta-$1
duration = ${SECS}s
[target]
kind = files
path = $d
size = 1MiB
[workload]
class = small
procs = 0
metadata = $STREAMS
metadata_mix = create:50, unlink:50
EOF
    run_faultline "$1" > /dev/null
}

prepare tmpfs
prepare xfs
echo "bench: $ROUNDS rounds, $STREAMS streams, ${SECS} s of faultline and $STREAMS x $FILES files of fio a round; $("$FAULTLINE" --version), $(fio --version)"

round() {
    a=$(run_faultline tmpfs); a_n=$(cat "$WORK/counts")
    b=$(run_fio tmpfs); b_n=$(cat "$WORK/counts")
    c=$(run_faultline xfs); c_n=$(cat "$WORK/counts")
    d=$(run_fio xfs); d_n=$(cat "$WORK/counts")
    bench_record fl-tmpfs "$a"; bench_record fio-tmpfs "$b"
    bench_record fl-xfs "$c"; bench_record fio-xfs "$d"
    printf 'round %s/%s: tmpfs: faultline %.0f (%s), fio %.0f (%s); XFS: faultline %.0f (%s), fio %.0f (%s) ops/s\n' \
        "$1" "$ROUNDS" "$a" "$a_n" "$b" "$b_n" "$c" "$c_n" "$d" "$d_n"
}
bench_rounds round
bench_tool fl-tmpfs "faultline creates+unlinks, tmpfs" ops/s
bench_tool fio-tmpfs "fio filecreate+filedelete, tmpfs" ops/s
bench_tool fl-xfs "faultline creates+unlinks, XFS on loop" ops/s
bench_tool fio-xfs "fio filecreate+filedelete, XFS on loop" ops/s
bench_measure "creates+removes, tmpfs" ops/s fl-tmpfs fio-tmpfs 0.5
bench_measure "creates+removes, XFS on loop" ops/s fl-xfs fio-xfs 0.5
bench_exit
