#!/bin/sh
# make demo: the flagship failover scenario on the embedded iSCSI lab.
# faultline brings the lab up (two tgtd controllers exporting one LUN),
# runs verified random I/O through controller A, kills A at 4 s, measures
# the failover to B, sweeps every written block, checks the scenario's
# expectations, takes the lab down and writes the reports.
set -eu
cd "$(dirname "$0")/.."
# A prefix of its own: never touches a lab someone else brought up.
FAULTLINE_LAB_PREFIX=fldemo
export FAULTLINE_LAB_PREFIX
down() { ./faultline lab down iscsi > /dev/null 2>&1 || true; }
trap down EXIT
trap 'exit 130' INT TERM

SCN=scenarios/iscsi-controller-kill.scn
echo "== faultline run $SCN"
sed -n 's/^# \{0,1\}//p' "$SCN" | sed '/^\[/q' | sed '$d'
echo
set +e
./faultline run "$SCN"
code=$?
set -e
DIR=$(ls -dt runs/*-iscsi-controller-kill | head -1)
echo
echo "== the report ($DIR/report.txt), up to the faults"
sed -n '1,/^$/p' "$DIR/report.txt"
sed -n '/^  faults/,/^$/p' "$DIR/report.txt"
echo "verdict exit status $code"
echo "plots and tables: $DIR/report.html (also report.json, junit.xml, timeline.csv, events.jsonl)"
exit $code
