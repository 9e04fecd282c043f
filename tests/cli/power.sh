# tier: quick
# Power loss without a lab: a file target through faultline-wcache, a write
# cache that keeps writes in memory until fsync.  SIGUSR1 makes it drop
# everything not flushed, with the file still served: what a power cut of
# the cache does.
#   - The cut as a fault with `loses = unflushed`: the run passes, reads of
#     older data are `reverted` (counted, listed, per loss in power[]),
#     never a lost write or a stale read; verify afterwards agrees.
#   - The same cut without `loses`: the storage lied, the run fails with
#     lost writes or stale reads.
#   - faultline SIGKILLed at three points of a run that flushes, then the
#     cache cut: verify counts the reverted blocks as the crash's cost, as
#     many as the cache dropped pages but for the few writes faultline had
#     not yet recorded as acknowledged, and finds nothing wrong.
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

# Flushes are rare (every 8000 writes, the target has 2048 blocks), so the
# cut finds much unflushed.  The cut's command returns once the cache has
# dropped its data, as a BMC's power off returns once the power is off:
# the model counts writes acknowledged until the inject returned as at
# risk, and one the cache acknowledged after the command returned but before
# it took the signal would be a false stale read (seen once in 25 runs when
# the command was a bare kill).  $1: the fault's extra line.
CUT="n=\$(grep -c dropped $WORK/wcache.log); kill -USR1 $wpid; i=0; while [ \$(grep -c dropped $WORK/wcache.log) -le \$n ] && [ \$i -lt 400 ]; do sleep 0.005; i=\$((i + 1)); done"
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
flush = 8000
[fault cut]
action = command
command = $CUT
at = 1s
$1
EOF
    echo "$WORK/$2.scn"
}

# A cut that lands while a flush is in progress, or just after one, finds
# the cache (nearly) clean: the storage then lost (almost) nothing, and
# nothing can revert.  That is no test of the model, so such a run is made
# again (at most 4 times; 8 for the kills below).  A cut must drop 100 pages
# at least (with reads of half the I/O, a dropped page is read before it is
# rewritten with even odds); after the run's crash, twice the slack allowed
# there (below).  With flushes every 2000 writes, 1 cut in 6 was too early;
# dropped: the pages of the cache's last cut.
dropped() { sed -n 's/.*dropped \([0-9]*\) unflushed pages.*/\1/p' "$WORK/wcache.log" | tail -1; }
cuts() { grep -c "dropped [0-9]* unflushed pages" "$WORK/wcache.log" || true; }
# cut_counts CUTS NAME MIN: whether the cut after CUTS earlier ones dropped
# MIN pages at least; fails after max_tries (4) nearly clean ones in a row.
# cut_run NAME: runs until a cut counts.
tries=0
max_tries=4
cut_counts() {
    tries=$((tries + 1))
    [ "$(cuts)" -gt "$1" ] || { cat "$WORK/wcache.log" >&2; fail "$2: the cache never took the cut"; }
    [ "$(dropped)" -lt "$3" ] || return 0
    [ $tries -lt $max_tries ] || fail "$2: $tries cuts in a row found the cache nearly clean (dropped $(dropped))"
    echo "  $2: the cut found the cache nearly clean (dropped $(dropped), a flush in progress); again"
    return 1
}
cut_run() {
    tries=0
    while :; do
        rm -rf "$WORK/$1"
        n=$(cuts)
        set +e
        "$FAULTLINE" run "$(cut_scenario "$2" "$1")" --out "$WORK/$1" -q > "$WORK/$1.out" 2>&1
        code=$?
        set -e
        ! cut_counts "$n" "$1" 100 || break
    done
    [ "$code" = "$3" ] || { cat "$WORK/$1.out" >&2; fail "$1: exit $code, expected $3"; }
}

cut_run allowed "loses = unflushed" 0
R=$WORK/allowed/report.json
json "$R" .verdict '"pass"'
json "$R" '[.power[] | .fault]' '["cut"]'
json "$R" '.power[0].writes_at_risk > 0 and .power[0].reverted > 0' true
json "$R" '.counts.reverted == .power[0].reverted' true
json "$R" '[.counts["lost-write"], .counts["stale-read"], (.findings | length)]' '[0,0,0]'
json "$R" '[.reverted[] | .class] | unique' '["reverted"]'
json "$R" '[.reverted[] | select(.found_gen != null and .found_gen >= .expected_gen)] | length' 0
contains "$WORK/allowed/report.txt" "power      [fault cut]"
echo "  allowed: $(jq -r '"\(.power[0].writes_at_risk) blocks at risk, \(.power[0].reverted) reads reverted"' "$R"), $(dropped) pages dropped"
# verify reads the target again: what reverted stays reverted, nothing is a finding
expect_code 0 "$FAULTLINE" verify "$WORK/allowed" -q
json "$R" '[.verdict, (.findings | length)]' '["pass",0]'

