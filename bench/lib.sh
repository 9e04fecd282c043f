# bench/lib.sh — what every ratio bench shares; sourced (POSIX sh, set -eu)
# by vs-fio.sh, files.sh, meta.sh, sweep.sh, clients.sh, iscsi.sh,
# disk-layer.sh and disk-lab.sh.
#
# Rounds: ROUNDS (default 5).  Fewer than 5 are refused (exit 2) unless
# BENCH_SMOKE=1: a quick look that any ROUNDS >= 1 may give and whose every
# verdict is "smoke: not judged".  A round runs every tool once, always in
# the same order (round 1: A, B, ...; round 2: A, B, ...), so that each tool
# sees the same machine noise; each tool's figure of the round goes into a
# file of its own (bench_record), and the round prints one line.  What has
# to be made before anything is timed (a tree, a file's allocation, fio's
# file layout, a loop XFS) is made before the first round, the same for
# every tool; what each round times is up to the bench (mostly the whole
# command's wall clock).
#
# Per tool: the median of its rounds, min, max and spread = (max - min) /
# median, in percent.  Per measure, a faultline tool against a peer tool:
#   ratio   median(faultline) / median(peer)
#   spread  the largest of: faultline's spread, the peer's, and the spread
#           of the per-round ratios (faultline round i / peer round i;
#           min-max as a percentage of their median)
#   verdict met (ratio >= goal), missed (below), "unjudged (spread N% >
#           15%)" when the spread is over 15% (too wide to tell either way),
#           "report only" when the goal is "-", "smoke: not judged" under
#           BENCH_SMOKE=1.  The ratio is judged as shown, to two decimals.
# bench_row prints a measure's line; with BENCH_ROWS set it also appends a
# tab-separated line to that file (bench/all.sh gathers them into a table):
#   measure, unit, faultline median, peer median, ratio, goal (">= 1.2x"
#   or "-"), spread (percent, a number), verdict.
#
# Exit status of a bench (bench_exit): 0 every measure met (or report
# only, or smoke), 1 a goal missed, 3 nothing missed but a measure
# unjudged; 2 could not run (bench_fail, or any exit before bench_exit).
# shellcheck shell=sh
# shellcheck disable=SC2034,SC2046 # BENCH_XFS is for the benches; the
# statistics are split into words on purpose (set -- ... $(bench_stats F))

BENCH_SPREAD_MAX=15
BENCH_SMOKE=${BENCH_SMOKE:-0}
ROUNDS=${ROUNDS:-5}
case $ROUNDS in
    '' | *[!0-9]*) echo "bench: ROUNDS=$ROUNDS is not a count" >&2; exit 2 ;;
esac
if [ "$BENCH_SMOKE" = 1 ]; then
    [ "$ROUNDS" -ge 1 ] || { echo "bench: ROUNDS must be at least 1" >&2; exit 2; }
elif [ "$ROUNDS" -lt 5 ]; then
    echo "bench: ROUNDS=$ROUNDS: a median and a spread need at least 5 rounds" \
         "(BENCH_SMOKE=1 for a quick look that judges nothing)" >&2
    exit 2
fi
BENCH_MISSED=0
BENCH_UNJUDGED=0

# --- cleanup: commands run on exit, the last registered first -------------
BENCH_ATEXIT=
bench_atexit() { # COMMAND (a line of sh, eval'ed on exit)
    BENCH_ATEXIT="$1
$BENCH_ATEXIT"
}
bench_cleanup() {
    rc=$?
    set +e
    trap '' HUP INT PIPE TERM
    bench_ifs=$IFS
    IFS='
'
    set -f
    for bench_c in $BENCH_ATEXIT; do
        eval "$bench_c"
    done
    set +f
    IFS=$bench_ifs
    exit "$rc"
}
trap bench_cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 141' PIPE
trap 'exit 143' TERM

bench_fail() { # MESSAGE: could not run
    echo "bench: $*" >&2
    exit 2
}

bench_need() { # TOOL...: each must be installed
    for bench_t in "$@"; do
        command -v "$bench_t" > /dev/null || bench_fail "$bench_t is missing; run make deps"
    done
}

# bench_workdir BASE NAME: sets BENCH_WORKDIR to a new directory made by
# mktemp -d under BASE, removed on exit (never crossing into a filesystem
# still mounted there).  Not in $(...): the removal is registered here.
bench_workdir() {
    BENCH_WORKDIR=$(mktemp -d "$1/fl-bench-$2-XXXXXX") || bench_fail "cannot make a directory in $1"
    bench_atexit "rm -rf --one-file-system '$BENCH_WORKDIR'"
}

