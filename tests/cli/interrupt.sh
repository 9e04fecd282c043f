# SIGINT ends the workload early; the run still flushes, sweeps, reports and
# exits with its verdict.
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
pass
