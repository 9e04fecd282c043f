#!/bin/sh
# bench/disk-layer.sh — what faultline-disk (harness/lab/disk/disk.c), the
# FUSE layer under a lab server's disk, costs the lab: XFS on a loop device
# over the layer's file against XFS on a loop device straight over an image
# file of the same kind, in one run.
#
# Prepare (before the first round, not timed): two sparse images of SIZE in
# a mktemp -d directory under IMAGE_DIR (default /var/tmp: the root
# filesystem, where the labs keep their images), each made XFS; one attached
# to a loop device as it is ("plain"), the other served by faultline-disk
# (no fault set) and its file attached ("layer"); both mounted, and fio's
# file (FILESIZE) laid out on each by one untimed sequential write.  LOOP
# (losetup's options, default none: buffered, as `mount -o loop` in the labs)
# is the same for both.  Each round then runs every measure on plain, then
# on the layer:
#
#   4 KiB random r/w   fio --rw=randrw (50% reads) --bs=4k --iodepth=16,
#                      IOPS of reads and writes together
#   1 MiB seq write    fio --rw=write --bs=1M --iodepth=4, MB/s
#   1 MiB seq read     fio --rw=read --bs=1M --iodepth=4, MB/s
#
# all with --direct=1 --ioengine=io_uring for RUNTIME seconds (time based),
# so that fio's own figure (its JSON) is the measure.  Ratio: layer / plain,
# report only: here both sides are the page cache, so the layer's round
# trip through /dev/fuse is all there is to see (0.25-0.44x measured); the
# goal, a cost under 20%, is held where it matters, a lab's own runs
# (bench/disk-lab.sh).
#
# Environment: ROUNDS (5), RUNTIME (5), SIZE (1GiB), FILESIZE (256MiB),
# IMAGE_DIR (/var/tmp), LOOP (""), DISK (build/faultline-disk), BENCH_SMOKE,
# BENCH_ROWS
# shellcheck disable=SC2317,SC2046,SC2086 # rounds are called through
# bench_rounds; jq's fields and LOOP are split into words on purpose
set -eu
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNTIME=${RUNTIME:-5}
SIZE=${SIZE:-1GiB}
FILESIZE=${FILESIZE:-256MiB}
IMAGE_DIR=${IMAGE_DIR:-/var/tmp}
LOOP=${LOOP:-}
DISK=${DISK:-$ROOT/build/faultline-disk}
BYTES=$(bench_bytes "$SIZE")
FBYTES=$(bench_bytes "$FILESIZE")

[ "$(id -u)" = 0 ] || bench_fail "loop devices, FUSE and mounts need root"
bench_need fio jq mkfs.xfs losetup mount umount truncate
[ -x "$DISK" ] || bench_fail "$DISK is missing (make build/faultline-disk)"
bench_workdir "$IMAGE_DIR" disk-layer
WORK=$BENCH_WORKDIR

# xfs_on IMAGE_FILE NAME: mkfs'd by the caller; a loop device over it,
# mounted on $WORK/NAME, all undone on exit
xfs_on() {
    dev=$(losetup -f --show $LOOP "$1") || bench_fail "losetup $LOOP $1 failed"
    bench_atexit "losetup -d '$dev'"
    mkdir "$WORK/$2"
    mount -t xfs "$dev" "$WORK/$2" || bench_fail "cannot mount $dev ($2)"
    bench_atexit "umount '$WORK/$2' 2> /dev/null || { sleep 2; umount '$WORK/$2'; } || umount -l '$WORK/$2'"
}

for side in plain layer; do
    truncate -s "$BYTES" "$WORK/$side.img"
    mkfs.xfs -q "$WORK/$side.img" > /dev/null || bench_fail "mkfs.xfs $WORK/$side.img failed"
done
xfs_on "$WORK/plain.img" plain
mkdir "$WORK/fuse"
"$DISK" --backing "$WORK/layer.img" --mount "$WORK/fuse" --control "$WORK/ctl" \
    > "$WORK/disk.log" 2>&1 &
