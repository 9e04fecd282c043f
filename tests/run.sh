# Runs the tests of one tier of one build and records each result.
#
#   sh tests/run.sh BUILD_DIR RESULTS_FILE [TIER]
#
# TIER is quick or full (default full: every test).  First every unit test
# binary BUILD_DIR/tests/test_* (both tiers), then the tier's tests/cli/*.sh
# and tests/lab/*.sh with FAULTLINE=BUILD_DIR/faultline (and
# FL_REPORTS_DIR=BUILD_DIR/reports, emptied first, where they leave a copy of
# every report.json), last tests/schema.sh on those reports; a failure does
# not stop the run.
#
# Which scripts a tier runs: each script says it in its leading comment
# block (the lines before its first line that is not a comment):
#   # tier: quick     make check and make check-full run it
#   # tier: full      make check-full only (also the default: a script
#                     without the line runs in the full tier only)
#   # passes: plain   the plain pass only: not with FL_SANITIZED=1
#   # passes: both    the plain pass and the ASan+UBSan one (the default)
# A script outside the tier, or plain-only in the sanitizer pass
# (FL_SANITIZED=1, as make check-asan sets it), is left out: one line says
# which, and nothing is recorded (it is not a skip).  A value other than
# these is a failure of that script.
#
# One line per result is appended to RESULTS_FILE: "pass NAME", "fail NAME"
# or "skip NAME" (NAME: the script, or BINARY:CASE for a cmocka test case);
# a script's line ends with how long it took; a failed script's line is
# followed by "said NAME: LINE" lines, what it said of its failure
# (tests/lib.sh: said, fail).  Every unit test binary and every script also
# gets a line "time PASS SECONDS NAME" (PASS: plain or asan), which
# tests/summary.sh turns into the list of the slowest.  A script passes with
# exit 0, is skipped with exit 77 (tests/lib.sh: skip, need_root) and fails
# otherwise.
# Unit binaries count per case, from cmocka's summary; a binary that exits
# non-zero without a FAILED count (a crash, a sanitizer's abort, a leak
# found at exit) is one more failure.  With CI=true a skip is a failure:
# CI must run everything.  Exit 0 when nothing failed, 1 otherwise.
# tests/summary.sh adds up results files.
set -u

usage() {
    echo "usage: sh tests/run.sh BUILD_DIR RESULTS_FILE [quick|full]" >&2
    echo "       sh tests/run.sh --list [quick|full]" >&2
    exit 2
}

# tag SCRIPT KEY DEFAULT: the value of "# KEY: VALUE" in the script's leading
# comment block, DEFAULT without one.
tag() {
    awk -v key="$2" -v def="$3" '
        !/^#/ { exit }
        $1 == "#" && $2 == key ":" { val = $3; exit }
        END { print (val == "" ? def : val) }' "$1"
}

# choose SCRIPT TIER PASS: what a pass of a tier does with SCRIPT: "run",
# "other-tier" (a full-tier script in the quick tier), "plain-only" (in the
# asan pass) or "bad TIER PASSES" (tags of another value).
choose() {
    _tier=$(tag "$1" tier full)
    _passes=$(tag "$1" passes both)
    case $_tier:$_passes in
    quick:plain | quick:both | full:plain | full:both) ;;
    *)
        echo "bad $_tier $_passes"
        return
        ;;
    esac
    if [ "$2" = quick ] && [ "$_tier" = full ]; then
        echo other-tier
    elif [ "$3" = asan ] && [ "$_passes" = plain ]; then
        echo plain-only
    else
        echo run
    fi
}

