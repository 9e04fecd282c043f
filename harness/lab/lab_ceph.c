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
 * scrub-errors).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../lib/clock.h"
#include "../../lib/fsutil.h"
#include "../../lib/proc.h"
#include "../../lib/units.h"
#include "../storage/ceph.h"
#include "lab_kind.h"
#include "lab_names.h"
#include "lab_record.h"
#include "lab_server.h"

#define NSERVERS 3
#define PG_NUM "16"
#define CLI_TIMEOUT_MS 30000
#define SECOND 1000000000ull

/* Its [lab] keys: what the outages of a Ceph cluster depend on. */
struct ceph_lab_opts {
    uint64_t mds_beacon_grace_ns, mds_beacon_interval_ns, mon_tick_interval_ns;
    uint64_t mds_beacon_mon_down_grace_ns, osd_heartbeat_grace_ns, client_mount_timeout_ns;
    bool standby_replay, client_cache;
};
_Static_assert(sizeof(struct ceph_lab_opts) <= LAB_OPTS_MAX, "ceph lab options");

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
};

#define NKEYS (sizeof ceph_keys / sizeof ceph_keys[0])

/* Its own names, from the prefix. */
struct ceph_lab {
    char fs[32], meta[32], data[32];
    char fsid[40];
    char conf[160], keyring[160], mount[160];
};
_Static_assert(sizeof(struct ceph_lab) <= LAB_PRIV_MAX, "ceph lab names");

static struct ceph_lab *priv(const struct lab *lab)
{
    return LAB_PRIV((struct lab *)lab, struct ceph_lab);
}

static const struct ceph_lab_opts *opts(const struct lab *lab)
{
    return LAB_OPTS(&lab->opts, const struct ceph_lab_opts);
}

static unsigned seconds(uint64_t ns)
{
    return (unsigned)(ns / SECOND);
}

/* --- the daemons of a server --- */

/* A daemon type: its program, and which servers (1..3) run one. */
struct daemon_type {
    const char *type; /* process = TYPE */
    const char *comm; /* its program, as /proc/PID/comm names it */
    unsigned on;      /* bit N: csN runs one */
};

static const struct daemon_type daemons[] = {
    {"mon", "ceph-mon", 0xe},
    {"mgr", "ceph-mgr", 0x2},
    {"osd", "ceph-osd", 0xe},
    {"mds", "ceph-mds", 0x6},
};
#define NDAEMONS (sizeof daemons / sizeof daemons[0])

static const struct daemon_type *daemon_of(const char *type)
{
    for (size_t i = 0; i < NDAEMONS; i++)
        if (strcmp(daemons[i].type, type) == 0)
            return &daemons[i];
    return NULL;
}

static unsigned server_no(const struct lab_host *h)
{
    return h->netns[0] && strncmp(h->name, "cs", 2) == 0 ? (unsigned)atoi(h->name + 2) : 0;
}

static bool runs(const struct daemon_type *d, const struct lab_host *h)
{
    unsigned n = server_no(h);
    return n >= 1 && n <= NSERVERS && (d->on >> n & 1);
}

/* The daemon's id: mon, mgr and mds by host name, the OSD by number. */
static void daemon_id(const struct daemon_type *d, const struct lab_host *h, char *out, size_t n)
{
    if (strcmp(d->type, "osd") == 0)
        snprintf(out, n, "%u", server_no(h) - 1);
    else
        snprintf(out, n, "%s", h->name);
}

/* A live process of host h whose program is `comm` (NULL: any Ceph
 * daemon, which has the server's own namespaces: not its sshd). */
struct find {
    const char *comm;
    pid_t pid;
    uint64_t start;
};

static int match(void *ctx, const struct proc_seen *p)
{
    struct find *f = ctx;
    bool ours = f->comm ? strcmp(p->comm, f->comm) == 0 : strncmp(p->comm, "ceph-", 5) == 0;
    if (!ours || proc_state(p->pid, p->start) != PROC_RUNNING)
        return 0;
    f->pid = p->pid;
    f->start = p->start;
    return 1;
}

static pid_t live_daemon(const struct lab_host *h, const char *comm, uint64_t *start)
{
    struct find f = {.comm = comm};
    if (h->netns[0])
        proc_each_in_netns(h->netns, match, &f);
    *start = f.start;
    return f.pid;
}

/* A server's disk: an XFS image of its own, HOME.img (room for the OSD's
 * sparse store of [lab] size and the other daemons' files), mounted on its
 * directory HOME inside the server's mount namespace only: it goes with
 * the server's last process, and a power cut shuts it down. */
#define DISK_EXTRA (2ull << 30)

static void disk_of(const struct lab_host *h, char *out, size_t n)
{
    snprintf(out, n, "%s.img", h->home);
}

/* Where a session on a server finds the cluster, as on a real one: the
 * lab's ceph.conf and keyring as /etc/ceph's (a /etc/ceph of the server's
 * own), so that `ceph -s` there needs no -c. */
static int etc_ceph(const char *dir)
{
    char link[256], to[256];
    if (mount("tmpfs", "/etc/ceph", "tmpfs", MS_NOSUID | MS_NODEV, "mode=755") != 0)
        return errno;
    static const char *const files[][2] = {{"ceph.conf", "ceph.conf"},
                                           {"ceph.client.admin.keyring", "ceph.keyring"}};
    for (size_t i = 0; i < 2; i++) {
        snprintf(link, sizeof link, "/etc/ceph/%s", files[i][0]);
        snprintf(to, sizeof to, "%s/%s", dir, files[i][1]);
        if (symlink(to, link) != 0)
            return errno;
    }
    return 0;
}

/* Runs in the mount namespace of a server that boots (lab_server_boot):
 * the server's disk mounted with a directory on it for each of its
 * daemons, and its /etc/ceph. */
struct boot_ctx {
    const struct lab *lab;
    const struct lab_host *h;
};

