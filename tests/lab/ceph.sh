# tier: quick
# The CephFS lab end to end: up (twice), looked at from outside (three
# monitors in one quorum, three OSDs each under its own server's hostname,
# each server's stores on an XFS disk of its own,
# one active and one standby MDS, the pools of size 3 and min_size 2, the
# FUSE mount storing a file), a files workload with a metadata stream while
# the active MDS is killed: the standby takes over (the takeover reported,
# from the monitors' log, as path events of the fault), the verdict is
# pass, and the killed one comes back as the standby; then `lab down` — and
# nothing left behind: no namespace, link, process, mount, loop device,
# state file or directory.
#
# The lab's quorum is seconds old, and Ceph replaces no MDS while its
# quorum is younger than mds_beacon_mon_down_grace (60 s): the lab comes up
# with 10 s, as a production cluster's quorum is days old.
. "$(dirname "$0")/../lib.sh"

need_root "namespaces, mounts and the Ceph daemons"
command -v ceph-mon > /dev/null || fail "ceph-mon is missing (make deps installs it)"
lab_prefix
LABDIR=/var/lib/faultline/labs/$P-ceph

nothing_left() {
    lab_nothing_left ceph
    ! grep -q "$LABDIR" /proc/mounts || fail "mounts left: $(grep "$LABDIR" /proc/mounts)"
    ! losetup -a | grep -q "$LABDIR" || fail "loop devices left: $(losetup -a | grep "$LABDIR")"
}
# every process of the lab: the servers' (by network namespace) and ceph-fuse
lab_pids() {
    for i in 1 2 3; do ip netns pids "$P-ceph-cs$i" 2>/dev/null || true; done
    jq -r '.hosts[0].process.pid, .disks[].pid' "$WORK/status.json"
}
# the ceph CLI in the namespaces of cs1's monitor
ceph_cli() { nsenter -t "$CS1" -n -m -p ceph -c "$LABDIR/ceph.conf" --connect-timeout 20 "$@"; }

start=$(date +%s)
expect_code 0 "$FAULTLINE" lab up ceph --mds-beacon-mon-down-grace 10s
contains "$WORK/out" "lab is up"
echo "  lab up in $(($(date +%s) - start)) s"
expect_code 0 "$FAULTLINE" lab up ceph --mds-beacon-mon-down-grace 10s
contains "$WORK/out" "lab was up already"
expect_code 0 "$FAULTLINE" lab status ceph --json
cp "$WORK/out" "$WORK/status.json"
S=$WORK/status.json
json "$S" '[.hosts[] | .name]' '["client","cs1","cs2","cs3"]'
json "$S" '[.hosts[] | .process.state] | unique' '["running"]'
json "$S" '[.ceph.quorum, .ceph.osds, .ceph.osds_up, .ceph.osds_in]' '[3,3,3,3]'
json "$S" '[.ceph.mds_active, .ceph.mds_standby]' '["cs1",1]'
json "$S" '.ceph.pgs == .ceph.pgs_active_clean and .ceph.pgs >= 32' true
MNT=$(jq -r .ceph.mount "$S")
FS=$(jq -r .ceph.fs "$S")
CS1=$(jq -r '.hosts[1].process.pid' "$S")
# each server is a host of its own: its hostname, its OSD under it in the map
for i in 1 2 3; do
    pid=$(jq -r ".hosts[$i].process.pid" "$S")
    [ "$(nsenter -t "$pid" -u hostname)" = "cs$i" ] || fail "cs$i has hostname $(nsenter -t "$pid" -u hostname)"
    # its disk: an XFS of its own under every store, mounted in its
    # namespace only (what a power cut shuts down)
    [ "$(nsenter -t "$pid" -m -p findmnt -n -o FSTYPE "$LABDIR/cs$i")" = xfs ] ||
        fail "cs$i's stores are not on an XFS of its own: $(nsenter -t "$pid" -m -p findmnt -n "$LABDIR/cs$i")"
    # ... over its disk layer (faultline-disk, in our namespaces)
    losetup -j "$LABDIR/disk-cs$i/disk" | grep -q . || fail "cs$i's disk is not over its disk layer: $(losetup -a)"
    json "$S" ".disks[$((i - 1))] | [.name, .state, .mode]" "[\"cs$i\",\"running\",\"ok\"]"
    ! grep -q " $LABDIR/cs$i " /proc/mounts || fail "cs$i's disk is mounted in our namespace"
    for d in ceph-mon ceph-osd; do
        ip netns pids "$P-ceph-cs$i" | xargs -r ps -o comm= -p | grep -qx $d || fail "no $d on cs$i"
    done
