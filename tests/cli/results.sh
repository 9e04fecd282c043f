# tier: quick
# passes: plain
# The end of a test log says which test failed and why.  A CI log is kept
# only in part (its start and its end), so what a failed script said of
# its failure (tests/lib.sh: said, and fail, into the file tests/run.sh
# names in FL_SAID) is printed by tests/summary.sh under its FAILED line,
# and the count stays the last line.  (The shell scripts alone: nothing of
# faultline runs here.)
. "$(dirname "$0")/../lib.sh"

TESTS=$(cd "$(dirname "$0")/.." && pwd)
SUMMARY=$TESTS/summary.sh
# wrong FILE WHY: fails, with FILE shown behind "  | " (never as lines of
# this log's own summary, which a reader of a CI log looks for)
wrong() {
    sed 's/^/  | /' "$1" >&2
    fail "$2"
}

# 1. fail and said write to FL_SAID, and fail still exits 1 with its
# message on stderr; without FL_SAID they do the same, said nothing.
printf '. "%s/lib.sh"\nsaid "  gluster-x: FAIL lost_writes = 0 (integrity rule): measured 2"\nfail "gluster-x: not met"\n' \
    "$TESTS" > "$WORK/tiny.sh"
: > "$WORK/said"
set +e
(unset FL_REPORTS_DIR KEEP_WORK; FL_SAID=$WORK/said sh "$WORK/tiny.sh" 2> "$WORK/tiny.err")
code=$?
(unset FL_REPORTS_DIR KEEP_WORK FL_SAID; cd "$WORK" && sh "$WORK/tiny.sh" 2> /dev/null)
code2=$?
set -e
[ "$code" = 1 ] && [ "$code2" = 1 ] || fail "a failed test exited $code and $code2 (1 expected)"
grep -qx 'FAIL tiny: gluster-x: not met' "$WORK/tiny.err" || wrong "$WORK/tiny.err" "fail no longer says its message on stderr"
printf '  gluster-x: FAIL lost_writes = 0 (integrity rule): measured 2\nFAIL tiny: gluster-x: not met\n' > "$WORK/said.want"
cmp -s "$WORK/said" "$WORK/said.want" || wrong "$WORK/said" "said and fail did not write their lines to FL_SAID"

# 2. --said: the last 12 lines, each once, each cut at 300 characters.
{
    i=0
    while [ $i -lt 14 ]; do echo "line $i"; i=$((i + 1)); done
    echo "line 13"
    printf 'FAIL scenarios: not met: %0400d\n' 0
} > "$WORK/many"
sh "$SUMMARY" --said tests/lab/scenarios.sh "$WORK/many" > "$WORK/said.out"
[ "$(wc -l < "$WORK/said.out")" = 12 ] || wrong "$WORK/said.out" "not the last 12 lines"
[ "$(head -n 1 "$WORK/said.out")" = "said tests/lab/scenarios.sh: line 3" ] || wrong "$WORK/said.out" "not the last 12 lines, each once"
[ "$(grep -c 'line 13$' "$WORK/said.out")" = 1 ] || wrong "$WORK/said.out" "a line said twice"
[ "$(tail -n 1 "$WORK/said.out" | wc -c)" = $(($(printf 'said tests/lab/scenarios.sh: ' | wc -c) + 300 + 1)) ] ||
    wrong "$WORK/said.out" "a long line not cut at 300 characters"

# 3. Results files as tests/run.sh writes them: the said lines follow their
# FAILED line, as they were said, and the count stays the last line.
sh "$SUMMARY" --said tests/lab/scenarios.sh "$WORK/said" > "$WORK/said.lines"
{
    echo "pass tests/cli/a.sh (1.0 s)"
    echo "time plain 1.0 tests/cli/a.sh"
    echo "fail tests/lab/scenarios.sh (exit 1 after 1380.6 s)"
    cat "$WORK/said.lines"
    echo "time plain 1380.6 tests/lab/scenarios.sh"
} > "$WORK/results-plain.txt"
echo "pass tests/cli/a.sh (1.1 s)" > "$WORK/results-asan.txt"
set +e
sh "$SUMMARY" "$WORK/results-plain.txt" "$WORK/results-asan.txt" > "$WORK/out"
code=$?
set -e
[ "$code" = 1 ] || wrong "$WORK/out" "summary exited $code with a failure (1 expected)"
[ "$(tail -n 1 "$WORK/out")" = "2 passed, 1 failed, 0 skipped" ] || wrong "$WORK/out" "the count is not the last line"
awk '/^== FAILED tests\/lab\/scenarios.sh \(exit 1 after 1380.6 s\)/ { f = NR }
     $0 == "   tests/lab/scenarios.sh:   gluster-x: FAIL lost_writes = 0 (integrity rule): measured 2" { a = NR }
     $0 == "   tests/lab/scenarios.sh: FAIL tiny: gluster-x: not met" { b = NR }
     END { exit !(f && a == f + 1 && b == a + 1) }' "$WORK/out" ||
    wrong "$WORK/out" "the said lines do not follow the FAILED line as they were said"
! grep -q '^said ' "$WORK/out" || wrong "$WORK/out" "a said line printed raw"

# 4. Nothing failed: no FAILED line, exit 0.
sh "$SUMMARY" "$WORK/results-asan.txt" > "$WORK/out2" || wrong "$WORK/out2" "summary of passes exited non-zero"
! grep -q FAILED "$WORK/out2" || wrong "$WORK/out2" "a FAILED line without a failure"
pass