# bench_bytes SIZE: 256MiB, 1GiB, 4KiB or a plain count, in bytes.
bench_bytes() {
    echo "$1" | awk '{ n = $1 + 0; u = $1; sub(/^[0-9]+/, "", u)
        m = -1; if (u == "") m = 1; if (u == "KiB") m = 1024; if (u == "MiB") m = 1048576
        if (u == "GiB") m = 1073741824
        if (m < 0 || n <= 0) exit 1
        printf "%.0f\n", n * m }' || bench_fail "size $1: give a count of bytes, KiB, MiB or GiB"
}

bench_now() { date +%s.%N; }

# bench_rate COUNT T0 T1: COUNT per second between two bench_now.
bench_rate() { echo "$1 $2 $3" | awk '{ printf "%.10g\n", $1 / ($3 - $2) }'; }

# bench_xfs_loop DIR MIB: an XFS of MIB MiB on a loop device, its image made
# by mktemp in DIR (a bench_workdir), mounted on DIR/xfs, which BENCH_XFS is
# set to.  Unmounted, detached and removed on exit (not in $(...), as
# bench_workdir).  Needs root.
bench_xfs_loop() {
    [ "$(id -u)" = 0 ] || bench_fail "a loop device and a mount need root"
    bench_need mkfs.xfs losetup mount umount truncate
    bench_img=$(mktemp "$1/xfs-XXXXXX.img")
    truncate -s "$2M" "$bench_img"
    mkfs.xfs -q "$bench_img" > /dev/null || bench_fail "mkfs.xfs $bench_img failed"
    bench_dev=$(losetup -f --show "$bench_img") || bench_fail "losetup $bench_img failed"
    bench_atexit "losetup -d '$bench_dev'"
    mkdir "$1/xfs"
    mount -t xfs "$bench_dev" "$1/xfs" || bench_fail "cannot mount $bench_dev"
    # A tool still running there (the bench was stopped by a signal of its
    # own) may hold it a moment; lazily at last, and the loop device then
    # goes when its last user does (losetup -d of a busy device).
    bench_atexit "umount '$1/xfs' 2> /dev/null || { sleep 2; umount '$1/xfs'; } || umount -l '$1/xfs'"
    BENCH_XFS=$1/xfs
}

# --- rounds and statistics -------------------------------------------------
# bench_record TOOL VALUE: TOOL's figure of this round.
bench_record() {
    echo "$2" >> "$BENCH_DIR/tool.$1"
}

# bench_rounds FUNCTION: FUNCTION N for N = 1..ROUNDS; it runs every tool
# once, records each tool's figure and prints the round's line.
bench_rounds() {
    bench_n=1
    while [ "$bench_n" -le "$ROUNDS" ]; do
        "$1" "$bench_n"
        bench_n=$((bench_n + 1))
    done
}

# bench_best NEW TOOL...: NEW's figure of each round is the best (largest)
# of the TOOLs' figures of that round.
bench_best() {
    bench_new=$1
    shift
    bench_files=
    for bench_t in "$@"; do
        bench_files="$bench_files $BENCH_DIR/tool.$bench_t"
    done
    # shellcheck disable=SC2086 # one word per tool's file
    paste $bench_files | awk '{ b = $1; for (i = 2; i <= NF; i++) if ($i + 0 > b + 0) b = $i
                                print b }' > "$BENCH_DIR/tool.$bench_new"
}

# bench_stats FILE: "median min max spread%" of the figures in FILE.
bench_stats() {
    sort -g "$1" | awk '{ v[NR] = $1 } END {
        if (NR == 0) exit 1
        med = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        sp = (med > 0) ? 100 * (v[NR] - v[1]) / med : 0
        printf "%.10g %.10g %.10g %.1f\n", med, v[1], v[NR], sp
    }'
}

# bench_fmt VALUE: a figure as shown: whole numbers from 100 up, else three
# significant digits.
bench_fmt() {
    echo "$1" | awk '{ if ($1 == "-") print "-"; else if ($1 >= 100 || $1 <= -100) printf "%.0f\n", $1
                       else printf "%.3g\n", $1 }'
}

# bench_tool TOOL LABEL UNIT: prints TOOL's median, min, max and spread.
bench_tool() {
    set -- "$1" "$2" "$3" $(bench_stats "$BENCH_DIR/tool.$1")
    printf '  %s: median %s, min %s, max %s %s, spread %s%%\n' "$2" "$(bench_fmt "$4")" \
        "$(bench_fmt "$5")" "$(bench_fmt "$6")" "$3" "$7"
}