done
ceph_cli osd tree -f json > "$WORK/tree"
json "$WORK/tree" '[.nodes[] | select(.type == "host") | .name] | sort' '["cs1","cs2","cs3"]'
json "$WORK/tree" '[.nodes[] | select(.type == "osd") | .status] | unique' '["up"]'
for pool in "$P-meta" "$P-data"; do
    [ "$(ceph_cli osd pool get "$pool" size)" = "size: 3" ] || fail "pool $pool is not of size 3"
    [ "$(ceph_cli osd pool get "$pool" min_size)" = "min_size: 2" ] || fail "pool $pool has not min_size 2"
done
# A session on cs1, over ssh as on a real server (the lab's keys from lab
# status): `ceph -s` works there as it is typed on a cluster's host, and
# the session sees cs1's processes only (its monitor, OSD, MDS, manager).
lab_ssh "$S" cs1 ceph -s > "$WORK/session" 2>&1 || { cat "$WORK/session" >&2; said_tail "$WORK/session"; fail "ceph -s in a session on cs1"; }
contains "$WORK/session" "mon: 3 daemons"
lab_ssh "$S" cs1 'hostname; ps -e -o pid=,comm=' > "$WORK/session" 2>&1 ||
    { cat "$WORK/session" >&2; said_tail "$WORK/session"; fail "no ps in a session on cs1"; }
[ "$(head -n 1 "$WORK/session")" = cs1 ] || fail "a session on cs1 runs on $(head -n 1 "$WORK/session")"
for d in ceph-mon ceph-osd ceph-mds ceph-mgr; do
    [ "$(awk -v d=$d '$2 == d' "$WORK/session" | wc -l)" = 1 ] ||
        fail "a session on cs1 sees $(awk -v d=$d '$2 == d' "$WORK/session" | wc -l) $d, its own only expected: $(cat "$WORK/session")"
done
others=$(sed 1d "$WORK/session" | awk '$2 !~ /^(faultline|ceph-mon|ceph-osd|ceph-mds|ceph-mgr|sshd|bash|sh|ps)$/')
[ -z "$others" ] || fail "a session on cs1 sees processes that are not the server's: $others"
grep -q " $MNT fuse.ceph-fuse " /proc/mounts || fail "the filesystem is not FUSE-mounted at $MNT"
echo hello > "$MNT/probe" && sync "$MNT/probe" && [ "$(cat "$MNT/probe")" = hello ] ||
    fail "the filesystem does not store a file"
rm "$MNT/probe"

# --- the active MDS killed under a files workload: cs2's takes over ---
cat > "$WORK/mds.scn" <<EOS
[scenario]
name = lab-mds
duration = 40s
lab = ceph
hung_after = 40s           # every I/O waits for the takeover (about 22 s)
[lab]
mds_beacon_mon_down_grace = 10s
[target]
kind = files
size = 2MiB
[workload]
class = small
procs = 2
flush = 16
metadata = 1
[fault mds]
action = kill
host = cs1
process = mds
at = 3s
restart_after = 32s        # well after cs2's is active (measured 21-22 s): back as the standby
EOS
expect_code 0 "$FAULTLINE" run "$WORK/mds.scn" --out "$WORK/run" -q
R=$WORK/run/report.json
json "$R" .verdict '"pass"'
json "$R" '[.manifest.target.kind, .manifest.target.fs_type]' '["files","fuse.ceph-fuse"]'
json "$R" '.manifest.target.lab.version | test("^ceph version 1[0-9]\\.")' true
json "$R" '.faults[0].detail | test("ceph-mds|mds")' true
json "$R" '.metadata.ops.create > 0' true
# the takeover, as the monitors logged it: cs2's MDS given rank 0, then
# active, both while the fault lasted
json "$R" '[.faults[0].path_events[] | select(.event | startswith("mds-")) | "\(.event) \(.portal | split(" ")[0])"]' \
    '["mds-assigned mds.cs2","mds-active mds.cs2"]'
