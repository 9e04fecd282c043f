# tier: quick
# Repeats: `repeat = N` runs the scenario N times into DIR/rep-K and writes a
# summary (report.json "mode": "repeat", report.txt, report.html) with each
# metric's distribution; rules over repetitions (expect_stall_p95,
# max_stall_p95, pass_rate) are checked there and only there; a pass_rate
# below 100% forgives a failed expectation, never damaged data; --repeat
# overrides; SIGINT stops after the repetition under way, still summarised.
. "$(dirname "$0")/../lib.sh"

base() { # NAME EXTRA: a 1.5 s file scenario with one instant fault
    cat > "$WORK/$1.scn" <<EOS
[scenario]
name = $1
duration = 1500ms
repeat = 3
[target]
kind = file
path = $WORK/$1.img
size = 16MiB
[workload]
block = 4KiB
read = 50%
depth = 4
flush = 16
[fault nudge]
action = command
command = true
at = 500ms
$2
EOS
    echo "$WORK/$1.scn"
}

# 1. three repetitions that pass, with rules over them
S=$(base ok "expect_stall_p95 <= 5s
[expect]
max_stall_p95 <= 5s
max_latency_max <= 30s
pass_rate = 100%")
expect_code 0 "$FAULTLINE" check "$S"
expect_code 0 "$FAULTLINE" run "$S" --out "$WORK/ok" --quiet
R=$WORK/ok/report.json
for k in 1 2 3; do
    [ -f "$WORK/ok/rep-$k/report.json" ] || fail "no rep-$k/report.json"
    json "$WORK/ok/rep-$k/report.json" .mode '"run"'
done
[ ! -e "$WORK/ok/rep-4" ] || fail "a fourth repetition ran"
json "$R" .mode '"repeat"'
json "$R" .verdict '"pass"'
json "$R" '[.repetitions, .completed, .passed, .pass_rate]' '[3,3,3,1]'
json "$R" '[.runs[].dir]' '["rep-1","rep-2","rep-3"]'
json "$R" '[.expectations[] | {expect, pass, implicit}]' \
    '[{"expect":"expect_stall_p95 <= 5s","pass":true,"implicit":false},{"expect":"max_stall_p95 <= 5s","pass":true,"implicit":false},{"expect":"max_latency_max <= 30s","pass":true,"implicit":false},{"expect":"pass_rate = 100%","pass":true,"implicit":false},{"expect":"integrity rules hold in every repetition","pass":true,"implicit":true}]'
# the distribution is the one of the repetitions' own reports
python3 - "$WORK/ok" <<'EOP' || fail "the summary's distribution is not the repetitions'"
import json, sys
d = sys.argv[1]
s = json.load(open(d + "/report.json"))
vals = [json.load(open("%s/rep-%d/report.json" % (d, k)))["faults"][0]["stall_s"] for k in (1, 2, 3)]
m = [x for x in s["metrics"] if x["fault"] == "nudge" and x["metric"] == "stall_s"][0]
assert m["n"] == 3 and m["values"] == [round(v, 6) for v in vals], (m, vals)
srt = sorted(vals)
assert abs(m["min"] - srt[0]) < 1e-6 and abs(m["max"] - srt[2]) < 1e-6, m
assert abs(m["p50"] - srt[1]) < 1e-6, m
assert abs(m["p95"] - (srt[1] + (srt[2] - srt[1]) * 0.9)) < 2e-6, m
assert abs(m["mean"] - sum(vals) / 3) < 1e-6, m
ms = [json.load(open("%s/rep-%d/report.json" % (d, k)))["measured"]["max_stall"] for k in (1, 2, 3)]
r = [x for x in s["metrics"] if x["fault"] is None and x["metric"] == "max_stall_s"][0]
assert r["values"] == [round(v, 6) for v in ms], (r, ms)
rule = [x for x in s["expectations"] if x["metric"] == "max_stall_p95"][0]
assert abs(rule["measured"] - r["p95"]) < 1e-6, (rule, r)
for k in ("min", "p50", "p95", "max", "mean", "sd"):
    assert k in m
EOP
# a repetition is a run of its own for verify (the last: the target holds its
# data); the repeat's directory is not
expect_code 0 "$FAULTLINE" verify "$WORK/ok/rep-3" --quiet
expect_code 2 "$FAULTLINE" verify "$WORK/ok"
contains "$WORK/err" "verify one of them (faultline verify $WORK/ok/rep-K;"
# each repetition left the rules over repetitions alone
json "$WORK/ok/rep-1/report.json" '[.expectations[] | select(.expect | test("p95|pass_rate|_max"))] | length' 0
contains "$WORK/ok/report.txt" "3 of 3 repetitions passed"
contains "$WORK/ok/report.txt" "stall_s"
H=$WORK/ok/report.html
contains "$H" 'fault nudge'
[ "$(grep -o 'class="dot"' "$H" | wc -l)" -ge 9 ] || fail "report.html has no strip of dots per metric"
contains "$H" 'href="rep-2/report.html"'

# 2. --repeat overrides; a rule over repetitions that fails
S=$(base slow "[expect]
iops_min >= 1000000000")
expect_code 1 "$FAULTLINE" run "$S" --out "$WORK/slow" --quiet --repeat 2
json "$WORK/slow/report.json" '[.repetitions, .passed, .verdict]' '[2,2,"fail"]'
json "$WORK/slow/report.json" '[.expectations[] | select(.metric == "iops_min") | .pass]' '[false]'
[ ! -e "$WORK/slow/rep-3" ] || fail "--repeat 2 ran a third repetition"

# compare reads real summaries: the same one is no change, the failed rule
# of B fails the comparison
expect_code 0 "$FAULTLINE" compare "$WORK/ok" "$WORK/ok" --worse stall_s.p95:1.0
contains "$WORK/out" "max_stall_s"
expect_code 1 "$FAULTLINE" compare "$WORK/ok" "$WORK/slow"
contains "$WORK/out" "iops_min >= 1000000000"

# 3. every repetition fails an expectation: pass_rate 0% fails the summary
#    (implicit pass_rate = 100%), unless pass_rate says what is enough
S=$(base fails "[expect]
iops >= 1000000000")
expect_code 1 "$FAULTLINE" run "$S" --out "$WORK/fails" --quiet --repeat 2
json "$WORK/fails/report.json" '[.passed, .verdict]' '[0,"fail"]'
json "$WORK/fails/report.json" '[.expectations[] | select(.metric == "pass_rate") | [.implicit, .measured, .pass]]' '[[true,0,false]]'
S=$(base forgiven "[expect]
iops >= 1000000000
pass_rate >= 0%")
expect_code 0 "$FAULTLINE" run "$S" --out "$WORK/forgiven" --quiet --repeat 2
json "$WORK/forgiven/report.json" '[.passed, .verdict]' '[0,"pass"]'

# 4. damaged data is never forgiven: random bytes over the start of the
#    target near the end of each repetition
S=$(base damaged "[fault smash]
action = command
command = dd if=/dev/urandom of=$WORK/damaged.img bs=4096 count=64 conv=notrunc status=none
at = 1400ms
[expect]
pass_rate >= 0%")
expect_code 1 "$FAULTLINE" run "$S" --out "$WORK/damaged" --quiet --repeat 2
json "$WORK/damaged/report.json" '.verdict' '"fail"'
json "$WORK/damaged/report.json" '[.expectations[] | select(.metric == "integrity") | [.measured, .pass]]' '[[2,false]]'
json "$WORK/damaged/report.json" '[.expectations[] | select(.metric == "integrity") | .why | test("rep-1: corrupt = 0")]' '[true]'

# 5. rules over repetitions need repetitions; bad counts are refused
S=$(base single "[expect]
recovery_p95 <= 8s")
sed -i 's/^repeat = 3$/repeat = 1/' "$S"
expect_code 2 "$FAULTLINE" run "$S" --out "$WORK/single" --quiet
contains "$WORK/err" "single.scn:19: recovery_p95 <= 8s is about repetitions"
expect_code 2 "$FAULTLINE" run "$S" --repeat 0
contains "$WORK/err" "--repeat needs a count from 1 to 1000"
expect_code 2 "$FAULTLINE" run "$S" --repeat x
sed -i 's/^repeat = 1$/repeat = 1001/' "$S"
expect_code 2 "$FAULTLINE" check "$S"
contains "$WORK/err" "single.scn:4:"

# 6. SIGINT ends the repetition under way, which still reports, and no
#    further one starts; the summary covers those that ran
S=$(base stopped "")
sed -i 's/^duration = 1500ms$/duration = 4s/; s/^repeat = 3$/repeat = 5/' "$S"
"$FAULTLINE" run "$S" --out "$WORK/stopped" --quiet > "$WORK/out" 2> "$WORK/err" &
PID=$!
i=0
while [ ! -e "$WORK/stopped/rep-2/events.jsonl" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
[ -e "$WORK/stopped/rep-2/events.jsonl" ] || { kill "$PID"; fail "the second repetition never started"; }
kill -INT "$PID"
set +e
wait "$PID"
code=$?
set -e
# interrupted, not failed: the repetitions that never ran say nothing (130: SIGINT)
[ "$code" = 130 ] || { cat "$WORK/err" >&2; fail "an interrupted repeat exited $code, expected 130"; }
json "$WORK/stopped/report.json" '[.verdict, .interrupted, .interrupted_by, .completed, (.runs | length)]' \
    '["interrupted",true,"SIGINT",2,2]'
json "$WORK/stopped/rep-2/report.json" '[.verdict, .interrupted]' '["interrupted",true]'
json "$WORK/stopped/rep-1/report.json" '.verdict' '"pass"'
contains "$WORK/stopped/report.txt" "INTERRUPTED, 1 of 5 repetitions passed; interrupted by SIGINT"
[ ! -e "$WORK/stopped/rep-3" ] || fail "a repetition started after SIGINT"
pass
