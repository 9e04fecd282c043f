# tier: quick
# passes: plain
# faultline-disk, the FUSE layer under a lab server's disk, on its own: a
# sparse 512 MiB image behind it, a loop device over its file, XFS on that
# (made, mounted, a file written and read back after a remount: the layer
# carries a filesystem, discards and flushes included).  Then, from outside,
# each mode through the control socket (faultline-disk --ask, which is
# lib/diskctl.c's diskctl_ask as the disk faults use it), with dd O_DIRECT on
# the layer's file, so that every dd is exactly one request of the layer:
#   errors on=read in a range: a read there fails EIO, one outside and a
#     write there go through;
#   fail: reads, writes and fsyncs fail EIO; clear: they work again;
#   slow latency_us=20000: each 4 KiB read takes 20 ms at least (bounded
#     from below only: the layer guarantees that, the machine decides the
#     rest);
#   full: a write into a hole (made through the layer's fallocate, as loop's
#     discard does) fails ENOSPC, a write over allocated bytes goes through;
#   clear replace: the image is emptied, reads give zeros;
# and status's counts agree with every request made since the XFS part.
# Last, SIGTERM: exit 0, DIR unmounted, the socket gone.  The plain pass
# only: the layer is one build (as faultline-wcache), the ASan pass would
# run the same binary again.
. "$(dirname "$0")/../lib.sh"

need_root "a FUSE mount, a loop device and an XFS mount"
DISK=${DISK:-$(cd "$(dirname "$0")/../.." && pwd)/build/faultline-disk}
[ -x "$DISK" ] || fail "$DISK is missing (make build/faultline-disk)"
for t in mkfs.xfs losetup fallocate cmp; do
    command -v $t > /dev/null || fail "$t is missing (make deps)"
done
export LC_ALL=C

CTL=$WORK/ctl
FILE=$WORK/mnt/disk
mkdir "$WORK/mnt" "$WORK/xfs"
truncate -s 512M "$WORK/back.img"
dpid="" loop="" mounted=""
stop_layer() {
    umount "$WORK/mnt" 2> /dev/null || umount -l "$WORK/mnt" 2> /dev/null
    [ -z "$dpid" ] || kill -9 "$dpid" 2> /dev/null
    [ -z "$dpid" ] || wait "$dpid" 2> /dev/null
}
detach() { [ -z "$loop" ] || losetup -d "$loop"; }
unmount_xfs() { [ -z "$mounted" ] || umount "$WORK/xfs" || umount -l "$WORK/xfs"; }
at_exit stop_layer
at_exit detach
at_exit unmount_xfs

# A socket in a directory others may write to is refused, and says why.
mkdir -m 0777 "$WORK/open"
expect_code 1 "$DISK" --backing "$WORK/back.img" --mount "$WORK/mnt" --control "$WORK/open/ctl"
contains "$WORK/err" "cannot listen on $WORK/open/ctl: $WORK/open is writable by others"
expect_code 2 "$DISK" --backing "$WORK/back.img" --mount "$WORK/mnt"
contains "$WORK/err" "--backing, --mount and --control are needed"

"$DISK" --backing "$WORK/back.img" --mount "$WORK/mnt" --control "$CTL" > "$WORK/disk.log" 2>&1 &
dpid=$!
i=0
until [ -e "$FILE" ] && [ -S "$CTL" ]; do
    i=$((i + 1))
    [ $i -lt 100 ] || { cat "$WORK/disk.log" >&2; fail "faultline-disk did not mount within 5 s"; }
    sleep 0.05
done
[ "$(stat -c '%s %a' "$FILE")" = "536870912 644" ] || fail "DIR/disk is $(stat -c '%s %a' "$FILE")"
[ "$(stat -c %a "$CTL")" = 600 ] || fail "the control socket has mode $(stat -c %a "$CTL"), not 600"

# --- XFS over a loop device over the layer ---------------------------------
loop=$(losetup -f --show "$FILE") || fail "losetup over $FILE failed"
mkfs.xfs -q "$loop" > "$WORK/mkfs.log" 2>&1 || { cat "$WORK/mkfs.log" >&2; fail "mkfs.xfs failed"; }
mount -t xfs "$loop" "$WORK/xfs" || fail "cannot mount the XFS"
mounted=yes
head -c 8388608 /dev/urandom > "$WORK/data"
dd if="$WORK/data" of="$WORK/xfs/data" bs=1M conv=fsync status=none || fail "writing on the XFS failed"
umount "$WORK/xfs"
mount -t xfs "$loop" "$WORK/xfs" || fail "cannot mount the XFS again"
cmp "$WORK/data" "$WORK/xfs/data" || fail "the file on the XFS differs after a remount"
umount "$WORK/xfs"
mounted=""
losetup -d "$loop"
loop=""

