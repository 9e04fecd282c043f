#!/bin/sh
# bench/all.sh — every ratio bench in turn, then one table of their
# measures: measure | faultline | peer | ratio | goal | spread | verdict.
#
#   vs-fio, files, meta, sweep, clients, iscsi, disk-layer, disk-lab   (BENCHES picks some)
#
# Each runs as alone (sh bench/NAME.sh), with BENCH_ROWS pointed at one file
# where bench/lib.sh's bench_row appends its measures; each prints its own
# rounds as they go.  bench/scale.sh and bench/fault-latency.sh are not
# ratio benches and are not run here (make bench-scale; sh
# bench/fault-latency.sh).  The table's header says when, on which kernel,
# how many CPUs and which commit (git describe --always --dirty, "unknown"
# outside git); BENCH_MARKDOWN=1 prints it once more as Markdown (for the
# README).
#
# Exit status: 1 a goal missed; else 2 a bench could not run (its row says
# "could not run"); else 3 a measure unjudged (spread over 15%); else 0.
#
# Environment: BENCHES, BENCH_MARKDOWN, and what the benches take: ROUNDS
# (5), SECONDS, BENCH_SMOKE (bench/lib.sh), FAULTLINE (./faultline)
set -eu
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

HERE=$(cd "$(dirname "$0")" && pwd)
BENCHES=${BENCHES:-vs-fio files meta sweep clients iscsi disk-layer disk-lab}
COMMIT=$(git -C "$HERE/.." describe --always --dirty 2> /dev/null || echo unknown)
ROWS=$BENCH_DIR/rows
: > "$ROWS"
missed=0 broken=0 unjudged=0
for b in $BENCHES; do
    [ -f "$HERE/$b.sh" ] || bench_fail "no bench/$b.sh"
    echo "=== bench/$b.sh ($(date -u +%H:%M:%S))"
    set +e
    BENCH_ROWS=$ROWS sh "$HERE/$b.sh"
    rc=$?
    set -e
    case $rc in
        0) ;;
        1) missed=1 ;;
        3) unjudged=1 ;;
        130 | 143) exit "$rc" ;;
        *)
            broken=1
            printf 'bench/%s.sh\t-\t-\t-\t-\t-\t-\tcould not run (exit %s)\n' "$b" "$rc" >> "$ROWS"
            ;;
    esac
done

smoke=
[ "$BENCH_SMOKE" != 1 ] || smoke=", BENCH_SMOKE=1"
echo
echo "faultline benchmarks, $(date -u '+%Y-%m-%d %H:%M UTC'), Linux $(uname -r), $(nproc) CPUs, commit $COMMIT, ROUNDS=$ROUNDS$smoke"
# The rows as cells: a figure with its unit, a spread with %.
cells() {
    awk -F'\t' 'BEGIN { OFS = "\t"; print "measure", "faultline", "peer", "ratio", "goal", "spread", "verdict" }
        { f = ($3 == "-") ? "-" : $3 " " $2; p = ($4 == "-") ? "-" : $4 " " $2
          s = ($7 == "-") ? "-" : $7 "%"; print $1, f, p, $5, $6, s, $8 }' "$ROWS"
}
cells | awk -F'\t' '{ for (i = 1; i <= NF; i++) { c[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) } }
    END { for (r = 1; r <= NR; r++) {
              line = ""
              for (i = 1; i < 7; i++) line = line sprintf("%-*s | ", w[i], c[r, i])
              print line c[r, 7]
              if (r == 1) { line = ""; for (i = 1; i <= 7; i++) { d = sprintf("%*s", w[i], ""); gsub(/ /, "-", d)
                                                                    line = line d (i < 7 ? "-+-" : "") }
                            print line } } }'
if [ "${BENCH_MARKDOWN:-0}" = 1 ]; then
    echo
    cells | awk -F'\t' '{ line = "|"; for (i = 1; i <= NF; i++) line = line " " $i " |"; print line
                          if (NR == 1) print "|---|---:|---:|---:|---|---:|---|" }'
fi

if [ "$missed" = 1 ]; then
    exit 1
elif [ "$broken" = 1 ]; then
    exit 2
elif [ "$unjudged" = 1 ]; then
    exit 3
fi
exit 0
