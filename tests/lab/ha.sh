# tier: full
# passes: both
# The HA lab end to end: n1 and n2 under Corosync and Pacemaker, up
# (twice), looked at from outside (each node its own hostname, its own
# /usr/sbin with fence_faultline in it and ours without, the group on n1,
# both online in crm_mon), the fence agent asked about a node as the
# fencer asks it; then ha-node-power-off as shipped: n1 powered off under
# the client's writes, fenced by n2 through the lab, the target started on
# n2 and the client back through the floating IP, with no acknowledged
# write lost, and the stall split by what the cluster logged; n1 back
# online afterwards, the group staying on n2; a planned switchover back to
# n1 (the group moves, the move's constraint is cleared); the cluster as a
# real one over ssh (its nodes' logs read through their sshd, the same
# failover split); then `lab down`, which
# leaves nothing: no namespace, link, process, mount, state or directory,
# and no file in our /dev/shm.
. "$(dirname "$0")/../lib.sh"

need_root "namespaces, mounts, corosync and pacemaker"
command -v corosync > /dev/null && command -v pacemakerd > /dev/null ||
    fail "corosync and pacemaker are not installed (make deps)"
lab_prefix
LABDIR=/var/lib/faultline/labs/$P-ha
SHM_BEFORE=$(ls /dev/shm | wc -l)

lab_pids() { for i in 1 2; do ip netns pids "$P-ha-n$i" 2>/dev/null || true; done; }
on_node() { _n=$1; shift; nsenter -t "$(ip netns pids "$P-ha-$_n" | head -n 1)" -a "$@"; }

start=$(date +%s)
expect_code 0 "$FAULTLINE" lab up ha
contains "$WORK/out" "lab is up"
echo "  lab up in $(($(date +%s) - start)) s"
expect_code 0 "$FAULTLINE" lab up ha
contains "$WORK/out" "lab was up already"
expect_code 0 "$FAULTLINE" lab status ha --json
S=$WORK/status.json
cp "$WORK/out" "$S"
json "$S" '[.hosts[] | .name]' '["client","n1","n2"]'
json "$S" .cluster.holder '"n1"'
json "$S" .cluster.fencing true
json "$S" .cluster.token_ms 3000
jq -r .cluster.crm_mon "$S" | grep -q 'Online: \[ n1 n2 \]' || fail "not both online: $(jq -r .cluster.crm_mon "$S")"
# what the lab's processes hold in memory, for people
rss=0
for pid in $(lab_pids); do
    kb=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
    rss=$((rss + ${kb:-0}))
done
echo "  the nodes' processes hold $((rss / 1024)) MiB (VmRSS)"
for n in n1 n2; do
    [ "$(on_node $n hostname)" = $n ] || fail "$n has hostname $(on_node $n hostname)"
    on_node $n test -x /usr/sbin/fence_faultline || fail "$n has no fence_faultline"
    on_node $n grep -q " /var/lib/pacemaker " /proc/mounts || fail "$n has no /var/lib/pacemaker of its own"
done
[ ! -e /usr/sbin/fence_faultline ] || fail "fence_faultline is in our /usr/sbin"
# the fence agent as the fencer runs it: KEY=VALUE on stdin; on is 0
printf 'action=status\nplug=n1\n' | on_node n2 /usr/sbin/fence_faultline > "$WORK/fence" 2>&1 ||
    { cat "$WORK/fence" >&2; fail "fence_faultline status of n1 from n2"; }
on_node n2 /usr/sbin/fence_faultline -o metadata | grep -q '<resource-agent name="fence_faultline"' ||
    fail "fence_faultline gives no metadata"

# --- the holder powered off: fenced, failed over, nothing lost ---
expect_code 0 "$FAULTLINE" run "$(dirname "$0")/../../scenarios/ha/ha-node-power-off.scn" --out "$WORK/power"
R=$WORK/power/report.json
json "$R" .verdict '"pass"'
json "$R" '.faults[0].happened' true
json "$R" '[.faults[0].path_events[] | select(.event == "fence-done") | .portal] | unique' '["n1"]'
# the floating IP (the group's last) started on n2; n1, back, may start a
# fence device of its own in the window too
json "$R" '[.faults[0].path_events[] | select(.event == "rsc-started" and (.detail | startswith("start of vip "))) | .portal]' '["n2"]'
json "$R" '.faults[0].failover.noticed_by' '"member-lost"'
# each phase measured; they add up to the stall (to the report's rounding
# of the client's reconnect, polled every second)
json "$R" '.faults[0].failover | [.detection_s, .fencing_s, .start_s, .reconnect_s] | map(. != null and . >= 0) | all' true
json "$R" '(.faults[0].failover | .detection_s + .fencing_s + .start_s + .reconnect_s) - .faults[0].stall_s | fabs < 1.5' true
expect_code 0 "$FAULTLINE" lab status ha --json
cp "$WORK/out" "$S"
json "$S" .cluster.holder '"n2"'
i=0
until "$FAULTLINE" lab status ha --json | jq -r .cluster.crm_mon | grep -q 'Online: \[ n1 n2 \]'; do
    i=$((i + 1))
    [ $i -lt 60 ] || fail "n1 is not online again 30 s after the run"
    sleep 0.5
