/*
 * lab_ha — the HA lab: two nodes under Corosync and Pacemaker that fail an
 * iSCSI target over, as most HA setups admins validate are built.
 *
 *   switch   P-hsw               switch ports  P-hsw-c, P-hsw-1, P-hsw-2
 *   client   P-hcli              198.18.X.1/24, in our namespace
 *   n1, n2   namespace P-ha-nN, eth0 198.18.X.1N/24: corosync and pacemaker
 *   VIP      198.18.X.100, the floating IP: the one portal clients log in to
 *   LUN      LAB/lun.img (sparse, [lab] size): the shared storage both
 *            nodes reach
 *
 * A node boots as a machine of its own (lab_server_boot): network, mount,
 * UTS and PID namespaces, with its own /etc/corosync, /var/lib/corosync,
 * /var/lib/pacemaker and /var/log/pacemaker (bind mounts of LAB/nN/...),
 * and its own /run and /dev/shm (tmpfs: libqb's and tgtd's sockets and
 * shared memory).  Its /usr/sbin is /usr/sbin with LAB/fence over it
 * (a read-only overlay), so that the node has fence_faultline installed,
 * as a real node has its fence agent.  `corosync -f` and then `pacemakerd`
 * run there; the PID recorded is corosync's.
 *
 * The cluster starts from one CIB written before it starts
 * (lab_ha_config.c): fencing (fence_faultline through the lab, the nodes'
 * BMC) unless [lab] fencing = no, and one group: tgtd
 * (ocf:heartbeat:anything), the target and its LUN (iSCSITarget and
 * iSCSILogicalUnit, implementation tgt) on the shared file, and the
 * floating IP (IPaddr2), in that order, on n1 first.
 *
 * For faults, a node's processes are corosync (the default), pacemaker
 * (pacemakerd) and tgtd (which only the cluster starts again: its
 * monitor).  restart starts what of the node is missing, booting it when
 * nothing of it is left (a fence powers a node off).  power-off freezes
 * and kills every process of the node; power-on boots it as at first.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
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
#include "lab_cache.h"
#include "lab_ha.h"
#include "lab_kind.h"
#include "lab_names.h"
#include "lab_record.h"
#include "lab_server.h"

#define CLI_TIMEOUT_MS 20000
#define VIP_HOSTNO 100
#define START_TIMEOUT_S 120 /* lab up: both nodes online, the group started */

#define OPT(field) LAB_OPT(struct ha_lab_opts, field)
_Static_assert(sizeof(struct ha_lab_opts) <= LAB_OPTS_MAX, "ha lab options");
_Static_assert(sizeof(struct ha_lab) <= LAB_PRIV_MAX, "ha lab names");

static const struct key_def ha_keys[] = {
    {"token", KEY_DURATION, "3s", NULL, OPT(token_ns), 200000000ull, 60000000000ull,
     "ha: corosync's totem token timeout (whole ms): how long a silent node is waited for "
     "before the membership is formed again without it", 0},
    {"consensus", KEY_DURATION, "0s", NULL, OPT(consensus_ns), 0, 120000000000ull,
     "ha: corosync's totem consensus timeout (whole ms; 0s: corosync's default, 1.2 x "
     "token): how long consensus is waited for before a new membership round", 0},
    {"fencing", KEY_BOOL, "yes", NULL, OPT(fencing), 0, 0,
     "ha: fencing on (stonith-enabled, fence_faultline powering the lost node off through "
     "the lab); no: nothing stops a node the other lost sight of", 0},
    {"write_cache", KEY_BOOL, "off", NULL, OPT(write_cache), 0, 0,
     "ha: each node acknowledges writes from a volatile cache of its own (a faultline-wcache "
     "over the shared LUN, as the iscsi lab's controllers), written at SYNCHRONIZE CACHE; "
     "what it holds dies with the node's power", 0},
    {"resource_stickiness", KEY_COUNT, "100", NULL, OPT(stickiness), 0, 1000000,
     "ha: the resources' stickiness (rsc_defaults): how much they prefer to stay where they "
     "run; the group prefers n1 by half of it, so it never moves back by itself", 0},
};

