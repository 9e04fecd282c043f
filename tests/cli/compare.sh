# tier: quick
# `faultline compare DIR_A DIR_B`: real runs side by side, and summaries of
# repeats made by hand.  The exit status is the contract: 0 when B holds
# its expectations and no --worse limit is passed, 1 when B failed an
# expectation (named) or got worse than a limit allows, 2 for a directory
# without a readable report.json or a mistake in the arguments.
. "$(dirname "$0")/../lib.sh"

# run NAME [WORKLOAD LINES...]: a 1 s run on a file with one fault, tick,
# into $WORK/NAME.  EXPECT: lines for [expect].
run() {
    name=$1
    shift
    scn=$(scenario "$name" "$@")
    printf '[fault tick]\naction = command\ncommand = true\nat = 0.3s\nduration = 0.3s\n' >> "$scn"
    [ -z "${EXPECT:-}" ] || printf '[expect]\n%s\n' "$EXPECT" >> "$scn"
    set +e
    "$FAULTLINE" run "$scn" --out "$WORK/$name" --quiet > "$WORK/$name.log" 2>&1
    code=$?
    set -e
    [ -f "$WORK/$name/report.json" ] || { cat "$WORK/$name.log" >&2; fail "run $name left no report"; }
    echo "$code"
}

[ "$(run a)" = 0 ] || fail "run a did not pass: $(cat "$WORK/a.log")"
# b: slow (below), with an expectation no file can meet
[ "$(EXPECT="iops >= 1000000000000" run b "depth = 1" "flush = 1")" = 1 ] || fail "run b did not fail its expectation"
# slow: one I/O in flight and a flush after every write, far fewer IOPS
[ "$(run slow "depth = 1" "flush = 1")" = 0 ] || fail "run slow did not pass: $(cat "$WORK/slow.log")"
A=$WORK/a B=$WORK/b SLOW=$WORK/slow
jq -e '.io.iops > 0 and .faults[0].name == "tick"' "$A/report.json" > /dev/null || fail "run a has no iops or fault"
jq -e --slurpfile s "$SLOW/report.json" '.io.iops > 1.5 * $s[0].io.iops' "$A/report.json" > /dev/null ||
    fail "the slow run is not slower: $(jq .io.iops "$A/report.json") vs $(jq .io.iops "$SLOW/report.json") IOPS"

# --- usage
expect_code 0 "$FAULTLINE" compare --help
contains "$WORK/out" "--worse METRIC:RATIO"
contains "$WORK/out" "Exit status"
expect_code 0 "$FAULTLINE" --help
contains "$WORK/out" "compare DIR_A DIR_B"
expect_code 2 "$FAULTLINE" compare "$A"
contains "$WORK/err" "which two run directories?"
expect_code 2 "$FAULTLINE" compare "$A" "$A" "$A"
contains "$WORK/err" "extra argument"
expect_code 2 "$FAULTLINE" compare "$A" "$A" --fast
contains "$WORK/err" "unknown option --fast"

# --- a run against itself: everything the same, exit 0
expect_code 0 "$FAULTLINE" compare "$A" "$A"
contains "$WORK/out" "exit 0"
grep -Eq '^tick +stall_s +[0-9.e-]+ +[0-9.e-]+ +\+0 +1\.000 +same$' "$WORK/out" ||
    { cat "$WORK/out" >&2; fail "no row 'tick stall_s ... same' in the table"; }
grep -Eq '^\(run\) +iops ' "$WORK/out" || fail "no run-level iops row"
! grep -q ' $' "$WORK/out" || fail "the table has trailing blanks"
expect_code 0 "$FAULTLINE" compare "$A" "$A" --worse stall_s:1 --worse iops:1 --worse tick.errors:1

# --- B failed an expectation: exit 1, named
expect_code 1 "$FAULTLINE" compare "$A" "$B"
contains "$WORK/out" "B's failed expectations (1):"
contains "$WORK/out" "iops >= 1000000000000: measured"
contains "$WORK/out" "exit 1: 1 expectation(s) of B failed"
# ... A's failures are not judged
expect_code 0 "$FAULTLINE" compare "$B" "$A"

