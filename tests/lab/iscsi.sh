# tier: quick
# The iSCSI lab end to end: up (twice), looked at from outside, a run through
# both controllers while the tgtd of the active one is killed (the workload
# fails over, the verdict stays pass, the path events are in the report),
# verify, a refused portal of another LUN, a run that brings the lab up and
# down by itself, one killed mid-run and cleaned up by `lab down` — and
# nothing left behind.  A per-run prefix keeps parallel runs apart.
. "$(dirname "$0")/../lib.sh"

need_root "namespaces and tgtd"
FAULTLINE_LAB_PREFIX=${FL_TEST_LAB_PREFIX:-fl$(od -An -N2 -tx2 /dev/urandom | tr -d ' ')}
export FAULTLINE_LAB_PREFIX
P=$FAULTLINE_LAB_PREFIX
lab_down() { "$FAULTLINE" lab down iscsi > /dev/null 2>&1; }
at_exit lab_down

# Nothing of this prefix exists: namespaces, links, running tgtd, files,
# tgtd's control sockets.
nothing_left() {
    lab_nothing_left iscsi
    for port in $CTLPORTS; do
        [ ! -e "/run/tgtd/socket.$port" ] || fail "tgtd socket $port left"
    done
}

expect_code 0 "$FAULTLINE" lab up iscsi
contains "$WORK/out" "lab is up"
expect_code 0 "$FAULTLINE" lab status iscsi --json
cp "$WORK/out" "$WORK/status.json"
S=$WORK/status.json
json "$S" '[.hosts[].name]' '["client","ctrl-a","ctrl-b"]'
json "$S" '[.hosts[] | select(.process) | .process.state]' '["running","running"]'
json "$S" '.portals | length' 2
json "$S" '.lun.write_cache' false
# no disk layer unless asked (disk_faults = yes: tests/lab/disk.sh)
json "$S" '[.disk_faults, (.disks | length)]' '[false,0]'
! grep -q " /var/lib/faultline/labs/$P-iscsi/disk-lun " /proc/mounts ||
    fail "a disk layer is mounted under the LUN of a lab with disk_faults = no"
PIDS=$(jq -r '.hosts[] | select(.process) | .process.pid' "$S" | tr '\n' ' ')
CTLPORTS=$(jq -r '.hosts[] | select(.process) | .process.control_port' "$S" | tr '\n' ' ')
PID_A=$(jq -r '.hosts[] | select(.name == "ctrl-a") | .process.pid' "$S")
PORTAL_A=$(jq -r '.portals[0]' "$S")
PORTAL_B=$(jq -r '.portals[1]' "$S")
ip netns list | grep -q "^$P-iscsi-ctrl-a" || fail "ip netns does not show $P-iscsi-ctrl-a"
ip -br link show "$P-isw" > /dev/null || fail "no switch $P-isw"
[ "$(cat "/sys/class/net/$P-isw-a/master/ifindex")" = "$(cat "/sys/class/net/$P-isw/ifindex")" ] \
    || fail "switch port $P-isw-a is not on the switch"

# Up again: harmless, nothing restarted.
expect_code 0 "$FAULTLINE" lab up iscsi
contains "$WORK/out" "lab was up already"
expect_code 0 "$FAULTLINE" lab status iscsi --json
json "$WORK/out" '[.hosts[] | select(.process) | .process.pid] | map(tostring) | join(" ")' \
    "\"$(echo $PIDS)\""

# An independent initiator sees one LUN behind both portals.
sa=$(iscsi-inq -e 1 -c 128 "$PORTAL_A" | tr -d ' ')
sb=$(iscsi-inq -e 1 -c 128 "$PORTAL_B" | tr -d ' ')
[ -n "$sa" ] && [ "$sa" = "$sb" ] || fail "serial numbers differ: '$sa' / '$sb'"
# ... and its standard INQUIRY (for the manifest of the run below)
inq_field() { iscsi-inq "$PORTAL_A" | sed -n "s/^$1://p" | sed 's/ *$//'; }
SERIAL=$(echo "$sa" | sed 's/.*\[\(.*\)\]$/\1/') # "UnitSerialNumber:[SERIAL]"
INQ="[\"$(inq_field Vendor)\",\"$(inq_field Product)\",\"$(inq_field Revision)\"]"