static int server_setup(void *ctx)
{
    const struct boot_ctx *b = ctx;
    const struct lab_host *h = b->h;
    char img[200], dir[256];
    disk_of(h, img, sizeof img);
    int e = lab_mount_image(img, h->home);
    if (e != 0 || (e = etc_ceph(b->lab->dir)) != 0)
        return e;
    for (size_t k = 0; k < NDAEMONS; k++) {
        snprintf(dir, sizeof dir, "%s/%s", h->home, daemons[k].type);
        if (runs(&daemons[k], h) && mkdir(dir, 0755) != 0 && errno != EEXIST)
            return errno;
    }
    return 0;
}

/* The server's disk image, made, and the directory it is mounted on. */
static int make_disk(const struct lab *lab, const struct lab_host *h, char *err, size_t errlen)
{
    char img[200], out[1024];
    disk_of(h, img, sizeof img);
    if (sparse_file(img, lab->opts.size + DISK_EXTRA, 0600, true, err, errlen) != 0)
        return -1;
    char *mkfs[] = {"mkfs.xfs", "-q", "-f", img, NULL};
    if (proc_run(mkfs, out, sizeof out, 60000) != 0) {
        snprintf(err, errlen, "mkfs.xfs %s failed: %s", img, out);
        return -1;
    }
    return mkdir_p(h->home, err, errlen);
}

/* Waits until no loop device holds h's disk any more (lab_image_let_go). */
static int disk_let_go(const struct lab_host *h, char *err, size_t errlen)
{
    char img[200];
    disk_of(h, img, sizeof img);
    return lab_image_let_go(img, err, errlen);
}

/* Where a daemon of h starts: in the server as it runs, or in one booted
 * anew when nothing of it is left (its first start, a power cut). */
static int place_of(const struct lab *lab, struct lab_host *h, int fd, struct proc_place *at,
                    char *err, size_t errlen)
{
    struct boot_ctx b = {.lab = lab, .h = h};
    if (!lab_server_up(h) && lab_server_boot(h, server_setup, &b, fd, err, errlen) != 0)
        return -1;
    lab_server_place(h, at);
    return 0;
}

/* Starts daemon d of h in the foreground; the monitor is the host's
 * service, its PID recorded. */
static int start_daemon(const struct lab *lab, struct lab_host *h, const struct daemon_type *d,
                        int fd, char *err, size_t errlen)
{
    char id[16], log[256];
    daemon_id(d, h, id, sizeof id);
    snprintf(log, sizeof log, "%s/log/%s.%s.out", lab->dir, d->type, id);
    char *argv[] = {(char *)d->comm, "-f", "-c", priv(lab)->conf, "-i", id, NULL};
    struct proc_place at;
    if (place_of(lab, h, fd, &at, err, errlen) != 0)
        return -1;
    pid_t pid;
    uint64_t start;
    if (proc_spawn_at(&at, argv, log, &pid, &start, err, errlen) != 0)
        return -1;
    if (strcmp(d->type, "mon") != 0)
        return 0;
    h->pid = pid;
    h->start = start;
    return lab_rec(fd, err, errlen, "pid %s %d %llu", h->name, (int)pid,
                   (unsigned long long)start);
}

/* Starts every daemon of server h that is not running, the monitor first
 * (the others ask it for their maps). */
static int run_missing(const struct lab *lab, struct lab_host *h, int fd, char *err,
                       size_t errlen)
{
    for (size_t i = 0; i < NDAEMONS; i++) {
        uint64_t start;
        if (!runs(&daemons[i], h) || live_daemon(h, daemons[i].comm, &start))
            continue;
        if (start_daemon(lab, h, &daemons[i], fd, err, errlen) != 0)
            return -1;
    }
    return 0;
}

/* --- the ceph CLI --- */

/* The namespaces of a live daemon of the lab, a monitor preferred; -1
 * with out saying none runs. */
static int live_place(const struct lab *lab, struct proc_place *at, char *out, size_t outlen)
{
    *at = (struct proc_place){0};
    for (int pass = 0; pass < 2 && !at->join; pass++)
        for (unsigned i = 1; i < lab->nhosts && !at->join; i++)
            at->join = live_daemon(&lab->hosts[i], pass ? NULL : "ceph-mon", &at->join_start);
    if (!at->join) {
        snprintf(out, outlen, "no Ceph daemon runs in the lab");
        return -1;
    }
    return 0;
}

/* Runs `ceph ARGS` in the namespaces of a live daemon of the lab (a
 * monitor preferred), so that it works while the client's cable is out.
 * Exit status, or -1; out holds the output or why it could not run. */
static int ceph_cli(const struct lab *lab, const char *const args[], char *out, size_t outlen,
                    int timeout_ms)
{
    struct proc_place at;
    if (live_place(lab, &at, out, outlen) != 0)
        return -1;
    char timeout[16];
    snprintf(timeout, sizeof timeout, "%d", timeout_ms / 2000 > 0 ? timeout_ms / 2000 : 1);
    char *argv[40];
    int n = 0;
    argv[n++] = "ceph";
    argv[n++] = "-c";
    argv[n++] = (char *)priv(lab)->conf;
    argv[n++] = "--connect-timeout";
    argv[n++] = timeout;
    for (int i = 0; args[i] && n < 39; i++)
        argv[n++] = (char *)args[i];
    argv[n] = NULL;
    return proc_run_at(&at, argv, out, outlen, timeout_ms);
}

/* The storage's CLI (lab_kind.cli): argv in the namespaces of a live
 * daemon of the lab (a monitor preferred), whose /etc/ceph names the
 * cluster, as on that server. */
static int ceph_run(const struct lab *lab, char *const argv[], char *out, size_t outlen,
                    int timeout_ms)
{
    struct proc_place at;
    if (live_place(lab, &at, out, outlen) != 0)
        return -1;
    return proc_run_at(&at, argv, out, outlen, timeout_ms);
}

