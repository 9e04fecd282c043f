# tier: full
# passes: plain
# The disk faults on a lab's disk layer, seen from outside faultline: the
# iSCSI lab with [lab] disk_faults = yes has its LUN on faultline-disk.
# During a disk-errors fault on reads of 64 KiB at 4 MiB, dd through the
# layer's file fails there with EIO and reads fine 1 MiB further on; `lab
# status` says the layer's mode; after the fault clears, the range reads
# fine again and the fault's detail counts the reads that failed (dd's
# among them).  Before that, a disk-full while the LUN is still all holes:
# the run's writes fail with ENOSPC (io-error findings, nothing else) and
# go on once it clears.  Then faultline is SIGKILLed in the middle of a disk-fail:
# the layer stays failed until `faultline cleanup` replays the fault's
# undo record; and `lab down` leaves no layer, mount or loop device.
# (The plain pass only: the ASan build adds nothing to a FUSE layer of
# its own, and the lab takes a minute.)
. "$(dirname "$0")/../lib.sh"

need_root "namespaces, tgtd and FUSE"
lab_prefix
expect_code 0 "$FAULTLINE" lab up iscsi --disk-faults yes
expect_code 0 "$FAULTLINE" lab status iscsi --json
cp "$WORK/out" "$WORK/lab.json"
S=$WORK/lab.json
json "$S" '[.disk_faults, (.disks | length), .disks[0].name, .disks[0].state, .disks[0].mode]' \
    '[true,1,"lun","running","ok"]'
LAYER=$(jq -r '.disks[0].file' "$S")
LAYER_PID=$(jq -r '.disks[0].pid' "$S")
grep -q " $(dirname "$LAYER") fuse.faultline-disk " /proc/mounts ||
    fail "the LUN's disk layer is not mounted at $(dirname "$LAYER")"

mode() { "$FAULTLINE" lab status iscsi --json | jq -r '.disks[0].mode'; }
# dd_at OFFSET_KIB: 64 KiB read straight from the layer's file (no cache
# between: O_DIRECT); its exit status, its words in $WORK/dd.err
dd_at() {
    dd if="$LAYER" of=/dev/null bs=64k count=1 skip=$(($1 / 64)) iflag=direct \
        2> "$WORK/dd.err"
}

# disk_scn NAME DURATION DEPTH LINE...: a scenario of writes only on the
# iSCSI lab's LUN with its disk on the layer, its last lines (the fault) as
# given; in $WORK/NAME.scn
disk_scn() {
    _n=$1 _d=$2 _q=$3
    shift 3
    {
        printf '[scenario]\nname = %s\nduration = %s\nlab = iscsi\n' "$_n" "$_d"
        printf '[lab]\ndisk_faults = yes\n[target]\nkind = iscsi\n'
        printf '[workload]\nread = 0%%\ndepth = %s\n' "$_q"
        printf '%s\n' "$@"
    } > "$WORK/$_n.scn"
}

# --- disk-full, first, while the LUN's image is all holes: writes fail
# with ENOSPC, the run fails on them (an error, not a lie), and works again ---
disk_scn full 6s 4 "[fault full]" "action = disk-full" "host = ctrl-b" "at = 1s" "duration = 2s"
rc=0
"$FAULTLINE" run "$WORK/full.scn" --out "$WORK/full" --quiet --keep-lab > "$WORK/full.out" 2>&1 || rc=$?
[ $rc = 1 ] || { cat "$WORK/full.out" >&2; said_tail "$WORK/full.out"; fail "the run with a full disk exited $rc, not 1"; }
R=$WORK/full/report.json
jq -e '.faults[0].detail | test("the LUN.s disk.*: [1-9][0-9]* of [0-9]+ writes failed with ENOSPC")' "$R" > /dev/null ||
    fail "the detail does not count the writes that found no space: $(jq -r '.faults[0].detail' "$R")"
json "$R" '[.findings[] | .class] - ["io-error"]' '[]'
json "$R" '[.findings[] | .op] | unique' '["write"]'
json "$R" '[.counts["lost-write"], .counts.corrupt, .counts.zeroed]' '[0,0,0]'
# every write failed while the disk was full: its failure seen by the
# client (last_read_at) before the fault cleared, plus 1.5 s for an answer
# still on its way (the layer answers ENOSPC only while it is full)
jq -e '.faults[0].cleared_at as $c | [.findings[] | .last_read_at] | all(. != null and . < $c + 1.5)' "$R" > /dev/null ||
    fail "a write failed after the disk-full fault cleared: $(jq -c '[.faults[0].cleared_at, ([.findings[].last_read_at] | max)]' "$R")"
