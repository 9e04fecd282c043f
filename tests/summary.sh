# Adds up results files of tests/run.sh into one line:
#
#   sh tests/summary.sh RESULTS_FILE...
#   -> N passed, N failed, N skipped
#
# A results file that does not exist counts as one failure (its pass never
# ran, e.g. its build failed); that is said on stderr.  Exit 1 when anything
# failed, 0 otherwise.
set -u

[ $# -ge 1 ] || { echo "usage: sh tests/summary.sh RESULTS_FILE..." >&2; exit 2; }
missing=0
for f in "$@"; do
    [ -f "$f" ] || { echo "summary: $f is missing: that pass did not run" >&2; missing=$((missing + 1)); }
done
for f in "$@"; do [ ! -f "$f" ] || cat "$f"; done | awk -v missing="$missing" '
    $1 == "pass" { p++ }
    $1 == "fail" { f++ }
    $1 == "skip" { s++ }
    END {
        f += missing
        printf "%d passed, %d failed, %d skipped\n", p, f, s
        exit (f > 0)
    }'
