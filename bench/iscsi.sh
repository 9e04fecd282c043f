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
#
# The lab gets a prefix of its own and is taken down on exit, also on failure.
# Environment: ROUNDS (3), SECONDS_PER_RUN (5), FAULTLINE (./faultline)
set -eu

ROUNDS=${ROUNDS:-3}
SECS=${SECONDS_PER_RUN:-5}
FAULTLINE=${FAULTLINE:-$(pwd)/faultline}
for tool in iscsi-perf jq; do
    command -v $tool >/dev/null || { echo "bench: $tool is missing; run make deps" >&2; exit 2; }
done
[ "$(id -u)" = 0 ] || { echo "bench: the lab needs root" >&2; exit 2; }

WORK=$(mktemp -d /tmp/fl-bench-iscsi-XXXXXX)
FAULTLINE_LAB_PREFIX=fl$(od -An -N2 -tx2 /dev/urandom | tr -d ' ')
export FAULTLINE_LAB_PREFIX
cleanup() {
    "$FAULTLINE" lab down iscsi > /dev/null 2>&1 || true
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

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
    [ "$(jq -r .verdict "$WORK/run/report.json")" = pass ] || { echo "bench: $1 failed" >&2; exit 2; }
    jq '.io.iops | floor' "$WORK/run/report.json"
}

run_perf() {
    timeout $((SECS + 20)) iscsi-perf -r -m 8 -b "$BLOCKS" -t "$SECS" "$PORTAL" 2>&1 |
        tr '\r' '\n' | sed -n 's/^ *iops average \([0-9]*\).*/\1/p' | tail -1
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2)}'; }

echo "bench: iSCSI lab LUN via $PORTAL ($LBS-byte sectors), 4 KiB, depth 8, $ROUNDS rounds of ${SECS}s"
echo "bench: $("$FAULTLINE" --version), libiscsi $(dpkg-query -W -f '${Version}' libiscsi-bin 2>/dev/null)"
run_faultline fill > /dev/null
: > "$WORK/fl"; : > "$WORK/perf"; : > "$WORK/mixed"
i=1
while [ "$i" -le "$ROUNDS" ]; do
    a=$(run_perf)
    b=$(run_faultline reads)
    c=$(run_faultline mixed)
    echo "round $i: iscsi-perf random reads $a IOPS, faultline verified random reads $b IOPS, faultline verified 50/50 read/write $c IOPS"
    echo "$a" >> "$WORK/perf"; echo "$b" >> "$WORK/fl"; echo "$c" >> "$WORK/mixed"
    i=$((i + 1))
done
p=$(median < "$WORK/perf"); f=$(median < "$WORK/fl"); m=$(median < "$WORK/mixed")
echo "median: iscsi-perf $p, faultline reads $f, faultline 50/50 $m"
awk -v p="$p" -v f="$f" 'BEGIN { printf "ratio faultline / iscsi-perf (random reads) = %.2fx\n", f / p }'