/* A ceph command that must succeed; err names it and its output. */
static int cli_ok(const struct lab *lab, const char *const args[], char *err, size_t errlen)
{
    char out[2048];
    int rc = ceph_cli(lab, args, out, sizeof out, CLI_TIMEOUT_MS);
    if (rc == 0)
        return 0;
    size_t used = (size_t)snprintf(err, errlen, "ceph");
    for (int i = 0; args[i] && used < errlen; i++)
        used += (size_t)snprintf(err + used, errlen - used, " %s", args[i]);
    if (used < errlen)
        snprintf(err + used, errlen - used, " failed (%d): %.600s", rc, out);
    return -1;
}

/* What the cluster says of itself now (storage_ceph_view, through the
 * lab's CLI). */
static int cluster_view(const struct lab *lab, struct ceph_view *v, char *err, size_t errlen)
{
    struct storage st;
    lab_storage(lab, &st);
    return storage_ceph_view(&st, v, err, errlen);
}

/* What a wait waits for. */
typedef bool (*view_test)(const struct lab *lab, const struct ceph_view *v);

static bool quorum_formed(const struct lab *lab, const struct ceph_view *v)
{
    (void)lab;
    return v->quorum == NSERVERS;
}

static bool osds_up(const struct lab *lab, const struct ceph_view *v)
{
    (void)lab;
    return v->osds == NSERVERS && v->osds_up == NSERVERS && v->osds_in == NSERVERS;
}

static bool pgs_active(const struct lab *lab, const struct ceph_view *v)
{
    (void)lab;
    return v->pgs > 0 && v->pgs_active == v->pgs;
}

static bool mds_active(const struct lab *lab, const struct ceph_view *v)
{
    (void)lab;
    return v->active[0] != '\0';
}

static bool mds_ready(const struct lab *lab, const struct ceph_view *v)
{
    (void)lab;
    return v->active[0] != '\0' && v->mds_standby >= 1;
}

/* Waits (bounded) until test holds; err says what was seen last. */
static int wait_view(const struct lab *lab, view_test test, const char *what, unsigned secs,
                     char *err, size_t errlen)
{
    uint64_t until = mono_ns() + secs * SECOND;
    struct ceph_view v;
    char last[512] = "no answer";
    for (;;) {
        if (cluster_view(lab, &v, last, sizeof last) == 0) {
            if (test(lab, &v))
                return 0;
            snprintf(last, sizeof last, "quorum %u of %u (%s), OSDs %u up and %u in of %u, "
                     "placement groups %u active of %u, MDS active '%s' with %u standby, %s",
                     v.quorum, v.mons, v.quorum_names, v.osds_up, v.osds_in, v.osds,
                     v.pgs_active, v.pgs, v.active, v.mds_standby, v.health);
        }
        if (mono_ns() > until) {
            snprintf(err, errlen, "no %s within %u s: %s", what, secs, last);
            return -1;
        }
        lab_pause_ms(1000); /* each question starts the ceph CLI: 0.4 s of CPU */
    }
}

/* --- building it --- */

static void ceph_lay_out(struct lab *lab)
{
    const char *P = lab->prefix;
    struct ceph_lab *c = priv(lab);
    snprintf(lab->bridge, sizeof lab->bridge, "%s-csw", P);
    snprintf(c->fs, sizeof c->fs, "%s-fs", P);
    snprintf(c->meta, sizeof c->meta, "%s-meta", P);
    snprintf(c->data, sizeof c->data, "%s-data", P);
    snprintf(c->conf, sizeof c->conf, "%s/ceph.conf", lab->dir);
    snprintf(c->keyring, sizeof c->keyring, "%s/ceph.keyring", lab->dir);
    snprintf(c->mount, sizeof c->mount, "%s/mnt", lab->dir);
    /* The cluster's id follows from the prefix, like every other name. */
    uint32_t a = lab_hash(lab->dir), b = lab_hash(P);
    snprintf(c->fsid, sizeof c->fsid, "%08x-%04x-4%03x-8%03x-%08x%04x", a, b & 0xffff,
             (b >> 16) & 0xfff, a & 0xfff, b, a >> 16);
    lab->nhosts = 1 + NSERVERS;
    lab_lay_out_client(lab, "ccli");
    snprintf(lab->hosts[0].log, sizeof lab->hosts[0].log, "%s/log/client.out", lab->dir);
    snprintf(lab->hosts[0].service, sizeof lab->hosts[0].service, "ceph-fuse");
    for (unsigned i = 1; i <= NSERVERS; i++) {
        struct lab_host *h = &lab->hosts[i];
        char name[16], port[16];
        snprintf(name, sizeof name, "cs%u", i);
        snprintf(port, sizeof port, "%s-csw-%u", P, i);
        lab_lay_out_server(lab, h, name, port, 20 + i);
        snprintf(h->service, sizeof h->service, "ceph-mon");
        snprintf(h->home, sizeof h->home, "%s/cs%u", lab->dir, i);
        snprintf(h->log, sizeof h->log, "%s/log/mon.cs%u.out", lab->dir, i);
    }
}