# --- a metric that really got worse
expect_code 1 "$FAULTLINE" compare "$A" "$SLOW" --worse iops:1.01
contains "$WORK/out" "worse than allowed (1):"
contains "$WORK/out" "--worse iops:1.01  iops:"
grep -Eq '^\(run\) +iops .* worse +--worse iops:1.01 BEYOND$' "$WORK/out" ||
    { cat "$WORK/out" >&2; fail "the iops row is not marked worse and beyond --worse iops:1.01"; }
contains "$WORK/out" "exit 1: 0 expectation(s) of B failed, 1 value(s) worse than allowed: iops"
expect_code 0 "$FAULTLINE" compare "$A" "$SLOW" --worse iops:1000
contains "$WORK/out" "exit 0"
grep -Eq '^\(run\) +iops .* worse +--worse iops:1000 ok$' "$WORK/out" ||
    { cat "$WORK/out" >&2; fail "the iops row does not say --worse iops:1000 checks it and it is within"; }
expect_code 0 "$FAULTLINE" compare "$A" "$SLOW"

# --- which rows count for the exit status: only those a --worse limit
# checks, each naming its limit; "worse" on the others is information
grep -Eq '^\(run\) +iops .* worse$' "$WORK/out" || { cat "$WORK/out" >&2; fail "the iops row is not marked worse"; }
contains "$WORK/out" 'No row counts for the exit status (no --worse limit): "worse" above is information'
contains "$WORK/out" "exit 0: B's expectations hold; no --worse limit, so no row counted"
grep -Eq '^fault +metric +A +B +change +ratio +B is$' "$WORK/out" ||
    { cat "$WORK/out" >&2; fail "no header naming the judgement column"; }
expect_code 0 "$FAULTLINE" compare "$A" "$SLOW" --worse tick.stall_s:1000 --worse errors:1
grep -Eq '^\(run\) +iops .* worse$' "$WORK/out" ||
    { cat "$WORK/out" >&2; fail "the iops row, which no limit checks, names a limit"; }
grep -Eq '^tick +stall_s .* --worse tick.stall_s:1000 ok$' "$WORK/out" ||
    { cat "$WORK/out" >&2; fail "the tick stall_s row does not name its limit"; }
grep -Eq '^tick +errors .* --worse errors:1 ok$' "$WORK/out" ||
    { cat "$WORK/out" >&2; fail "the tick errors row does not name its limit"; }
grep -Eq '^fault +metric +A +B +change +ratio +B is +counts for exit$' "$WORK/out" ||
    { cat "$WORK/out" >&2; fail "no header of the limits column"; }
contains "$WORK/out" 'Only the 2 rows a --worse limit checks (last column) count for the exit status; "worse" elsewhere is information.'
contains "$WORK/out" "exit 0: B's expectations hold, and no row a --worse limit checks is beyond it (2 rows: tick.stall_s, tick.errors)"
# ... and the other way round it got better
expect_code 0 "$FAULTLINE" compare "$SLOW" "$A" --worse iops:1.01

# --- --json: parses, has the fields
expect_code 1 "$FAULTLINE" compare "$A" "$B" --json --worse iops:1.01 --worse=tick.stall_s:1000000
python3 -m json.tool "$WORK/out" > /dev/null || fail "--json is not JSON: $(cat "$WORK/out")"
J=$WORK/compare.json
cp "$WORK/out" "$J"
json "$J" '[.a.dir, .a.mode, .a.verdict, .b.mode, .b.verdict]' "[\"$A\",\"run\",\"pass\",\"run\",\"fail\"]"
json "$J" .exit 1
json "$J" '[.failed_expectations_b[] | [.expect, .pass, .metric]]' '[["iops >= 1000000000000",false,"iops"]]'
json "$J" '[.worse_than_allowed[] | [.worse, .fault, .metric, .stat, .allowed_ratio]]' '[["iops",null,"iops",null,1.01]]'
json "$J" '.metrics[] | select(.fault == "tick" and .metric == "stall_s") | keys' \
    '["a","b","better","beyond","change","checked","checked_by","fault","metric","ratio","stat","worse"]'
