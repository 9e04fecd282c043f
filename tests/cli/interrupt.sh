# SIGINT ends the workload early; the run still flushes, sweeps, reports and
# exits with its verdict.  A console that goes away ends nothing.
. "$(dirname "$0")/../lib.sh"

SCN=$(DURATION=60s scenario interrupt)
start=$(date +%s)
"$FAULTLINE" run "$SCN" --out "$WORK/run" --quiet > "$WORK/out" 2>&1 &
pid=$!
sleep 1
kill -INT $pid
set +e
wait $pid
code=$?
set -e
[ $code = 0 ] || fail "interrupted run exited $code"
[ $(($(date +%s) - start)) -lt 20 ] || fail "the run did not stop soon after SIGINT"
R=$WORK/run/report.json
json "$R" .verdict '"pass"'
json "$R" .interrupted true
json "$R" '.io.seconds < 20' true
contains "$WORK/run/report.txt" "INTERRUPTED"

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
