# tier: full
# A path that faultline gives up must never deliver its commands later.
# Controller A stops receiving from the client (a partition of its inbound
# traffic, so A itself notices nothing and keeps the connection open).
# With a NOP-Out every 100 ms and 18 missed allowed, the initiator gives
# the path up about 1.9 s in, while the partition still holds, and reissues
# what was in flight on controller B.  The WRITEs of the old connection
# still wait in the client's TCP send queue: if closing the connection let
# the kernel keep retransmitting them (the 15 s TCP user timeout lets it),
# the first retransmission after the partition is lifted at 2.5 s would
# reach A's open connection, and A would write old data over newer data
# written through B: a lost write of faultline's own making.  tcpdump
# inside A's namespace is the witness: after the loss, no segment with
# payload from the old connection may arrive at A.
. "$(dirname "$0")/../lib.sh"

iscsi_lab_up
NS_A=$(lab_host ctrl-a netns)
A=$(lab_host ctrl-a address)
CLIENT=$(lab_host client address)

cat > "$WORK/ghost.scn" <<EOS
[scenario]
name = ghost
duration = 8s
lab = iscsi
[target]
kind = iscsi               # the lab LUN through ctrl-a, then ctrl-b
nop_interval = 100ms
nop_missed = 18
command_timeout = 15s
tcp_user_timeout = 15s
[workload]
depth = 8
read = 30%
flush = 64
[fault a-deaf]
action = partition
host = ctrl-a
peers = client
direction = in
at = 2s
duration = 2500ms
EOS

# What reaches A's iSCSI port from the client with payload: the initiator's
# commands and data.
wire_start "$NS_A" eth0 "tcp and src host $CLIENT and dst host $A and dst port 3260 and $WIRE_PAYLOAD"

expect_code 0 "$FAULTLINE" run "$WORK/ghost.scn" --out "$WORK/run" -q
sleep 0.5
wire_stop
R=$WORK/run/report.json
E=$WORK/run/events.jsonl
wire_check 100
T0=$(jq .t0_wall "$R")
CLR=$(jq '.faults[0].cleared_at' "$R")
LOSS=$(jq -r --arg a "$A" 'select(.event == "loss" and (.portal | contains("//" + $a + ":"))) | .t' "$E" | head -n 1)
[ -n "$LOSS" ] || fail "the path through ctrl-a was never given up: $(cat "$E")"
awk -v l="$LOSS" -v c="$CLR" 'BEGIN { exit !(l < c) }' ||
    fail "the path was given up at $LOSS s, after the partition was lifted at $CLR s"

# The old connection: the client ports that sent to A before the loss.  Any
# of them sending payload later (50 ms for what was already on the wire) is
# a command that outlived the path.
awk -v t0="$T0" -v loss="$LOSS" '
    { t = $1 - t0; n = split($3, a, "."); port = a[n] }
    t < loss { old[port] = 1; before++; next }
    t >= loss + 0.05 && (port in old) { late++; if (!first) first = t }
    END { printf "%d %d %s\n", before, late, first }' "$WORK/wire.txt" > "$WORK/late.out"
read -r BEFORE LATE FIRST < "$WORK/late.out"
echo "  path given up at $LOSS s, partition lifted at $CLR s; segments to A before: $BEFORE, from the old connection afterwards: $LATE"
[ "$BEFORE" -gt 100 ] || fail "only $BEFORE segments reached A before the loss"
[ "$LATE" = 0 ] || fail "$LATE segments of the given-up connection reached A after the loss, the first at $FIRST s"
json "$R" .verdict '"pass"'
pass