static const struct ha_lab_opts *opts(const struct lab *lab)
{
    return ha_opts(lab);
}

static void ha_lay_out(struct lab *lab)
{
    const char *P = lab->prefix;
    struct ha_lab *x = ha_priv(lab);
    snprintf(lab->bridge, sizeof lab->bridge, "%s-hsw", P);
    lab->nhosts = 3;
    lab_lay_out_client(lab, "hcli");
    for (unsigned i = 1; i <= 2; i++) {
        struct lab_host *h = &lab->hosts[i];
        char name[16], port[16];
        snprintf(name, sizeof name, "n%u", i);
        snprintf(port, sizeof port, "%s-hsw-%u", P, i);
        lab_lay_out_server(lab, h, name, port, 10 + i);
        snprintf(h->service, sizeof h->service, "corosync, pacemaker");
        snprintf(h->home, sizeof h->home, "%.127s/n%u", lab->dir, i);
        snprintf(h->log, sizeof h->log, "%.150s/out/corosync.out", h->home);
    }
    snprintf(x->vip, sizeof x->vip, "198.18.%u.%u", lab->subnet, VIP_HOSTNO);
    snprintf(x->lun, sizeof x->lun, "%.127s/lun.img", lab->dir);
    snprintf(x->fence, sizeof x->fence, "%.127s/fence", lab->dir);
    snprintf(x->cache, sizeof x->cache, "%.127s/cache", lab->dir);
    snprintf(x->iqn, sizeof x->iqn, "iqn.2026-12.io.faultline:%s-ha", P);
    char seed[64];
    snprintf(seed, sizeof seed, "%s/%u/ha", P, lab->subnet);
    snprintf(x->serial, sizeof x->serial, "FH%08X", lab_hash(seed));
    snprintf(x->portal, sizeof x->portal, "iscsi://%.23s:3260/%.127s/1", x->vip, x->iqn);
}

/* --- a node --- */

/* Runs in the mount namespace of a node that boots (lab_server_boot): the
 * cluster's state, configuration and logs of its own, /run and /dev/shm of
 * its own, and fence_faultline among its programs.  0 or errno. */
static int node_setup(void *ctx)
{
    const struct lab_host *h = ((void **)ctx)[0];
    const struct lab *lab = ((void **)ctx)[1];
    static const char *const binds[][2] = {{"corosync", "/etc/corosync"},
                                           {"corosync-lib", "/var/lib/corosync"},
                                           {"pacemaker", "/var/lib/pacemaker"},
                                           {"log", "/var/log/pacemaker"}};
    char src[256], opt[512];
    for (size_t i = 0; i < sizeof binds / sizeof binds[0]; i++) {
        snprintf(src, sizeof src, "%s/%s", h->home, binds[i][0]);
        if (mount(src, binds[i][1], NULL, MS_BIND, NULL) != 0)
            return errno;
    }
    if (opts(lab)->write_cache) { /* its own cache where the LUN resource looks */
        lab_cache_path(lab, h, "", src, sizeof src);
        if (mount(src, ha_priv(lab)->cache, NULL, MS_BIND, NULL) != 0)
            return errno;
    }
    if (mount("tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=755") != 0 ||
        mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") != 0)
        return errno;
    snprintf(opt, sizeof opt, "lowerdir=%.159s:/usr/sbin", ha_priv(lab)->fence);
    if (mount("overlay", "/usr/sbin", "overlay", MS_RDONLY, opt) != 0)
        return errno;
    return 0;
}

/* The uid and gid pacemaker's daemons run as. */
static int hacluster(unsigned *uid, unsigned *gid, char *err, size_t errlen)
{
    struct passwd *pw = getpwnam("hacluster");
    struct group *gr = getgrnam("haclient");
    if (!pw || !gr) {
        snprintf(err, errlen, "no user hacluster or group haclient: pacemaker is not installed "
                 "(make deps installs it)");
        return -1;
    }
    *uid = pw->pw_uid;
    *gid = gr->gr_gid;
    return 0;
}

/* A node's own files, made at lab up: its corosync.conf and the CIB it
 * starts from, and the directories pacemaker keeps as hacluster. */
static int make_node_files(const struct lab *lab, const struct lab_host *h, char *err,
                           size_t errlen)
{
    unsigned uid, gid;
    if (hacluster(&uid, &gid, err, errlen) != 0)
        return -1;
    static const char *const dirs[] = {"", "/corosync", "/corosync-lib", "/out", "/log", "/pacemaker",
                                       "/pacemaker/cib", "/pacemaker/pengine",
                                       "/pacemaker/blackbox", "/pacemaker/cores"};
    char path[256];
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(path, sizeof path, "%s%s", h->home, dirs[i]);
        if (mkdir_p(path, err, errlen) != 0)
            return -1;
        /* what pacemaker's daemons write, as hacluster; what root's write
         * (corosync's log, the daemons' output) is in out/, which only
         * root can write: a file root opens is never in a directory
         * hacluster could put a link into */
        bool theirs = strncmp(dirs[i], "/pacemaker", 10) == 0 || strcmp(dirs[i], "/log") == 0;
        if (theirs && (chown(path, uid, gid) != 0 || chmod(path, 0750) != 0)) {
            snprintf(err, errlen, "cannot give %s to hacluster: %s", path, strerror(errno));
            return -1;
        }
    }
    char conf[256], log[256];
    snprintf(conf, sizeof conf, "%s/corosync/corosync.conf", h->home);
    snprintf(log, sizeof log, "%s/out/corosync.log", h->home);
    snprintf(path, sizeof path, "%s/pacemaker/cib/cib.xml", h->home);
    if (ha_write_corosync_conf(lab, conf, log, err, errlen) != 0 ||
        ha_write_cib(lab, path, uid, gid, err, errlen) != 0)
        return -1;
    return 0;
}