# which rows count: checked (by which limits), beyond one of them
json "$J" '.metrics[] | select(.metric == "iops") | [.checked, .checked_by, .beyond]' '[true,["iops:1.01"],true]'
json "$J" '.metrics[] | select(.fault == "tick" and .metric == "stall_s") | [.checked, .checked_by, .beyond]' \
    '[true,["tick.stall_s:1e+06"],false]'
json "$J" '[.metrics[] | select(.checked | not) | .checked_by | length] | unique' '[0]'
json "$J" '[.checked_rows, ([.metrics[] | select(.checked)] | length)]' '[2,2]'
json "$J" '[.warnings[] | .kind]' '["scenarios-differ"]'
json "$J" '[.metrics[] | select(.fault == null) | .metric]' '["iops","max_stall_s","run_errors","findings","hung"]'
json "$J" '[.metrics[] | select(.fault == "tick") | .metric]' \
    '["stall_s","recovery_s","impact_s","errors","heal_s","recover_s","first_io_after_clear_s","max_latency_s"]'
json "$J" '.metrics[] | select(.metric == "iops") | [.better, .worse, .stat]' '["higher",true,null]'
json "$J" '.metrics[] | select(.metric == "iops") | (.change - (.b - .a)) | (. < 1 and . > -1)' true
json "$J" '[.faults_only_a, .faults_only_b]' '[[],[]]'
expect_code 0 "$FAULTLINE" compare "$A" "$A" --json
json "$WORK/out" '[.exit, (.failed_expectations_b | length), (.worse_than_allowed | length)]' '[0,0,0]'
json "$WORK/out" '[.warnings, .checked_rows]' '[[],0]'

# --- warnings, on stderr and in --json: two scenarios, a verify, a summary
# next to a run, an interrupted run, a verdict compare does not know
expect_code 0 "$FAULTLINE" compare "$A" "$A"
[ ! -s "$WORK/err" ] || fail "a run compared with itself warns: $(cat "$WORK/err")"
expect_code 0 "$FAULTLINE" compare "$A" "$SLOW"
contains "$WORK/err" "faultline compare: warning: the scenarios differ (A: a, B: slow)"
cp -r "$A" "$WORK/verified"
"$FAULTLINE" verify "$WORK/verified" --quiet > /dev/null 2>&1 || fail "verify of a copy of run a failed"
json "$WORK/verified/report.json" .mode '"verify"'
expect_code 0 "$FAULTLINE" compare "$A" "$WORK/verified"
contains "$WORK/err" "faultline compare: warning: B is a verify (the target read back after its run), not a run"
expect_code 0 "$FAULTLINE" compare "$A" "$WORK/verified" --json
json "$WORK/out" '[.warnings[] | .kind]' '["verify"]'
# an interrupted B was cut short: it fails the comparison as one that
# could not run does; an interrupted A is only said
mkdir "$WORK/interrupted" "$WORK/noverdict" "$WORK/weird"
handmade "$WORK/interrupted" "$WORK/noverdict" "$WORK/weird" # not for tests/schema.sh
jq '.verdict = "interrupted" | .interrupted = true' "$A/report.json" > "$WORK/interrupted/report.json"
expect_code 1 "$FAULTLINE" compare "$A" "$WORK/interrupted" --json
json "$WORK/out" '[.warnings[] | .kind]' '["interrupted"]'
json "$WORK/out" '[.b.verdict, .exit]' '["interrupted",1]'
contains "$WORK/err" "B was interrupted (SIGINT or SIGTERM): its workload ended early"
expect_code 1 "$FAULTLINE" compare "$A" "$WORK/interrupted"
contains "$WORK/out" "exit 1: 0 expectation(s) of B failed, 0 value(s) worse than allowed, B was interrupted"
expect_code 0 "$FAULTLINE" compare "$WORK/interrupted" "$A"
contains "$WORK/out" "(run, interrupted, scenario a)"
contains "$WORK/err" "A was interrupted"
# a verdict compare does not know, or none: said, compared as it is
jq '.verdict = "weird"' "$A/report.json" > "$WORK/weird/report.json"
expect_code 0 "$FAULTLINE" compare "$A" "$WORK/weird" --json
json "$WORK/out" '[.warnings[] | .kind]' '["unknown-verdict"]'
contains "$WORK/err" "B's verdict 'weird' is not one compare knows (pass, fail, error, interrupted)"
jq 'del(.verdict)' "$A/report.json" > "$WORK/noverdict/report.json"
expect_code 0 "$FAULTLINE" compare "$A" "$WORK/noverdict"
contains "$WORK/err" "B's report.json has no verdict"

