# tier: quick
# `faultline suite` on file targets (no lab): a folder of scenarios run one
# after another, each judged against the outcome it expects: a pass; a
# must-fail scenario with a real finding (met); the same with the wrong
# rules listed (not met); a timing miss on the first attempt only, retried
# (flaky); a finding with a timing miss (never retried); a repeat.  Then
# suite.json field by field, the --out layout, lint failures (exit 2 with
# FILE:LINE, nothing run), usage, and SIGINT (interrupted, never a pass).
. "$(dirname "$0")/../lib.sh"

S=$WORK/s
mkdir -p "$S"
# A scenario in $S: NAME, then its lines after [workload] (faults, [expect]);
# SCENARIO_KEYS and DURATION as tests/lib.sh's scenario() takes them.
suite_scn() {
    _n=$1
    shift
    f=$(scenario "$_n")
    for line in "$@"; do printf '%s\n' "$line" >> "$f"; done
    mv "$f" "$S/$_n.scn"
}
# Random bytes over the first 64 blocks of NAME.img near the end of the
# workload: reads that find them are corrupt, a real finding.
smash() {
    printf '[fault smash]\naction = command\ncommand = dd if=/dev/urandom of=%s/%s.img bs=4096 count=64 conv=notrunc status=none\nat = %s' \
        "$WORK" "$1" "$2"
}
# The run itself stopped (SIGSTOP) for 1.5 s at 1 s, the first time only
# (MARKER is made then), or always without MARKER: a stall of 1.5 s that
# max_stall <= 1s misses, which says nothing of the storage.
hiccup() {
    stop='(sleep 1.5; kill -CONT $PPID) & kill -STOP $PPID'
    cmd="$stop"
    [ -z "${1:-}" ] || cmd="if [ ! -e $1 ]; then touch $1; $stop; fi"
    printf '[fault hiccup]\naction = command\ncommand = %s\nat = 1s' "$cmd"
}

