# Runs every test of one build and records each result.
#
#   sh tests/run.sh BUILD_DIR RESULTS_FILE
#
# First every unit test binary BUILD_DIR/tests/test_*, then every
# tests/cli/*.sh and tests/lab/*.sh with FAULTLINE=BUILD_DIR/faultline (and
# FL_REPORTS_DIR=BUILD_DIR/reports, emptied first, where they leave a copy of
# every report.json), last tests/schema.sh on those reports; a failure does
# not stop the run.  One line per result is appended to
# RESULTS_FILE: "pass NAME", "fail NAME" or "skip NAME" (NAME: the script,
# or BINARY:CASE for a cmocka test case); a script's line ends with how
# long it took, so that a slow CI shows where its time went.  A script
# passes with exit 0, is skipped with exit 77 (tests/lib.sh: skip,
# need_root) and fails otherwise.
# Unit binaries count per case, from cmocka's summary; a binary that exits
# non-zero without a FAILED count (a crash, a sanitizer's abort, a leak
# found at exit) is one more failure.  With CI=true a skip is a failure:
# CI must run everything.  Exit 0 when nothing failed, 1 otherwise.
# tests/summary.sh adds up results files.
set -u

[ $# = 2 ] || { echo "usage: sh tests/run.sh BUILD_DIR RESULTS_FILE" >&2; exit 2; }
BUILD=${1%/}
RESULTS=$2
case $BUILD in
/*) ABS_BUILD=$BUILD ;;
*) ABS_BUILD=$PWD/$BUILD ;;
esac
mkdir -p "$(dirname "$RESULTS")"
: >> "$RESULTS" || exit 2
TMP=$(mktemp -d "${TMPDIR:-/tmp}/fl-run-XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

failed=0
record() { # pass|fail|skip NAME [NOTE]
    if [ "$1" = skip ] && [ "${CI:-}" = true ]; then
        echo "FAIL $2: skipped, but CI=true must run everything" >&2
        echo "fail $2 (skipped, but CI=true must run everything)" >> "$RESULTS"
        failed=1
        return
    fi
    [ "$1" != fail ] || failed=1
    echo "$1 $2${3:+ ($3)}" >> "$RESULTS"
}

# cmocka (1.1.x) prints a test's cases to stdout and its summary to stderr:
#   [  PASSED  ] N test(s).
#   [  SKIPPED ] N test(s), listed below:
#   [  SKIPPED ] CASE
#   [  FAILED  ] N test(s), listed below:
#   [  FAILED  ] CASE
# Both streams go through one pipe into $TMP/log, shown as they come.  The
# passed cases are named from the "[       OK ] CASE" lines when there are
# as many as the summary counts.  Prints "pass|fail|skip NAME" lines.
parse_cmocka() { # LOG BINARY EXIT_CODE
    awk -v bin="$2" -v code="$3" '
        function count(s) { sub(/^.*\] /, "", s); return s + 0 }
        function name(s) { sub(/^.*\] /, "", s); return s }
        /\[  PASSED  \] [0-9]+ test\(s\)\./ { passed = count($0); have_passed = 1; list = ""; next }
        /\[  FAILED  \] [0-9]+ test\(s\), listed below:/ { nfailed = count($0); have_failed = 1; list = "f"; next }
        /\[  SKIPPED \] [0-9]+ test\(s\), listed below:/ { nskipped = count($0); list = "s"; next }
        /^\[       OK \] / { ok[++nok] = name($0); next }
        list == "f" && /^\[  FAILED  \] / { failed[++nf] = name($0); next }
        list == "s" && /^\[  SKIPPED \] / { skipped[++ns] = name($0); next }
        END {
            for (i = 1; i <= passed; i++)
                printf "pass %s:%s\n", bin, (nok == passed ? ok[i] : "passed-case-" i)
            for (i = 1; i <= nskipped; i++)
                printf "skip %s:%s\n", bin, (ns == nskipped ? skipped[i] : "skipped-case-" i)
            for (i = 1; i <= nfailed; i++)
                printf "fail %s:%s\n", bin, (nf == nfailed ? failed[i] : "failed-case-" i)
            if (code != 0 && !have_failed)
                printf "fail %s (exit %d without a cmocka FAILED count: a crash, a sanitizer abort or a leak)\n", bin, code
            else if (code == 0 && !have_passed)
                printf "fail %s (exit 0 without a cmocka summary)\n", bin
        }' "$1"
}

echo "== unit tests ($BUILD)"
found=no
for t in "$BUILD"/tests/test_*; do
    [ -f "$t" ] && [ -x "$t" ] || continue
    found=yes
    { "$t" 2>&1; echo $? > "$TMP/code"; } | tee "$TMP/log"
    code=$(cat "$TMP/code")
    parse_cmocka "$TMP/log" "$t" "$code" > "$TMP/results"
    while read -r kind name; do
        case $kind in fail) echo "FAIL $name" >&2 ;; esac
        record "$kind" "$name"
    done < "$TMP/results"
done
[ $found = yes ] || { echo "FAIL no unit test binaries in $BUILD/tests" >&2; record fail "$BUILD/tests/test_*" "no unit test binaries"; }

# run_script SCRIPT [ARG...]: runs one test script and records it.
run_script() {
    echo "-- $1"
    started=$(date +%s)
    FAULTLINE=$ABS_BUILD/faultline sh "$@"
    code=$?
    took="$(($(date +%s) - started)) s"
    echo "-- $1: exit $code after $took"
    case $code in
    0) record pass "$1" "$took" ;;
    77) record skip "$1" "$took" ;;
    *)
        echo "FAIL $1: exit $code" >&2
        record fail "$1" "exit $code after $took"
        ;;
    esac
}

echo "== CLI and lab tests ($BUILD)"
# Every report.json a script's runs wrote is kept here (tests/lib.sh,
# collect_reports) for tests/schema.sh, run last on them.
FL_REPORTS_DIR=$ABS_BUILD/reports
rm -rf "$FL_REPORTS_DIR" && mkdir -p "$FL_REPORTS_DIR" || exit 2
export FL_REPORTS_DIR
for t in tests/cli/*.sh tests/lab/*.sh; do
    [ -f "$t" ] || continue
    run_script "$t"
done
# The collected reports against docs/*.schema.json.
run_script tests/schema.sh "$FL_REPORTS_DIR"
exit $failed