# --- directories without a readable report: 2, saying which and why
expect_code 2 "$FAULTLINE" compare "$A" "$WORK/nowhere"
contains "$WORK/err" "B: cannot open $WORK/nowhere/report.json: No such file or directory"
mkdir "$WORK/broken" "$WORK/other"
handmade "$WORK/broken" "$WORK/other"
printf '{"mode": "run", "verdict": ' > "$WORK/broken/report.json"
expect_code 2 "$FAULTLINE" compare "$WORK/broken" "$A"
contains "$WORK/err" "A: "
contains "$WORK/err" "broken/report.json"
contains "$WORK/err" "line 1"
echo '{"verdict": "pass"}' > "$WORK/other/report.json"
expect_code 2 "$FAULTLINE" compare "$A" "$WORK/other"
contains "$WORK/err" "not a faultline report of a run, verify or repeat (\"mode\" is missing)"

# --- --worse mistakes: 2, named
expect_code 2 "$FAULTLINE" compare "$A" "$A" --worse stall:1.2
contains "$WORK/err" "unknown metric 'stall'; known metrics: stall_s recovery_s"
expect_code 2 "$FAULTLINE" compare "$A" "$A" --worse stall_s
contains "$WORK/err" "expected METRIC:RATIO"
expect_code 2 "$FAULTLINE" compare "$A" "$A" --worse stall_s:0.5
expect_code 2 "$FAULTLINE" compare "$A" "$A" --worse kill.stall_s:2
contains "$WORK/err" "no fault 'kill' on both sides; faults on both: tick"
expect_code 2 "$FAULTLINE" compare "$A" "$A" --worse stall_s.p95:2
contains "$WORK/err" "both are runs"
expect_code 2 "$FAULTLINE" compare "$A" "$A" --worse pass_rate:1
contains "$WORK/err" "only summaries of repeats have it"
expect_code 2 "$FAULTLINE" compare "$A" "$A" --worse
contains "$WORK/err" "--worse needs METRIC:RATIO"

# --- faults on one side only, zero to nonzero, not measured (edited copies of a)
mkdir "$WORK/renamed" "$WORK/edited"
handmade "$WORK/renamed" "$WORK/edited" "$WORK/zero"
jq '.faults[0].name = "other"' "$A/report.json" > "$WORK/renamed/report.json"
expect_code 0 "$FAULTLINE" compare "$A" "$WORK/renamed" --json
json "$WORK/out" '[.faults_only_a, .faults_only_b, ([.metrics[] | select(.fault != null)] | length)]' \
    '[["tick"],["other"],0]'