/* A process of node h by its name (0: none running). */
static pid_t live(const struct lab_host *h, const char *comm)
{
    uint64_t start;
    return lab_named_in(h, comm, &start);
}

/* Starts what of node h is not running: the node itself (booted as at
 * first), corosync, then (pacemaker: true) pacemakerd.  Records each.  0,
 * or -1 with err. */
static int run_node(const struct lab *lab, struct lab_host *h, bool pacemaker, int fd, char *err,
                    size_t errlen)
{
    void *ctx[2] = {h, (void *)lab};
    if (!lab_server_up(h)) {
        /* its cache first, empty as after a power-up: the node's mount
         * namespace is a copy of ours as it boots */
        uint64_t cstart;
        if (opts(lab)->write_cache && !lab_cache_pid(lab, h, &cstart) &&
            lab_cache_start(lab, h, ha_priv(lab)->lun, NULL, false, fd, err, errlen) != 0)
            return -1;
        if (lab_server_boot(h, node_setup, ctx, fd, err, errlen) != 0)
            return -1;
    }
    struct proc_place at;
    lab_server_place(h, &at);
    if (!live(h, "corosync")) {
        char *argv[] = {"corosync", "-f", NULL};
        if (proc_spawn_at(&at, argv, h->log, &h->pid, &h->start, err, errlen) != 0 ||
            lab_rec(fd, err, errlen, "pid %s %d %llu", h->name, (int)h->pid,
                    (unsigned long long)h->start) != 0)
            return -1;
        /* pacemakerd gives up at once when corosync does not answer yet */
        uint64_t until = mono_ns() + 10000000000ull;
        char out[512];
        char *cfg[] = {"corosync-cfgtool", "-s", NULL};
        struct proc_place on = {.join = h->pid, .join_start = h->start};
        while (proc_run_at(&on, cfg, out, sizeof out, 5000) != 0) {
            if (mono_ns() > until || proc_state(h->pid, h->start) != PROC_RUNNING) {
                snprintf(err, errlen, "corosync of %s does not answer in 10 s: %.200s; see "
                         "%s/out/corosync.log", h->name, out, h->home);
                return -1;
            }
            lab_pause_ms(100);
        }
    }
    if (pacemaker && !live(h, "pacemakerd")) {
        char *argv[] = {"pacemakerd", NULL};
        char log[256];
        pid_t pid;
        uint64_t start;
        snprintf(log, sizeof log, "%s/out/pacemakerd.out", h->home);
        if (proc_spawn_at(&at, argv, log, &pid, &start, err, errlen) != 0)
            return -1;
    }
    return 0;
}