[ "$(mode)" = ok ] || fail "lab status says mode $(mode) after disk-full cleared"

# --- disk-errors: reads of 64 KiB at 4 MiB fail, for 6 s ---
# writes only: the bad range fails reads, so the run passes
disk_scn errors 10s 4 "[fault bad]" "action = disk-errors" "host = ctrl-a" "on = read" \
    "offset = 4MiB" "length = 64KiB" "at = 1s" "duration = 6s"
expect_code 0 "$FAULTLINE" check "$WORK/errors.scn"
"$FAULTLINE" run "$WORK/errors.scn" --out "$WORK/errors" --quiet --keep-lab > "$WORK/errors.out" 2>&1 &
run=$!
E=$WORK/errors/events.jsonl
wait_event "$E" fault-inject bad "$WORK/errors.out"
[ "$(mode)" = errors ] || fail "lab status says the layer is in mode $(mode) during disk-errors"
! dd_at 4096 || fail "dd of the bad range (64 KiB at 4 MiB) read through the layer"
grep -q "Input/output error" "$WORK/dd.err" || fail "dd of the bad range failed otherwise: $(cat "$WORK/dd.err")"
dd_at 5120 || fail "dd 1 MiB past the bad range failed: $(cat "$WORK/dd.err")"
dd_at 0 || fail "dd of the LUN's first 64 KiB failed: $(cat "$WORK/dd.err")"
wait_event "$E" fault-clear bad "$WORK/errors.out"
dd_at 4096 || fail "dd of the range failed after the fault cleared: $(cat "$WORK/dd.err")"
[ "$(mode)" = ok ] || fail "lab status says mode $(mode) after the fault cleared"
wait $run || { rc=$?; cat "$WORK/errors.out" >&2; said_tail "$WORK/errors.out"; fail "the run with the bad range failed (exit $rc)"; }
R=$WORK/errors/report.json
json "$R" '.verdict' '"pass"'
json "$R" '[.faults[0].action, .faults[0].host]' '["disk-errors","ctrl-a"]'
# dd's one failed read at least, counted by the layer and told in the detail
jq -e '.faults[0].detail | test("[1-9][0-9]* of [0-9]+ reads failed with EIO")' "$R" > /dev/null ||
    fail "the detail does not count the failed reads: $(jq -r '.faults[0].detail' "$R")"
jq -e '.faults[0].detail | contains("the LUN")' "$R" > /dev/null ||
    fail "the detail does not name the disk: $(jq -r '.faults[0].detail' "$R")"

# --- faultline killed during a disk-fail: the layer stays failed; cleanup clears it ---
disk_scn fail 60s 2 "[fault gone]" "action = disk-fail" "host = ctrl-b" "at = 1s"
"$FAULTLINE" run "$WORK/fail.scn" --out "$WORK/killed" --quiet --keep-lab > "$WORK/killed.out" 2>&1 &
run=$!
wait_event "$WORK/killed/events.jsonl" fault-inject gone "$WORK/killed.out"
kill -9 $run
wait $run 2> /dev/null || true
[ "$(mode)" = fail ] || fail "the layer is in mode $(mode) after faultline was killed in a disk-fail"
! dd_at 0 || fail "dd read through a failed disk"
expect_code 0 "$FAULTLINE" cleanup "$WORK/killed"
[ "$(mode)" = ok ] || fail "cleanup left the layer in mode $(mode)"
dd_at 0 || fail "dd failed after cleanup: $(cat "$WORK/dd.err")"
expect_code 0 "$FAULTLINE" cleanup "$WORK/killed" # twice: harmless

# --- lab down: no layer, no mount, no loop device over it ---
expect_code 0 "$FAULTLINE" lab down iscsi
PIDS=$LAYER_PID
lab_nothing_left iscsi
! grep -q "$(dirname "$LAYER")" /proc/mounts || fail "the layer's mount is left"
! losetup -a | grep -qF "$LAYER" || fail "a loop device over the layer is left"
pass
