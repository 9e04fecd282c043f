# tier: quick
# A damaged run directory: `faultline verify` refuses (exit 2), names the
# file and what failed (and the byte offset), and never reports a finding:
# a truncated or bit-flipped journal.bin, journal.old and state.bin, a
# missing worker directory, an older faultline's format, and the state of
# another run (its worker directory, its journal, or its blocks on the
# target, written since).  A crash's torn last batch is no damage: verify
# still passes.
. "$(dirname "$0")/../lib.sh"

# u32 FILE OFFSET: the little-endian 32-bit number at OFFSET.
u32() { od -An -tu4 -j "$2" -N4 "$1" | tr -d ' '; }
size() { stat -c %s "$1"; }

# refused NAME TEXT...: a copy of $WORK/NAME, damaged by the caller, is
# refused with each TEXT in the error, and no report of findings appears
# (report.json and report.html stay the run's).
refused() {
    d=$WORK/$1
    shift
    before=$(cat "$d/report.json" "$d/report.html" 2>/dev/null | cksum)
    expect_code 2 "$FAULTLINE" verify "$d" --quiet
    for t in "$@"; do contains "$WORK/err" "$t"; done
    ! grep -q "finding" "$WORK/out" || fail "$d: the refused verify spoke of findings: $(cat "$WORK/out")"
    [ "$(cat "$d/report.json" "$d/report.html" 2>/dev/null | cksum)" = "$before" ] || fail "$d: the refused verify wrote a report"
}
copy() { rm -rf "${WORK:?}/$2"; cp -a "$WORK/$1" "$WORK/$2"; }

# --- a run that ended cleanly: 4 workers, journal.old full, journal.bin empty
SCN=$(DURATION=2s SIZE=4MiB scenario clean "read = 25%")
expect_code 0 "$FAULTLINE" run "$SCN" --out "$WORK/clean" --quiet
RUN_ID=$(jq -r .run_id "$WORK/clean/report.json")
W1=$WORK/clean/worker-1
[ -d "$WORK/clean/worker-3" ] || fail "the run had fewer than 4 workers"
[ "$(size "$W1/journal.old")" -gt 2000 ] || fail "worker-1 wrote almost no journal"
expect_code 0 "$FAULTLINE" verify "$WORK/clean" --quiet

copy clean d
flip "$WORK/d/worker-1/journal.old" $(($(size "$W1/journal.old") / 2))
refused d "d/worker-1/journal.old is damaged at byte offset"

copy clean d
truncate -s $(($(size "$W1/journal.old") - 100)) "$WORK/d/worker-1/journal.old"
refused d "d/worker-1/journal.old ends in a bad batch at byte offset" "truncated or damaged"

copy clean d
truncate -s 100 "$WORK/d/worker-1/journal.bin"
refused d "d/worker-1/journal.bin is truncated: 100 bytes"

copy clean d
flip "$WORK/d/worker-1/journal.bin" 20
refused d "d/worker-1/journal.bin: the journal header is damaged"

copy clean d
flip "$WORK/d/worker-1/state.bin" $(($(size "$W1/state.bin") - 10))
refused d "d/worker-1/state.bin: the checkpoint is damaged (checksum mismatch over byte offsets"

copy clean d
flip "$WORK/d/worker-1/state.bin" 40
refused d "d/worker-1/state.bin: the checkpoint header is damaged"

copy clean d
truncate -s $(($(size "$W1/state.bin") - 1)) "$WORK/d/worker-1/state.bin"
refused d "d/worker-1/state.bin is truncated"

copy clean d
printf '\003' | dd of="$WORK/d/worker-0/state.bin" bs=1 seek=8 conv=notrunc status=none
refused d "d/worker-0/state.bin is of format 3, from an older faultline"

copy clean d
printf '2' | dd of="$WORK/d/worker-2/journal.bin" bs=1 seek=6 conv=notrunc status=none
refused d "d/worker-2/journal.bin is of format 2, from an older faultline"

copy clean d
rm -r "$WORK/d/worker-2"
refused d "d/worker-2 is missing"

copy clean d
rm -r "$WORK/d/worker-0"
refused d "d/worker-0 is missing"

