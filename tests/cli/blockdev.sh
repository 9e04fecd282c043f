# tier: quick
# The blockdev backend on a loop device: a run and a verify pass, damage
# through the device is found, and a mounted device is refused.
. "$(dirname "$0")/../lib.sh"

need_root "loop devices"
truncate -s 32M "$WORK/disk.img"
DEV=$(losetup -f --show "$WORK/disk.img") || fail "losetup cannot attach a loop device"
detach() { losetup -d "$DEV"; }
at_exit detach

cat > "$WORK/dev.scn" <<EOS
[scenario]
name = dev
duration = 1s
[target]
kind = blockdev
path = $DEV
[workload]
block = 4KiB
depth = 8
EOS
expect_code 0 "$FAULTLINE" run "$WORK/dev.scn" --out "$WORK/run" --quiet
R=$WORK/run/report.json
json "$R" .verdict '"pass"'
json "$R" .target.bytes $((32 << 20))
json "$R" '.io.writes > 100' true
contains "$WORK/run/report.txt" "block device $DEV (O_DIRECT"
expect_code 0 "$FAULTLINE" verify "$WORK/run" --quiet
json "$R" .verdict '"pass"'

# Damage under the device (in its backing file): found through the device.
BLOCK=$(jq '[.counts.ok] | .[0]' "$R")
[ "$BLOCK" -gt 0 ] || fail "nothing was written"
written=$(jq -r '.sweep.reads' "$WORK/run/report.json")
dd if=/dev/zero of="$WORK/disk.img" bs=4096 seek=7 count=1 conv=notrunc status=none
sync
# Block 7 may never have been written in a 1 s random run: then zeroes are fine.
expect_code_any() { set +e; "$@" > "$WORK/out" 2> "$WORK/err"; code=$?; set -e; }
expect_code_any "$FAULTLINE" verify "$WORK/run" --quiet
if [ "$(jq '.counts.zeroed' "$R")" = 1 ]; then
    [ $code = 1 ] || fail "a zeroed block did not fail the verify"
    json "$R" '[.findings[] | .block]' '[7]'
else
    [ $code = 0 ] || fail "verify failed without a zeroed block 7"
fi

# Too large a size, the wrong kind, and a mounted device are refused.
sed "s|^path = .*|path = $DEV\nsize = 64MiB|" "$WORK/dev.scn" > "$WORK/big.scn"
expect_code 2 "$FAULTLINE" run "$WORK/big.scn" --out "$WORK/big" --quiet
contains "$WORK/err" "is larger than $DEV"
sed 's/^kind = blockdev/kind = file/' "$WORK/dev.scn" > "$WORK/kind.scn"
expect_code 2 "$FAULTLINE" run "$WORK/kind.scn" --out "$WORK/kind" --quiet
contains "$WORK/err" "$DEV is a block device; use kind = blockdev"
sed "s|^path = .*|path = $WORK/disk.img|" "$WORK/dev.scn" > "$WORK/file.scn"
expect_code 2 "$FAULTLINE" run "$WORK/file.scn" --out "$WORK/file" --quiet
contains "$WORK/err" "is not a block device; use kind = file"

mkfs.ext4 -q -F "$DEV" || fail "mkfs.ext4 failed"
mkdir "$WORK/mnt"
mount "$DEV" "$WORK/mnt" || fail "cannot mount $DEV"
unmount() { umount "$WORK/mnt"; }
at_exit unmount
expect_code 2 "$FAULTLINE" run "$WORK/dev.scn" --out "$WORK/mounted" --quiet
contains "$WORK/err" "refusing $DEV: it is mounted on $WORK/mnt"
pass
