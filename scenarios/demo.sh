#!/bin/sh
# make demo: the embedded iSCSI lab, a controller killed in the middle of a
# verified workload, failover, and the report.
set -eu
cd "$(dirname "$0")/.."
# A prefix of its own: never touches a lab someone else brought up.
FAULTLINE_LAB_PREFIX=fldemo
export FAULTLINE_LAB_PREFIX
down() { ./faultline lab down iscsi > /dev/null 2>&1 || true; }
trap down EXIT
trap 'exit 130' INT TERM

echo "== faultline run scenarios/iscsi-lab.scn (lab up, 15 s of verified I/O)"
./faultline run scenarios/iscsi-lab.scn --keep-lab > /tmp/faultline-demo.out 2>&1 &
run=$!
i=0
until ./faultline lab status iscsi > /dev/null 2>&1 || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
./faultline lab status iscsi
sleep 5
PID=$(./faultline lab status iscsi --json | sed -n '/"ctrl-a"/,/"pid"/s/.*"pid": \([0-9]*\).*/\1/p')
echo
echo "== 5 s in: killing controller A (tgtd pid $PID) with SIGKILL"
kill -9 "$PID"
set +e
wait $run
code=$?
set -e
grep -v '^\[' /tmp/faultline-demo.out
rm -f /tmp/faultline-demo.out
DIR=$(ls -dt runs/*-iscsi-lab | head -1)
echo
sed -n '/path events/,/^$/p' "$DIR/report.txt"
echo "== taking the lab down"
down
echo "verdict exit status $code; the report: $DIR/report.txt (also report.json, events.jsonl)"
exit $code
