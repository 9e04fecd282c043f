# Adds up results files of tests/run.sh:
#
#   sh tests/summary.sh RESULTS_FILE...
#   -> the ten slowest tests of all the files, then
#   -> N passed, N failed, N skipped
#
# Then every failed test by name, with the results file it is in, and for a
# script what it said of its failure (tests/run.sh's "said" lines), so that a
# log cut short in the middle still says which one failed and why.
#
# The slowest come from the files' "time PASS SECONDS NAME" lines (every
# unit test binary and every script, in each pass: plain or asan), slowest
# first, with the time they all took together.  The last line counts the
# "pass", "fail" and "skip" lines; other tools read it, so it stays the last
# line and keeps its form.  A results file that does not exist counts as one
# failure (its pass never ran, e.g. its build failed); that is said on
# stderr.  Exit 1 when anything failed, 0 otherwise.
#
#   sh tests/summary.sh --said NAME FILE
#   -> "said NAME: LINE" lines for a failed script, from the lines it said
#      of its failure (FILE: tests/lib.sh's said and fail): its last 12,
#      each once, each cut at 300 characters.  tests/run.sh appends them
#      after the script's fail line.  A CI log is kept only in part (its
#      start and its end), so the end must say why, not only what, failed.
set -u

if [ "${1:-}" = --said ]; then
    [ $# = 3 ] || { echo "usage: sh tests/summary.sh --said NAME FILE" >&2; exit 2; }
    [ -r "$3" ] || { echo "summary: cannot read $3" >&2; exit 2; }
    awk '!seen[$0]++' "$3" | tail -n 12 |
        awk -v name="$2" '{ printf "said %s: %s\n", name, substr($0, 1, 300) }'
    exit 0
fi
[ $# -ge 1 ] || { echo "usage: sh tests/summary.sh RESULTS_FILE... | --said NAME FILE" >&2; exit 2; }
missing=0
for f in "$@"; do
    [ -f "$f" ] || { echo "summary: $f is missing: that pass did not run" >&2; missing=$((missing + 1)); }
done
ALL=$(mktemp "${TMPDIR:-/tmp}/fl-summary-XXXXXX") || exit 2
trap 'rm -f "$ALL"' EXIT
for f in "$@"; do [ ! -f "$f" ] || cat "$f"; done > "$ALL"
awk '$1 == "time" && NF >= 4 { n++; all += $3 }
    END { if (n) printf "== the ten slowest of %d timed tests (unit test binaries and scripts, %.0f s together)\n", n, all }' \
    "$ALL"
awk '$1 == "time" && NF >= 4 { printf "%8.1f s  %-5s  %s\n", $3, $2, $4 }' "$ALL" |
    sort -rn | head -n 10
for f in "$@"; do
    [ ! -f "$f" ] || awk -v from="$f" '
        $1 == "fail" { $1 = ""; sub(/^ /, ""); printf "== FAILED %s   (%s)\n", $0, from }
        $1 == "said" { sub(/^said /, ""); printf "   %s\n", $0 }' "$f"
done
awk -v missing="$missing" '
    $1 == "pass" { p++ }
    $1 == "fail" { f++ }
    $1 == "skip" { s++ }
    END {
        f += missing
        printf "%d passed, %d failed, %d skipped\n", p, f, s
        exit (f > 0)
    }' "$ALL"
code=$?
exit $code
