# tier: quick
# `faultline shrink` on file targets (no lab): a run of five faults that
# failed on a real finding (random bytes over its file, from one of them)
# shrinks to that one fault, its hold halved while it still fails; every
# candidate and try is in shrink.log and minimal.scn checks clean.  A run
# that passed is refused, a budget too small for one run keeps the run's
# own scenario (exit 1), and a second shrink into the same place is
# refused.
. "$(dirname "$0")/../lib.sh"

f=$(DURATION=3s scenario big)
cat >> "$f" << EOS
[fault noise-1]
action = command
command = true
at = 300ms
[fault noise-2]
action = command
command = true
undo = true
at = 600ms
duration = 1s
[fault smash]
action = command
command = dd if=/dev/urandom of=$WORK/big.img bs=4096 count=64 conv=notrunc status=none
undo = true
at = 800ms
duration = 2s
[fault noise-3]
action = command
command = true
at = 1500ms
[fault noise-4]
action = command
command = true
undo = true
at = 2s
duration = 600ms
EOS
expect_code 0 "$FAULTLINE" check "$f"
expect_code 1 "$FAULTLINE" run "$f" --out "$WORK/run" --quiet
json "$WORK/run/report.json" '[.verdict, ([.expectations[] | select(.pass | not) | .metric] | unique)]' \
    '["fail",["corrupt"]]'

# --- 1. shrunk to the fault that matters, its hold halved ---
expect_code 0 "$FAULTLINE" shrink "$WORK/run" --tries 2 --budget 10m
SD=$WORK/run/shrink
M=$SD/minimal.scn
L=$SD/shrink.log
[ "$(grep -c '^\[fault ' "$M")" = 1 ] || fail "minimal.scn has $(grep -c '^\[fault ' "$M") faults, not 1"
grep -q '^\[fault smash\]' "$M" || fail "minimal.scn lost the fault that corrupts"
grep -q '^duration = 1s    # shrunk$' "$M" || fail "the hold of smash was not halved to 1s"
expect_code 0 "$FAULTLINE" check "$M"
contains "$L" "fails the same way, kept"
contains "$L" "minimal.scn has 1 of 5 faults"
# halves first: the first candidate drops three of the five, the second the other two
grep -q 'cand 1: drop noise-1 noise-2 smash (2 faults' "$L" || fail "the first candidate was not the first half dropped"
grep -q 'cand 2: drop noise-3 noise-4 (3 faults' "$L" || fail "the second candidate was not the second half dropped"
# a candidate without smash passes, each of its tries said
grep -q 'cand 1 try 2: pass' "$L" || fail "cand 1 was not tried twice"
for c in "$SD"/cand-*.scn; do
    n=${c##*/cand-}
    n=${n%.scn}
    [ -f "$SD/cand-$n/try-1/report.json" ] || fail "candidate $n has no run"
done

# --- 2. what it refuses ---
p=$(DURATION=1s scenario fine)
expect_code 0 "$FAULTLINE" run "$p" --out "$WORK/fine" --quiet
expect_code 2 "$FAULTLINE" shrink "$WORK/fine"
contains "$WORK/err" "its verdict is pass, not fail"
expect_code 2 "$FAULTLINE" shrink "$WORK/run"
contains "$WORK/err" "already holds a shrink"
expect_code 2 "$FAULTLINE" shrink "$WORK/run" --tries 0
contains "$WORK/err" "--tries needs a count from 1 to 100"

# --- 3. a budget too small for one run: the run's own scenario stays ---
expect_code 1 "$FAULTLINE" shrink "$WORK/run" --out "$WORK/tight" --budget 1s
contains "$WORK/tight/shrink.log" "the budget would be over"
[ "$(grep -c '^\[fault ' "$WORK/tight/minimal.scn")" = 5 ] || fail "a shrink that ran nothing changed minimal.scn"
pass
