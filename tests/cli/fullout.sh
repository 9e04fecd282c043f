# tier: quick
# A run directory that fills up (an 8 MiB ext4 on a loop device): the run
# ends with an error that names the file and "No space left on device",
# and still writes its reports (DIR/.report-room kept room for them).  What
# the journal kept verifies: its last batch, if the full disk cut it short, is
# a torn tail.
. "$(dirname "$0")/../lib.sh"

need_root "a loop device and a mount"
command -v mkfs.ext4 > /dev/null || fail "mkfs.ext4 is missing (make deps installs e2fsprogs)"

IMG=$WORK/outfs.img
MNT=$WORK/mnt
LOOP=""
detach() { [ -z "$LOOP" ] || losetup -d "$LOOP"; }
unmount() { ! mountpoint -q "$MNT" || umount "$MNT"; }
at_exit detach
at_exit unmount # before the detach: handlers run newest first
truncate -s 8M "$IMG"
mkfs.ext4 -q -F "$IMG"
mkdir "$MNT"
LOOP=$(losetup -f --show "$IMG") || skip "no loop device free"
mount "$LOOP" "$MNT"

# 64 MiB of random 4 KiB writes journal far more than 8 MiB in 60 s.
SCN=$(DURATION=60s SIZE=64MiB scenario fullout "read = 10%")
start=$(date +%s)
expect_code 2 "$FAULTLINE" run "$SCN" --out "$MNT/run" --quiet
[ $(($(date +%s) - start)) -lt 50 ] || fail "the run went on after its run directory was full"
contains "$WORK/err" "$MNT/run/worker-"
# The journal or acks.bin (workloads/journal_acks.c, sparse: its slots take
# room as they are first written) is the file that finds the disk full.
grep -Eq "cannot write $MNT/run/worker-[0-9]*/(journal|acks)\.bin: No space left on device" "$WORK/err" ||
    fail "no clear error for the full run directory: $(cat "$WORK/err")"
contains "$WORK/out" "No space left on device"
R=$MNT/run/report.json
[ -s "$R" ] || fail "no report.json: $(cat "$WORK/err")"
[ -s "$MNT/run/report.txt" ] || fail "no report.txt"
json "$R" .verdict '"error"'
json "$R" '.error | test("(journal|acks)\\.bin: No space left on device")' true
contains "$MNT/run/report.txt" "No space left on device"
[ ! -e "$MNT/run/.report-room" ] || fail ".report-room was left behind"

expect_code 0 "$FAULTLINE" verify "$MNT/run" --quiet
json "$R" .verdict '"pass"'
json "$R" '.counts.ok > 0' true

# A target larger than its filesystem's free space is refused before
# anything is allocated; the file it would have made is not left behind,
# a file that was there keeps its size, and the run directory says why it
# never started (verify has nothing to check there).
rm -rf "$MNT/run"
SCN=$(DURATION=2s SIZE=64MiB scenario toobig)
sed -i "s|^path = .*|path = $MNT/big.img|" "$SCN"
expect_code 2 "$FAULTLINE" run "$SCN" --out "$WORK/toobig" --quiet
contains "$WORK/err" "$MNT/big.img needs 64 MiB more on its filesystem, which has"
[ ! -e "$MNT/big.img" ] || fail "the refused run left $MNT/big.img ($(stat -c %s "$MNT/big.img") bytes)"
json "$WORK/toobig/report.json" '[.verdict, .started, .exit_status]' '["error",false,2]'
json "$WORK/toobig/report.json" '.error | test("needs 64 MiB more")' true
contains "$WORK/toobig/report.txt" "run toobig: ERROR"
contains "$WORK/toobig/report.txt" "could not start: "
grep -q '<error message="could not start: ' "$WORK/toobig/junit.xml" || fail "junit.xml says nothing of the refusal"
expect_code 2 "$FAULTLINE" verify "$WORK/toobig"
contains "$WORK/err" "never started"
head -c 1048576 /dev/zero > "$MNT/big.img"
expect_code 2 "$FAULTLINE" run "$SCN" --out "$WORK/toobig2" --quiet
[ "$(stat -c %s "$MNT/big.img")" = 1048576 ] || fail "the refused run changed the size of $MNT/big.img"
pass
