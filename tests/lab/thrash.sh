# tier: full
# passes: plain
# A two-minute thrash of the gluster lab: brick kills and cable pulls drawn
# from the seed, one server at a time, each after the volume is whole
# again (settle = whole).  The same seed draws the same schedule and
# another seed another; the run passes (or fails on GlusterFS's known
# small-write window alone, see below), writes schedule.scn with exactly
# the faults it reached, each as drawn (its settle wait noted), and that
# file is a scenario of its own; a fault after the first waited for the
# volume's heal, and every fault not yet begun moved with it; the faults
# the waits pushed past the end are said, and do not count as faults that
# did not happen; report.json has the per-action distributions.  (The
# plain pass only: the draw and the schedule text run under the
# sanitizers in test_thrash, and a second two-minute run would cost CI
# more than it tells.)
. "$(dirname "$0")/../lib.sh"

need_root "namespaces and the gluster lab"
FAULTLINE_LAB_PREFIX=fl$(od -An -N2 -tx2 /dev/urandom | tr -d ' ')
export FAULTLINE_LAB_PREFIX
lab_down() { "$FAULTLINE" lab down gluster > /dev/null 2>&1; }
at_exit lab_down

S=$WORK/thrash.scn
cat > "$S" <<'EOS'
[scenario]
name = thrash-ci
duration = 2m
seed = 11
lab = gluster
hung_after = 20s
heal_wait = 120s
[lab]
volume_options = cluster.post-op-delay-secs=0
[target]
kind = files
size = 4MiB
[workload]
class = mixed
procs = 4
flush = 32
[thrash]
actions = kill:2, link-down
kill.process = brick
hosts = gs1, gs2, gs3
gap = 15s
hold = 4s
start = 5s
quiet_end = 20s
settle = whole
[expect]
lost_writes = 0
errors = 0
EOS

# --- the schedule is the seed's ---
"$FAULTLINE" check "$S" --schedule > "$WORK/s1.scn" 2> "$WORK/check.err" ||
    { said_tail "$WORK/check.err"; fail "check --schedule failed"; }
"$FAULTLINE" check "$S" --schedule > "$WORK/s2.scn" 2> /dev/null
cmp -s "$WORK/s1.scn" "$WORK/s2.scn" || fail "the same seed drew two schedules"
sed 's/^seed = 11$/seed = 12/' "$S" > "$WORK/other.scn"
"$FAULTLINE" check "$WORK/other.scn" --schedule > "$WORK/s3.scn" 2> /dev/null
! cmp -s "$WORK/s1.scn" "$WORK/s3.scn" || fail "seeds 11 and 12 drew the same schedule"
drawn=$(grep -c '^\[fault thrash-' "$WORK/s1.scn")
# 5 s, then every 15 s while a 4 s hold ends before the last 20 s
[ "$drawn" = 7 ] || fail "drew $drawn faults, 7 expected (5 s, 20 s, ... 95 s)"
contains "$WORK/s1.scn" "#| [thrash]"

# --- the run ---
set +e
"$FAULTLINE" run "$S" --out "$WORK/run" > "$WORK/out" 2> "$WORK/err"
code=$?
set -e
R=$WORK/run/report.json
# A brick killed and started again can make GlusterFS serve a small file
# from the brick that missed its last write (gluster-small-file-brick-kill:
# its window, not ours): a run may fail on that alone, and on nothing else.
case $code in
0) json "$R" '.verdict' '"pass"' ;;
1) json "$R" '[.verdict, ([.expectations[] | select(.pass | not) | .metric]
                        - ["lost_writes", "stale_reads", "zeroed"])]' '["fail",[]]'
   echo "thrash: GlusterFS's window met: $(jq -c '[.expectations[] | select(.pass | not) | .text]' "$R")" ;;
*) cat "$WORK/out" "$WORK/err" >&2; said_tail "$WORK/out"; fail "the thrash exited $code" ;;
esac
json "$R" '[.faults[] | .drawn] | unique' '[true]'
began=$(jq '[.faults[] | select(.applied)] | length' "$R")
reached=$(jq '[.faults[] | select(.not_reached | not)] | length' "$R")
echo "thrash: $drawn drawn, $reached reached, $began began; settle waits (s):" \
    "$(jq -c '[.faults[] | .settle_s]' "$R")"
[ "$began" -ge 2 ] || fail "only $began faults began in 2 minutes"
# A fault after the first waited for the volume to be whole (a brick or a
# server away: its writes to heal), and the faults after it moved with it.
waited=$(jq '[.faults[1:][] | select(.applied and .settle_s > 0)] | length' "$R")
[ "$waited" -ge 1 ] || fail "no fault after the first waited for the heal"
json "$R" '[.faults as $f | range(1; $f | length) | select($f[.].applied and $f[.].settle_s > 0)
           | $f[.].moved_s >= $f[.].settle_s - 1] | all' true
# each one began only once the one before it was cleared
json "$R" '[.faults as $f | range(1; $f | length) | select($f[.].applied)
           | $f[.].injected_at >= $f[. - 1].cleared_at] | all' true
# those pushed past the end are said, and are no faults that did not happen
json "$R" '[.not_happened[] | select(.counts)] | length' 0
json "$R" '[.faults[] | select(.not_reached) | .not_happened_why | test("moved it past the end")] | all' true
json "$R" '[.faults[] | select((.applied | not) and (.not_reached | not))] | length' 0

# --- schedule.scn: the faults reached, each as drawn, a scenario itself ---
SCH=$WORK/run/schedule.scn
[ -f "$SCH" ] || fail "no schedule.scn"
"$FAULTLINE" check "$SCH" > "$WORK/sch.check" 2>&1 || { said_tail "$WORK/sch.check"; fail "schedule.scn does not check"; }
contains "$WORK/sch.check" ", $reached fault"
[ "$(grep -c '^\[fault thrash-' "$SCH")" = "$reached" ] || fail "schedule.scn has not the $reached faults reached"
section() { sed -n "/^\[fault $2\]/,/^\$/p" "$1" | grep -v '^#'; }
for name in $(jq -r '.faults[] | select(.not_reached | not) | .name' "$R"); do
    [ "$(section "$SCH" "$name")" = "$(section "$WORK/s1.scn" "$name")" ] ||
        fail "[fault $name] in schedule.scn is not as drawn"
done
grep -q '^# its settle wait took' "$SCH" || fail "schedule.scn notes no settle wait"

# --- per action ---
json "$R" '[.actions[] | .action]' '["kill","link-down"]' # in the order of their first fault
json "$R" '[.actions[] | .count] | add' "$reached"
json "$R" '[.actions[] | select(.began > 0) | .stall_s.n == .began] | all' true
pass