static int write_conf(const struct lab *lab, char *err, size_t errlen)
{
    const struct ceph_lab *c = priv(lab);
    const struct ceph_lab_opts *o = opts(lab);
    FILE *f = file_create(c->conf, 0644, true, err, errlen);
    if (!f)
        return -1;
    fprintf(f, "# the CephFS lab %s (faultline lab up ceph)\n[global]\nfsid = %s\nmon_host = ",
            lab->prefix, c->fsid);
    for (unsigned i = 1; i <= NSERVERS; i++)
        fprintf(f, "%s[v2:%s:3300,v1:%s:6789]", i > 1 ? "," : "", lab->hosts[i].addr,
                lab->hosts[i].addr);
    fprintf(f,
            "\npublic_network = 198.18.%u.0/24\n"
            "auth_cluster_required = cephx\nauth_service_required = cephx\n"
            "auth_client_required = cephx\n"
            "keyring = %s\n"
            "ms_bind_ipv4 = true\nms_bind_ipv6 = false\n"
            "run_dir = %s/run\n"
            "admin_socket = %s/run/$cluster-$name.$pid.asok\n"
            "log_file = %s/log/$name.log\n"
            "mon_cluster_log_file = %s/log/$name.cluster.log\n"
            "osd_pool_default_size = 3\nosd_pool_default_min_size = 2\n"
            "osd_pool_default_pg_autoscale_mode = off\n"
            "mon_warn_on_insecure_global_id_reclaim_allowed = false\n"
            "mon_warn_on_pool_no_redundancy = false\n"
            /* the machine's own disk may be fuller than a cluster's should be */
            "mon_data_avail_warn = 1\nmon_data_avail_crit = 0\n"
            "mds_beacon_grace = %u\nmds_beacon_interval = %u\nmon_tick_interval = %u\n"
            "mds_beacon_mon_down_grace = %u\n"
            "osd_heartbeat_grace = %u\nclient_mount_timeout = %u\nclient_oc = %s\n"
            /* small enough for 2 cores and a few GiB */
            "osd_memory_target = 536870912\nbluestore_cache_autotune = false\n"
            "bluestore_cache_size = 134217728\nmds_cache_memory_limit = 134217728\n"
            "osd_objectstore = bluestore\nbluestore_block_create = true\n"
            "bluestore_block_size = %llu\n"
            /* Ceph takes a store file for a rotating disk and sleeps 0.1 s
             * between recovery operations on it; the lab's disk is shared
             * by three OSDs anyway, and recovery at a real disk's pace
             * would make every OSD scenario minutes long */
            "osd_recovery_sleep_hdd = 0\n"
            /* a deep scrub asked for (the scrub fault) starts at once and
             * on three placement groups at a time, not on one every few
             * seconds */
            "osd_scrub_backoff_ratio = 0\nosd_max_scrubs = 3\n"
            "[mon]\nmon_data = %s/$id/mon\n"
            "[mgr]\nmgr_data = %s/$id/mgr\n"
            "[mds]\nmds_data = %s/$id/mds\n",
            lab->subnet, c->keyring, lab->dir, lab->dir, lab->dir, lab->dir,
            seconds(o->mds_beacon_grace_ns), seconds(o->mds_beacon_interval_ns),
            seconds(o->mon_tick_interval_ns), seconds(o->mds_beacon_mon_down_grace_ns),
            seconds(o->osd_heartbeat_grace_ns), seconds(o->client_mount_timeout_ns),
            o->client_cache ? "true" : "false", (unsigned long long)lab->opts.size, lab->dir,
            lab->dir, lab->dir);
    for (unsigned i = 1; i <= NSERVERS; i++) {
        const struct lab_host *h = &lab->hosts[i];
        for (size_t k = 0; k < NDAEMONS; k++) {
            if (!runs(&daemons[k], h))
                continue;
            char id[16];
            daemon_id(&daemons[k], h, id, sizeof id);
            fprintf(f, "[%s.%s]\npublic_addr = %s\n", daemons[k].type, id, h->addr);
            if (strcmp(daemons[k].type, "osd") == 0)
                fprintf(f, "cluster_addr = %s\nosd_data = %s/osd\n", h->addr, h->home);
        }
    }
    if (fclose(f) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", c->conf, strerror(errno));
        return -1;
    }
    return 0;
}

/* Runs a Ceph tool that needs no cluster (files only); err names it. */
static int tool(char *const argv[], char *err, size_t errlen)
{
    char out[2048];
    int rc = proc_run(argv, out, sizeof out, 60000);
    if (rc == 0)
        return 0;
    proc_failed_text(argv, "", rc, out, err, errlen);
    return -1;
}

/* One keyring with every entity's key and capabilities: the monitors'
 * mkfs imports all of it, so no daemon needs a key of its own. */
static int make_keyring(const struct lab *lab, char *err, size_t errlen)
{
    char *k = (char *)priv(lab)->keyring;
    char *mon[] = {"ceph-authtool", "--create-keyring", k, "--gen-key", "-n", "mon.", "--cap",
                   "mon", "allow *", NULL};
    char *admin[] = {"ceph-authtool", k, "--gen-key", "-n", "client.admin", "--cap", "mon",
                     "allow *", "--cap", "osd", "allow *", "--cap", "mds", "allow *", "--cap",
                     "mgr", "allow *", NULL};
    if (tool(mon, err, errlen) != 0 || tool(admin, err, errlen) != 0)
        return -1;
    for (unsigned i = 1; i <= NSERVERS; i++) {
        const struct lab_host *h = &lab->hosts[i];
        char name[32];
        snprintf(name, sizeof name, "osd.%u", i - 1);
        char *osd[] = {"ceph-authtool", k, "--gen-key", "-n", name, "--cap", "mon",
                       "allow profile osd", "--cap", "mgr", "allow profile osd", "--cap", "osd",
                       "allow *", NULL};
        if (tool(osd, err, errlen) != 0)
            return -1;
        if (runs(daemon_of("mds"), h)) {
            snprintf(name, sizeof name, "mds.%s", h->name);
            char *mds[] = {"ceph-authtool", k, "--gen-key", "-n", name, "--cap", "mon",
                           "allow profile mds", "--cap", "mgr", "allow profile mds", "--cap",
                           "mds", "allow *", "--cap", "osd", "allow *", NULL};
            if (tool(mds, err, errlen) != 0)
                return -1;
        }
        if (runs(daemon_of("mgr"), h)) {
            snprintf(name, sizeof name, "mgr.%s", h->name);
            char *mgr[] = {"ceph-authtool", k, "--gen-key", "-n", name, "--cap", "mon",
                           "allow profile mgr", "--cap", "mds", "allow *", "--cap", "osd",
                           "allow *", NULL};
            if (tool(mgr, err, errlen) != 0)
                return -1;
        }
    }
    return 0;
}