cut_run lying "" 1
R=$WORK/lying/report.json
json "$R" .verdict '"fail"'
json "$R" '.power' '[]'
json "$R" '.counts.reverted' 0
json "$R" '.counts["lost-write"] + .counts["stale-read"] > 0' true
echo "  without loses: $(jq -r '"lost-write \(.counts["lost-write"]), stale-read \(.counts["stale-read"])"' "$R"), $(dropped) pages dropped"

# The run itself SIGKILLed, then the cache cut: verify calls what is gone
# the crash's cost.  The run flushes every 256 writes and is killed 0.4, 0.9
# and 1.4 s after its journal appeared (each somewhere in a flush cycle).  The cost is counted apart from faultline, by the cache: the pages
# it dropped.  Every block verify calls reverted is one of them (reverted <=
# dropped); every dropped page is a reverted block, but for the writes the
# cache took that faultline had not yet put into acks.bin when it died
# (workloads/journal_acks.c): those in flight at the kill, and those of the
# reap it was handling, whose one write of acks.bin had not happened yet.
# Together they are at most the depth: a completion frees its slot only for
# an issue after that reap's write.  slack is the depth plus 4, a margin
# with no known use.  (Before acks.bin, completions waited for the next
# batch of intents, up to 16384 ops ahead: a run killed a few seconds in
# counted 0 of 1350 dropped blocks.)  A kill that finds the cache (nearly)
# clean, a flush having just taken everything, tests nothing: fewer than
# 2 * slack dropped pages make a run again (cut_counts).  1 kill in 4 lands
# while the cache writes a flush back (it then drops nothing), so 8 tries at
# most: all 8 nearly clean has odds of about 1 in 100000 per kill time.
SCN=$(DURATION=60s SIZE=8MiB TARGET_KEYS="" scenario crash "flush = 256")
sed -i "s|^path = .*|path = $WORK/mnt/lun|; /^size = /d" "$SCN"
depth=$(sed -n 's/^depth = //p' "$SCN")
slack=$((depth + 4))
max_tries=8
for at in 0.4 0.9 1.4; do
    tries=0
    while :; do
        rm -rf "$WORK/crash"
        n=$(cuts)
        "$FAULTLINE" run "$SCN" --out "$WORK/crash" --quiet > "$WORK/crash.log" 2>&1 &
        pid=$!
        i=0
        while [ ! -s "$WORK/crash/worker-0/journal.bin" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
        [ -s "$WORK/crash/worker-0/journal.bin" ] ||
            { kill -9 $pid; cat "$WORK/crash.log" >&2; fail "crash at $at s: the run never started its workload"; }
        sleep $at
        kill -9 $pid
        wait $pid 2>/dev/null || true
        kill -USR1 "$wpid"
        # reads, so that the cache takes the signal (bounded: 2 s)
        i=0
        while [ "$(cuts)" -le "$n" ] && [ $i -lt 40 ]; do
            dd if="$WORK/mnt/lun" of=/dev/null bs=4096 count=1 status=none
            sleep 0.05
            i=$((i + 1))
        done
        ! cut_counts "$n" "crash at $at s" $((2 * slack)) || break
    done
    expect_code 0 "$FAULTLINE" verify "$WORK/crash" --quiet
    R=$WORK/crash/report.json
    json "$R" '[.verdict, (.findings | length)]' '["pass",0]'
    reverted=$(jq .counts.reverted "$R")
    d=$(dropped)
    [ "$reverted" -le "$d" ] ||
        fail "crash at $at s: $reverted blocks reverted, more than the $d pages the cache dropped"
    [ $((d - reverted)) -le $slack ] ||
        fail "crash at $at s: the cache dropped $d pages, verify counted $reverted reverted: $((d - reverted)) missing, more than the $slack writes in flight or not yet in acks.bin"
    contains "$WORK/crash/report.txt" "before the run's crash"
    echo "  crash at $at s: $reverted reads reverted, $d pages dropped (at most $slack apart), $(jq .journal.acks_recovered "$R") completions from acks.bin"
done
pass