/* A live node of the lab; NULL with out saying there is none. */
static const struct lab_host *live_node(const struct lab *lab, char *out, size_t outlen)
{
    for (unsigned i = 1; i < lab->nhosts; i++)
        if (live(&lab->hosts[i], "pacemakerd"))
            return &lab->hosts[i];
    snprintf(out, outlen, "no node of the lab runs pacemaker");
    return NULL;
}

/* The cluster's CLI (crm_mon, crm_resource, ...) on a live node, as an
 * admin runs it there.  Exit status, or -1; out holds the output or why
 * it could not run. */
static int ha_cli(const struct lab *lab, char *const argv[], char *out, size_t outlen,
                  int timeout_ms)
{
    const struct lab_host *h = live_node(lab, out, outlen);
    if (!h)
        return -1;
    struct proc_place at;
    lab_server_place(h, &at);
    return proc_run_at(&at, argv, out, outlen, timeout_ms);
}

/* Where the group runs, as the cluster says ("" when nowhere or unknown,
 * with why). */
static void holder(const struct lab *lab, char *node, size_t n, char *why, size_t whylen)
{
    char out[1024];
    char *argv[] = {"crm_resource", "--locate", "--resource", HA_GROUP, NULL};
    node[0] = '\0';
    int rc = ha_cli(lab, argv, out, sizeof out, CLI_TIMEOUT_MS);
    const char *on = strstr(out, "is running on: ");
    if (rc == 0 && on) {
        on += strlen("is running on: ");
        snprintf(node, n, "%.*s", (int)strcspn(on, " \n"), on);
        return;
    }
    snprintf(why, whylen, "the group runs nowhere: %.300s", out);
}

/* Whether every resource is started (crm_mon's view). */
static bool group_started(const struct lab *lab, char *why, size_t n)
{
    char out[8192];
    char *argv[] = {"crm_mon", "-1", "--output-as=text", NULL};
    if (ha_cli(lab, argv, out, sizeof out, CLI_TIMEOUT_MS) != 0) {
        snprintf(why, n, "crm_mon: %.300s", out);
        return false;
    }
    /* the group's, and with fencing each fence device (a device that
     * failed to start leaves its node unfenceable) */
    static const char *const rsc[] = {HA_RSC_TGTD, HA_RSC_TARGET, HA_RSC_LUN, HA_RSC_VIP,
                                      "fence-n1", "fence-n2"};
    size_t nrsc = opts(lab)->fencing ? 6 : 4;
    for (size_t i = 0; i < nrsc; i++) {
        char want[32];
        snprintf(want, sizeof want, "* %s\t", rsc[i]);
        const char *line = strstr(out, want);
        const char *end = line ? strchr(line, '\n') : NULL;
        const char *started = line ? strstr(line, "Started ") : NULL;
        if (!line || !started || (end && started > end)) {
            snprintf(why, n, "resource %s is not started: %.*s", rsc[i],
                     line ? (int)(end ? end - line : (long)strlen(line)) : 7,
                     line ? line : "missing");
            return false;
        }
    }
    return true;
}

/* --- up --- */

