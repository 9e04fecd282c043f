# tier: full
# passes: plain
# A lab's power cut is silent, seen from outside faultline: tcpdump on the
# iSCSI lab's switch, while a run powers ctrl-a off with its sessions
# open.  Between the cut and power-on nothing from ctrl-a's address reaches
# the switch: no packet after the inject returned (its switch port went
# down first), and no FIN or RST at all (a killed tgtd's kernel closing its
# connections, which told the initiator at once when the cut was heard).
# Its sshd died with it and is back after power-on.
. "$(dirname "$0")/../lib.sh"

need_root "namespaces, tgtd and a capture on the lab's switch"
command -v tcpdump > /dev/null || fail "tcpdump is missing (make deps)"
FAULTLINE_LAB_PREFIX=${FL_TEST_LAB_PREFIX:-fl$(od -An -N2 -tx2 /dev/urandom | tr -d ' ')}
export FAULTLINE_LAB_PREFIX
P=$FAULTLINE_LAB_PREFIX
cap=""
stop_all() {
    [ -z "$cap" ] || kill "$cap" 2> /dev/null
    [ -z "$cap" ] || wait "$cap" 2> /dev/null
    "$FAULTLINE" lab down iscsi > /dev/null 2>&1
}
at_exit stop_all

expect_code 0 "$FAULTLINE" lab up iscsi
expect_code 0 "$FAULTLINE" lab status iscsi --json
cp "$WORK/out" "$WORK/status.json"
A=$(jq -r '.hosts[] | select(.name == "ctrl-a") | .address' "$WORK/status.json")
jq -e '.hosts[] | select(.name == "ctrl-a") | .ssh' "$WORK/status.json" > /dev/null ||
    fail "ctrl-a has no sshd in lab status"
[ -n "$A" ] || fail "lab status names no address of ctrl-a"

# Every packet from ctrl-a on the switch, with its time (Unix seconds).
tcpdump -i "$P-isw" -n -tt -l -U "src host $A" > "$WORK/capture.txt" 2> "$WORK/tcpdump.log" &
cap=$!
i=0
while ! grep -q "listening on" "$WORK/tcpdump.log" && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
grep -q "listening on" "$WORK/tcpdump.log" || { cat "$WORK/tcpdump.log" >&2; said_tail "$WORK/tcpdump.log"; fail "tcpdump did not start"; }

cat > "$WORK/cut.scn" <<EOF
[scenario]
name = silent-cut
duration = 10s
lab = iscsi
[target]
kind = iscsi
command_timeout = 5s
nop_interval = 1s
nop_missed = 3
[workload]
block = 4KiB
pattern = random
read = 50%
depth = 8
flush = 256
[fault power-a]
action = power-off
host = ctrl-a
at = 2s
power_on_after = 4s
EOF
"$FAULTLINE" run "$WORK/cut.scn" --out "$WORK/run" --quiet > "$WORK/run.log" 2>&1
R=$WORK/run/report.json
[ -f "$R" ] || { cat "$WORK/run.log" >&2; said_tail "$WORK/run.log"; fail "the run wrote no report"; }
sleep 1 # the capture's last lines
kill "$cap"
wait "$cap" 2> /dev/null
cap=""

json "$R" '[.faults[0].applied, (.faults[0].cleared_at != null)]' '[true,true]'
# the window: from the fault's time (at) to its power-on (at + 4 s, the
# earliest the clear may start); the port goes down first thing in the
# inject, and the inject has returned by injected_at
from=$(jq '.t0_wall + 2' "$R")
off=$(jq '.t0_wall + .faults[0].injected_at' "$R")
to=$(jq '.t0_wall + 6' "$R")
awk -v from="$from" -v off="$off" -v to="$to" '
    $1 + 0 >= from && $1 + 0 < to {
        if ($0 ~ /Flags \[[^]]*[FR][^]]*\]/) fin++
        if ($1 + 0 > off) late++
    }
    END { printf "%d %d\n", fin, late }' "$WORK/capture.txt" > "$WORK/counts"
read fin late < "$WORK/counts"
total=$(wc -l < "$WORK/capture.txt")
[ "$total" -gt 0 ] || fail "the capture saw nothing of ctrl-a at all: no test"
if [ "$fin" != 0 ] || [ "$late" != 0 ]; then
    awk -v from="$from" -v to="$to" '$1 + 0 >= from && $1 + 0 < to' "$WORK/capture.txt" | head -20 >&2
    fail "the cut was heard: $fin FIN or RST and $late packets from ctrl-a after it was off (between $off and $to)"
fi
echo "  $total packets of ctrl-a captured, none between the cut and power-on"
contains "$WORK/run/events.jsonl" "switch port $P-isw-a down"
grep -q "its sshd (pid [0-9]*) killed" "$WORK/run/events.jsonl" || fail "ctrl-a's sshd was not killed by the cut"
contains "$WORK/run/events.jsonl" "its sshd started again"
pass
