# tier: quick
# SIGINT ends the workload early; the run still flushes, sweeps and
# reports, and says it was interrupted: never PASS, exit 130 (SIGINT) or
# 143 (SIGTERM), 1 when what ran found something.  A console that goes
# away ends nothing.
. "$(dirname "$0")/../lib.sh"

# interrupt NAME SIGNAL WANT_EXIT [workload lines]: a 60 s run stopped after 1 s
interrupt() {
    name=$1 sig=$2 want=$3
    shift 3
    SCN=$(DURATION=60s scenario "$name" "$@")
    start=$(date +%s)
    "$FAULTLINE" run "$SCN" --out "$WORK/$name" > "$WORK/$name.out" 2>&1 &
    pid=$!
    i=0 # until its run directory is there, at most 20 s (a signal even before its
    while [ ! -e "$WORK/$name/events.jsonl" ] && [ $i -lt 200 ]; do # workload starts
        sleep 0.1                                                   # interrupts it)
        i=$((i + 1))
    done
    sleep 1
    kill -"$sig" $pid
    set +e
    wait $pid
    code=$?
    set -e
    [ $code = "$want" ] || { cat "$WORK/$name.out" >&2; fail "a run stopped by SIG$sig exited $code, expected $want"; }
    [ $(($(date +%s) - start)) -lt 40 ] || fail "the run did not stop soon after SIG$sig"
    json "$WORK/$name/report.json" '.io.seconds < 20' true
    json "$WORK/$name/report.json" '[.interrupted, .interrupted_by, .exit_status]' "[true,\"SIG$sig\",$want]"
}

interrupt run INT 130
R=$WORK/run/report.json
json "$R" .verdict '"interrupted"'
contains "$WORK/run/report.txt" "run run: INTERRUPTED"
contains "$WORK/run/report.txt" "interrupted by SIGINT"
contains "$WORK/run.out" "run: INTERRUPTED (SIGINT ended it early"
grep -q '<error message="interrupted by SIGINT' "$WORK/run/junit.xml" || fail "junit.xml does not mark the interrupted run as an error"
grep -q 'name="verdict" value="interrupted"' "$WORK/run/junit.xml" || fail "junit.xml's verdict is not interrupted"
grep -q '<span class="verdict v-interrupted">INTERRUPTED</span>' "$WORK/run/report.html" ||
    fail "report.html does not say INTERRUPTED"
interrupt term TERM 143
json "$WORK/term/report.json" .verdict '"interrupted"'
# what ran found something (a rule failed on a measured value): that is a fail
interrupt found INT 1 "[expect]" "iops >= 1000000000000"
json "$WORK/found/report.json" .verdict '"fail"'

# A console that goes away (`| head -c 1`, a closed ssh session) is not an
# interrupt: writing to it fails, and the run goes on to its undo and its
# report (SIGPIPE would kill it with its faults still on).
SCN=$(DURATION=3s scenario piped)
{
    code=0
    "$FAULTLINE" run "$SCN" --out "$WORK/piped" 2>&1 || code=$?
    echo $code > "$WORK/piped.code"
} | head -c 1 > /dev/null
[ "$(cat "$WORK/piped.code")" = 0 ] || fail "a run whose console went away exited $(cat "$WORK/piped.code") (141: SIGPIPE)"
json "$WORK/piped/report.json" .verdict '"pass"'
json "$WORK/piped/report.json" .interrupted false
pass