took=$(jq '[.faults[0].path_events[] | select(.event == "mds-active")][0].t - .faults[0].injected_at' "$R")
# the names waited for the takeover: the metadata stall is at least most of it
json "$R" "(.faults[0].metadata_stall_s > $took - 5) and .metadata.max_stall_s >= .faults[0].metadata_stall_s" true
# the cluster recovered once cs1's MDS was back as the standby: HEALTH_OK
# with every placement group clean, asked every 2 s (recover_s)
json "$R" '.faults[0].recover_s >= 0 and .faults[0].heal_s == null' true
grep -F '"event":"recover"' "$WORK/run/events.jsonl" | grep -qF 'HEALTH_OK, every placement group active+clean' ||
    fail "no recover event saying the cluster is whole: $(grep -F '"event":"recover"' "$WORK/run/events.jsonl")"
echo "  mds kill: cs2 active $took s after the kill, metadata stall $(jq .faults[0].metadata_stall_s "$R") s, stall $(jq .faults[0].stall_s "$R") s, recovery $(jq .faults[0].recovery_s "$R") s, recovered $(jq .faults[0].recover_s "$R") s after the restart"
# the killed MDS is back, as the standby
expect_code 0 "$FAULTLINE" lab status ceph --json
cp "$WORK/out" "$WORK/status.json"
json "$S" '[.ceph.mds_active, .ceph.mds_standby]' '["cs2",1]'

# --- the lab as a real cluster ([cluster], no lab =): what storage/ceph.c
# asks over ssh on cs2 (its recovery, its description), in a short run ---
cat > "$WORK/cluster.scn" <<EOS
[scenario]
name = ceph-cluster
duration = 2s
[target]
kind = files
path = $MNT
size = 1MiB
[workload]
class = small
procs = 1
[host cs2]
ssh = $(jq -r '.hosts[2].ssh' "$S")
ssh_identity = $(jq -r '.hosts[2].ssh_identity' "$S")
ssh_known_hosts = $(jq -r '.hosts[2].ssh_known_hosts' "$S")
[cluster]
kind = ceph
via = cs2
EOS
expect_code 0 "$FAULTLINE" run "$WORK/cluster.scn" --out "$WORK/cluster" -q
R=$WORK/cluster/report.json
json "$R" '[.manifest.target.cluster.kind, (.manifest.target.cluster.via | startswith("on cs2 (ssh root@"))]' '["ceph",true]'
json "$R" '.manifest.target.cluster.version | test("^ceph version 1[0-9]\\.")' true
json "$R" '.manifest.target.cluster.fs' "\"$FS (metadata pool $P-meta)\""
json "$R" '.manifest.target.cluster.options.mds_beacon_mon_down_grace' '"10"'
json "$R" '.manifest.target.cluster | has("error")' false
grep -F '"event":"recover"' "$WORK/cluster/events.jsonl" | grep -qF 'HEALTH_OK, every placement group active+clean' ||
    fail "the [cluster] run has no recover event saying the cluster is whole: $(grep -F '"event":"recover"' "$WORK/cluster/events.jsonl")"

# --- lab down, with everything the servers started ---
PIDS=$(lab_pids)
expect_code 0 "$FAULTLINE" lab down ceph
contains "$WORK/out" "is down"
nothing_left
expect_code 0 "$FAULTLINE" lab down ceph # twice is harmless
pass