# A run through both controllers; the test kills the active controller's tgtd.
cat > "$WORK/failover.scn" <<EOS
[scenario]
name = failover
duration = 10s
lab = iscsi
[target]
kind = iscsi
[workload]
block = 4KiB
depth = 8
flush = 32
EOS
"$FAULTLINE" run "$WORK/failover.scn" --out "$WORK/run" --quiet --keep-lab > "$WORK/run.out" 2>&1 &
run=$!
sleep 3
kill -9 "$PID_A"
set +e
wait $run
code=$?
set -e
[ $code = 0 ] || { cat "$WORK/run.out"; said_tail "$WORK/run.out"; fail "the failover run exited $code"; }
R=$WORK/run/report.json
json "$R" .verdict '"pass"'
json "$R" .io.errors 0
# the manifest: the LUN as INQUIRY told iscsi-inq, tgt's version as tgtd and
# its package say it, the controllers as hosts
json "$R" '[.manifest.target.vendor, .manifest.target.product, .manifest.target.revision]' "$INQ"
json "$R" .manifest.target.serial "\"$SERIAL\""
json "$R" .manifest.versions.tgtd "\"$(tgtd --version | head -n 1)\""
case "$(dpkg-query -W -f '${Version}' tgt 2>/dev/null || echo "?")" in
"?" | *"$(jq -r .manifest.versions.tgtd "$R")"*) ;;
*) fail "manifest.versions.tgtd $(jq .manifest.versions.tgtd "$R") is not tgt's $(dpkg-query -W -f '${Version}' tgt)" ;;
esac
json "$R" '[.manifest.hosts[] | [.name, .via]]' '[["client","local"],["ctrl-a","netns"],["ctrl-b","netns"]]'
json "$R" '[.manifest.hosts[].kernel] | unique' "[\"$(uname -r)\"]"
json "$R" .manifest.target.lab.kind '"iscsi"'
json "$R" "[.path_events[] | select(.event == \"loss\") | .portal]" "[\"$PORTAL_A\"]"
json "$R" "[.path_events[] | select(.event == \"switch\") | .portal]" "[\"$PORTAL_A\",\"$PORTAL_B\"]"
json "$R" '[.path_events[] | select(.event == "loss") | .t > 2 and .t < 5] | all' true
json "$R" '.io.writes > 1000 and .sweep.reads > 1000' true
contains "$WORK/run/report.txt" "path events:"

# Who carried the I/O: ctrl-a's path until the kill, ctrl-b's after it
# (timeline.csv's path_N_ios, the paths named in report.json and in the
# legend of report.html's throughput plot).
HP_A=$(echo "$PORTAL_A" | sed 's|^iscsi://||; s|/.*||')
HP_B=$(echo "$PORTAL_B" | sed 's|^iscsi://||; s|/.*||')
json "$R" .paths "[\"ctrl-a $HP_A\",\"ctrl-b $HP_B\"]"
LOSS=$(jq '[.path_events[] | select(.event == "loss") | .t][0]' "$R")
T=$WORK/run/timeline.csv
head -1 "$T" | grep -q ',p99_latency_ms,path_0_ios,path_1_ios$' || fail "timeline.csv: $(head -1 "$T")"
awk -F, -v loss="$LOSS" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    { t = $col["t_s"]; a = $col["path_0_ios"]; b = $col["path_1_ios"] }
    $col["reads"] + $col["writes"] > 0 && t < loss - 0.3 {
        before++; if (a == 0 || b != 0) { print "t " t " (before the kill): path 0 " a ", path 1 " b; bad = 1 } }
    a + b > 0 && t > loss + 0.5 {
        after++; if (b == 0 || a != 0) { print "t " t " (after the kill): path 0 " a ", path 1 " b; bad = 1 } }
    END { if (before < 10 || after < 10) { print before + 0 " buckets before, " after + 0 " after"; bad = 1 }; exit bad }' \
    "$T" || fail "timeline.csv does not show ctrl-a carrying the I/O before the kill and ctrl-b after it"
contains "$WORK/run/report.html" "path 0: ctrl-a $HP_A"
contains "$WORK/run/report.html" "path 1: ctrl-b $HP_B"
grep -q '<polygon class="path" fill=' "$WORK/run/report.html" || fail "report.html colours no path"
# each path's key in its area's colour
for p in 0 1; do
    area=$(grep -o "<polygon class=\"path\" fill=\"#[0-9a-f]*\" points=\"[^\"]*\"><title>[^<]*over path $p," \
        "$WORK/run/report.html" | head -1 | sed 's/.*fill="\(#[0-9a-f]*\)".*/\1/')
    grep -q "style=\"background:$area\"></i>path $p: " "$WORK/run/report.html" \
        || fail "report.html: the key of path $p is not in its area's colour ($area)"
done
grep -q '"event":"loss"' "$WORK/run/events.jsonl" || fail "events.jsonl has no loss event"
# The hosts' resources over the run: both controllers' CPU and network,
# ctrl-a's traffic before its kill, ctrl-b's after the failover; the disk
# under the LUN image.
C=$WORK/run/resources.csv
for h in ctrl-a ctrl-b; do
    awk -F, -v h=$h '$2 == h && $3 == "cpu" && $5 == "busy_pct"' "$C" | grep -q . \
        || fail "no CPU of $h in resources.csv"
