# Power loss without a lab: a file target through faultline-wcache, a write
# cache that keeps writes in memory until fsync.  SIGUSR1 makes it drop
# everything not flushed, with the file still served: what a power cut of
# the cache does.
#   - The cut as a fault with `loses = unflushed`: the run passes, reads of
#     older data are `reverted` (counted, listed, per loss in power[]),
#     never a lost write or a stale read; verify afterwards agrees.
#   - The same cut without `loses`: the storage lied, the run fails with
#     lost writes or stale reads.
#   - faultline SIGKILLed, then the cache cut: verify counts the reverted
#     blocks as the crash's cost and finds nothing wrong.
. "$(dirname "$0")/../lib.sh"

need_root "FUSE mounts"
WCACHE=${WCACHE:-$(cd "$(dirname "$0")/../.." && pwd)/build/faultline-wcache}
[ -x "$WCACHE" ] || fail "$WCACHE is missing (make build/faultline-wcache)"

mkdir "$WORK/mnt"
truncate -s 8M "$WORK/back.img"
wpid=""
stop_cache() {
    umount "$WORK/mnt" 2>/dev/null || umount -l "$WORK/mnt" 2>/dev/null
    [ -z "$wpid" ] || kill -9 "$wpid" 2>/dev/null
    [ -z "$wpid" ] || wait "$wpid" 2>/dev/null
}
at_exit stop_cache
"$WCACHE" --backing "$WORK/back.img" --mount "$WORK/mnt" > "$WORK/wcache.log" 2>&1 &
wpid=$!
i=0
while ! grep -q " $WORK/mnt fuse" /proc/mounts && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
[ -e "$WORK/mnt/lun" ] || { cat "$WORK/wcache.log" >&2; fail "faultline-wcache did not mount"; }

# Flushes are rare (every 2000 writes of a worker), so the cut finds much
# unflushed.  $1: the fault's extra line.
cut_scenario() {
    cat > "$WORK/$2.scn" <<EOF
[scenario]
name = $2
duration = 3s
[target]
kind = file
path = $WORK/mnt/lun
[workload]
block = 4KiB
flush = 2000
[fault cut]
action = command
command = kill -USR1 $wpid
at = 1s
$1
EOF
    echo "$WORK/$2.scn"
}

expect_code 0 "$FAULTLINE" run "$(cut_scenario "loses = unflushed" allowed)" --out "$WORK/allowed" -q
R=$WORK/allowed/report.json
json "$R" .verdict '"pass"'
json "$R" '[.power[] | .fault]' '["cut"]'
json "$R" '.power[0].writes_at_risk > 0 and .power[0].reverted > 0' true
json "$R" '.counts.reverted == .power[0].reverted' true
json "$R" '[.counts["lost-write"], .counts["stale-read"], (.findings | length)]' '[0,0,0]'
json "$R" '[.reverted[] | .class] | unique' '["reverted"]'
json "$R" '[.reverted[] | select(.found_gen != null and .found_gen >= .expected_gen)] | length' 0
contains "$WORK/allowed/report.txt" "power      [fault cut]"
echo "  allowed: $(jq -r '"\(.power[0].writes_at_risk) blocks at risk, \(.power[0].reverted) reads reverted"' "$R")"
grep -q "dropped [1-9][0-9]* unflushed pages" "$WORK/wcache.log" || fail "the cache dropped nothing"
# verify reads the target again: what reverted stays reverted, nothing is a finding
expect_code 0 "$FAULTLINE" verify "$WORK/allowed" -q
json "$R" '[.verdict, (.findings | length)]' '["pass",0]'

expect_code 1 "$FAULTLINE" run "$(cut_scenario "" lying)" --out "$WORK/lying" -q
R=$WORK/lying/report.json
json "$R" .verdict '"fail"'
json "$R" '.power' '[]'
json "$R" '.counts.reverted' 0
json "$R" '.counts["lost-write"] + .counts["stale-read"] > 0' true
echo "  without loses: $(jq -r '"lost-write \(.counts["lost-write"]), stale-read \(.counts["stale-read"])"' "$R")"

# The run itself SIGKILLed, then the cache cut: verify calls what is gone
# the crash's cost.
SCN=$(DURATION=60s SIZE=8MiB TARGET_KEYS="" scenario crash "flush = 2000")
sed -i "s|^path = .*|path = $WORK/mnt/lun|; /^size = /d" "$SCN"
"$FAULTLINE" run "$SCN" --out "$WORK/crash" --quiet > "$WORK/crash.log" 2>&1 &
pid=$!
i=0
while [ ! -s "$WORK/crash/worker-0/journal.bin" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
sleep 1
kill -9 $pid
wait $pid 2>/dev/null || true
kill -USR1 "$wpid"
sleep 0.2
# a read, so that the cache takes the signal before verify reads anything
dd if="$WORK/mnt/lun" of=/dev/null bs=4096 count=1 status=none
expect_code 0 "$FAULTLINE" verify "$WORK/crash" --quiet
R=$WORK/crash/report.json
json "$R" '[.verdict, (.findings | length)]' '["pass",0]'
json "$R" '.counts.reverted > 0' true
contains "$WORK/crash/report.txt" "before the run's crash"
echo "  after a crash: $(jq -r '.counts.reverted' "$R") reads reverted"
pass
