# tier: quick
# passes: plain
# tests/summary.sh: the end of a test log says which test failed and why.
# A CI log is kept only in part (its start and its end), so a failed
# script's own words (--said: its FAIL and "not met" lines, then its last
# lines) are printed after its FAILED line, and the count stays the last
# line.  (The shell scripts alone: nothing of faultline runs here.)
. "$(dirname "$0")/../lib.sh"

SUMMARY=$(cd "$(dirname "$0")/.." && pwd)/summary.sh
# wrong FILE WHY: fails, with FILE shown behind "  | " (never as lines of
# this log's own summary, which a reader of a CI log looks for)
wrong() {
    sed 's/^/  | /' "$1" >&2
    fail "$2"
}

# A scenario suite's output: a met must-fail scenario's FAIL lines come
# first (noise), the one not met last, then lines after it.
{
    echo "cephfs-mds-grace-trap: FAIL, 0 findings"
    echo "  FAIL max_stall <= 30s: measured 42.081 s"
    echo "suite: [2/40] cephfs-mds-grace-trap: met (fail, exit 1)"
    i=0
    while [ $i -lt 30 ]; do echo "suite: [$((i + 3))/40] s$i: met (pass, exit 0)"; i=$((i + 1)); done
    echo "suite: [33/40] gluster-x: not met (fail, exit 1): lost_writes = 0"
    echo "  FAIL lost_writes = 0 (integrity rule): measured 2"
    i=0
    while [ $i -lt 6 ]; do echo "filler $i"; i=$((i + 1)); done
    printf 'FAIL scenarios: gluster-x: not met: %0400d\n' 0
} > "$WORK/script.log"
sh "$SUMMARY" --said tests/lab/scenarios.sh "$WORK/script.log" > "$WORK/said"
grep -q '^said tests/lab/scenarios.sh: suite: \[33/40\] gluster-x: not met (fail, exit 1): lost_writes = 0$' "$WORK/said" ||
    wrong "$WORK/said" "the scenario not met is not said"
grep -q '^said tests/lab/scenarios.sh:   FAIL lost_writes = 0 (integrity rule): measured 2$' "$WORK/said" ||
    wrong "$WORK/said" "the failed expectation is not said"
grep -q '^said tests/lab/scenarios.sh: filler 5$' "$WORK/said" || wrong "$WORK/said" "the last lines are not said"
# the last FAIL line is also a last line: said once, cut at 300 characters
[ "$(grep -c 'FAIL scenarios: gluster-x' "$WORK/said")" = 1 ] || wrong "$WORK/said" "a line said twice"
[ "$(grep 'FAIL scenarios: gluster-x' "$WORK/said" | wc -c)" -le $((300 + 40)) ] || fail "a long line not cut"
[ "$(wc -l < "$WORK/said")" -le 12 ] || wrong "$WORK/said" "more than 8 + 4 lines said"
! grep -q 'filler 1$' "$WORK/said" || wrong "$WORK/said" "a line neither FAIL nor among the last said"

# Results files as tests/run.sh writes them: the said lines follow their
# FAILED line, before the count, which stays last.
{
    echo "pass tests/cli/a.sh (1.0 s)"
    echo "time plain 1.0 tests/cli/a.sh"
    echo "fail tests/lab/scenarios.sh (exit 1 after 1380.6 s)"
    cat "$WORK/said"
    echo "time plain 1380.6 tests/lab/scenarios.sh"
} > "$WORK/results-plain.txt"
echo "pass tests/cli/a.sh (1.1 s)" > "$WORK/results-asan.txt"
set +e
sh "$SUMMARY" "$WORK/results-plain.txt" "$WORK/results-asan.txt" > "$WORK/out"
code=$?
set -e
[ "$code" = 1 ] || wrong "$WORK/out" "summary exited $code with a failure (1 expected)"
[ "$(tail -n 1 "$WORK/out")" = "2 passed, 1 failed, 0 skipped" ] || wrong "$WORK/out" "the count is not the last line"
grep -q '^   tests/lab/scenarios.sh:   FAIL lost_writes = 0 (integrity rule): measured 2$' "$WORK/out" ||
    wrong "$WORK/out" "a said line not printed as it was said"
awk '/^== FAILED tests\/lab\/scenarios.sh \(exit 1 after 1380.6 s\)/ { f = NR }
     /^   tests\/lab\/scenarios.sh: suite: \[33\/40\] gluster-x: not met/ { s = NR }
     END { exit !(f && s > f) }' "$WORK/out" ||
    wrong "$WORK/out" "the said lines do not follow the FAILED line"
! grep -q '^said ' "$WORK/out" || wrong "$WORK/out" "a said line printed raw"

# Nothing failed: no FAILED line, exit 0.
sh "$SUMMARY" "$WORK/results-asan.txt" > "$WORK/out2" || fail "summary of passes exited non-zero"
! grep -q FAILED "$WORK/out2" || fail "a FAILED line without a failure"
pass
