#!/bin/sh
# bench/meta.sh — faultline's metadata streams against fio's file engines
# (filecreate, filedelete) on the same filesystem, tmpfs and XFS over a
# loop device, in one run.
#
#   faultline  faultline's metadata streams (workloads/meta.c) alone:
#              bench/meta.c, built here against build/libfaultline.a, runs
#              STREAMS streams doing only creates and unlinks (the mix
#              create:50, unlink:50) for SECONDS, each in a directory of its
#              own.  Each create is open(O_EXCL), 0 to 8 KiB written, close;
#              before the operations, their intents go to the stream's
#              journal (in a run directory on the same filesystem, so that
#              its syncs cost what they cost there), synced a batch (up to
#              16 name changes) at a time; every 16 changes a durability
#              point fsyncs the files changed and the directories; at the
#              end every name is checked against the model, the model saved
#              and the journal closed.  A `faultline run` does the same
#              beside its data streams (which a run always has).  Rate:
#              (creates + unlinks) / its own clock, from the streams' start
#              to the journals closed (the check included), as fio's below
#              is by fio's own clock.
#   fio        STREAMS jobs of --ioengine=filecreate (each file opened with
#              O_CREAT and closed: empty, no data, no sync), then STREAMS
#              jobs of --ioengine=filedelete (unlink) on the same files
#              (--create_on_open=1, so that fio's setup only stats them and
#              does not lay them out again).  The engines count each file
#              as one write I/O of its job (total_ios: the files) and time
#              each open or unlink as its completion latency (clat); a
#              job's runtime is its files' time from the job's start,
#              without fio's own start and setup.  That runtime grows with
#              the square of the files of a job (fio's own bookkeeping of
#              them, get_io_u in a profile: on tmpfs here 1000 files took
#              18 ms, 4000 236 ms, 20000 8 s, the calls themselves 3.5 us
#              each), and fio's start takes a quarter of a second a
#              command: neither is the filesystem.  So each fio command
#              runs FIO_GROUPS groups one after another (stonewall), each
#              of STREAMS jobs of FIO_FILES files, and fio's rate is by its own
#              clock: C = the files created / the sum over the groups of
#              their slowest job's runtime, D the same for the deletes; for
#              equal numbers of creates and removes the combined rate is
#              the harmonic one, 2 / (1/C + 1/D).  Each round's line also
#              shows C and D and what the calls alone would allow (STREAMS
#              / their mean clat), the filesystem's ceiling for any tool.
#
# So faultline does more per operation (data, journal, syncs, the check)
# than fio (empty files, no syncs, nothing checked): the goal is half
# fio's rate.  Measures: "creates+removes, tmpfs" and "creates+removes, XFS
# on loop", faultline / fio, goal >= 0.5x (bench/lib.sh).  Before the
# first round (not timed): the loop XFS (an image in a mktemp -d directory
# under XFS_IMAGE_DIR, default /dev/shm, mkfs.xfs, losetup, mounted; all
# undone on exit), and bench/meta.c built.  Tools in turns, per round:
# faultline and fio on tmpfs, then on XFS.
#
# Environment: ROUNDS (5), SECONDS (5), STREAMS (2), FIO_FILES (1000),
# FIO_GROUPS (20: fio's timed part is short, tens of ms a group, and
# noisy), XFS_IMAGE_DIR (/dev/shm), FAULTLINE (./faultline),
# BENCH_SMOKE, BENCH_ROWS (bench/lib.sh)
# shellcheck disable=SC2317,SC2046 # the rounds' functions are called through
# bench_rounds; jq's fields are split into words on purpose (set -- $(jq ...))
set -eu
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC3028 # SECONDS: this bench's knob (sh does not count it)
SECS=${SECONDS_PER_RUN:-${SECONDS:-5}}
STREAMS=${STREAMS:-2}
FIO_FILES=${FIO_FILES:-1000}
FIO_GROUPS=${FIO_GROUPS:-20}
TOTAL=$((FIO_GROUPS * STREAMS * FIO_FILES))
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

