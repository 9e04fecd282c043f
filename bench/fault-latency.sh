#!/bin/sh
# bench/fault-latency.sh — how exactly faults land on their schedule.
#
# On the iSCSI lab, under a verified workload through ctrl-a, faults bounce
# ctrl-b's switch port (port-flap) and its interface (link-down) hundreds of
# times; every injection's delay from its scheduled time to the netlink
# change being made is measured by the timeline (report.json fault_timing,
# one value per injection).  Goal: p99 under 1 ms.
#
# Environment: BOUNCES (400), FAULTLINE (./faultline)
set -eu
BOUNCES=${BOUNCES:-400}
FAULTLINE=${FAULTLINE:-$(pwd)/faultline}
command -v jq > /dev/null || { echo "bench: jq is missing; run make deps" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "bench: the lab needs root" >&2; exit 2; }
WORK=$(mktemp -d /tmp/fl-bench-faults-XXXXXX)
FAULTLINE_LAB_PREFIX=fl$(od -An -N2 -tx2 /dev/urandom | tr -d ' ')
export FAULTLINE_LAB_PREFIX
cleanup() {
    "$FAULTLINE" lab down iscsi > /dev/null 2>&1 || true
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

PERIOD_MS=25
SECS=$((BOUNCES * PERIOD_MS / 1000 + 3))
cat > "$WORK/latency.scn" <<EOS
[scenario]
name = fault-latency
duration = ${SECS}s
lab = iscsi
[target]
kind = iscsi
[workload]
depth = 8
[fault flap]
action = port-flap
host = ctrl-b
at = 1s
count = $BOUNCES
period = ${PERIOD_MS}ms
EOS
i=0
while [ $i -lt 20 ]; do # and 20 link-downs of ctrl-b's own interface
    printf '[fault link%d]\naction = link-down\nhost = ctrl-b\nat = %dms\nduration = 50ms\n' \
        $i $((1010 + i * PERIOD_MS * BOUNCES / 20 + 7)) >> "$WORK/latency.scn"
    i=$((i + 1))
done
echo "bench: $BOUNCES port bounces and 20 link-downs on the iSCSI lab under a verified workload"
"$FAULTLINE" run "$WORK/latency.scn" --out "$WORK/run" --quiet > /dev/null || true
R=$WORK/run/report.json
jq -r '"verdict \(.verdict); \(.io.iops | floor) IOPS during the faults"' "$R"
jq -r '.fault_timing | "injections \(.injections): scheduled -> applied p50 \(.p50_ms) ms, p99 \(.p99_ms) ms, max \(.max_ms) ms"' "$R"
jq -e '.fault_timing.p99_ms < 1' "$R" > /dev/null && echo "goal p99 < 1 ms: met" || { echo "goal p99 < 1 ms: NOT met"; exit 1; }
