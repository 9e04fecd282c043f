/* lab_ceph_build — bringing the ceph lab up: names, ceph.conf, keyring,
 * monitors, OSDs, pools and filesystem, MDS daemons, the client's mount.
 * See lab_ceph.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "../../lib/clock.h"
#include "../../lib/fsutil.h"
#include "../../lib/proc.h"
#include "lab_ceph.h"
#include "lab_names.h"
#include "lab_record.h"
#include "lab_server.h"

/* --- building it --- */

void ceph_lay_out(struct lab *lab)
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
            if (!ceph_runs(&ceph_daemons[k], h))
                continue;
            char id[16];
            ceph_daemon_id(&ceph_daemons[k], h, id, sizeof id);
            fprintf(f, "[%s.%s]\npublic_addr = %s\n", ceph_daemons[k].type, id, h->addr);
            if (strcmp(ceph_daemons[k].type, "osd") == 0)
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
        if (ceph_runs(ceph_daemon_of("mds"), h)) {
            snprintf(name, sizeof name, "mds.%s", h->name);
            char *mds[] = {"ceph-authtool", k, "--gen-key", "-n", name, "--cap", "mon",
                           "allow profile mds", "--cap", "mgr", "allow profile mds", "--cap",
                           "mds", "allow *", "--cap", "osd", "allow *", NULL};
            if (tool(mds, err, errlen) != 0)
                return -1;
        }
        if (ceph_runs(ceph_daemon_of("mgr"), h)) {
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
        if (ceph_place_of(lab, h, fd, &at, err, errlen) != 0)
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
    snprintf(id, sizeof id, "%u", ceph_server_no(h) - 1);
    const char *create[] = {"osd", "new", uuid, id, NULL};
    if (ceph_cli_ok(lab, create, err, errlen) != 0)
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
int ceph_mount_client(struct lab *lab, int fd, char *err, size_t errlen)
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

int ceph_start(struct lab *lab, int fd, char *err, size_t errlen)
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
            ceph_make_disk(lab, h, fd, err, errlen) != 0)
            return -1;
    }
    if (write_conf(lab, err, errlen) != 0 || make_keyring(lab, err, errlen) != 0 ||
        make_monitors(lab, fd, err, errlen) != 0)
        return -1;
    for (unsigned i = 1; i <= NSERVERS; i++)
        if (ceph_start_daemon(lab, &lab->hosts[i], ceph_daemon_of("mon"), fd, err, errlen) != 0)
            return -1;
    if (ceph_wait_view(lab, ceph_quorum_formed, "quorum of the 3 monitors", 60, err, errlen) != 0)
        return -1;
    for (unsigned i = 1; i <= NSERVERS; i++) {
        struct lab_host *h = &lab->hosts[i];
        if (make_osd(lab, h, err, errlen) != 0 ||
            ceph_start_daemon(lab, h, ceph_daemon_of("osd"), fd, err, errlen) != 0)
            return -1;
    }
    if (ceph_start_daemon(lab, &lab->hosts[1], ceph_daemon_of("mgr"), fd, err, errlen) != 0 ||
        ceph_wait_view(lab, ceph_osds_up, "3 OSDs up and in", 90, err, errlen) != 0)
        return -1;
    const char *meta[] = {"osd", "pool", "create", c->meta, PG_NUM, PG_NUM, "replicated", NULL};
    const char *data[] = {"osd", "pool", "create", c->data, PG_NUM, PG_NUM, "replicated", NULL};
    const char *fs[] = {"fs", "new", c->fs, c->meta, c->data, NULL};
    const char *replay[] = {"fs", "set", c->fs, "allow_standby_replay", "true", NULL};
    if (ceph_cli_ok(lab, meta, err, errlen) != 0 || ceph_cli_ok(lab, data, err, errlen) != 0 ||
        ceph_cli_ok(lab, fs, err, errlen) != 0 ||
        (opts(lab)->standby_replay && ceph_cli_ok(lab, replay, err, errlen) != 0))
        return -1;
    /* cs1's MDS first, so that it is the active one and cs2's the standby */
    if (ceph_start_daemon(lab, &lab->hosts[1], ceph_daemon_of("mds"), fd, err, errlen) != 0 ||
        ceph_wait_view(lab, ceph_mds_active, "active MDS", 60, err, errlen) != 0 ||
        ceph_start_daemon(lab, &lab->hosts[2], ceph_daemon_of("mds"), fd, err, errlen) != 0 ||
        ceph_wait_view(lab, ceph_mds_ready, "standby MDS", 60, err, errlen) != 0 ||
        ceph_wait_view(lab, ceph_pgs_active, "active placement groups", 90, err, errlen) != 0)
        return -1;
    return ceph_mount_client(lab, fd, err, errlen);
}