/* The monitor map and each monitor's store. */
static int make_monitors(struct lab *lab, int fd, char *err, size_t errlen)
{
    const struct ceph_lab *c = priv(lab);
    char map[200], fsid[48];
    snprintf(map, sizeof map, "%s/monmap", lab->dir);
    snprintf(fsid, sizeof fsid, "%s", c->fsid);
    char addrs[NSERVERS][96];
    char *argv[8 + 3 * NSERVERS];
    int n = 0;
    argv[n++] = "monmaptool";
    argv[n++] = "--create";
    argv[n++] = "--fsid";
    argv[n++] = fsid;
    for (unsigned i = 1; i <= NSERVERS; i++) {
        const struct lab_host *h = &lab->hosts[i];
        snprintf(addrs[i - 1], sizeof addrs[0], "[v2:%s:3300,v1:%s:6789]", h->addr, h->addr);
        argv[n++] = "--addv";
        argv[n++] = (char *)h->name;
        argv[n++] = addrs[i - 1];
    }
    argv[n++] = map;
    argv[n] = NULL;
    if (tool(argv, err, errlen) != 0)
        return -1;
    /* each inside its server (booted here), where its disk is mounted */
    for (unsigned i = 1; i <= NSERVERS; i++) {
        struct lab_host *h = &lab->hosts[i];
        char *mkfs[] = {"ceph-mon", "--mkfs", "-c", (char *)c->conf, "-i", (char *)h->name,
                        "--monmap", map, "--keyring", (char *)c->keyring, NULL};
        struct proc_place at;
        if (place_of(lab, h, fd, &at, err, errlen) != 0)
            return -1;
        char out[2048];
        int rc = proc_run_at(&at, mkfs, out, sizeof out, 60000);
        if (rc != 0) {
            snprintf(err, errlen, "ceph-mon --mkfs -i %s failed (%d): %.600s", h->name, rc, out);
            return -1;
        }
    }
    return 0;
}

/* An OSD id for each server's store, and the store (bluestore on a sparse
 * file of [lab] size, made by mkfs); the monitors must be up. */
static int make_osd(const struct lab *lab, const struct lab_host *h, char *err, size_t errlen)
{
    char uuid[48] = "", id[16];
    FILE *u = fopen("/proc/sys/kernel/random/uuid", "r");
    if (!u || !fgets(uuid, sizeof uuid, u)) {
        snprintf(err, errlen, "cannot read a uuid from /proc/sys/kernel/random/uuid: %s",
                 strerror(errno));
        if (u)
            fclose(u);
        return -1;
    }
    fclose(u);
    uuid[strcspn(uuid, "\n")] = '\0';
    snprintf(id, sizeof id, "%u", server_no(h) - 1);
    const char *create[] = {"osd", "new", uuid, id, NULL};
    if (cli_ok(lab, create, err, errlen) != 0)
        return -1;
    /* in the server's namespaces (its disk, and osd/ on it: server_setup),
     * so that it reaches the monitors as the OSD will */
    struct proc_place at;
    lab_server_place(h, &at); /* up: its monitor runs */
    char *mkfs[] = {"ceph-osd", "-c", priv(lab)->conf, "-i", id, "--mkfs", "--osd-uuid", uuid,
                    NULL};
    char out[2048];
    int rc = proc_run_at(&at, mkfs, out, sizeof out, 120000);
    if (rc != 0) {
        snprintf(err, errlen, "ceph-osd -i %s --mkfs failed (%d): %.600s", id, rc, out);
        return -1;
    }
    return 0;
}

/* ceph-fuse of the client, in our namespace, in the foreground (the PID
 * recorded is the mount's process). */
static int mount_client(struct lab *lab, int fd, char *err, size_t errlen)
{
    const struct ceph_lab *c = priv(lab);
    struct lab_host *h = &lab->hosts[0];
    if (lab_rec(fd, err, errlen, "dir %s", c->mount) != 0 || mkdir_p(c->mount, err, errlen) != 0 ||
        lab_rec(fd, err, errlen, "mount %s", c->mount) != 0)
        return -1;
    char logf[200];
    snprintf(logf, sizeof logf, "%s/log/client.fuse.log", lab->dir);
    char *argv[] = {"ceph-fuse", "-f", "-c", (char *)c->conf, "-n", "client.admin",
                    "--log-file", logf, (char *)c->mount, NULL};
    struct proc_place here = {0};
    if (proc_spawn_at(&here, argv, h->log, &h->pid, &h->start, err, errlen) != 0 ||
        lab_rec(fd, err, errlen, "pid %s %d %llu", h->name, (int)h->pid,
                (unsigned long long)h->start) != 0)
        return -1;
    uint64_t until = mono_ns() + 60 * SECOND;
    for (;;) {
        struct stat a, b;
        char parent[200];
        snprintf(parent, sizeof parent, "%s/..", c->mount);
        if (stat(c->mount, &a) == 0 && stat(parent, &b) == 0 && a.st_dev != b.st_dev)
            return 0;
        if (proc_state(h->pid, h->start) != PROC_RUNNING) {
            snprintf(err, errlen, "ceph-fuse ended before %s was mounted (see %s and %s)",
                     c->mount, h->log, logf);
            return -1;
        }
        if (mono_ns() > until) {
            snprintf(err, errlen, "ceph-fuse has not mounted %s after 60 s (see %s and %s)",
                     c->mount, h->log, logf);
            return -1;
        }
        lab_pause_ms(100);
    }
}

