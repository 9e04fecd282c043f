#!/bin/sh
# bench/scale.sh — the state map and the journal on a large target: memory
# at rest and at the peak, and how long verify takes to set up its sweep.
#
# The target is a sparse file of SIZE (default 256GiB) in DIR: nothing is
# allocated up front ([target] size is not given, so faultline takes the
# file as it is), and a short workload (SECONDS, default 3) writes only a
# few hundred MiB.  One worker (io_uring, O_DIRECT), so that one state map
# covers every block; a small journal_segment makes the run write several
# checkpoints of the whole map.
#
#   run     faultline run:    RSS once the workload runs (the map at rest,
#                             its pages touched so far), peak (VmHWM)
#   verify  faultline verify: RSS once the states are loaded (every page
#                             of the map read from state.bin), peak, the
#                             setup time (start until the sweep starts:
#                             reading state.bin, replaying the journal) and
#                             the sweep (which scans every block's state)
#
#   checkpoint  bench/checkpoint.c (against build/libfaultline.a, this
#               build only): how long one checkpoint of the map of SIZE
#               holds up its worker, and until it is synced and installed
#
# A run on a small target (64MiB) gives the process's own baseline; bytes
# per block are (peak - baseline) / blocks.  The figures are extrapolated
# linearly to 1 TiB and 100 TiB (the map is one array; loading it is one
# sequential read).  BASE=path/to/another/faultline measures that build
# the same way, for a comparison.
#
# Environment: SIZE (256GiB), SECONDS (3), DIR (a directory on a real
# filesystem; default a new one under /var/tmp), FAULTLINE (./faultline),
# BASE (none).  Needs /usr/bin/time (Debian package time) and jq.
set -eu

SIZE=${SIZE:-256GiB}
SECS=${SECONDS_PER_RUN:-${SECONDS:-3}}
FAULTLINE=${FAULTLINE:-./faultline}
BASE=${BASE:-}
for tool in /usr/bin/time jq truncate; do
    command -v $tool >/dev/null || { echo "bench: $tool is missing; run make deps" >&2; exit 2; }
done
WORK=$(mktemp -d "${DIR:-/var/tmp}/fl-bench-scale-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM

bytes_of() { # 256GiB -> bytes
    echo "$1" | awk '{
        n = $0 + 0; u = tolower($0); sub(/^[0-9.]+/, "", u); m = 1
        if (u ~ /^k/) m = 1024
        if (u ~ /^m/) m = 1048576
        if (u ~ /^g/) m = 1073741824
        if (u ~ /^t/) m = 1099511627776
        printf "%.0f\n", n * m }'
}

scenario() { # NAME TARGET [READ_PCT [SECONDS]]
    cat <<EOS
[scenario]
name = $1
duration = ${4:-$SECS}s
journal_segment = 256KiB
[target]
kind = file
path = $2
[workload]
block = 4KiB
read = ${3:-50}%
depth = 16
workers = 1
engine = io_uring
direct = yes
flush = 64
EOS
}

# VmRSS of the faultline under /usr/bin/time (pid $1), sampled every 0.1 s
# into $2 (kB, one per line) until it ends.
sample_rss() {
    while kill -0 "$1" 2>/dev/null; do
        child=$(cat /proc/"$1"/task/"$1"/children 2>/dev/null | awk '{ print $1 }')
        [ -n "$child" ] && awk '/^VmRSS:/ { print $2 }' /proc/"$child"/status 2>/dev/null
        sleep 0.1
    done > "$2"
}

