# tier: full
# The recovery numbers against an independent observer of the same storage:
# tcpdump on the client's interface records when controller A's answers
# (TCP segments with payload from port 3260) stop and start again while its
# switch port is down.  faultline's stall_s and first_io_after_clear_s must
# agree with the wire within one bucket plus 100 ms.  One path only (ctrl-a),
# so the I/O has to wait for that controller and no failover hides the gap.
# The wire can only stand for the I/O while that one connection lives: if
# faultline gave the path up (3 NOP-Outs unanswered, the default, is 3 s and
# TCP's backoff can stretch a 2.5 s outage past that) the answers that arrive
# later on the old connection are ones faultline no longer waits for.  So the
# scenario gives the path 10 missed NOP-Outs and 15 s for a command or for
# unacknowledged data (a grown retransmission timeout can make TCP's silence
# last 4.5 s), and the test checks that the path really was never lost.
. "$(dirname "$0")/../lib.sh"

iscsi_lab_up
PORTAL=$(jq -r '.portals[0]' "$WORK/lab.json")
A=$(lab_host ctrl-a address)
CLI=$(lab_host client interface)
BUCKET_MS=10

cat > "$WORK/observed.scn" <<EOS
[scenario]
name = observed
duration = 8s
lab = iscsi
bucket = ${BUCKET_MS}ms
[target]
kind = iscsi
portals = $PORTAL          # ctrl-a alone
nop_missed = 10
command_timeout = 15s
tcp_user_timeout = 15s
[workload]
depth = 8
[fault a-port]
action = port-down
host = ctrl-a
at = 3s
duration = 2500ms
EOS

# Segments with payload from ctrl-a's iSCSI port: its answers.
wire_start "" "$CLI" "tcp and src host $A and src port 3260 and $WIRE_PAYLOAD"

expect_code 0 "$FAULTLINE" run "$WORK/observed.scn" --out "$WORK/run" -q
sleep 0.5
wire_stop
R=$WORK/run/report.json
! grep -qF '"event":"loss"' "$WORK/run/events.jsonl" ||
    fail "the path was lost and reconnected, the wire no longer stands for the I/O: $(grep -F '"event":"loss"' "$WORK/run/events.jsonl")"
T0=$(jq .t0_wall "$R")
INJ=$(jq '.faults[0].injected_at' "$R")
CLR=$(jq '.faults[0].cleared_at' "$R")
STALL=$(jq '.faults[0].stall_s' "$R")
AFTER=$(jq '.faults[0].first_io_after_clear_s' "$R")
wire_check 1000

# The wire's view, in seconds since faultline's time zero.  An answer counts
# when TCP can hand it to the initiator: when it extends the bytes received
# in order on its connection (a segment behind a hole waits for the
# retransmission that fills it).  Then: the longest gap between such
# deliveries that overlaps the fault, and the first delivery after clear.
awk -v t0="$T0" -v inj="$INJ" -v clr="$CLR" '
    # (offsets pass 2^31: kept as "%.0f" text, never as %d or CONVFMT)
    function deliver(t) {
        if (n++ && prev <= clr && t >= inj && t - prev > gap) gap = t - prev
        if (t >= clr && first == "") first = t - clr
        prev = t
    }
    { t = $1 - t0; conn = $3 " " $5
      for (i = 6; i <= NF; i++) if ($i == "seq") break
      split($(i + 1), r, "[:,]")
      # Offsets from the first byte seen on each connection: sequence numbers wrap
      # at 2^32, a run moves far less than that on one connection.
      if (!(conn in base)) { base[conn] = r[1] + 0; next_[conn] = 0 }
      a = (r[1] - base[conn] + 4294967296) % 4294967296
      b = (r[2] - base[conn] + 4294967296) % 4294967296
      if (a > next_[conn]) { held[conn] = held[conn] sprintf(" %.0f:%.0f", a, b); next }
      if (b <= next_[conn]) next                # a retransmission of what came
      next_[conn] = b
      do {                                      # held segments now in order
          moved = 0; rest = ""
          m = split(held[conn], h, " ")
          for (k = 1; k <= m; k++) {
              split(h[k], q, ":")
              if (q[1] + 0 <= next_[conn]) { if (q[2] + 0 > next_[conn]) next_[conn] = q[2] + 0; moved = 1 }
              else rest = rest " " h[k]
          }
          held[conn] = rest
      } while (moved)
      deliver(t) }
    END { printf "%.6f %.6f\n", gap, first }' "$WORK/wire.txt" > "$WORK/wire.out"
read -r WGAP WFIRST < "$WORK/wire.out"
TOL=$(awk -v b=$BUCKET_MS 'BEGIN { print b / 1000 + 0.1 }')
echo "  stall: faultline $STALL s, wire $WGAP s; first I/O after clear: faultline $AFTER s, wire $WFIRST s (tolerance $TOL s)"
awk -v a="$STALL" -v b="$WGAP" -v t="$TOL" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 2 && d <= t) }' ||
    fail "stall_s $STALL s disagrees with the wire's $WGAP s"
awk -v a="$AFTER" -v b="$WFIRST" -v t="$TOL" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }' ||
    fail "first_io_after_clear_s $AFTER s disagrees with the wire's $WFIRST s"
pass
