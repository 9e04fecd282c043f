#!/bin/sh
# make demo: run the shipped demo scenario on a local file, then show that
# damage to that file is found by `faultline verify`.
set -eu
cd "$(dirname "$0")/.."

echo "== faultline run scenarios/demo.scn"
./faultline run scenarios/demo.scn | tee /tmp/faultline-demo.out
DIR=$(sed -n 's|^report: \(.*\)/report.txt$|\1|p' /tmp/faultline-demo.out)
rm -f /tmp/faultline-demo.out
[ -d "$DIR" ] || { echo "demo: no run directory found" >&2; exit 1; }
cp "$DIR/report.txt" "$DIR/report-run.txt"
cp "$DIR/report.json" "$DIR/report-run.json"
cp "$DIR/report.html" "$DIR/report-run.html" # verify writes a page of its own in its place

echo
echo "== damaging three blocks of /tmp/faultline-demo.img, as a failing disk would:"
echo "   one flipped byte in block 100, block 200 zeroed, block 400 copied over block 300"
IMG=/tmp/faultline-demo.img
printf '\125' | dd of="$IMG" bs=1 seek=$((100 * 4096 + 1234)) conv=notrunc status=none
dd if=/dev/zero of="$IMG" bs=4096 seek=200 count=1 conv=notrunc status=none
dd if="$IMG" of="$IMG" bs=4096 skip=400 seek=300 count=1 conv=notrunc status=none

echo
echo "== faultline verify $DIR"
set +e
./faultline verify "$DIR" --quiet
code=$?
set -e
[ $code = 1 ] || { echo "demo: verify should have failed (exit 1), got $code" >&2; exit 1; }
echo
sed -n '/^Findings by class/,$p' "$DIR/report.txt"
echo
echo "The clean run's report: $DIR/report-run.txt (report-run.json, report-run.html)"
echo "The verify report:      $DIR/report.txt (report.json, report.html)"