# --list TIER: what each pass of the tier would run, nothing run.
if [ "${1:-}" = --list ]; then
    [ $# -le 2 ] || usage
    TIER=${2:-full}
    case $TIER in quick | full) ;; *) usage ;; esac
    for pass in plain asan; do
        echo "$pass pass, $TIER tier: every unit test binary, then"
        for t in tests/cli/*.sh tests/lab/*.sh; do
            [ -f "$t" ] || continue
            case $(choose "$t" "$TIER" $pass) in
            run) echo "  runs      $t" ;;
            other-tier) echo "  leaves out $t (full tier)" ;;
            plain-only) echo "  leaves out $t (plain pass only)" ;;
            *) echo "  fails     $t (bad tags: $(choose "$t" "$TIER" $pass))" ;;
            esac
        done
        echo "  runs      tests/schema.sh"
    done
    exit 0
fi

[ $# = 2 ] || [ $# = 3 ] || usage
BUILD=${1%/}
RESULTS=$2
TIER=${3:-full}
case $TIER in quick | full) ;; *) usage ;; esac
if [ "${FL_SANITIZED:-}" = 1 ]; then PASS=asan; else PASS=plain; fi
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
# now_ms: the time in milliseconds; seconds MS_SINCE: the seconds since, to a tenth
now_ms() { echo $(($(date +%s%N) / 1000000)); }
seconds() {
    _ms=$(($(now_ms) - $1))
    echo "$((_ms / 1000)).$((_ms % 1000 / 100))"
}
# timed NAME SECONDS: the line tests/summary.sh ranks the slowest by
timed() { echo "time $PASS $2 $1" >> "$RESULTS"; }
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

echo "== unit tests ($BUILD, $PASS pass)"
found=no
for t in "$BUILD"/tests/test_*; do
    [ -f "$t" ] && [ -x "$t" ] || continue
    found=yes
    started=$(now_ms)
    { "$t" 2>&1; echo $? > "$TMP/code"; } | tee "$TMP/log"
    code=$(cat "$TMP/code")
    took=$(seconds "$started")
    echo "-- $t: exit $code after $took s"
    timed "$t" "$took"
    parse_cmocka "$TMP/log" "$t" "$code" > "$TMP/results"
    while read -r kind name; do
        case $kind in fail) echo "FAIL $name" >&2 ;; esac
        record "$kind" "$name"
    done < "$TMP/results"
done
[ $found = yes ] || { echo "FAIL no unit test binaries in $BUILD/tests" >&2; record fail "$BUILD/tests/test_*" "no unit test binaries"; }

# run_script SCRIPT [ARG...]: runs one test script and records it.  What it
# says of a failure goes to a file of its own (FL_SAID, tests/lib.sh: said);
# its output goes straight to ours, not through a pipe that a daemon it
# left behind could hold open.
run_script() {
    echo "-- $1"
    started=$(now_ms)
    : > "$TMP/said"
    FL_SAID=$TMP/said FAULTLINE=$ABS_BUILD/faultline sh "$@"
    code=$?
    took=$(seconds "$started")
    timed "$1" "$took"
    took="$took s"
    echo "-- $1: exit $code after $took"
    case $code in
    0) record pass "$1" "$took" ;;
    77) record skip "$1" "$took" ;;
    *)
        echo "FAIL $1: exit $code" >&2
        record fail "$1" "exit $code after $took"
        sh tests/summary.sh --said "$1" "$TMP/said" >> "$RESULTS"
        ;;
    esac
}

echo "== CLI and lab tests ($BUILD, $PASS pass, $TIER tier)"
# Every report.json a script's runs wrote is kept here (tests/lib.sh,
# collect_reports) for tests/schema.sh, run last on them.
FL_REPORTS_DIR=$ABS_BUILD/reports
rm -rf "$FL_REPORTS_DIR" && mkdir -p "$FL_REPORTS_DIR" || exit 2
export FL_REPORTS_DIR
not_tier="" plain_only=""
for t in tests/cli/*.sh tests/lab/*.sh; do
    [ -f "$t" ] || continue
    what=$(choose "$t" "$TIER" "$PASS")
    case $what in
    run) run_script "$t" ;;
    other-tier) not_tier="$not_tier $t" ;;
    plain-only) plain_only="$plain_only $t" ;;
    *)
        set -- $what
        echo "FAIL $t: '# tier: $2', '# passes: $3': a tier is quick or full, passes plain or both" >&2
        record fail "$t" "bad tags: tier $2, passes $3"
        ;;
    esac
done
[ -z "$not_tier" ] || echo "-- not in the quick tier (make check-full runs them):$not_tier"
[ -z "$plain_only" ] || echo "-- plain pass only, not run under the sanitizers:$plain_only"
# The collected reports against docs/*.schema.json.
run_script tests/schema.sh "$FL_REPORTS_DIR"
exit $failed