done

# --- a planned switchover back to n1: the group moves, nothing lost ---
cat > "$WORK/back.scn" <<EOS
[scenario]
name = ha-back
duration = 12s
lab = ha
hung_after = 30s
[target]
kind = iscsi
[workload]
block = 4KiB
depth = 4
flush = 64
[lab]
size = 64MiB
[fault back]
action = switchover
host = n2
to = n1
at = 2s
[expect]
lost_writes = 0
errors = 0
EOS
expect_code 0 "$FAULTLINE" run "$WORK/back.scn" --out "$WORK/back"
json "$WORK/back/report.json" '.faults[0].happened' true
json "$WORK/back/report.json" '[.faults[0].path_events[] | select(.event == "rsc-started" and (.detail | startswith("start of vip "))) | .portal]' '["n1"]'
expect_code 0 "$FAULTLINE" lab status ha --json
cp "$WORK/out" "$S"
json "$S" .cluster.holder '"n1"'
# the move's constraint is gone again
on_node n1 cibadmin -Q --scope constraints > "$WORK/constraints"
! grep -q cli- "$WORK/constraints" || fail "the switchover left its constraint: $(cat "$WORK/constraints")"

# --- the same cluster as a real one, over ssh: [cluster] kind = pacemaker,
# its nodes' logs read through their sshd ([host] cluster_logs), n1's
# power cut by a command as a BMC's would be ---
host_keys() {
    printf 'ssh = %s\nssh_identity = %s\nssh_known_hosts = %s\n' \
        "$(jq -r --arg h "$1" '.hosts[] | select(.name == $h) | .ssh' "$S")" \
        "$(jq -r --arg h "$1" '.hosts[] | select(.name == $h) | .ssh_identity' "$S")" \
        "$(jq -r --arg h "$1" '.hosts[] | select(.name == $h) | .ssh_known_hosts' "$S")"
    printf 'cluster_logs = /var/log/pacemaker/pacemaker.log, %s/%s/out/corosync.log\n' "$LABDIR" "$1"
}
{
    printf '[scenario]\nname = ha-over-ssh\nduration = 30s\nhung_after = 30s\n'
    printf '[target]\nkind = iscsi\nportals = %s\n' "$(jq -r .cluster.portal "$S")"
    printf '[workload]\nblock = 4KiB\ndepth = 4\nflush = 64\n'
    printf '[cluster]\nkind = pacemaker\nvia = n2\n'
    printf '[host n1]\n'; host_keys n1
    printf '[host n2]\n'; host_keys n2
    printf '[fault cut]\naction = command\nhost = local\nat = 3s\nduration = 20s\n'
    printf 'command = %s lab power ha n1 off --prefix %s\n' "$FAULTLINE" "$P"
    printf 'undo = %s lab power ha n1 on --prefix %s\n' "$FAULTLINE" "$P"
    printf '[expect]\nlost_writes = 0\nerrors = 0\n'
} > "$WORK/ssh.scn"
expect_code 0 "$FAULTLINE" run "$WORK/ssh.scn" --out "$WORK/ssh"
R=$WORK/ssh/report.json
json "$R" '.manifest.target.cluster.kind' '"pacemaker"'
json "$R" '[.faults[0].path_events[] | select(.event == "fence-done") | .portal] | unique' '["n1"]'
json "$R" '.faults[0].failover | [.detection_s, .fencing_s, .start_s] | map(. != null) | all' true

# --- lab down: nothing left ---
PIDS=$(lab_pids)
[ -n "$PIDS" ] || fail "no process of the lab found"
expect_code 0 "$FAULTLINE" lab down ha
contains "$WORK/out" "is down"
lab_nothing_left ha
! grep -q "$LABDIR" /proc/mounts || fail "mounts left: $(grep "$LABDIR" /proc/mounts)"
[ "$(ls /dev/shm | wc -l)" = "$SHM_BEFORE" ] || fail "files left in /dev/shm: $(ls /dev/shm)"
expect_code 0 "$FAULTLINE" lab down ha # twice is harmless
pass