# fio ENGINE NAME OPTION...: FIO_GROUPS groups of STREAMS jobs of ENGINE,
# FIO_FILES files each; prints "SECONDS CLAT_NS": the sum of each group's slowest
# job's runtime, the jobs' mean time per call
fio_files() {
    e=$1 d=$(dir "$2")
    shift 2
    {
        printf '[global]\ndirectory=%s\nioengine=%s\nrw=write\nfilesize=4k\nbs=4k\n' "$d/fio" "$e"
        printf 'nrfiles=%s\nopenfiles=1\nnumjobs=%s\ncreate_on_open=1\n' "$FIO_FILES" "$STREAMS"
        for o in "$@"; do echo "$o"; done
        g=1
        while [ "$g" -le "$FIO_GROUPS" ]; do
            echo "[g$g]"
            [ "$g" = 1 ] || echo stonewall
            g=$((g + 1))
        done
    } > "$WORK/$e.fio"
    fio --output-format=json "$WORK/$e.fio" > "$WORK/fio.out" 2> "$WORK/fio.err" ||
        { cat "$WORK/fio.err" >&2; bench_fail "fio $e failed"; }
    sed -n '/^{/,$p' "$WORK/fio.out" > "$WORK/fio.json"
    set -- $(jq -r '[([.jobs[].error] | add), ([.jobs[].write.total_ios] | add),
                     ([.jobs | group_by(.jobname)[] | [.[].job_runtime] | max] | add),
                     ([.jobs[].write.clat_ns.mean] | add / length)] | @tsv' "$WORK/fio.json")
    [ "$1" = 0 ] || bench_fail "fio $e reported error $1"
    [ "$2" = "$TOTAL" ] || bench_fail "fio $e did $2 files, not $TOTAL"
    echo "$3 $4" | awk '{ t = ($1 > 0) ? $1 / 1000 : 0.001; printf "%.3f %.0f\n", t, $2 }'
}

# fio NAME: the combined rate of creating the files and removing them,
# 2 / (1/C + 1/D) by fio's clock; C and D, and the calls' ceiling, go to
# $WORK/counts
run_fio() {
    c=$(fio_files filecreate "$1" fallocate=none)
    [ "$(find "$(dir "$1")/fio" -type f | wc -l)" = "$TOTAL" ] ||
        bench_fail "fio filecreate left another count of files than $TOTAL"
    r=$(fio_files filedelete "$1" unlink=0)
    [ -z "$(ls -A "$(dir "$1")/fio")" ] || bench_fail "fio filedelete left files behind"
    echo "$TOTAL $STREAMS $c $r" | awk '{ c = $1 / $3; d = $1 / $5
        printf "%.0f creates/s, %.0f deletes/s; the calls alone %.0f, %.0f\n", c, d,
            $2 * 1e9 / $4, $2 * 1e9 / $6 > "'"$WORK/counts"'"
        printf "%.10g\n", 2 / (1 / c + 1 / d) }'
}

# faultline NAME: creates+unlinks per second of bench/meta.c's streams; the
# counts go to $WORK/counts
run_faultline() {
    d=$(dir "$1")
    rm -rf "$d/alone" "$d/alone-run"
    mkdir "$d/alone" "$d/alone-run"
    "$WORK/meta" "$d/alone" "$d/alone-run" "$SECS" "$STREAMS" "create:50, unlink:50" \
        > "$WORK/alone" 2> "$WORK/log" || { cat "$WORK/log" >&2; bench_fail "bench/meta.c on $1 failed"; }
    awk '{ for (i = 1; i < NF; i++) v[$i] = $(i + 1)
           printf "%d creates, %d unlinks\n", v["create"], v["unlink"] > "'"$WORK/counts"'"
           printf "%.10g\n", (v["create"] + v["unlink"]) / v["seconds"] }' "$WORK/alone"
}

# prepare NAME: fio's directory
prepare() {
    mkdir -p "$(dir "$1")/fio"
}

HERE=$(dirname "$0")
[ -f "$HERE/../build/libfaultline.a" ] || bench_fail "no build/libfaultline.a: run make first"
cc -std=c11 -D_GNU_SOURCE -O2 "$HERE/meta.c" "$HERE/../build/libfaultline.a" -luring -liscsi \
    -lnftables -lnl-route-3 -lnl-3 -lpthread -lm -ldl -o "$WORK/meta" || bench_fail "cannot build bench/meta.c"
prepare tmpfs
prepare xfs
echo "bench: $ROUNDS rounds, $STREAMS streams, ${SECS} s of faultline's streams and $FIO_GROUPS x $STREAMS x $FIO_FILES files of fio a round; $("$FAULTLINE" --version), $(fio --version)"

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
bench_tool fl-tmpfs "faultline streams creates+unlinks, tmpfs" ops/s
bench_tool fio-tmpfs "fio filecreate+filedelete, tmpfs" ops/s
bench_tool fl-xfs "faultline streams creates+unlinks, XFS on loop" ops/s
bench_tool fio-xfs "fio filecreate+filedelete, XFS on loop" ops/s
bench_measure "creates+removes, tmpfs" ops/s fl-tmpfs fio-tmpfs 0.5
bench_measure "creates+removes, XFS on loop" ops/s fl-xfs fio-xfs 0.5
bench_exit
