# tier: full
# Repeats on the iSCSI lab: iscsi-controller-kill twice with `--repeat 2`.
# The lab comes up once; the first repetition kills ctrl-a's tgtd for good,
# so before the second the health check finds it gone and starts it again
# (runs[].lab says so) instead of rebuilding the lab; both repetitions fail
# over and pass; the summary has the kill's stall in both and checks a rule
# over the repetitions; the repeat takes the lab down, nothing left behind.
. "$(dirname "$0")/../lib.sh"

need_root "namespaces and tgtd"
FAULTLINE_LAB_PREFIX=fl$(od -An -N2 -tx2 /dev/urandom | tr -d ' ')
export FAULTLINE_LAB_PREFIX
P=$FAULTLINE_LAB_PREFIX
lab_down() { "$FAULTLINE" lab down iscsi > /dev/null 2>&1; }
at_exit lab_down

S=$WORK/kill.scn
sed 's/^duration = 12s$/duration = 8s/; s/^expect_stall <= 2s$/&\nexpect_stall_max <= 5s/' \
    "$(dirname "$0")/../../scenarios/iscsi-controller-kill.scn" > "$S"
grep -q '^expect_stall_max' "$S" || fail "no rule over repetitions in $S"
expect_code 0 "$FAULTLINE" check "$S"
set +e
"$FAULTLINE" run "$S" --repeat 2 --out "$WORK/run" > "$WORK/out" 2> "$WORK/err"
code=$?
set -e
R=$WORK/run/report.json
[ -f "$R" ] || { cat "$WORK/out" "$WORK/err" >&2; said_tail "$WORK/out" "$WORK/err"; fail "no summary (exit $code)"; }
# The sanitizers slow the failover: only the integrity rules must hold then.
if [ -n "${FL_SANITIZED:-}" ] && [ "$code" = 1 ]; then
    json "$R" '[.expectations[] | select(.metric == "integrity") | .pass]' '[true]'
else
    [ "$code" = 0 ] || { cat "$WORK/out" "$WORK/err" "$WORK"/run/rep-*/report.txt >&2; fail "the repeat exited $code"; }
    json "$R" '[.verdict, .passed]' '["pass",2]'
fi
json "$R" '[.repetitions, .completed]' '[2,2]'
json "$R" '.runs[0].lab' '"healthy"'
lab2=$(jq -r '.runs[1].lab' "$R")
case "$lab2" in
*"tgtd of ctrl-a"*"restarted tgtd of ctrl-a"*) ;;
*) fail "before the second repetition the lab was '$lab2', not ctrl-a's tgtd restarted" ;;
esac
contains "$WORK/err" "bringing up the iscsi lab once for 2 repetitions"
[ "$(grep -c 'lab once' "$WORK/err")" = 1 ] || fail "the lab came up more than once"
# each repetition found the lab up; none rebuilt it
for k in 1 2; do
    grep -q '"lab-up".*found up' "$WORK/run/rep-$k/events.jsonl" ||
        fail "rep-$k did not find the lab up: $(grep lab-up "$WORK/run/rep-$k/events.jsonl")"
done
json "$R" '[.metrics[] | select(.fault == "kill-a" and .metric == "stall_s") | .n]' '[2]'
json "$R" '[.expectations[] | select(.metric == "stall_max") | .fault]' '["kill-a"]'
python3 - "$WORK/run" <<'EOP' || fail "the summary's stall is not the repetitions'"
import json, sys
d = sys.argv[1]
s = json.load(open(d + "/report.json"))
vals = [[f for f in json.load(open("%s/rep-%d/report.json" % (d, k)))["faults"] if f["name"] == "kill-a"][0]["stall_s"] for k in (1, 2)]
m = [x for x in s["metrics"] if x["fault"] == "kill-a" and x["metric"] == "stall_s"][0]
assert m["values"] == [round(v, 6) for v in vals] and abs(m["max"] - max(vals)) < 1e-6, (m, vals)
EOP
# the repeat brought the lab up, so it takes it down
[ ! -e "/run/faultline/labs/$P-iscsi.state" ] || fail "the repeat left its lab up"
lab_nothing_left iscsi
pass
