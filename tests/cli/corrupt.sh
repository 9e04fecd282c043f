# tier: quick
# corrupt: exactly the requested bytes change, the workload reports exactly
# the corrupted blocks, and every refusal names its rule.
. "$(dirname "$0")/../lib.sh"

# A run with faults registers its undo log under /run/faultline/runs.
need_root "runs with faults (their undo registry in /run/faultline/runs)"

head -c 1048576 /dev/urandom > "$WORK/other.img"
cp "$WORK/other.img" "$WORK/other.orig"
cat > "$WORK/rot.scn" <<EOS
[scenario]
name = rot
duration = 3s
allow_destructive = yes
allow_paths = $WORK/other.img
[target]
kind = file
path = $WORK/target.img
size = 4MiB
[workload]
prefill = yes
read = 100%
depth = 4
[fault rot]
action = corrupt
at = 1s
blocks = 5
seed = 7
[fault flip]
action = corrupt
path = $WORK/other.img
offset = 1000
length = 3000
mode = bitflip
at = 1500ms
[fault noise]
action = corrupt
path = $WORK/other.img
offset = 500000
length = 100
mode = random
at = 2s
EOS
# The findings are the detection the fault was there for: the verdict passes
# with detected_corrupt = 5 (the integrity rules count only other damage).
expect_code 0 "$FAULTLINE" run "$WORK/rot.scn" --out "$WORK/run" --quiet
R=$WORK/run/report.json
json "$R" .verdict '"pass"'
json "$R" .corruption.detected_corrupt 5
json "$R" .corruption.undetected_corrupt 0
json "$R" '.counts.corrupt > 5' true
json "$R" '.corruption.explained.corrupt == .counts.corrupt' true
# The workload found exactly the corrupted blocks, and nothing else.
want=$(jq -c '[.faults[] | select(.name == "rot") | .ranges[] | .[0] / 4096] | sort' "$R")
json "$R" '[.findings[] | .block] | sort' "$want"
json "$R" '[.findings[] | .class] | unique' '["corrupt"]'
json "$R" '[.findings[] | .read_at >= 1] | all' true
json "$R" '.prefill.writes' 1024
json "$R" '.io.writes' 0
# Each fault's window has its latency percentiles, in order, its max the slowest I/O's.
json "$R" '[.faults[] | .latency_p50_s != null and .latency_p50_s <= .latency_p99_s and
    .latency_p99_s <= .latency_max_s and .latency_max_s == .max_latency_s] | all' true
contains "$WORK/run/report.txt" "latency p50 "
# report.html: a row per fault, and no empty column (a file has no path
# events; the rules need no "why" when all were measured)
H=$WORK/run/report.html
[ "$(grep -c '<br><span class="small">corrupt</span>' "$H")" = 3 ] || fail "report.html has not 3 rows of corrupt faults"
! grep -q '<th>path events</th>' "$H" || fail "report.html has a column of path events on a file"
! grep -q '<th></th>' "$H" || fail "report.html has a column without a name"
# Exactly the requested bytes changed: 1000..3999 and 500000..500099.
cmp -l "$WORK/other.orig" "$WORK/other.img" | awk '{print $1 - 1}' > "$WORK/changed"
[ "$(wc -l < "$WORK/changed")" = 3100 ] || fail "$(wc -l < "$WORK/changed") bytes changed, not 3100"
[ "$(head -1 "$WORK/changed")" = 1000 ] && [ "$(sed -n 3000p "$WORK/changed")" = 3999 ] &&
    [ "$(sed -n 3001p "$WORK/changed")" = 500000 ] && [ "$(tail -1 "$WORK/changed")" = 500099 ] ||
    fail "the changed bytes are not the requested ranges"
contains "$WORK/run/report.txt" "flipped bits written over bytes 1000..3999 of $WORK/other.img"

# Refusals: each names its rule.
sed '/^allow_destructive/d' "$WORK/rot.scn" > "$WORK/no-allow.scn"
expect_code 2 "$FAULTLINE" check "$WORK/no-allow.scn"
contains "$WORK/err" "it needs [scenario] allow_destructive = yes"
sed '/^allow_paths/d' "$WORK/rot.scn" > "$WORK/not-listed.scn"
expect_code 2 "$FAULTLINE" run "$WORK/not-listed.scn" --out "$WORK/r2" --quiet
contains "$WORK/err" "is neither the scenario's target nor listed in [scenario] allow_paths"

# Scenario mistakes in fault sections, with file:line.
printf '[target]\nkind = file\npath = %s/x\nsize = 1MiB\n[fault f]\naction = port-down\npercent = 5\n' \
    "$WORK" > "$WORK/bad1.scn"
expect_code 2 "$FAULTLINE" check "$WORK/bad1.scn"
contains "$WORK/err" "bad1.scn:7: 'percent' does not apply to action port-down"
printf '[target]\nkind = file\npath = %s/x\nsize = 1MiB\n[fault f]\naction = link-down\nhost = ctrl-a\n' \
    "$WORK" > "$WORK/bad2.scn"
expect_code 2 "$FAULTLINE" check "$WORK/bad2.scn"
contains "$WORK/err" "bad2.scn:5: [fault f] host 'ctrl-a' is neither a lab host (there is no lab)"
printf '[target]\nkind = file\npath = %s/x\nsize = 1MiB\n[fault f]\nhost = local\n' "$WORK" > "$WORK/bad3.scn"
expect_code 2 "$FAULTLINE" check "$WORK/bad3.scn"
contains "$WORK/err" "bad3.scn:5: [fault f] needs action"

# Last: a mounted block device is refused (a loop device).
truncate -s 16M "$WORK/disk.img"
mkfs.ext4 -q -F "$WORK/disk.img"
DEV=$(losetup -f --show "$WORK/disk.img") || fail "losetup cannot attach a loop device"
detach() { losetup -d "$DEV"; }
at_exit detach
mkdir "$WORK/mnt"
mount "$DEV" "$WORK/mnt" || fail "cannot mount $DEV"
unmount() { umount "$WORK/mnt"; }
at_exit unmount
sed "s|^allow_paths = .*|allow_paths = $DEV|; s|^path = $WORK/other.img|path = $DEV|" \
    "$WORK/rot.scn" > "$WORK/mounted.scn"
expect_code 2 "$FAULTLINE" run "$WORK/mounted.scn" --out "$WORK/r3" --quiet
contains "$WORK/err" "a mounted block device is always refused"
pass