# --- the modes, from outside -----------------------------------------------
# ask LINE WANT: the layer answers LINE with "ok WANT ..."
ask() {
    expect_code 0 "$DISK" --ask "$CTL" "$1"
    contains "$WORK/out" "ok $2 reads="
}
# count KEY: KEY's count in the last answer
count() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" "$WORK/out"; }
# rd OFFSET_4K / wr OFFSET_4K: one 4 KiB O_DIRECT request at that 4 KiB block;
# $WORK/dd.err keeps dd's words
rd() { dd if="$FILE" of="$WORK/block" bs=4k count=1 skip="$1" iflag=direct 2> "$WORK/dd.err"; }
wr() { dd if=/dev/urandom of="$FILE" bs=4k count=1 seek="$1" oflag=direct conv=notrunc 2> "$WORK/dd.err"; }
# sy: one fsync of the layer's file, nothing written
sy() { dd if=/dev/null of="$FILE" conv=notrunc,fsync status=none 2> "$WORK/dd.err"; }
# fails WHAT ERROR CMD...: CMD fails, dd saying ERROR
fails() {
    _what=$1 _err=$2
    shift 2
    : > "$WORK/dd.err"
    ! "$@" || fail "$_what went through"
    grep -q "$_err" "$WORK/dd.err" || { cat "$WORK/dd.err" >&2; fail "$_what did not fail with '$_err'"; }
}
# For full: block 768 written (allocated), block 1024 written, then punched
# out through the layer (its fallocate, as loop's discard).  Before the
# counts' base: the punch may bring an fsync of its own (the kernel's).
wr 768 && wr 1024 || fail "writing the blocks for full failed: $(cat "$WORK/dd.err")"
fallocate -p -o 4194304 -l 4096 "$FILE" || fail "fallocate --punch-hole through the layer failed"
cmp -s -n 4096 -i 4194304:0 "$WORK/back.img" /dev/zero || fail "the punched block still has data"

ask status ok
for k in reads writes syncs; do
    [ "$(count $k)" -gt 0 ] || fail "the XFS part made no $k through the layer"
done
for k in reads writes syncs failed_reads failed_writes failed_syncs nospace slowed; do
    eval "base_$k=\$(count $k)"
done
R=0 W=0 S=0 FR=0 FW=0 FS=0 NS=0 SL=0

# errors: 64 KiB at 1 MiB, reads only
ask "set errors on=read ranges=1048576+65536" errors
fails "a read in the range" "Input/output error" rd 260
rd 512 || fail "a read outside the range failed: $(cat "$WORK/dd.err")"
wr 260 || fail "a write in the range (on=read) failed: $(cat "$WORK/dd.err")"
R=$((R + 2)) FR=$((FR + 1)) W=$((W + 1))

# fail, then clear
ask "set fail" fail
fails "a read of a failed disk" "Input/output error" rd 512
fails "a write to a failed disk" "Input/output error" wr 512
fails "an fsync of a failed disk" "Input/output error" sy
[ -e "$FILE" ] || fail "a failed disk's file is gone (getattr must work)"
ask clear ok
rd 512 || fail "a read after clear failed: $(cat "$WORK/dd.err")"
R=$((R + 2)) FR=$((FR + 1)) W=$((W + 1)) FW=$((FW + 1)) S=$((S + 1)) FS=$((FS + 1))

# slow: ten 4 KiB reads in one dd, ten requests one after another, 20 ms
# each at least (one dd, so that its start does not blur a single read's)
ask "set slow latency_us=20000" slow
t0=$(date +%s%N)
dd if="$FILE" of=/dev/null bs=4k count=10 skip=512 iflag=direct 2> "$WORK/dd.err" ||
    fail "reads of a slow disk failed: $(cat "$WORK/dd.err")"
t1=$(date +%s%N)
[ $(((t1 - t0) / 1000000)) -ge 200 ] ||
    fail "ten 4 KiB reads of a slow disk took $(((t1 - t0) / 1000)) us, not 200 ms (20 ms each)"
ask clear ok
R=$((R + 10)) SL=$((SL + 10))

# full
ask "set full" full
fails "a write into a hole of a full disk" "No space left on device" wr 1024
wr 768 || fail "a write over allocated bytes of a full disk failed: $(cat "$WORK/dd.err")"
rd 1024 || fail "a read of a full disk failed: $(cat "$WORK/dd.err")"
W=$((W + 2)) NS=$((NS + 1)) R=$((R + 1))

# clear replace: the image emptied
ask "clear replace" ok
rd 768 || fail "a read of a replaced disk failed: $(cat "$WORK/dd.err")"
cmp -s -n 4096 "$WORK/block" /dev/zero || fail "a replaced disk's block 768 is not zeros"
R=$((R + 1))
[ "$(stat -c %s "$WORK/back.img")" = 536870912 ] || fail "replace changed the image's size"

# a bad line is refused with the reason, and changes nothing
expect_code 1 "$DISK" --ask "$CTL" "set slow"
contains "$WORK/out" "error the disk layer refused 'set slow':"

ask status ok
check() { # KEY WANT
    got=$(($(count "$1") - $(eval echo "\$base_$1")))
    [ "$got" = "$2" ] || { cat "$WORK/out" >&2; fail "status: $1 grew by $got, not $2"; }
}
check reads $R
check writes $W
check syncs $S
check failed_reads $FR
check failed_writes $FW
check failed_syncs $FS
check nospace $NS
check slowed $SL

# SIGTERM: unmounted, the socket removed, exit 0
kill -TERM "$dpid"
set +e
wait "$dpid"
rc=$?
set -e
dpid=""
[ "$rc" = 0 ] || { cat "$WORK/disk.log" >&2; fail "faultline-disk exited $rc on SIGTERM"; }
! mountpoint -q "$WORK/mnt" || fail "DIR is still mounted after SIGTERM"
[ ! -e "$CTL" ] || fail "the control socket is left after SIGTERM"
contains "$WORK/disk.log" "faultline-disk: clear replace"
pass
