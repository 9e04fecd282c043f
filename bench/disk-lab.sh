#!/bin/sh
# bench/disk-lab.sh — what the disk layer costs a lab's own throughput, the
# figure the labs are held to: the same faultless run on a lab whose
# servers' disks sit on faultline-disk ([lab] disk_faults = yes) against
# one whose disks do not (no), in one bench.
#
# Prepare (not timed): for each kind of KINDS, two labs of that kind up at
# once, each with a prefix of its own (flbdy, flbdn), taken down on exit.
# Each round then runs, on each kind, the scenario below on the layered
# lab, then on the plain one (`faultline run`, the lab found up and kept):
# RUNTIME seconds of 4 KiB random I/O, half reads, 4 files of 1 MiB on 4
# workers, an fsync every 32 writes (gluster, ceph: a files target on the
# volume; iscsi: the LUN at depth 8).  The figure is the run's own IOPS
# (report.json's io.iops).  Ratio: layered / plain, goal >= 0.8x (a cost
# under 20%) for gluster and ceph; iscsi is report only: its LUN is on the
# layer only when asked (docs/labs.md says why).
#
# Environment: ROUNDS (5), RUNTIME (15), KINDS ("gluster ceph iscsi"),
# FAULTLINE (./faultline), BENCH_SMOKE, BENCH_ROWS
# shellcheck disable=SC2317 # rounds are called through bench_rounds
set -eu
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNTIME=${RUNTIME:-15}
KINDS=${KINDS:-gluster ceph iscsi}
FAULTLINE=${FAULTLINE:-$ROOT/faultline}
[ "$(id -u)" = 0 ] || bench_fail "the labs need root"
bench_need jq
[ -x "$FAULTLINE" ] || bench_fail "$FAULTLINE is missing (make)"
bench_workdir /var/tmp disk-lab
WORK=$BENCH_WORKDIR

# scenario KIND yes|no: the faultless run on that lab
scenario() {
    {
        printf '[scenario]\nname = disk-lab-%s-%s\nduration = %ss\nlab = %s\n' "$1" "$2" "$RUNTIME" "$1"
        printf '[lab]\ndisk_faults = %s\n' "$2"
        if [ "$1" = iscsi ]; then
            printf '[target]\nkind = iscsi\n[workload]\nread = 50%%\ndepth = 8\nflush = 64\n'
        else
            printf '[target]\nkind = files\nsize = 4MiB\n[workload]\nclass = large\n'
            printf 'procs = 4\nflush = 32\nread = 50%%\n'
        fi
        printf '[expect]\nerrors = 0\nlost_writes = 0\n'
    } > "$WORK/$1-$2.scn"
}
prefix() { [ "$1" = yes ] && echo flbdy || echo flbdn; }

for k in $KINDS; do
    case $k in gluster | ceph | iscsi) ;; *) bench_fail "KINDS: $k is no lab kind of ours" ;; esac
    for d in yes no; do
        scenario "$k" "$d"
        bench_atexit "FAULTLINE_LAB_PREFIX=$(prefix $d) '$FAULTLINE' lab down $k > /dev/null 2>&1"
        FAULTLINE_LAB_PREFIX=$(prefix $d) "$FAULTLINE" lab up "$k" --disk-faults "$d" \
            > "$WORK/up-$k-$d.log" 2>&1 || { cat "$WORK/up-$k-$d.log" >&2; bench_fail "lab up $k (disk_faults = $d) failed"; }
    done
done
echo "bench: $ROUNDS rounds of ${RUNTIME}s runs on $KINDS, each kind's two labs up at once"

# iops KIND yes|no ROUND: one run's IOPS
iops() {
    out=$WORK/run-$1-$2-$3
    FAULTLINE_LAB_PREFIX=$(prefix "$2") "$FAULTLINE" run "$WORK/$1-$2.scn" --out "$out" --quiet \
        --keep-lab > "$out.log" 2>&1 || { cat "$out.log" >&2; bench_fail "the run on $1 (disk_faults = $2) failed"; }
    jq '.io.iops' "$out/report.json"
}
round() {
    line="round $1/$ROUNDS:"
    for k in $KINDS; do
        y=$(iops "$k" yes "$1")
        n=$(iops "$k" no "$1")
        bench_record "$k-yes" "$y"
        bench_record "$k-no" "$n"
        line="$line $k layer $(bench_fmt "$y"), plain $(bench_fmt "$n") IOPS;"
    done
    echo "$line"
}
bench_rounds round
for k in $KINDS; do
    bench_tool "$k-yes" "$k lab, disks on the layer" IOPS
    bench_tool "$k-no" "$k lab, disks straight" IOPS
done
for k in $KINDS; do
    goal=0.8
    [ "$k" != iscsi ] || goal=-
    bench_measure "disk layer, $k lab run" IOPS "$k-yes" "$k-no" "$goal"
done
bench_exit
