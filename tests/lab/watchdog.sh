# tier: full
# The no-progress watchdog: both controllers of the lab paused for good, so
# no I/O ever completes again.  The run must report the outstanding I/O as
# hung once it is older than hung_after, end at duration + grace with every
# report written (verdict fail: hung = 0 is an integrity rule), and leave
# nothing behind.
. "$(dirname "$0")/../lib.sh"

need_root "namespaces and tgtd"
lab_prefix
cat > "$WORK/silent.scn" <<EOS
[scenario]
name = silent-target
duration = 4s
lab = iscsi
hung_after = 1500ms
grace = 3s
[target]
kind = iscsi
io_timeout = 1h            # the backend would wait forever: the watchdog must not
[workload]
depth = 8
[lab]
size = 16MiB
[fault freeze-a]
action = pause
host = ctrl-a
at = 1s
[fault freeze-b]
action = pause
host = ctrl-b
at = 1s
EOS
start=$(date +%s)
expect_code 1 "$FAULTLINE" run "$WORK/silent.scn" --out "$WORK/run" -q
took=$(($(date +%s) - start))
# lab up (~1 s) + 4 s + 3 s grace + reports and lab down: well under 30 s;
# without the watchdog it would wait for the hour of io_timeout.
[ "$took" -lt 30 ] || fail "the run took $took s; it must end at duration + grace"
R=$WORK/run/report.json
json "$R" .verdict '"fail"'
json "$R" .abandoned true
json "$R" '.hung >= 1' true
json "$R" '[.expectations[] | select(.metric == "hung")][0].pass' false
json "$R" '.faults | map(.stall_s >= 5) | all' true   # 1 s .. 4 s and the grace after
contains "$WORK/run/report.txt" "hung"
contains "$WORK/out" "hung:"
grep -qF '"event":"hung"' "$WORK/run/events.jsonl" || fail "no hung event"
grep -qF '"event":"abandoned"' "$WORK/run/events.jsonl" || fail "no abandoned event"
xmllint --noout "$WORK/run/junit.xml" || fail "junit.xml is not well-formed"
[ -s "$WORK/run/report.html" ] || fail "no report.html"
# The lab went down with the run: no namespace, no tgtd of this prefix.
ip netns list | grep -q "^$P-" && fail "namespaces of $P left behind"
[ ! -e "/run/faultline/labs/$P-iscsi.state" ] || fail "lab state of $P left behind"
pass
