#!/bin/sh
# bench/iscsi.sh — faultline's iSCSI backend against iscsi-perf (libiscsi-bin)
# on the embedded lab LUN, in one run.
#
# 1. The LUN is first filled with faultline's stamped blocks (sequential
#    writes), so that every read below carries data whose checksums are
#    really computed.
# 2. Random 4 KiB reads, 8 in flight, SECONDS each, in turns:
#      iscsi-perf -r -m 8 -b <4 KiB in LUN blocks>   (reads, no checking)
#      faultline, read = 100%                        (every read verified)
#    The medians are compared: the cost of faultline's verification and
#    event loop against libiscsi's own load generator on the same target.
# 3. faultline's verified random read/write IOPS (50/50, a flush every 64
#    writes), the number users see in their reports.
# The IOPS of each are the tools' own: iscsi-perf's average, faultline's
# workload phase (report.json .io.iops).  Steps 2 and 3 take turns, ROUNDS
# times (bench/lib.sh).  Measures, report only (no goal): "random 4 KiB
# reads, iSCSI lab" (faultline / iscsi-perf) and "verified 50/50, iSCSI lab"
# (faultline alone).
#
# The lab gets a prefix of its own and is taken down on exit, also on failure.
# Environment: ROUNDS (5), SECONDS (5; or SECONDS_PER_RUN), FAULTLINE
# (./faultline), BENCH_SMOKE, BENCH_ROWS (bench/lib.sh)
# shellcheck disable=SC2317 # the rounds' functions are called through bench_rounds
set -eu
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC3028 # SECONDS: this bench's knob (sh does not count it)
SECS=${SECONDS_PER_RUN:-${SECONDS:-5}}
FAULTLINE=${FAULTLINE:-$(pwd)/faultline}
bench_need iscsi-perf iscsi-readcapacity16 jq
[ "$(id -u)" = 0 ] || bench_fail "the lab needs root"

bench_workdir /tmp iscsi
WORK=$BENCH_WORKDIR
FAULTLINE_LAB_PREFIX=fl$(od -An -N2 -tx2 /dev/urandom | tr -d ' ')
export FAULTLINE_LAB_PREFIX
bench_atexit "'$FAULTLINE' lab down iscsi > /dev/null 2>&1 || true"

"$FAULTLINE" lab up iscsi --size 128MiB > /dev/null
PORTAL=$("$FAULTLINE" lab status iscsi --json | jq -r '.portals[0]')
LBS=$(iscsi-readcapacity16 "$PORTAL" | sed -n 's/^LOGICAL BLOCK LENGTH IN BYTES://p')
BLOCKS=$((4096 / LBS))

scenario() { # name read% pattern duration
    cat > "$WORK/$1.scn" <<EOF
[scenario]
name = $1
duration = $4
journal = no
[target]
kind = iscsi
portals = $PORTAL
[workload]
block = 4KiB
depth = 8
read = $2
pattern = $3
flush = 64
EOF
}
scenario fill 0% sequential 6s
scenario reads 100% random "${SECS}s"
scenario mixed 50% random "${SECS}s"

run_faultline() { # name -> IOPS of the workload phase
    rm -rf "$WORK/run"
    "$FAULTLINE" run "$WORK/$1.scn" --out "$WORK/run" --quiet > /dev/null
    [ "$(jq -r .verdict "$WORK/run/report.json")" = pass ] || bench_fail "$1 failed"
    jq '.io.iops | floor' "$WORK/run/report.json"
}

run_perf() {
    timeout $((SECS + 20)) iscsi-perf -r -m 8 -b "$BLOCKS" -t "$SECS" "$PORTAL" 2>&1 |
        tr '\r' '\n' | sed -n 's/^ *iops average \([0-9]*\).*/\1/p' | tail -1
}

echo "bench: iSCSI lab LUN via $PORTAL ($LBS-byte sectors), 4 KiB, depth 8, $ROUNDS rounds of ${SECS}s"
echo "bench: $("$FAULTLINE" --version), libiscsi $(dpkg-query -W -f '${Version}' libiscsi-bin 2>/dev/null)"
run_faultline fill > /dev/null
round() {
    a=$(run_perf)
    [ -n "$a" ] || bench_fail "iscsi-perf printed no average"
    b=$(run_faultline reads)
    c=$(run_faultline mixed)
    bench_record perf "$a"; bench_record reads "$b"; bench_record mixed "$c"
    echo "round $1/$ROUNDS: iscsi-perf random reads $a IOPS, faultline verified random reads $b IOPS, faultline verified 50/50 read/write $c IOPS"
}
bench_rounds round
bench_tool perf "iscsi-perf random reads" IOPS
bench_tool reads "faultline verified random reads" IOPS
bench_tool mixed "faultline verified 50/50 read/write" IOPS
bench_measure "random 4 KiB reads, iSCSI lab" IOPS reads perf -
bench_report "verified 50/50, iSCSI lab" IOPS mixed
bench_exit