done
awk -F, '$2 == "ctrl-a" && $3 == "net" && $5 == "rx_bytes_per_s" && $6 > 1000 && $1 < 2' "$C" \
    | grep -q . || fail "ctrl-a received nothing before its kill: $(grep ctrl-a,net "$C" | head -5)"
awk -F, '$2 == "ctrl-b" && $3 == "net" && $5 == "tx_bytes_per_s" && $6 > 1000 && $1 > 6' "$C" \
    | grep -q . || fail "ctrl-b sent nothing after the failover: $(grep ctrl-b,net "$C" | tail -5)"
awk -F, '$2 == "client" && $3 == "disk" && $5 == "write_bytes_per_s"' "$C" | grep -q . \
    || fail "no disk under the lab's LUN image in resources.csv"
contains "$WORK/run/report.html" "<title>network per host over time</title>"
# the machine's CPU (% of all its CPUs) and the controllers' (% of one) on
# separate axes
contains "$WORK/run/report.html" "<title>CPU of this machine over time, % of all its CPUs</title>"
contains "$WORK/run/report.html" "<title>CPU of the processes of each lab host over time, % of one CPU</title>"

# verify through the lab: ctrl-a is dead, ctrl-b answers.
expect_code 0 "$FAULTLINE" verify "$WORK/run" --quiet
json "$R" .verdict '"pass"'
json "$R" '[.mode, .manifest.target.serial]' "[\"verify\",\"$SERIAL\"]"

# A lab with a dead controller is rebuilt by `lab up`.
kill -9 "$(jq -r '.hosts[] | select(.name == "ctrl-b") | .process.pid' "$S")"
expect_code 0 "$FAULTLINE" lab up iscsi
contains "$WORK/err" "rebuilding"
expect_code 0 "$FAULTLINE" lab status iscsi --json
cp "$WORK/out" "$S"
json "$S" '[.hosts[] | select(.process) | .process.state]' '["running","running"]'
PIDS="$PIDS $(jq -r '.hosts[] | select(.process) | .process.pid' "$S" | tr '\n' ' ')"
CTLPORTS="$CTLPORTS $(jq -r '.hosts[] | select(.process) | .process.control_port' "$S" | tr '\n' ' ')"

# A portal that leads to another LUN is refused.
tgtadm -C "$(jq -r '.hosts[] | select(.name == "ctrl-b") | .process.control_port' "$S")" \
    --lld iscsi --op update --mode logicalunit --tid 1 --lun 1 --params scsi_sn=SOMEOTHERLUN
printf '[target]\nkind = iscsi\nportals = %s, %s\n[scenario]\nduration = 1s\n' \
    "$(jq -r '.portals[0]' "$S")" "$(jq -r '.portals[1]' "$S")" > "$WORK/mismatch.scn"
expect_code 2 "$FAULTLINE" run "$WORK/mismatch.scn" --out "$WORK/mismatch" --quiet
contains "$WORK/err" "not a path to the same LUN"

# faultline killed during a run that brought the lab up: `lab down` cleans up.
expect_code 0 "$FAULTLINE" lab down iscsi
nothing_left
"$FAULTLINE" run "$WORK/failover.scn" --out "$WORK/killed" --quiet > /dev/null 2>&1 &
run=$!
i=0
while ! "$FAULTLINE" lab status iscsi > /dev/null 2>&1 && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
sleep 1
kill -9 $run
wait $run 2>/dev/null || true
expect_code 0 "$FAULTLINE" lab status iscsi --json
PIDS="$PIDS $(jq -r '.hosts[] | select(.process) | .process.pid' "$WORK/out" | tr '\n' ' ')"
CTLPORTS="$CTLPORTS $(jq -r '.hosts[] | select(.process) | .process.control_port' "$WORK/out" | tr '\n' ' ')"
expect_code 0 "$FAULTLINE" lab down iscsi
contains "$WORK/out" "is down"
nothing_left
expect_code 0 "$FAULTLINE" lab down iscsi # twice: harmless
contains "$WORK/out" "was not up"

# A run that brings the lab up takes it down again by itself.
sed 's/^duration = 10s/duration = 2s/' "$WORK/failover.scn" > "$WORK/short.scn"
expect_code 0 "$FAULTLINE" run "$WORK/short.scn" --out "$WORK/short" --quiet
json "$WORK/short/report.json" .verdict '"pass"'
expect_code 1 "$FAULTLINE" lab status iscsi
nothing_left
pass