# --- the state of another run, and the target written by it since
SCN2=$(DURATION=1s SIZE=4MiB scenario other "read = 25%")
sed -i "s|$WORK/other.img|$WORK/clean.img|" "$SCN2"
copy clean keep # before the other run overwrites clean.img
expect_code 0 "$FAULTLINE" run "$SCN2" --out "$WORK/other" --quiet
OTHER_ID=$(jq -r .run_id "$WORK/other/report.json")
[ "$OTHER_ID" != "$RUN_ID" ] || fail "two runs with one run id"

copy keep d
rm -r "$WORK/d/worker-1"
cp -a "$WORK/other/worker-1" "$WORK/d/worker-1"
refused d "d/worker-1 does not belong to the run"

copy keep d
cp "$WORK/other/worker-1/journal.bin" "$WORK/d/worker-1/journal.bin"
refused d "d/worker-1/journal.bin belongs to run $OTHER_ID, state.bin to run $RUN_ID"

refused keep "the target $WORK/clean.img holds blocks of run $OTHER_ID, not of this run $RUN_ID"
expect_code 0 "$FAULTLINE" verify "$WORK/other" --quiet # which is its own run's

# --- a crashed run: journal.bin holds batches, the last one maybe torn
SCN=$(DURATION=60s SIZE=4MiB scenario crash "read = 25%")
"$FAULTLINE" run "$SCN" --out "$WORK/crash" --quiet > "$WORK/crash.log" 2>&1 &
pid=$!
J=$WORK/crash/worker-0/journal.bin
# Batch 1 whole and 100 KiB after it: the writes planned after batch 1 were
# issued (the engine plans a batch or two ahead of its writes).
i=0
end1=999999999
while [ $i -lt 1200 ]; do
    if [ -e "$J" ] && [ "$(size "$J")" -ge 272 ]; then
        end1=$((272 + 24 * $(u32 "$J" 252)))
        [ "$(size "$J")" -lt $((end1 + 102400)) ] || break
    fi
    sleep 0.05
    i=$((i + 1))
done
kill -9 $pid
wait $pid 2>/dev/null || true
[ "$(size "$J")" -ge $((end1 + 102400)) ] || fail "worker-0's journal did not grow in 60 s: $(cat "$WORK/crash.log")"
expect_code 0 "$FAULTLINE" verify "$WORK/crash" --quiet
json "$WORK/crash/report.json" .verdict '"pass"'
rm "$WORK/crash/report.json"

# Torn tails, as a crash leaves them, are accepted.
copy crash d
head -c 3000 /dev/urandom >> "$WORK/d/worker-0/journal.bin"
expect_code 0 "$FAULTLINE" verify "$WORK/d" --quiet
# The last batch cut 5 bytes short: a torn tail when the crash came before
# that batch was synced (its writes were never issued); when the kill came
# after, the target holds writes the cut took, and verify must say so
# rather than pass (which of the two the kill met is up to the machine).
copy crash d
truncate -s $(($(size "$J") - 5)) "$WORK/d/worker-0/journal.bin"
set +e
"$FAULTLINE" verify "$WORK/d" --quiet > "$WORK/out" 2> "$WORK/err"
code=$?
set -e
case $code in
0) ;;
2) contains "$WORK/err" "d/worker-0/journal.bin lacks writes the target holds" ;;
*) cat "$WORK/out" "$WORK/err" >&2; fail "verify of a journal cut 5 bytes short exited $code" ;;
esac

# A flipped bit in a whole batch is damage, not a torn tail.
copy crash d
flip "$WORK/d/worker-0/journal.bin" $((272 + 24 * 3 + 9))
refused d "d/worker-0/journal.bin is damaged at byte offset 248 (batch 1): record checksum mismatch in a whole batch"

# Cut at a batch's end, the journal looks whole; the target shows the writes
# it lost.
copy crash d
truncate -s $end1 "$WORK/d/worker-0/journal.bin"
refused d "d/worker-0/journal.bin lacks writes the target holds" "holds generation"

# A checkpoint of the crashed run flipped.
copy crash d
flip "$WORK/d/worker-0/state.bin" 100
refused d "d/worker-0/state.bin: the checkpoint header is damaged"
pass