static int ha_start(struct lab *lab, int fd, char *err, size_t errlen)
{
    const struct ha_lab *x = ha_priv(lab);
    static const char *const needs[] = {"/usr/sbin/corosync", "/usr/sbin/pacemakerd",
                                        "/usr/lib/ocf/resource.d/heartbeat/iSCSITarget",
                                        "/usr/sbin/tgtd"};
    for (size_t i = 0; i < sizeof needs / sizeof needs[0]; i++)
        if (access(needs[i], X_OK) != 0) {
            snprintf(err, errlen, "%s: %s (make deps installs corosync, pacemaker, "
                     "resource-agents and tgt)", needs[i], strerror(errno));
            return -1;
        }
    if (opts(lab)->consensus_ns && opts(lab)->consensus_ns < opts(lab)->token_ns) {
        snprintf(err, errlen, "consensus must be at least token (corosync refuses less)");
        return -1;
    }
    if (lab_rec(fd, err, errlen, "file %s", x->lun) != 0 ||
        sparse_file(x->lun, lab->opts.size, 0600, true, err, errlen) != 0)
        return -1;
    if (mkdir(x->fence, 0700) != 0 || mkdir(x->cache, 0700) != 0) {
        snprintf(err, errlen, "cannot create %s: %s", errno && access(x->fence, F_OK) == 0
                                                          ? x->cache : x->fence,
                 strerror(errno));
        return -1;
    }
    if (ha_write_fence_agent(lab, err, errlen) != 0)
        return -1;
    for (unsigned i = 1; i < lab->nhosts; i++) {
        struct lab_host *h = &lab->hosts[i];
        if (lab_rec(fd, err, errlen, "nsprocs %s", h->netns) != 0 ||
            make_node_files(lab, h, err, errlen) != 0 ||
            run_node(lab, h, false, fd, err, errlen) != 0)
            return -1;
    }
    return 0;
}

/* Pacemaker last: its fence devices' first monitor reaches the switch's
 * sshd (lab_build.ready). */
static int ha_ready(struct lab *lab, int fd, char *err, size_t errlen)
{
    for (unsigned i = 1; i < lab->nhosts; i++)
        if (run_node(lab, &lab->hosts[i], true, fd, err, errlen) != 0)
            return -1;
    /* both online and the group started (bounded: the cluster's own
     * start-up, 10-20 s here) */
    uint64_t until = mono_ns() + START_TIMEOUT_S * 1000000000ull;
    char why[512] = "";
    while (!group_started(lab, why, sizeof why)) {
        if (mono_ns() > until) {
            snprintf(err, errlen, "the cluster did not start its resources in %u s: %s; see "
                     "%s/n1/log/pacemaker.log", START_TIMEOUT_S, why, lab->dir);
            return -1;
        }
        lab_pause_ms(500);
    }
    return 0;
}

/* --- faults --- */

static int ha_restart(struct lab *lab, struct lab_host *h, int fd, char *err, size_t errlen)
{
    if (!h->netns[0] || lab_is_client_host(h)) {
        snprintf(err, errlen, "lab host %s has no service to start", h->name);
        return -1;
    }
    return run_node(lab, h, true, fd, err, errlen);
}

static int ha_power(struct lab *lab, struct lab_host *h, bool on, int fd, char *what,
                    size_t whatlen, char *err, size_t errlen)
{
    if (!on) {
        unsigned frozen = lab_freeze_all_in(h->netns);
        uint64_t t0 = mono_ns();
        /* its cache (in our namespace) once nothing of the node writes to
         * it any more: what it held unflushed is gone */
        char held[96] = "";
        if (opts(lab)->write_cache) {
            long dirty = lab_cache_dirty(lab, h);
            if (lab_cache_stop(lab, h, err, errlen) != 0)
                return -1;
            if (dirty >= 0)
                snprintf(held, sizeof held, ", its write cache killed with %ld unflushed pages",
                         dirty);
            else
                snprintf(held, sizeof held, ", its write cache killed");
        }
        if (lab_kill_all_in(h->netns, err, errlen) != 0)
            return -1;
        /* what the cut takes besides: the floating IP, if the node held
         * it (the namespace and its eth0 stay; a real node boots without
         * it) */
        char vip[40], out[256];
        snprintf(vip, sizeof vip, "%.23s/24", ha_priv(lab)->vip);
        char *del[] = {"ip", "addr", "del", vip, "dev", h->ifname, NULL};
        bool vip_held = proc_run_in(h->netns, del, out, sizeof out, 5000) == 0;
        snprintf(what, whatlen, "%u processes frozen%s, all killed after %.3f s%s", frozen,
                 held, (double)(mono_ns() - t0) / 1e9,
                 vip_held ? ", the floating IP gone with it" : "");
        return 0;
    }
    if (lab_server_up(h) && live(h, "corosync") && live(h, "pacemakerd")) {
        snprintf(what, whatlen, "already on: corosync and pacemaker running");
        return 0;
    }
    uint64_t t0 = mono_ns();
    if (run_node(lab, h, true, fd, err, errlen) != 0)
        return -1;
    snprintf(what, whatlen, "booted: corosync (pid %d) and pacemaker started in %.3f s",
             (int)h->pid, (double)(mono_ns() - t0) / 1e9);
    return 0;
}