(DURATION=1s suite_scn a-pass)
(DURATION=1500ms SCENARIO_KEYS="expect_verdict = fail
expect_failing = corrupt" suite_scn b-must-fail "$(smash b-must-fail 1400ms)")
(DURATION=1500ms SCENARIO_KEYS="expect_verdict = fail
expect_failing = lost_writes" suite_scn c-wrong-rules "$(smash c-wrong-rules 1400ms)")
(DURATION=3s suite_scn d-flaky "$(hiccup "$WORK/d.marker")" "[expect]" "max_stall <= 1s")
(DURATION=3s suite_scn e-finding-and-timing "$(hiccup)" "$(smash e-finding-and-timing 2800ms)" \
    "[expect]" "max_stall <= 1s")
(DURATION=1s SCENARIO_KEYS="repeat = 2" suite_scn f-repeat)
for f in "$S"/*.scn; do expect_code 0 "$FAULTLINE" check "$f"; done

# --- 1. the folder, sorted by name, with two retries for timing
expect_code 1 "$FAULTLINE" suite "$S" --out "$WORK/res" --retry-timing 2
J=$WORK/res/suite.json
json "$J" '[.mode, .verdict, .interrupted_by, .retry_timing]' '["suite","fail",null,2]'
json "$J" '[.total, .ran, .met, .not_met, .flaky, .errors]' '[6,6,4,2,1,0]'
json "$J" '[.lab_ups, .lab_shared, .lab_up_s, .lab_down_s]' '[0,0,0,0]'
json "$J" '.faultline' "\"$("$FAULTLINE" --version | sed 's/^faultline //')\""
json "$J" '.started_at | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$")' true
json "$J" '[.scenarios[] | .name]' \
    '["a-pass","b-must-fail","c-wrong-rules","d-flaky","e-finding-and-timing","f-repeat"]'
json "$J" '[.scenarios[] | .outcome]' '["met","met","not-met","flaky","not-met","met"]'
json "$J" '[.scenarios[] | .attempts | length]' '[1,1,1,2,1,1]'
json "$J" '[.scenarios[] | [.lab, .lab_use, .lab_health, .lab_prefix]] | unique' '[[null,"none",null,null]]'
json "$J" "[.scenarios[] | .file == \"$S/\" + .name + \".scn\"] | all" true
# (a) a pass
json "$J" '.scenarios[0] | [.met, .why, .verdict, .exit, .failing, .expect_verdict, .expect_failing, .report_html]' \
    '[true,null,"pass",0,[],"pass",[],"a-pass/try-1/report.html"]'
# (b) must fail on corrupt, and did: a real finding
json "$J" '.scenarios[1] | [.met, .verdict, .exit, .failing, .expect_verdict, .expect_failing, .findings > 0]' \
    '[true,"fail",1,["corrupt"],"fail",["corrupt"],true]'
json "$J" '.scenarios[1].faults' '[{"name":"smash","action":"command","host":"local"}]'
# (c) the same with the wrong rule listed
json "$J" '.scenarios[2] | [.met, .verdict, .failing, .why]' \
    '[false,"fail",["corrupt"],"failed on corrupt, which it must not; did not fail on lost_writes, which it must"]'
# (d) only timing missed on the first attempt: tried again, met: flaky
json "$J" '.scenarios[3] | [.met, .verdict, .exit, .failing]' '[true,"pass",0,[]]'
json "$J" '.scenarios[3].attempts | [.[] | [.try, .dir, .verdict, .exit, .failing, .timing_only, .findings]]' \
    '[[1,"d-flaky/try-1","fail",1,["max_stall"],true,0],[2,"d-flaky/try-2","pass",0,[],false,0]]'
json "$J" '.scenarios[3] | [(.why | test("try 1 .*max_stall")), .report_html]' '[true,"d-flaky/try-2/report.html"]'
json "$J" '.scenarios[3] | .wall_s >= ([.attempts[].wall_s] | add) - 0.01' true
[ -f "$WORK/res/d-flaky/try-1/report.json" ] && [ -f "$WORK/res/d-flaky/try-2/report.json" ] ||
    fail "d-flaky's attempts have no report each"
json "$WORK/res/d-flaky/try-1/report.json" '.measured.max_stall > 1' true
# (e) a finding and a timing miss: never retried
json "$J" '.scenarios[4] | [.met, .verdict, (.failing | sort), .attempts[0].timing_only, .findings > 0]' \
    '[false,"fail",["corrupt","max_stall"],false,true]'
[ ! -e "$WORK/res/e-finding-and-timing/try-2" ] || fail "a scenario with a finding was tried again"
# (f) repeat = 2: the child run repeats, the suite reads its summary
json "$J" '.scenarios[5] | [.met, .verdict, .exit, .attempts[0].dir]' '[true,"pass",0,"f-repeat/try-1"]'
json "$WORK/res/f-repeat/try-1/report.json" '[.mode, .completed]' '["repeat",2]'
# the layout: the suite's reports, and per scenario its copy and attempts
for f in suite.json junit.xml report.txt report.html; do
    [ -f "$WORK/res/$f" ] || fail "no $f in the suite's directory"
done
for f in "$S"/*.scn; do
    n=$(basename "$f" .scn)
    cmp -s "$f" "$WORK/res/$n/scenario.scn" || fail "$n/scenario.scn is not a copy of $f"
    [ -f "$WORK/res/$n/try-1/report.json" ] || fail "no $n/try-1/report.json"
done
# no suite over another
expect_code 2 "$FAULTLINE" suite "$S/a-pass.scn" --out "$WORK/res" --quiet
contains "$WORK/err" "already holds a suite"

# --- 2. without retries a timing miss is not met; a second scenario of one
#        name gets NAME-2; the default directory is runs/<time>-suite
rm -f "$WORK/d.marker"
(cd "$WORK" && "$FAULTLINE" suite "$S/d-flaky.scn" "$S/a-pass.scn" "$S/a-pass.scn" --quiet) \
    > "$WORK/out2.txt" 2> "$WORK/err2.txt" && fail "a timing miss without retries exited 0"
J2=$(ls "$WORK"/runs/*-suite/suite.json)
[ -f "$J2" ] || fail "no runs/<time>-suite/suite.json"
json "$J2" '[.scenarios[] | [.dir, .outcome, (.attempts | length)]]' \
    '[["d-flaky","not-met",1],["a-pass","met",1],["a-pass-2","met",1]]'
json "$J2" '.scenarios[0].why' '"failed on max_stall"'
[ ! -s "$WORK/err2.txt" ] || { cat "$WORK/err2.txt" >&2; fail "--quiet printed on stderr"; }
[ ! -s "$WORK/out2.txt" ] || { cat "$WORK/out2.txt" >&2; fail "--quiet printed on stdout"; }
# a scenario named as one of the suite's own files takes NAME-2
(DURATION=1s scenario report.txt > /dev/null)
expect_code 0 "$FAULTLINE" suite "$WORK/report.txt.scn" --out "$WORK/own" --quiet
json "$WORK/own/suite.json" '[.scenarios[] | .dir]' '["report.txt-2"]'
[ -f "$WORK/own/report.txt" ] || fail "the suite's report.txt is not a file"

# --- 3. every scenario is linted first: one mistake, nothing runs (exit 2)
mkdir -p "$WORK/bad"
cp "$S/a-pass.scn" "$WORK/bad/1-good.scn"
(DURATION=1s SCENARIO_KEYS="expect_failing = corrupt" scenario lint1 > /dev/null)
mv "$WORK/lint1.scn" "$WORK/bad/2-lint.scn"
(DURATION=1s SCENARIO_KEYS="expect_verdict = fail
expect_failing = corupt" scenario lint2 > /dev/null)
mv "$WORK/lint2.scn" "$WORK/bad/3-lint.scn"
expect_code 2 "$FAULTLINE" suite "$WORK/bad" --out "$WORK/bad-out"
contains "$WORK/err" "$WORK/bad/2-lint.scn:4: expect_failing: corrupt must fail, but the scenario is expected to pass"
contains "$WORK/err" "$WORK/bad/3-lint.scn:5: expect_failing: 'corupt' is not a rule's metric; did you mean 'corrupt'?"
contains "$WORK/err" "2 of 3 scenarios have mistakes; none ran"
[ ! -e "$WORK/bad-out" ] || fail "a suite with a bad scenario made its directory"
# and `faultline run` ignores the expected outcome: a must-fail scenario
# that fails still exits 1
expect_code 1 "$FAULTLINE" run "$S/b-must-fail.scn" --out "$WORK/run-b" --quiet
json "$WORK/run-b/report.json" .verdict '"fail"'

# --- 4. usage
expect_code 2 "$FAULTLINE" suite
contains "$WORK/err" "which scenarios?"
expect_code 2 "$FAULTLINE" suite "$S" --retry-timing 21
contains "$WORK/err" "--retry-timing needs a count from 0 to 20"
expect_code 2 "$FAULTLINE" suite "$S" --bogus
expect_code 2 "$FAULTLINE" suite "$WORK/nothing-here"
mkdir -p "$WORK/empty"
expect_code 2 "$FAULTLINE" suite "$WORK/empty"
contains "$WORK/err" "no scenario found"
expect_code 0 "$FAULTLINE" suite --help
contains "$WORK/out" "usage: faultline suite PATH..."

# --- 5. SIGINT: the scenario under way ends early and reports, no other
#        starts, the suite says interrupted and exits 1
mkdir -p "$WORK/long"
(DURATION=20s scenario long1 > /dev/null)
mv "$WORK/long1.scn" "$WORK/long/1.scn"
cp "$S/a-pass.scn" "$WORK/long/2.scn"
"$FAULTLINE" suite "$WORK/long" --out "$WORK/int" > "$WORK/out" 2> "$WORK/err" &
PID=$!
i=0
while [ ! -e "$WORK/int/long1/try-1/events.jsonl" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
[ -e "$WORK/int/long1/try-1/events.jsonl" ] || { kill "$PID"; fail "the first scenario never started"; }
sleep 0.5
kill -INT "$PID"
set +e
wait "$PID"
code=$?
set -e
[ "$code" = 1 ] || { cat "$WORK/err" >&2; fail "an interrupted suite exited $code, expected 1"; }
J=$WORK/int/suite.json
json "$J" '[.verdict, .interrupted_by, .total, .ran]' '["interrupted","SIGINT",2,1]'
json "$J" '.scenarios[0] | [.verdict, .outcome, .met]' '["interrupted","not-met",false]'
json "$WORK/int/long1/try-1/report.json" '.verdict' '"interrupted"'
[ ! -e "$WORK/int/a-pass" ] || fail "a scenario started after SIGINT"
[ -f "$WORK/int/report.txt" ] || fail "an interrupted suite wrote no report.txt"
pass