bench_judge() { # RATIO GOAL SPREAD: prints the verdict, counts it
    if [ "$BENCH_SMOKE" = 1 ]; then
        echo "smoke: not judged"
    elif [ "$2" = - ]; then
        echo "report only"
    elif awk -v s="$3" -v m="$BENCH_SPREAD_MAX" 'BEGIN { exit !(s > m) }'; then
        BENCH_UNJUDGED=1
        printf 'unjudged (spread %.0f%% > %s%%)\n' "$3" "$BENCH_SPREAD_MAX"
    elif awk -v r="$1" -v g="$2" 'BEGIN { exit !(sprintf("%.2f", r) + 0 >= g + 0) }'; then
        echo met
    else
        BENCH_MISSED=1
        echo missed
    fi
}

# bench_measure MEASURE UNIT FAULTLINE_TOOL PEER_TOOL GOAL: the ratio of the
# medians, the spread, the verdict, and the measure's row.  GOAL: the least
# ratio that meets it (1.2), or - for report only.
bench_measure() {
    set -- "$1" "$2" "$3" "$4" "$5" $(bench_stats "$BENCH_DIR/tool.$3") \
        $(bench_stats "$BENCH_DIR/tool.$4")
    # $6..$9 faultline's median min max spread, $10..$13 the peer's
    paste "$BENCH_DIR/tool.$3" "$BENCH_DIR/tool.$4" |
        awk '{ r = ($2 > 0) ? $1 / $2 : 0; print r }' > "$BENCH_DIR/ratio"
    bench_ratio=$(echo "$6 ${10}" | awk '{ r = ($2 > 0) ? $1 / $2 : 0; printf "%.4f\n", r }')
    bench_rsp=$(bench_stats "$BENCH_DIR/ratio" | cut -d' ' -f4)
    bench_sp=$(echo "$9 ${13} $bench_rsp" | awk '{ m = $1; if ($2 > m) m = $2; if ($3 > m) m = $3
                                                   print m }')
    # not in $(...): the verdict counts a miss or an unjudged measure
    bench_judge "$bench_ratio" "$5" "$bench_sp" > "$BENCH_DIR/verdict"
    bench_row "$1" "$2" "$6" "${10}" "$bench_ratio" "$5" "$bench_sp" "$(cat "$BENCH_DIR/verdict")"
}

# bench_report MEASURE UNIT TOOL: a figure with no peer, report only.
bench_report() {
    set -- "$1" "$2" $(bench_stats "$BENCH_DIR/tool.$3")
    bench_judge - - "$6" > "$BENCH_DIR/verdict"
    bench_row "$1" "$2" "$3" - - - "$6" "$(cat "$BENCH_DIR/verdict")"
}

# bench_row MEASURE UNIT FAULTLINE PEER RATIO GOAL SPREAD VERDICT: one
# human line; with BENCH_ROWS, one tab-separated line appended there.
# GOAL: a number (shown ">= GOALx") or -.  SPREAD: percent, a number.
bench_row() {
    case $6 in
        - | '>'*) bench_goal=$6 ;;
        *) bench_goal=">= ${6}x" ;;
    esac
    bench_r=$5
    [ "$bench_r" = - ] || bench_r=$(printf '%.2fx' "$bench_r")
    bench_g=$bench_goal
    [ "$bench_g" != - ] || bench_g="none"
    if [ "$4" = - ]; then
        printf '%s: faultline %s %s; spread %s%%: %s\n' "$1" "$(bench_fmt "$3")" "$2" "$7" "$8"
    else
        printf '%s: faultline %s %s, peer %s %s; ratio %s (goal %s), spread %s%%: %s\n' "$1" \
            "$(bench_fmt "$3")" "$2" "$(bench_fmt "$4")" "$2" "$bench_r" "$bench_g" "$7" "$8"
    fi
    [ -z "${BENCH_ROWS:-}" ] ||
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$(bench_fmt "$3")" \
            "$(bench_fmt "$4")" "$bench_r" "$bench_goal" "$7" "$8" >> "$BENCH_ROWS"
}

bench_exit() {
    if [ "$BENCH_MISSED" = 1 ]; then
        exit 1
    elif [ "$BENCH_UNJUDGED" = 1 ]; then
        exit 3
    fi
    exit 0
}

# BENCH_DIR: the rounds' figures, a directory of its own under TMPDIR
# (/tmp), removed on exit.
bench_workdir "${TMPDIR:-/tmp}" figures
BENCH_DIR=$BENCH_WORKDIR