/* corosync (the default), pacemaker and tgtd on a node. */
static int ha_process(const struct lab *lab, const char *host, const char *process,
                      struct lab_process *p, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    const struct lab_host *h = lab_host(lab, host);
    if (!h || !h->netns[0] || lab_is_client_host(h))
        return 1;
    *p = (struct lab_process){.restartable = true};
    if (!process[0] || strcmp(process, "corosync") == 0) {
        snprintf(p->name, sizeof p->name, "corosync");
        p->pid = h->pid;
        p->start = h->start;
        return 0;
    }
    if (strcmp(process, "pacemaker") == 0) {
        snprintf(p->name, sizeof p->name, "pacemaker");
        snprintf(p->comm, sizeof p->comm, "pacemakerd");
        return 0;
    }
    if (strcmp(process, "tgtd") == 0) {
        snprintf(p->name, sizeof p->name, "tgtd");
        snprintf(p->comm, sizeof p->comm, "tgtd");
        p->restartable = false; /* the cluster's to start again, by its monitor */
        return 0;
    }
    return 1;
}

/* --- health and status --- */

static bool ha_healthy(const struct lab *lab, char *why, size_t n)
{
    for (unsigned i = 1; i < lab->nhosts; i++) {
        const struct lab_host *h = &lab->hosts[i];
        uint64_t start;
        if (!live(h, "pacemakerd")) {
            snprintf(why, n, "pacemaker of %s is not running", h->name);
            return false;
        }
        if (opts(lab)->write_cache && !lab_cache_pid(lab, h, &start)) {
            snprintf(why, n, "the write cache of %s is not running", h->name);
            return false;
        }
    }
    return group_started(lab, why, n);
}

/* As lab up left it: the group on n1 (scenarios fault "the node holding
 * the target" by its name). */
static bool ha_as_built(const struct lab *lab, char *why, size_t n)
{
    char node[32], w[512] = "";
    holder(lab, node, sizeof node, w, sizeof w);
    if (strcmp(node, lab->hosts[1].name) == 0)
        return true;
    snprintf(why, n, "the target runs %s%s, not on %s", node[0] ? "on " : "",
             node[0] ? node : w, lab->hosts[1].name);
    return false;
}