expect_code 0 "$FAULTLINE" compare "$A" "$WORK/renamed"
contains "$WORK/out" "faults only in A: tick"
contains "$WORK/out" "faults only in B: other"
jq '.io.errors = 0 | .faults[0].stall_s = 0.5' "$A/report.json" > "$WORK/zero.json"
mkdir "$WORK/zero" && mv "$WORK/zero.json" "$WORK/zero/report.json"
jq '.io.errors = 3 | .faults[0].stall_s = null' "$A/report.json" > "$WORK/edited/report.json"
expect_code 1 "$FAULTLINE" compare "$WORK/zero" "$WORK/edited" --worse run_errors:1000 --worse tick.stall_s:1 --json
json "$WORK/out" '[.worse_than_allowed[] | .metric]' '["run_errors"]'
json "$WORK/out" '.metrics[] | select(.metric == "run_errors") | [.a, .b, .ratio, .worse]' '[0,3,null,true]'
json "$WORK/out" '.metrics[] | select(.metric == "stall_s") | [.a, .b, .change, .ratio, .worse]' \
    '[0.5,null,null,null,false]'
expect_code 1 "$FAULTLINE" compare "$WORK/zero" "$WORK/edited" --worse run_errors:1000
contains "$WORK/out" "was 0, may not grow"
grep -Eq '^tick +stall_s +0.5 +- +- +- +not measured$' "$WORK/out" ||
    { cat "$WORK/out" >&2; fail "no 'not measured' row for tick stall_s"; }
grep -Eq '^\(run\) +run_errors +0 +3 +\+3 +inf +worse +--worse run_errors:1000 BEYOND$' "$WORK/out" ||
    { cat "$WORK/out" >&2; fail "no 'inf ... worse' row for run_errors"; }

# a B that could not run fails the comparison, whatever its expectations say
mkdir "$WORK/errored"
handmade "$WORK/errored"
jq '.verdict = "error" | .error = "cannot open the target"' "$A/report.json" > "$WORK/errored/report.json"
expect_code 1 "$FAULTLINE" compare "$A" "$WORK/errored"
contains "$WORK/out" "(run, error, scenario a): cannot open the target"
contains "$WORK/out" "B could not run"

# --- summaries of repeats (the format of `faultline run --repeat N`), by hand
# summary DIR PASSED STALL_P95 RECOVERY_P95 [EXPECTATION_PASSES]
summary() {
    mkdir -p "$1"
    handmade "$1"
    cat > "$1/report.json" << EOF
{"mode": "repeat", "verdict": "${5:-pass}", "scenario": "iscsi-controller-pause",
 "repetitions": 10, "completed": 10, "passed": $2, "pass_rate": $(echo "$2" | awk '{print $1 / 10}'),
 "runs": [{"rep": 1, "dir": "rep-1", "verdict": "pass", "exit": 0, "lab": "healthy"}],
 "metrics": [
  {"fault": null, "metric": "iops", "n": 10, "min": 900, "p50": 1000, "p95": 1100, "max": 1200, "mean": 1010, "sd": 50,
   "values": [1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1100]},
  {"fault": null, "metric": "max_stall_s", "n": 10, "min": 4, "p50": 4.1, "p95": $3, "max": $3, "mean": 4.5, "sd": 1,
   "values": [4, 4, 4, 4, 4, 4, 4, 4, 4, $3]},
  {"fault": "pause", "metric": "stall_s", "n": 10, "min": 4, "p50": 4.1, "p95": $3, "max": $3, "mean": 4.5, "sd": 1,
   "values": [4, 4, 4, 4, 4, 4, 4, 4, 4, $3]},
  {"fault": "pause", "metric": "recovery_s", "n": 9, "min": 4.5, "p50": 4.6, "p95": $4, "max": $4, "mean": 5, "sd": 1,
   "values": [4.5, 4.5, 4.5, 4.5, 4.5, 4.5, 4.5, 4.5, $4, null]},
  {"fault": "pause", "metric": "errors", "n": 10, "min": 0, "p50": 0, "p95": 0, "max": 0, "mean": 0, "sd": 0,
   "values": [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]}
 ],
 "expectations": [
  {"expect": "recovery_p95 <= 8s", "metric": "recovery_p95", "fault": null, "op": "<=", "value": 8,
   "unit": "s", "measured": $4, "pass": ${6:-true}, "line": 12, "implicit": false}
 ]}
EOF
}
summary "$WORK/s1" 10 4.2 4.8
summary "$WORK/s2" 9 9.4 5.0
summary "$WORK/s3" 8 4.2 9.5 fail false
expect_code 0 "$FAULTLINE" compare "$WORK/s1" "$WORK/s2"
contains "$WORK/out" "(repeat, pass, scenario iscsi-controller-pause, passed 9 of 10)"
grep -Eq '^pause +stall_s +p95 +4.2 +9.4 +\+5.2 +2.238 +worse$' "$WORK/out" ||
    { cat "$WORK/out" >&2; fail "no p95 row for pause stall_s"; }