DPID=$!
# unmounting the FUSE file system ends the layer; the kill is for a layer that hangs
bench_atexit "kill $DPID 2> /dev/null; umount '$WORK/fuse' 2> /dev/null; wait $DPID 2> /dev/null"
i=0
until [ -e "$WORK/fuse/disk" ]; do
    i=$((i + 1))
    [ $i -lt 100 ] || { cat "$WORK/disk.log" >&2; bench_fail "faultline-disk did not mount"; }
    sleep 0.05
done
xfs_on "$WORK/fuse/disk" layer

# run_fio SIDE OPTION...: fio's JSON of one job on $WORK/SIDE/fio.dat
run_fio() {
    side=$1
    shift
    fio --name=disk --filename="$WORK/$side/fio.dat" --size="$FBYTES" --direct=1 \
        --ioengine=io_uring --output-format=json "$@" > "$WORK/fio.out" 2> "$WORK/fio.err" ||
        { cat "$WORK/fio.err" >&2; bench_fail "fio on $side failed"; }
    sed -n '/^{/,$p' "$WORK/fio.out" > "$WORK/fio.json"
    [ "$(jq '.jobs[0].error' "$WORK/fio.json")" = 0 ] || bench_fail "fio on $side reported an error"
}
TIMED="--time_based --runtime=$RUNTIME"
iops_rw() {
    run_fio "$1" --rw=randrw --rwmixread=50 --bs=4k --iodepth=16 $TIMED
    jq '.jobs[0].read.iops + .jobs[0].write.iops' "$WORK/fio.json"
}
mbs() { # SIDE write|read
    run_fio "$1" --rw="$2" --bs=1M --iodepth=4 $TIMED
    jq ".jobs[0].$2.bw_bytes / 1e6" "$WORK/fio.json"
}
for side in plain layer; do
    run_fio $side --rw=write --bs=1M --iodepth=4 # the file laid out, not timed
done
echo "bench: $ROUNDS rounds of ${RUNTIME}s per measure, XFS of $SIZE on loop${LOOP:+ ($LOOP)}, a $FILESIZE file, images in $IMAGE_DIR; $(fio --version)"

round() {
    a=$(iops_rw plain)
    b=$(iops_rw layer)
    c=$(mbs plain write)
    d=$(mbs layer write)
    e=$(mbs plain read)
    f=$(mbs layer read)
    bench_record plain-rw "$a"; bench_record layer-rw "$b"
    bench_record plain-sw "$c"; bench_record layer-sw "$d"
    bench_record plain-sr "$e"; bench_record layer-sr "$f"
    printf 'round %s/%s: 4 KiB random r/w: plain %.0f, layer %.0f IOPS; 1 MiB write: plain %.0f, layer %.0f MB/s; 1 MiB read: plain %.0f, layer %.0f MB/s\n' \
        "$1" "$ROUNDS" "$a" "$b" "$c" "$d" "$e" "$f"
}
bench_rounds round
grep -v '^$' "$WORK/disk.log" >&2 || true
bench_tool layer-rw "4 KiB random r/w, XFS over the layer" IOPS
bench_tool plain-rw "4 KiB random r/w, XFS over the image" IOPS
bench_tool layer-sw "1 MiB seq write, XFS over the layer" MB/s
bench_tool plain-sw "1 MiB seq write, XFS over the image" MB/s
bench_tool layer-sr "1 MiB seq read, XFS over the layer" MB/s
bench_tool plain-sr "1 MiB seq read, XFS over the image" MB/s
bench_measure "disk layer, 4 KiB random r/w" IOPS layer-rw plain-rw -
bench_measure "disk layer, 1 MiB seq write" MB/s layer-sw plain-sw -
bench_measure "disk layer, 1 MiB seq read" MB/s layer-sr plain-sr -
bench_exit
