/*
 * lab_ceph — the CephFS lab: three servers, each a monitor and an OSD, two
 * metadata servers (one active, one standby), a manager, a filesystem with
 * replicated pools of size 3, a FUSE client.
 *
 *   switch      P-csw               switch ports  P-csw-c, P-csw-1..3
 *   client      P-ccli              198.18.X.1/24, the ceph-fuse mount
 *   cs1..cs3    namespace P-ceph-csN, eth0 198.18.X.2N/24, hostname csN:
 *               mon.csN and osd.(N-1) (bluestore on a sparse file of
 *               [lab] size); mds.cs1 (started first: the active one) and
 *               mds.cs2 (the standby); mgr.cs1
 *   disks       LAB/csN.img (xfs, [lab] size + 2 GiB: every daemon's
 *               store), mounted on LAB/csN in the server only, reached
 *               through its disk layer LAB/disk-csN/disk (lab_disk.h)
 *               unless [lab] disk_faults = no
 *   pools       P-meta and P-data, 16 placement groups each, size 3,
 *               min_size 2; the filesystem P-fs over them
 *   files       LAB_DATA_DIR/P-ceph: ceph.conf, ceph.keyring (every
 *               entity's key, imported by the monitors' mkfs), csN/ (each
 *               server's daemons' data), log/, run/ (admin sockets)
 *   mount       LAB_DATA_DIR/P-ceph/mnt (ceph-fuse as client.admin)
 *
 * A server boots as a machine of its own before its first daemon
 * (lab_server_boot): in the host's network namespace, a mount, UTS and PID
 * namespace of its own with the host's name as hostname (a daemon places
 * itself in the cluster's map under it: each OSD under its own CRUSH host,
 * so that size-3 pools find three hosts), its disk mounted and a /etc/ceph
 * of its own that names the lab's cluster.  Every daemon of that server,
 * its sshd, and the ceph CLI join its namespaces (proc_place.join), so a
 * session on csN runs `ceph -s` as on a real server and sees csN's
 * processes only.  Daemons run in the foreground (-f), so the PID recorded
 * is theirs; `lab down` kills every process of each server's network
 * namespace by PID.
 *
 * For faults, a server's processes are its monitor (the default, or
 * process = mon), osd, mds (cs1, cs2) and mgr (cs1), each started again by
 * restart with whatever else of the server is missing; the client's is
 * ceph-fuse, mounted again.
 *
 * After faults the cluster recovers (the heal watch, heal.h): recover_s is
 * from a fault's clear until `ceph status` says HEALTH_OK with every
 * placement group active+clean.
 *
 * A server's OSD store is its replica (corrupt replica = csN, found in
 * the store by its bytes; scrub replica = csN, a deep scrub of the data
 * pool).  After the workload, the monitors' logs give the run's path
 * events: the MDS takeover, the monitors' beacon resets, and the OSDs'
 * bad copies met on a read (read-repair) or by a scrub (scrub-bad-copy,
 * scrub-errors), and the OSDs marked down, out and up (osd-down, osd-out,
 * osd-up).
 *
 * Its files, by job (lab_ceph.h):
 *
 *   lab_ceph.c          this: its [lab] keys, its tables (lab_kind.h)
 *   lab_ceph_daemons.c  the daemons of a server, its disk and its boot
 *   lab_ceph_serve.c    the ceph CLI, the monitors' logs, the mount
 *   lab_ceph_health.c   the cluster's view and waits, health, status
 *   lab_ceph_build.c    bringing it up
 *   lab_ceph_faults.c   restart, power, processes, replicas
 */
#include <stdbool.h>

#include "../storage/ceph.h"
#include "lab_ceph.h"
#include "lab_disk.h"

#define OPT(field) LAB_OPT(struct ceph_lab_opts, field)

static const struct key_def ceph_keys[] = {
    {"mds_beacon_grace", KEY_DURATION, "15s", NULL, OPT(mds_beacon_grace_ns), SECOND,
     3600 * SECOND, "ceph: how long the monitors wait for an MDS's beacon before they replace "
     "it with a standby (whole seconds)", 0},
    {"mds_beacon_interval", KEY_DURATION, "4s", NULL, OPT(mds_beacon_interval_ns), SECOND,
     3600 * SECOND, "ceph: how often an MDS sends the monitors a beacon (whole seconds)", 0},
    {"mon_tick_interval", KEY_DURATION, "5s", NULL, OPT(mon_tick_interval_ns), SECOND,
     3600 * SECOND, "ceph: how often a monitor checks its beacons and timers (whole seconds)",
     0},
    {"mds_beacon_mon_down_grace", KEY_DURATION, "60s", NULL, OPT(mds_beacon_mon_down_grace_ns),
     SECOND, 3600 * SECOND, "ceph: while the monitors' quorum is younger than this, they replace "
     "no MDS (whole seconds; a lab's quorum is seconds old, a cluster's in production days)", 0},
    {"standby_replay", KEY_BOOL, "no", NULL, OPT(standby_replay), 0, 0,
     "ceph: the standby MDS follows the active one's journal (standby-replay), for a quicker "
     "takeover", 0},
    {"osd_heartbeat_grace", KEY_DURATION, "20s", NULL, OPT(osd_heartbeat_grace_ns), SECOND,
     3600 * SECOND, "ceph: how long OSDs wait for a peer's heartbeat before they report it down "
     "(whole seconds)", 0},
    {"client_cache", KEY_BOOL, "yes", NULL, OPT(client_cache), 0, 0,
     "ceph: ceph-fuse keeps the data it read or wrote in a cache of its own (client_oc); no: "
     "every read goes to the OSDs, as a read by another client would", 0},
    {"client_mount_timeout", KEY_DURATION, "300s", NULL, OPT(client_mount_timeout_ns), SECOND,
     3600 * SECOND, "ceph: how long ceph-fuse waits for the cluster when it mounts (whole "
     "seconds)", 0},
    LAB_DISK_FAULTS_KEY(struct ceph_lab_opts, disk_faults, "yes"),
};

/* Bringing it up. */
static const struct lab_build ceph_build = {
    .default_size = 3ull << 30, /* sparse: bluestore wants room, uses little */
    .lay_out = ceph_lay_out,
    .start = ceph_start,
};

/* What it lends a run. */
static const struct lab_serve ceph_serve = {
    .place = ceph_place,
    .storage = &storage_ceph,
    .cli = ceph_run,
    .logs = ceph_logs,
    .address = ceph_address,
};

/* What faults reach. */
static const struct lab_faults ceph_faults = {
    .process = ceph_process,
    .restart = ceph_restart,
    .power = ceph_power,
    .replica = ceph_replica,
    .disk = ceph_disk,
};

/* Its health and status. */
static const struct lab_report ceph_report = {
    .healthy = ceph_healthy,
    .as_built = ceph_as_built,
    .status = ceph_status,
    .describe = ceph_describe,
};

const struct lab_kind lab_ceph = {
    .name = "ceph",
    .summary = "servers cs1, cs2, cs3 with a CephFS filesystem (3 monitors, 3 OSDs, an active "
               "and a standby MDS), mounted here with ceph-fuse",
    .keys = KEY_TABLE(ceph_keys),
    .serves = "files",
    .serves_what = "the embedded CephFS filesystem",
    .build = &ceph_build,
    .serve = &ceph_serve,
    .faults = &ceph_faults,
    .report = &ceph_report,
};