grep -Eq '^\(run\) +pass_rate +1 +0.9 +-0.1 +0.900 +worse$' "$WORK/out" ||
    { cat "$WORK/out" >&2; fail "no pass_rate row"; }
expect_code 1 "$FAULTLINE" compare "$WORK/s1" "$WORK/s2" --worse stall_s.p95:1.2
contains "$WORK/out" "--worse stall_s.p95:1.2  pause.stall_s.p95: 4.2 -> 9.4"
expect_code 1 "$FAULTLINE" compare "$WORK/s1" "$WORK/s2" --worse pause.stall_s.p95:2 --json
json "$WORK/out" '[.worse_than_allowed[] | [.fault, .metric, .stat, .a, .b]]' '[["pause","stall_s","p95",4.2,9.4]]'
json "$WORK/out" '[.metrics[] | select(.fault == "pause" and .metric == "stall_s") | .stat]' '["p50","p95","max","mean"]'
json "$WORK/out" '.metrics[] | select(.metric == "pass_rate") | [.fault, .stat, .a, .b, .worse]' '[null,null,1,0.9,true]'
# p50 moved as little as the ratio allows, and the summary's max_stall_s.p95 is the run-level one
expect_code 0 "$FAULTLINE" compare "$WORK/s1" "$WORK/s2" --worse stall_s.p50:1 --worse recovery_s.p50:1.1
expect_code 1 "$FAULTLINE" compare "$WORK/s1" "$WORK/s2" --worse max_stall_s.p95:1.2 --json
json "$WORK/out" '[.worse_than_allowed[] | [.fault, .metric, .stat]]' '[[null,"max_stall_s","p95"]]'
expect_code 1 "$FAULTLINE" compare "$WORK/s1" "$WORK/s2" --worse pass_rate:1
expect_code 0 "$FAULTLINE" compare "$WORK/s1" "$WORK/s2" --worse pass_rate:1.2
expect_code 2 "$FAULTLINE" compare "$WORK/s1" "$WORK/s2" --worse findings:2
contains "$WORK/err" "a summary of repeats does not have it"
# B's summary failed its distribution expectation: named, exit 1
expect_code 1 "$FAULTLINE" compare "$WORK/s1" "$WORK/s3"
contains "$WORK/out" "recovery_p95 <= 8s: measured 9.5 (line 12)"
# a run next to a summary: a distribution of one
expect_code 0 "$FAULTLINE" compare "$WORK/s1" "$A" --json
json "$WORK/out" '[.faults_only_a, .faults_only_b]' '[["pause"],["tick"]]'
json "$WORK/out" '[.warnings[] | .kind]' '["scenarios-differ","summary-vs-run"]'
contains "$WORK/err" "A is a summary of 10 repetitions, B a single run"
json "$WORK/out" '[.metrics[] | select(.metric == "iops") | .stat]' '["p50","p95","max","mean"]'
json "$WORK/out" '[.metrics[] | select(.metric == "iops") | .b] | unique | length' 1
json "$WORK/out" '.metrics[] | select(.metric == "pass_rate") | [.a, .b]' '[1,1]'
# two summaries of one scenario: nothing to warn of
expect_code 0 "$FAULTLINE" compare "$WORK/s1" "$WORK/s2" --json
json "$WORK/out" '.warnings' '[]'
[ ! -s "$WORK/err" ] || fail "two summaries of one scenario warn: $(cat "$WORK/err")"
pass