static int ceph_start(struct lab *lab, int fd, char *err, size_t errlen)
{
    const struct ceph_lab *c = priv(lab);
    char path[200];
    static const char *const dirs[] = {"log", "run"};
    for (size_t i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", lab->dir, dirs[i]);
        if (mkdir_p(path, err, errlen) != 0)
            return -1;
    }
    for (unsigned i = 1; i <= NSERVERS; i++) {
        struct lab_host *h = &lab->hosts[i];
        if (lab_rec(fd, err, errlen, "nsprocs %s", h->netns) != 0 ||
            make_disk(lab, h, err, errlen) != 0)
            return -1;
    }
    if (write_conf(lab, err, errlen) != 0 || make_keyring(lab, err, errlen) != 0 ||
        make_monitors(lab, fd, err, errlen) != 0)
        return -1;
    for (unsigned i = 1; i <= NSERVERS; i++)
        if (start_daemon(lab, &lab->hosts[i], daemon_of("mon"), fd, err, errlen) != 0)
            return -1;
    if (wait_view(lab, quorum_formed, "quorum of the 3 monitors", 60, err, errlen) != 0)
        return -1;
    for (unsigned i = 1; i <= NSERVERS; i++) {
        struct lab_host *h = &lab->hosts[i];
        if (make_osd(lab, h, err, errlen) != 0 ||
            start_daemon(lab, h, daemon_of("osd"), fd, err, errlen) != 0)
            return -1;
    }
    if (start_daemon(lab, &lab->hosts[1], daemon_of("mgr"), fd, err, errlen) != 0 ||
        wait_view(lab, osds_up, "3 OSDs up and in", 90, err, errlen) != 0)
        return -1;
    const char *meta[] = {"osd", "pool", "create", c->meta, PG_NUM, PG_NUM, "replicated", NULL};
    const char *data[] = {"osd", "pool", "create", c->data, PG_NUM, PG_NUM, "replicated", NULL};
    const char *fs[] = {"fs", "new", c->fs, c->meta, c->data, NULL};
    const char *replay[] = {"fs", "set", c->fs, "allow_standby_replay", "true", NULL};
    if (cli_ok(lab, meta, err, errlen) != 0 || cli_ok(lab, data, err, errlen) != 0 ||
        cli_ok(lab, fs, err, errlen) != 0 ||
        (opts(lab)->standby_replay && cli_ok(lab, replay, err, errlen) != 0))
        return -1;
    /* cs1's MDS first, so that it is the active one and cs2's the standby */
    if (start_daemon(lab, &lab->hosts[1], daemon_of("mds"), fd, err, errlen) != 0 ||
        wait_view(lab, mds_active, "active MDS", 60, err, errlen) != 0 ||
        start_daemon(lab, &lab->hosts[2], daemon_of("mds"), fd, err, errlen) != 0 ||
        wait_view(lab, mds_ready, "standby MDS", 60, err, errlen) != 0 ||
        wait_view(lab, pgs_active, "active placement groups", 90, err, errlen) != 0)
        return -1;
    return mount_client(lab, fd, err, errlen);
}

/* --- what the monitors logged: their files, for the storage kind --- */

/* Each line of every monitor's log file mon.NAME.<which> ("log": its own,
 * "cluster.log": the cluster's), passed to fn with that monitor's server.
 * Each file is read: any monitor may have been down for a while. */
static void ceph_logs(const struct lab *lab, const char *which, storage_line_fn fn, void *ctx)
{
    for (unsigned i = 1; i <= NSERVERS; i++) {
        char path[256], line[1024];
        snprintf(path, sizeof path, "%s/log/mon.%s.%s", lab->dir, lab->hosts[i].name, which);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        while (fgets(line, sizeof line, f))
            fn(ctx, lab->hosts[i].name, line);
        fclose(f);
    }
}

/* "osd.N": the server whose OSD it is (csN+1). */
static void ceph_address(const struct lab *lab, const char *daemon, char *out, size_t n)
{
    unsigned osd;
    if (sscanf(daemon, "osd.%u", &osd) == 1 && osd + 1 <= NSERVERS)
        snprintf(out, n, "%s", lab->hosts[osd + 1].addr);
}

/* --- running it --- */

static int ceph_restart(struct lab *lab, struct lab_host *h, int fd, char *err, size_t errlen)
{
    if (!h->netns[0]) { /* the client: ceph-fuse mounted again */
        const char *mnt = priv(lab)->mount;
        if (umount2(mnt, MNT_DETACH) != 0 && errno != EINVAL) {
            snprintf(err, errlen, "cannot unmount %s: %s", mnt, strerror(errno));
            return -1;
        }
        return mount_client(lab, fd, err, errlen);
    }
    return run_missing(lab, h, fd, err, errlen);
}

/* power-off: every daemon of the server frozen, its disk's XFS shut down
 * without log flush, all killed; the disk's mount goes with the server's
 * mount namespace.  The disk is opened through /proc/HOLDER/root, a daemon
 * of that namespace.  power-on: once the loop device has let the image go,
 * every daemon of the server starts again, the first one mounting the
 * disk (XFS replays its log), the monitor first. */