# One build (label, binary), one target size: prints a result line
#   label blocks run_rest_kB run_peak_kB verify_rest_kB verify_peak_kB setup_s sweep_s
measure() {
    label=$1 bin=$2 size=$3
    d=$WORK/$label-$size
    mkdir -p "$d"
    truncate -s "$size" "$d/target.img"
    scenario "scale" "$d/target.img" > "$d/scale.scn"
    /usr/bin/time -f %M -o "$d/run.time" "$bin" run "$d/scale.scn" --out "$d/run" --quiet \
        > "$d/run.log" 2>&1 &
    tp=$!
    sample_rss $tp "$d/run.rss" &
    sp=$!
    rc=0
    wait $tp || rc=$?
    wait $sp || true
    [ $rc = 0 ] || { echo "bench: the run failed (exit $rc):" >&2; cat "$d/run.log" >&2; exit 1; }
    blocks=$(jq .target.blocks "$d/run/report.json" 2>/dev/null || echo null)
    writes=$(jq .io.writes "$d/run/report.json")
    ckpts=$(jq .journal.checkpoints "$d/run/report.json")
    [ "$blocks" != null ] || blocks=$(( $(bytes_of "$size") / 4096 ))
    # the RSS half-way through the workload: the map at rest
    run_rest=$(awk '{ v[NR] = $1 } END { print v[int(NR / 2) + 1] + 0 }' "$d/run.rss")
    start=$(date +%s.%N)
    /usr/bin/time -f %M -o "$d/verify.time" "$bin" verify "$d/run" 2>&1 >/dev/null |
        while IFS= read -r line; do
            printf '%s %s\n' "$(date +%s.%N)" "$line"
        done > "$d/verify.log" &
    wait $! || true
    vrc=$(jq -r .verdict "$d/run/report.json" 2>/dev/null || echo none)
    [ "$vrc" = pass ] || { echo "bench: verify did not pass ($vrc):" >&2; cat "$d/verify.log" >&2; exit 1; }
    ready=$(awk '/verifying/ { print $1; exit }' "$d/verify.log")
    setup=$(awk -v a="$start" -v b="$ready" 'BEGIN { printf "%.2f", b - a }')
    sweep=$(jq .io.seconds "$d/run/report.json")
    # A run that writes nothing: its sweep is the scan of every block's
    # state alone (no block to read).
    scenario "scan" "$d/target.img" 100 1 > "$d/scan.scn"
    "$bin" run "$d/scan.scn" --out "$d/scan" --quiet > "$d/scan.log" 2>&1 ||
        { cat "$d/scan.log" >&2; echo "bench: the read-only run failed" >&2; exit 1; }
    scan=$(jq .sweep.seconds "$d/scan/report.json")
    echo "$label $blocks $run_rest $(tail -n 1 "$d/run.time") $(tail -n 1 "$d/verify.time") $setup $sweep $writes $ckpts $scan"
    rm -rf "$d"
}

echo "bench: scale on $SIZE (sparse file in $WORK), ${SECS}s workloads" >&2
results=$WORK/results
: > "$results"
for build in "new:$FAULTLINE" ${BASE:+"base:$BASE"}; do
    label=${build%%:*} bin=${build#*:}
    measure "$label" "$bin" 64MiB >> "$results"
    measure "$label" "$bin" "$SIZE" >> "$results"
    sed "s/^/bench: raw /" "$results" | tail -n 2 >&2
done

# How long a checkpoint holds up its worker (this build).
if [ -f build/libfaultline.a ] && command -v cc >/dev/null; then
    cc -std=c11 -D_GNU_SOURCE -O2 bench/checkpoint.c build/libfaultline.a -luring -liscsi \
        -lnftables -lnl-route-3 -lnl-3 -lpthread -lm -ldl -o "$WORK/checkpoint"
    mkdir -p "$WORK/ck"
    "$WORK/checkpoint" "$WORK/ck" $(( $(bytes_of "$SIZE") / 4096 )) | awk '
        { n = $1; held = held sep sprintf("%.2f", $2); fin = fin sep sprintf("%.2f", $3); sep = ", " }
        END { printf "checkpoint of the map of %s blocks: the worker held %s s; synced and installed after %s s\n", n, held, fin }'
    rm -rf "$WORK/ck"
fi

# label blocks run_rest run_peak verify_peak setup sweep writes checkpoints scan (kB, s)
awk -v size="$SIZE" '
    function mib(kb) { return sprintf("%.1f MiB", kb / 1024) }
    function gib(b) {
        if (b >= 2^40) return sprintf("%.1f TiB", b / 2^40)
        if (b >= 2^30) return sprintf("%.1f GiB", b / 2^30)
        return sprintf("%.0f MiB", b / 2^20)
    }
    { if ($2 < 10000000) { base_run[$1] = $4; base_ver[$1] = $5; next }
      label = $1; n = $2
      printf "%s build, %s = %d blocks of 4 KiB; the map is %s at 2 bytes per block\n",
             label, size, n, mib(n * 2 / 1024)
      printf "  run     %d writes, %d checkpoints: RSS in the workload %s (the map'"'"'s pages written so far), peak %s (%.2f bytes per block over the %s of a 64 MiB run)\n",
             $8, $9, mib($3), mib($4), ($4 - base_run[label]) * 1024 / n, mib(base_run[label])
      printf "  verify  peak %s (%.2f bytes per block over the %s of a 64 MiB verify); setup %.2f s, sweep %.2f s (%d blocks read)\n",
             mib($5), ($5 - base_ver[label]) * 1024 / n, mib(base_ver[label]), $6, $7, $8
      printf "  sweep   of a run that wrote nothing (the scan of every block'"'"'s state alone): %.3f s\n", $10
      for (k = 1; k <= 2; k++) {
          t = k == 1 ? 2^40 : 100 * 2^40; m = t / 4096
          printf "  %-7s %.0f blocks: map %s; verify peak %s; setup %.0f s; sweep scan %.1f s (plus reading the written blocks)\n",
                 k == 1 ? "1 TiB" : "100 TiB", m, gib(m * 2),
                 gib(base_ver[label] * 1024 + ($5 - base_ver[label]) * 1024 / n * m),
                 $6 * m / n, $10 * m / n
      }
    }' "$results"