static void ha_status(const struct lab *lab, struct json *j, FILE *out)
{
    const struct ha_lab *x = ha_priv(lab);
    const struct ha_lab_opts *o = opts(lab);
    char node[32], why[512] = "", mon[8192];
    holder(lab, node, sizeof node, why, sizeof why);
    char *argv[] = {"crm_mon", "-1", "--output-as=text", NULL};
    ha_cli(lab, argv, mon, sizeof mon, CLI_TIMEOUT_MS); /* its output, or why none */
    if (j) {
        json_key(j, "cluster");
        json_obj_begin(j);
        json_key(j, "nodes");
        json_arr_begin(j);
        for (unsigned i = 1; i < lab->nhosts; i++)
            json_str(j, lab->hosts[i].name);
        json_arr_end(j);
        json_key(j, "holder");
        if (node[0])
            json_str(j, node);
        else
            json_null(j);
        json_key(j, "vip");
        json_str(j, x->vip);
        json_key(j, "portal");
        json_str(j, x->portal);
        json_key(j, "iqn");
        json_str(j, x->iqn);
        json_key(j, "lun");
        json_str(j, x->lun);
        json_key(j, "lun_bytes");
        json_u64(j, lab->opts.size);
        json_key(j, "token_ms");
        json_u64(j, o->token_ns / 1000000ull);
        json_key(j, "consensus_ms");
        if (o->consensus_ns)
            json_u64(j, o->consensus_ns / 1000000ull);
        else
            json_null(j); /* corosync's own: 1.2 x token */
        json_key(j, "fencing");
        json_bool(j, o->fencing);
        json_key(j, "resource_stickiness");
        json_u64(j, o->stickiness);
        json_key(j, "crm_mon");
        json_str(j, mon);
        json_obj_end(j);
        return;
    }
    char size[32], cons[32] = "1.2 x token";
    format_size(lab->opts.size, size, sizeof size);
    if (o->consensus_ns)
        snprintf(cons, sizeof cons, "%llu ms", (unsigned long long)(o->consensus_ns / 1000000));
    fprintf(out, "  cluster n1, n2: token %llu ms, consensus %s, fencing %s, stickiness %llu\n",
            (unsigned long long)(o->token_ns / 1000000ull), cons,
            o->fencing ? "on (fence_faultline)" : "off", (unsigned long long)o->stickiness);
    fprintf(out, "  target  %s on %s (LUN %s, %s)\n", x->portal, node[0] ? node : "no node",
            x->lun, size);
    if (!node[0])
        fprintf(out, "          %s\n", why);
    fprintf(out, "  crm_mon (on a live node):\n");
    for (char *line = strtok(mon, "\n"); line; line = strtok(NULL, "\n"))
        fprintf(out, "    %s\n", line);
}

/* Each line of the nodes' log files `which` ("pacemaker": LAB/nN/log/
 * pacemaker.log, written by hacluster, opened without following a link;
 * "corosync": LAB/nN/out/corosync.log), passed to fn with the node's name
 * (storage.logs). */
static void ha_logs(const struct lab *lab, const char *which, storage_line_fn fn, void *ctx)
{
    for (unsigned i = 1; i < lab->nhosts; i++) {
        char path[256], line[4096];
        snprintf(path, sizeof path, "%s/%s/%s.log", lab->hosts[i].home,
                 strcmp(which, "corosync") == 0 ? "out" : "log", which);
        int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
        if (!f) {
            if (fd >= 0)
                close(fd);
            continue; /* a node that never started has none */
        }
        while (fgets(line, sizeof line, f))
            fn(ctx, lab->hosts[i].name, line);
        fclose(f);
    }
}

/* A target of kind iscsi without portals: the floating IP's one portal. */
static void ha_place(const struct lab *lab, unsigned client, struct lab_place *p)
{
    (void)client;
    const struct ha_lab *x = ha_priv(lab);
    snprintf(p->where, sizeof p->where, "%.255s", x->portal);
    snprintf(p->backing, sizeof p->backing, "%.159s", x->lun);
    snprintf(p->name, sizeof p->name, "%.127s", x->iqn);
    snprintf(p->desc, sizeof p->desc, "portal %s (the cluster's floating IP)", x->portal);
}

static const struct lab_build ha_build = {
    .default_size = 256ull << 20,
    .lay_out = ha_lay_out,
    .start = ha_start,
    .ready = ha_ready,
};

static const struct lab_serve ha_serve = {
    .place = ha_place,
    .storage = &storage_pacemaker,
    .cli = ha_cli,
    .logs = ha_logs,
};

static const struct lab_faults ha_faults = {
    .process = ha_process,
    .restart = ha_restart,
    .power = ha_power,
};

static const struct lab_report ha_report = {
    .healthy = ha_healthy,
    .rejoin_s = 60, /* a node back online and its fence device started: 10-20 s here */
    .as_built = ha_as_built,
    .status = ha_status,
};

const struct lab_kind lab_ha = {
    .name = "ha",
    .summary = "nodes n1 and n2 under Corosync and Pacemaker failing a tgtd target and a "
               "floating IP over, with fencing through the lab",
    .keys = KEY_TABLE(ha_keys),
    .serves = "iscsi",
    .serves_what = "the embedded HA cluster's floating IP",
    .build = &ha_build,
    .serve = &ha_serve,
    .faults = &ha_faults,
    .report = &ha_report,
};