static int ceph_power(struct lab *lab, struct lab_host *h, bool on, int fd, char *what,
                      size_t whatlen, char *err, size_t errlen)
{
    if (!h->netns[0] || lab_is_client_host(h)) {
        snprintf(err, errlen, "%s is not a server of the ceph lab (cs1, cs2, cs3)", h->name);
        return -1;
    }
    uint64_t t0 = mono_ns();
    if (!on) {
        uint64_t start = 0;
        pid_t holder = live_daemon(h, NULL, &start); /* before the freeze */
        unsigned frozen = lab_freeze_all_in(h->netns);
        char path[PATH_MAX], shut[160] = "nothing of it ran: no disk to shut down";
        if (holder) {
            snprintf(path, sizeof path, "/proc/%d/root%s", (int)holder, h->home);
            bool gone = proc_starttime(holder) != start;
            if (gone)
                snprintf(err, errlen, "%s: the daemon that held the disk is gone", path);
            if (gone || lab_xfs_power_cut(path, err, errlen) != 0) {
                char e[256];
                lab_kill_all_in(h->netns, e, sizeof e);
                return -1;
            }
            snprintf(shut, sizeof shut, "its disk's xfs (every store of its daemons) shut down "
                     "without log flush after %.3f s", (double)(mono_ns() - t0) / 1e9);
        }
        if (lab_kill_all_in(h->netns, err, errlen) != 0)
            return -1;
        snprintf(what, whatlen, "%u processes frozen, %s, all killed after %.3f s", frozen, shut,
                 (double)(mono_ns() - t0) / 1e9);
        return 0;
    }
    if (disk_let_go(h, err, errlen) != 0)
        return -1;
    uint64_t t1 = mono_ns();
    if (run_missing(lab, h, fd, err, errlen) != 0)
        return -1;
    snprintf(what, whatlen, "disk image free after %.3f s, mounted again (xfs log replayed) and "
             "the daemons started after %.3f s more", (double)(t1 - t0) / 1e9,
             (double)(mono_ns() - t1) / 1e9);
    return 0;
}

/* mon (the default), mgr, osd and mds by the servers that run them; the
 * client's ceph-fuse. */
static int ceph_process(const struct lab *lab, const char *host, const char *process,
                        struct lab_process *p, char *err, size_t errlen)
{
    const struct lab_host *h = lab_host(lab, host);
    if (!h || lab_is_client_host(h))
        return 1;
    *p = (struct lab_process){.restartable = true};
    if (!h->netns[0]) {
        if (process[0] && strcmp(process, "ceph-fuse") != 0)
            return 1;
        snprintf(p->name, sizeof p->name, "ceph-fuse");
        p->pid = h->pid;
        p->start = h->start;
        return 0;
    }
    if (!process[0] || strcmp(process, "ceph-mon") == 0) {
        snprintf(p->name, sizeof p->name, "mon");
        p->pid = h->pid;
        p->start = h->start;
        return 0;
    }
    for (size_t i = 0; i < NDAEMONS; i++) {
        if (strcmp(process, daemons[i].type) != 0)
            continue;
        if (!runs(&daemons[i], h)) {
            size_t used = (size_t)snprintf(err, errlen, "%s runs no %s (it runs on", host,
                                           process);
            for (unsigned k = 1; k <= NSERVERS && used < errlen; k++)
                if (daemons[i].on >> k & 1)
                    used += (size_t)snprintf(err + used, errlen - used, " %s",
                                             lab->hosts[k].name);
            if (used < errlen)
                snprintf(err + used, errlen - used, ")");
            return -1;
        }
        snprintf(p->name, sizeof p->name, "%s", daemons[i].type);
        snprintf(p->comm, sizeof p->comm, "%s", daemons[i].comm);
        return 0;
    }
    return 1;
}

/* A server's replica is what its OSD keeps: objects in a bluestore whose
 * "block" file holds their bytes (found there by the corrupt fault), in
 * allocation units of 4 KiB (bluestore_min_alloc_size in Pacific).  After
 * a change under it, the OSD drops its caches, so that the next read or
 * scrub reads the block file and meets its checksums; the scrub is a deep
 * scrub of the data pool's placement groups, each of which has a copy on
 * every OSD (size 3 on three). */
static int ceph_replica(const struct lab *lab, const char *name, struct lab_replica *r,
                        char *err, size_t errlen)
{
    const struct lab_host *h = lab_host(lab, name);
    if (!h || !h->netns[0] || lab_is_client_host(h)) {
        snprintf(err, errlen, "not a server of the ceph lab (cs1, cs2, cs3)");
        return -1;
    }
    const struct ceph_lab *c = priv(lab);
    memset(r, 0, sizeof *r);
    snprintf(r->mount, sizeof r->mount, "%s", c->mount);
    snprintf(r->store, sizeof r->store, "%s/osd/block", h->home);
    r->align = 4096;
    char id[16];
    daemon_id(daemon_of("osd"), h, id, sizeof id);
    snprintf(r->reread, sizeof r->reread, "ceph -c %s --connect-timeout 15 tell osd.%s cache "
             "drop", c->conf, id);
    snprintf(r->scrub, sizeof r->scrub, "ceph -c %s --connect-timeout 15 osd pool deep-scrub "
             "%s", c->conf, c->data);
    if (!(r->at.join = live_daemon(h, "ceph-osd", &r->at.join_start))) {
        snprintf(err, errlen, "no OSD runs on %s", name);
        return -1;
    }
    return 0;
}

static bool ceph_healthy(const struct lab *lab, char *why, size_t n)
{
    for (unsigned i = 1; i < lab->nhosts; i++) {
        const struct lab_host *h = &lab->hosts[i];
        for (size_t k = 0; k < NDAEMONS; k++) {
            uint64_t start;
            if (runs(&daemons[k], h) && !live_daemon(h, daemons[k].comm, &start)) {
                snprintf(why, n, "no %s runs on %s", daemons[k].comm, h->name);
                return false;
            }
        }
    }
    const char *mount = priv(lab)->mount;
    struct stat a, b;
    char parent[200];
    snprintf(parent, sizeof parent, "%s/..", mount);
    if (stat(mount, &a) != 0 || stat(parent, &b) != 0 || a.st_dev == b.st_dev) {
        snprintf(why, n, "the filesystem is not mounted at %s", mount);
        return false;
    }
    return true;
}

/* The value of [lab] key k, as the table has it (a duration: whole
 * seconds; every key of the table is a duration or yes/no). */
static uint64_t option_secs(const struct lab *lab, const struct key_def *k)
{
    uint64_t ns;
    memcpy(&ns, (const unsigned char *)&lab->opts + k->off, sizeof ns);
    return seconds(ns);
}

static bool option_bool(const struct lab *lab, const struct key_def *k)
{
    bool b;
    memcpy(&b, (const unsigned char *)&lab->opts + k->off, sizeof b);
    return b;
}

/* For people and the manifest: "15s", "no". */
static void option_text(const struct lab *lab, const struct key_def *k, char *out, size_t n)
{
    if (k->type == KEY_DURATION)
        snprintf(out, n, "%llus", (unsigned long long)option_secs(lab, k));
    else
        snprintf(out, n, "%s", option_bool(lab, k) ? "yes" : "no");
}

/* For `lab status --json`: durations as whole seconds (NAME_s), yes/no as
 * booleans. */
static void json_options(const struct lab *lab, struct json *j)
{
    for (size_t k = 0; k < NKEYS; k++) {
        const struct key_def *d = &ceph_keys[k];
        char name[48];
        if (d->type == KEY_DURATION) {
            snprintf(name, sizeof name, "%s_s", d->name);
            json_key(j, name);
            json_u64(j, option_secs(lab, d));
        } else {
            json_key(j, d->name);
            json_bool(j, option_bool(lab, d));
        }
    }
}

static void ceph_status(const struct lab *lab, struct json *j, FILE *out)
{
    const struct ceph_lab *c = priv(lab);
    struct ceph_view v;
    char err[512] = "";
    bool seen = cluster_view(lab, &v, err, sizeof err) == 0;
    if (j) {
        json_key(j, "ceph");
        json_obj_begin(j);
        json_key(j, "fsid");
        json_str(j, c->fsid);
        json_key(j, "fs");
        json_str(j, c->fs);
        json_key(j, "pools");
        json_arr_begin(j);
        json_str(j, c->meta);
        json_str(j, c->data);
        json_arr_end(j);
        json_key(j, "mount");
        json_str(j, c->mount);
        json_key(j, "conf");
        json_str(j, c->conf);
        json_key(j, "osd_bytes");
        json_u64(j, lab->opts.size);
        json_options(lab, j);
        if (!seen) {
            json_key(j, "error");
            json_str(j, err);
        } else {
            json_key(j, "quorum");
            json_u64(j, v.quorum);
            json_key(j, "quorum_names");
            json_str(j, v.quorum_names);
            json_key(j, "osds");
            json_u64(j, v.osds);
            json_key(j, "osds_up");
            json_u64(j, v.osds_up);
            json_key(j, "osds_in");
            json_u64(j, v.osds_in);
            json_key(j, "pgs");
            json_u64(j, v.pgs);
            json_key(j, "pgs_active_clean");
            json_u64(j, v.pgs_clean);
            json_key(j, "mds_active");
            json_str(j, v.active);
            json_key(j, "mds_standby");
            json_u64(j, v.mds_standby);
            json_key(j, "health");
            json_str(j, v.health);
        }
        json_obj_end(j);
        return;
    }
    char size[32];
    format_size(lab->opts.size, size, sizeof size);
    fprintf(out, "  ceph    fs %s over pools %s and %s (size 3, min_size 2), OSDs of %s "
                 "(bluestore), fsid %s\n", c->fs, c->meta, c->data, size, c->fsid);
    fprintf(out, "         ");
    for (size_t k = 0; k < NKEYS; k++) {
        char v[64];
        option_text(lab, &ceph_keys[k], v, sizeof v);
        fprintf(out, "%s %s %s", k ? "," : "", ceph_keys[k].name, v);
    }
    fputc('\n', out);
    if (seen)
        fprintf(out, "          quorum %u of %u (%s), OSDs %u up, %u in of %u, placement groups "
                     "%u active+clean of %u, MDS active %s with %u standby, %s\n",
                v.quorum, v.mons, v.quorum_names, v.osds_up, v.osds_in, v.osds, v.pgs_clean,
                v.pgs, v.active[0] ? v.active : "none", v.mds_standby, v.health);
    else
        fprintf(out, "          the cluster does not answer: %s\n", err);
    fprintf(out, "  mount   %s (ceph-fuse, pid %d %s)\n", c->mount, (int)lab->hosts[0].pid,
            proc_state_name(proc_state(lab->hosts[0].pid, lab->hosts[0].start)));
}

/* A files target without path: the filesystem's FUSE mount. */
static void ceph_place(const struct lab *lab, unsigned client, struct lab_place *p)
{
    (void)client; /* client hosts of their own: not yet */
    const struct ceph_lab *c = priv(lab);
    snprintf(p->where, sizeof p->where, "%.159s", c->mount);
    snprintf(p->name, sizeof p->name, "%.31s", c->fs);
    snprintf(p->desc, sizeof p->desc, "CephFS %.31s mounted at %.159s", c->fs, c->mount);
}

/* For the manifest: the cluster's version, its filesystem and pools. */
static void ceph_describe(const struct lab *lab, struct kv_list *about, struct kv_list *options)
{
    const struct ceph_lab *c = priv(lab);
    struct storage st;
    char out[512];
    lab_storage(lab, &st);
    if (storage_ceph_version(&st, out, sizeof out) == 0)
        kv_add(about, "version", "%s", out);
    else
        kv_add(about, "error", "%s", out);
    kv_add(about, "fs", "%s", c->fs);
    kv_add(about, "pools", "%s, %s: replicated, size 3, min_size 2, %s placement groups each",
           c->meta, c->data, PG_NUM);
    for (size_t k = 0; k < NKEYS; k++) {
        char v[64];
        option_text(lab, &ceph_keys[k], v, sizeof v);
        kv_add(options, ceph_keys[k].name, "%s", v);
    }
}

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
};

/* Its health and status. */
static const struct lab_report ceph_report = {
    .healthy = ceph_healthy,
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
