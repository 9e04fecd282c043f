/*
 * lab_iscsi — the iSCSI lab: a dual-controller array on one machine.
 *
 *   switch      P-isw               switch ports  P-isw-c, P-isw-a, P-isw-b
 *   client      P-icli              198.18.X.1/24, in our namespace
 *   ctrl-a      namespace P-iscsi-ctrl-a, eth0 198.18.X.11/24, tgtd
 *   ctrl-b      namespace P-iscsi-ctrl-b, eth0 198.18.X.12/24, tgtd
 *   LUN         LAB_DATA_DIR/P-iscsi/lun.img (sparse, [lab] size), reached
 *               through its disk layer LAB/disk-lun/disk (lab_disk.h; one
 *               disk, shared by ctrl-a and ctrl-b) with [lab] disk_faults =
 *               yes (not the default here: the layer takes tgtd's writes and
 *               flushes one at a time, a cost of 72% to a run's I/O)
 *
 * Each controller runs its own tgtd, started with only the network
 * namespace entered (not its mount namespace), with its own control port
 * (`-C`) and a portal on its own address; both export the same backing
 * file (the disk layer's) as LUN 1 with one serial number: shared storage
 * behind two controllers.  The write cache is off (every write synced before it
 * completes) unless [lab] write_cache = on.
 *
 * With write_cache = on, each controller has a volatile write cache of its
 * own between its tgtd and the shared file, as an array's controller has:
 * a faultline-wcache process (wcache/wcache.c), a FUSE file LAB/cache-a/lun over
 * lun.img that keeps written data in its memory until tgtd's fdatasync for
 * SYNCHRONIZE CACHE.  cache_mirror = yes copies each controller's unflushed
 * writes into the other's cache before they are acknowledged;
 * flush = ignore makes both acknowledge SYNCHRONIZE CACHE without writing
 * anything (a write-back cache without a battery that lies).
 *
 * For faults, a controller's process (the default, or process = tgtd) is
 * its tgtd; the lab starts it again, configured as before, for restart and
 * restart_after.  power-off of a controller kills its tgtd and its cache at
 * once (what the cache held unflushed is gone); power-on starts an empty
 * cache and tgtd again.  The LUN's disk layer is the shared disk: no
 * controller's power cut touches it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "../../lib/clock.h"
#include "../../lib/fsutil.h"
#include "../../lib/proc.h"
#include "../../lib/units.h"
#include "lab_cache.h"
#include "lab_disk.h"
#include "lab_kind.h"
#include "lab_names.h"
#include "lab_record.h"

/* tgtd's sockets (it names them /var/run/tgtd/socket.N; /var/run is a link
 * to /run, and root_only_dir follows no link, so the real path here) */
#define TGTD_RUN_DIR "/run/tgtd"
#define ISCSI_PORT 3260
#define TGTADM_TIMEOUT_MS 10000
#define URL_MAX 512

/* Its [lab] keys. */
enum { FLUSH_HONOUR, FLUSH_IGNORE };

struct iscsi_lab_opts {
    bool write_cache;
    bool cache_mirror;
    int flush;
    bool disk_faults;
};
_Static_assert(sizeof(struct iscsi_lab_opts) <= LAB_OPTS_MAX, "iscsi lab options");

static const struct key_def iscsi_keys[] = {
    {"write_cache", KEY_BOOL, "off", NULL, LAB_OPT(struct iscsi_lab_opts, write_cache), 0, 0,
     "iscsi: each controller acknowledges writes from a volatile cache of its own, written to "
     "the LUN at SYNCHRONIZE CACHE (on), or only once they are on disk (off)", 0},
    {"cache_mirror", KEY_BOOL, "no", NULL, LAB_OPT(struct iscsi_lab_opts, cache_mirror), 0, 0,
     "iscsi, write_cache = on: each controller's unflushed writes are copied into the other's "
     "cache before they are acknowledged, so that a failover loses nothing", 0},
    {"flush", KEY_CHOICE, "honour", "honour|ignore", LAB_OPT(struct iscsi_lab_opts, flush), 0,
     0, "iscsi, write_cache = on: ignore makes the controllers acknowledge SYNCHRONIZE CACHE "
     "without writing anything (a cache that lies)", 0},
    LAB_DISK_FAULTS_KEY(struct iscsi_lab_opts, disk_faults, "no"),
};

/* Its own names, from the prefix. */
struct iscsi_lab {
    char lun[160];
    char iqn[128];
    char serial[32];
    char portals[2][URL_MAX];
};
_Static_assert(sizeof(struct iscsi_lab) <= LAB_PRIV_MAX, "iscsi lab names");

static struct iscsi_lab *priv(const struct lab *lab)
{
    return LAB_PRIV((struct lab *)lab, struct iscsi_lab);
}

static const struct iscsi_lab_opts *opts(const struct lab *lab)
{
    return LAB_OPTS(&lab->opts, const struct iscsi_lab_opts);
}

static bool write_cache(const struct lab *lab)
{
    return opts(lab)->write_cache;
}

/* --- a controller's write cache (faultline-wcache) --- */

/* The LUN's disk, which both controllers share (lab_faults.disk). */
static bool iscsi_disk(const struct lab *lab, const struct lab_host *h, struct lab_disk_spec *s)
{
    if (!h->netns[0] || lab_is_client_host(h))
        return false;
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "lun");
    snprintf(s->image, sizeof s->image, "%.159s", priv(lab)->lun);
    s->size = lab->opts.size;
    snprintf(s->what, sizeof s->what, "the LUN's disk, shared by ctrl-a and ctrl-b");
    return true;
}

/* The shared file under the controllers: the disk layer's, or lun.img. */
static void disk_file(const struct lab *lab, char *out, size_t n)
{
    struct lab_disk_spec s;
    iscsi_disk(lab, &lab->hosts[1], &s);
    lab_disk_file(lab, &s, out, n);
}

/* Starts h's cache over the shared file, mirrored into the other
 * controller's with cache_mirror = yes. */
static int start_cache(const struct lab *lab, const struct lab_host *h, int fd, char *err,
                       size_t errlen)
{
    char disk[256];
    disk_file(lab, disk, sizeof disk);
    const struct lab_host *other = &lab->hosts[h == &lab->hosts[1] ? 2 : 1];
    return lab_cache_start(lab, h, disk, opts(lab)->cache_mirror ? other : NULL,
                           opts(lab)->flush == FLUSH_IGNORE, fd, err, errlen);
}

/* The file tgtd of h exports: the shared file, or its cache's view of it. */
static void backing_of(const struct lab *lab, const struct lab_host *h, char *out, size_t n)
{
    if (write_cache(lab))
        lab_cache_path(lab, h, "/lun", out, n);
    else
        disk_file(lab, out, n);
}

static void iscsi_lay_out(struct lab *lab)
{
    const char *P = lab->prefix;
    struct iscsi_lab *x = priv(lab);
    snprintf(lab->bridge, sizeof lab->bridge, "%s-isw", P);
    lab->nhosts = 3;
    lab_lay_out_client(lab, "icli");
    const char *ctrl[] = {"a", "b"};
    for (int i = 0; i < 2; i++) {
        struct lab_host *h = &lab->hosts[1 + i];
        char name[16], port[16];
        snprintf(name, sizeof name, "ctrl-%s", ctrl[i]);
        snprintf(port, sizeof port, "%s-isw-%s", P, ctrl[i]);
        lab_lay_out_server(lab, h, name, port, 11 + (unsigned)i);
        snprintf(h->service, sizeof h->service, "tgtd");
        snprintf(h->log, sizeof h->log, "%.127s/tgtd-%.15s.log", lab->dir, h->name);
    }
    snprintf(x->lun, sizeof x->lun, "%.127s/lun.img", lab->dir);
    snprintf(x->iqn, sizeof x->iqn, "iqn.2026-11.io.faultline:%s-lab", P);
    char seed[64];
    snprintf(seed, sizeof seed, "%s/%u", P, lab->subnet);
    snprintf(x->serial, sizeof x->serial, "FL%08X", lab_hash(seed));
    for (int i = 0; i < 2; i++)
        snprintf(x->portals[i], URL_MAX, "iscsi://%s:%d/%s/1", lab->hosts[1 + i].addr,
                 ISCSI_PORT, x->iqn);
}

/* A tgtd control port whose socket is not there yet. */
static unsigned pick_ctlport(unsigned subnet, unsigned i)
{
    for (unsigned k = 0; k < 64; k++) {
        unsigned port = 20000 + subnet * 4 + i + k * 1024;
        char sock[64];
        snprintf(sock, sizeof sock, "%s/socket.%u", TGTD_RUN_DIR, port);
        if (access(sock, F_OK) != 0)
            return port;
    }
    return 0;
}

static int tgtadm(unsigned port, char *err, size_t errlen, const char *const args[])
{
    char *argv[24];
    char portstr[16];
    snprintf(portstr, sizeof portstr, "%u", port);
    int n = 0;
    argv[n++] = "tgtadm";
    argv[n++] = "-C";
    argv[n++] = portstr;
    argv[n++] = "--lld";
    argv[n++] = "iscsi";
    for (int i = 0; args[i] && n < 23; i++)
        argv[n++] = (char *)args[i];
    argv[n] = NULL;
    char out[1024];
    int rc = proc_run(argv, out, sizeof out, TGTADM_TIMEOUT_MS);
    if (rc != 0) {
        size_t used = (size_t)snprintf(err, errlen, "tgtadm -C %u", port);
        for (int i = 3; argv[i] && used < errlen; i++)
            used += (size_t)snprintf(err + used, errlen - used, " %s", argv[i]);
        if (used < errlen)
            snprintf(err + used, errlen - used, " failed (%d): %s", rc, out);
        return -1;
    }
    return 0;
}

/* Waits (bounded: 10 s) until tgtd of h answers on its control port. */
static int wait_tgtd(const struct lab_host *h, char *err, size_t errlen)
{
    const char *show[] = {"--op", "show", "--mode", "sys", NULL};
    uint64_t until = mono_ns() + 10000000000ull;
    for (;;) {
        enum proc_state st = proc_state(h->pid, h->start);
        if (st == PROC_GONE || st == PROC_ZOMBIE) {
            snprintf(err, errlen, "tgtd of %s exited at start; see %s", h->name, h->log);
            return -1;
        }
        if (tgtadm(h->ctlport, err, errlen, show) == 0)
            return 0;
        if (mono_ns() > until) {
            snprintf(err, errlen, "tgtd of %s does not answer on control port %u; see %s",
                     h->name, h->ctlport, h->log);
            return -1;
        }
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

/* The shared LUN on tgtd of h: target, LUN, identity, cache, access. */
static int export_lun(const struct lab *lab, const struct lab_host *h, char *err, size_t errlen)
{
    const struct iscsi_lab *x = priv(lab);
    char params[256];
    snprintf(params, sizeof params, "scsi_sn=%s,scsi_id=%s,vendor_id=FAULTLN,product_id=LABLUN",
             x->serial, x->serial);
    const char *target[] = {"--op", "new", "--mode", "target", "--tid", "1", "-T", x->iqn, NULL};
    char backing[200];
    backing_of(lab, h, backing, sizeof backing);
    const char *lu[] = {"--op", "new", "--mode", "logicalunit", "--tid", "1", "--lun", "1",
                        "-b", backing, NULL};
    const char *ids[] = {"--op", "update", "--mode", "logicalunit", "--tid", "1", "--lun", "1",
                         "--params", params, NULL};
    /* Caching mode page with WCE cleared: every write is on disk (synced)
     * before it completes. */
    const char *nocache[] = {"--op", "update", "--mode", "logicalunit", "--tid", "1", "--lun",
                             "1", "--params",
                             "mode_page=8:0:18:0x10:0:0xff:0xff:0:0:0xff:0xff:0xff:0xff:0x80:"
                             "0x14:0:0:0:0:0:0",
                             NULL};
    const char *bind[] = {"--op", "bind", "--mode", "target", "--tid", "1", "-I", "ALL", NULL};
    if (tgtadm(h->ctlport, err, errlen, target) != 0 || tgtadm(h->ctlport, err, errlen, lu) != 0 ||
        tgtadm(h->ctlport, err, errlen, ids) != 0 ||
        (!write_cache(lab) && tgtadm(h->ctlport, err, errlen, nocache) != 0) ||
        tgtadm(h->ctlport, err, errlen, bind) != 0)
        return -1;
    return 0;
}

/* Starts tgtd of h on its control port and configures the shared LUN. */
static int run_tgtd(const struct lab *lab, struct lab_host *h, int fd, char *err, size_t errlen)
{
    char portal[64], ctl[16];
    snprintf(portal, sizeof portal, "portal=%s:%d", h->addr, ISCSI_PORT);
    snprintf(ctl, sizeof ctl, "%u", h->ctlport);
    /* -f: stay in the foreground, so the PID is tgtd's own. */
    char *argv[] = {"tgtd", "-f", "-C", ctl, "--iscsi", portal, NULL};
    if (proc_spawn(h->netns, argv, h->log, &h->pid, &h->start, err, errlen) != 0 ||
        lab_rec(fd, err, errlen, "pid %s %d %llu", h->name, (int)h->pid,
                (unsigned long long)h->start) != 0 ||
        wait_tgtd(h, err, errlen) != 0)
        return -1;
    return export_lun(lab, h, err, errlen);
}

static int start_controller(struct lab *lab, struct lab_host *h, int fd, char *err,
                            size_t errlen)
{
    unsigned i = (unsigned)(h - lab->hosts);
    h->ctlport = pick_ctlport(lab->subnet, i);
    if (!h->ctlport) {
        snprintf(err, errlen, "no free tgtd control port under %s", TGTD_RUN_DIR);
        return -1;
    }
    if (lab_rec(fd, err, errlen, "ctlport %s %u", h->name, h->ctlport) != 0 ||
        lab_rec(fd, err, errlen, "socket %s/socket.%u", TGTD_RUN_DIR, h->ctlport) != 0 ||
        lab_rec(fd, err, errlen, "socket %s/socket.%u.lock", TGTD_RUN_DIR, h->ctlport) != 0 ||
        lab_rec(fd, err, errlen, "file %s", h->log) != 0)
        return -1;
    if (write_cache(lab) && start_cache(lab, h, fd, err, errlen) != 0)
        return -1;
    return run_tgtd(lab, h, fd, err, errlen);
}

/* The LUN file both controllers share, then one tgtd per controller. */
static int iscsi_start(struct lab *lab, int fd, char *err, size_t errlen)
{
    const char *lun = priv(lab)->lun;
    if (!write_cache(lab) && (opts(lab)->cache_mirror || opts(lab)->flush != FLUSH_HONOUR)) {
        snprintf(err, errlen, "%s needs write_cache = on (without a cache there is nothing to "
                 "mirror, and every write is on disk before it completes)",
                 opts(lab)->cache_mirror ? "cache_mirror = yes" : "flush = ignore");
        return -1;
    }
    struct lab_disk_spec disk;
    iscsi_disk(lab, &lab->hosts[1], &disk);
    if (lab_rec(fd, err, errlen, "file %s", lun) != 0 ||
        sparse_file(lun, lab->opts.size, 0600, true, err, errlen) != 0 ||
        lab_disk_start(lab, &disk, fd, err, errlen) != 0)
        return -1;
    if (root_only_dir(TGTD_RUN_DIR, 0755, err, errlen) != 0)
        return -1;
    for (unsigned i = 1; i < lab->nhosts; i++)
        if (start_controller(lab, &lab->hosts[i], fd, err, errlen) != 0)
            return -1;
    return 0;
}

static int iscsi_restart(struct lab *lab, struct lab_host *h, int fd, char *err, size_t errlen)
{
    if (!h->ctlport) {
        snprintf(err, errlen, "lab host %s has no service to start", h->name);
        return -1;
    }
    enum proc_state st = proc_state(h->pid, h->start);
    if (st == PROC_RUNNING || st == PROC_STOPPED) {
        snprintf(err, errlen, "tgtd of %s (pid %d) is still %s", h->name, (int)h->pid,
                 proc_state_name(st));
        return -1;
    }
    return run_tgtd(lab, h, fd, err, errlen);
}

/* Power-off: tgtd first (no command reaches the cache after it), then the
 * cache at once.  Power-on: an empty cache, then tgtd. */
static int iscsi_power(struct lab *lab, struct lab_host *h, bool on, int fd, char *what,
                       size_t whatlen, char *err, size_t errlen)
{
    if (!on) {
        uint64_t cstart = 0;
        pid_t cpid = write_cache(lab) ? lab_cache_pid(lab, h, &cstart) : 0;
        /* tgtd first: then nothing new reaches the cache, which is asked
         * what it holds (for the report: a cut that found it clean loses
         * nothing, and nothing can revert) and killed at once.  The answer
         * waits for a flush under way: that one the cache finishes. */
        if (proc_kill(h->pid, h->start, SIGKILL, err, errlen) != 0)
            return -1;
        long dirty = write_cache(lab) ? lab_cache_dirty(lab, h) : 0;
        if (write_cache(lab) && lab_cache_stop(lab, h, err, errlen) != 0)
            return -1;
        char held[64] = "its unflushed pages";
        if (dirty >= 0)
            snprintf(held, sizeof held, "%ld unflushed pages", dirty);
        if (write_cache(lab))
            snprintf(what, whatlen, "tgtd (pid %d) and its write cache (pid %d) killed, %s gone%s",
                     (int)h->pid, (int)cpid, held,
                     opts(lab)->cache_mirror ? " from it (mirrored in the other's)" : "");
        else
            snprintf(what, whatlen, "tgtd (pid %d) killed; no write cache (write_cache = off)",
                     (int)h->pid);
        return 0;
    }
    enum proc_state st = proc_state(h->pid, h->start);
    if (st == PROC_RUNNING || st == PROC_STOPPED) {
        snprintf(err, errlen, "%s is still on: tgtd (pid %d) is %s", h->name, (int)h->pid,
                 proc_state_name(st));
        return -1;
    }
    if ((write_cache(lab) && start_cache(lab, h, fd, err, errlen) != 0) ||
        run_tgtd(lab, h, fd, err, errlen) != 0)
        return -1;
    snprintf(what, whatlen, "tgtd started again (pid %d)%s", (int)h->pid,
             write_cache(lab) ? " over an empty write cache" : "");
    return 0;
}

/* With write caches: each controller's is running. */
static bool iscsi_healthy(const struct lab *lab, char *why, size_t n)
{
    for (unsigned i = 1; write_cache(lab) && i < lab->nhosts; i++) {
        uint64_t start;
        if (!lab_cache_pid(lab, &lab->hosts[i], &start)) {
            snprintf(why, n, "the write cache of %s is not running", lab->hosts[i].name);
            return false;
        }
    }
    return true;
}

static void iscsi_status(const struct lab *lab, struct json *j, FILE *out)
{
    const struct iscsi_lab *x = priv(lab);
    if (j) {
        json_key(j, "lun");
        json_obj_begin(j);
        json_key(j, "backing_file");
        json_str(j, x->lun);
        json_key(j, "bytes");
        json_u64(j, lab->opts.size);
        json_key(j, "serial");
        json_str(j, x->serial);
        json_key(j, "iqn");
        json_str(j, x->iqn);
        json_key(j, "write_cache");
        json_bool(j, write_cache(lab));
        json_key(j, "cache_mirror");
        json_bool(j, opts(lab)->cache_mirror);
        json_key(j, "flush");
        json_str(j, opts(lab)->flush == FLUSH_IGNORE ? "ignore" : "honour");
        json_obj_end(j);
        json_key(j, "portals");
        json_arr_begin(j);
        for (unsigned i = 0; i < 2; i++)
            json_str(j, x->portals[i]);
        json_arr_end(j);
        return;
    }
    char size[32];
    format_size(lab->opts.size, size, sizeof size);
    fprintf(out, "  LUN     %s, %s, serial %s, write cache %s%s%s\n", x->lun, size, x->serial,
            write_cache(lab) ? "on (one per controller)" : "off",
            opts(lab)->cache_mirror ? ", mirrored" : "",
            opts(lab)->flush == FLUSH_IGNORE ? ", flushes ignored" : "");
    for (unsigned i = 0; i < 2; i++)
        fprintf(out, "  %s %s\n", i ? "       " : "portals", x->portals[i]);
}

/* A target of kind iscsi without portals: the LUN through both controllers. */
static void iscsi_place(const struct lab *lab, unsigned client, struct lab_place *p)
{
    (void)client; /* every client's initiator logs in to both portals */
    const struct iscsi_lab *x = priv(lab);
    snprintf(p->where, sizeof p->where, "%.511s,%.511s", x->portals[0], x->portals[1]);
    snprintf(p->backing, sizeof p->backing, "%.159s", x->lun);
    snprintf(p->name, sizeof p->name, "%.127s", x->iqn);
    snprintf(p->desc, sizeof p->desc, "portals %s and %s", x->portals[0], x->portals[1]);
}

/* Every host's process is its tgtd (the client has none). */
static int iscsi_process(const struct lab *lab, const char *host, const char *process,
                         struct lab_process *p, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    const struct lab_host *h = lab_host(lab, host);
    if (!h || !h->netns[0] || lab_is_client_host(h) || (process[0] && strcmp(process, "tgtd") != 0))
        return 1; /* a client host runs no service: its processes by name */
    *p = (struct lab_process){.pid = h->pid, .start = h->start, .restartable = true};
    snprintf(p->name, sizeof p->name, "tgtd");
    return 0;
}

/* Bringing it up. */
static const struct lab_build iscsi_build = {
    .default_size = 256ull << 20,
    .lay_out = iscsi_lay_out,
    .start = iscsi_start,
};

/* What it lends a run. */
static const struct lab_serve iscsi_serve = {
    .place = iscsi_place,
};

/* What faults reach. */
static const struct lab_faults iscsi_faults = {
    .process = iscsi_process,
    .restart = iscsi_restart,
    .power = iscsi_power,
    .disk = iscsi_disk,
};

/* Its health and status. */
static const struct lab_report iscsi_report = {
    .healthy = iscsi_healthy,
    .status = iscsi_status,
};

const struct lab_kind lab_iscsi = {
    .name = "iscsi",
    .summary = "two tgtd controllers ctrl-a and ctrl-b exporting one LUN",
    .keys = KEY_TABLE(iscsi_keys),
    .serves = "iscsi",
    .serves_what = "the embedded lab",
    .build = &iscsi_build,
    .serve = &iscsi_serve,
    .faults = &iscsi_faults,
    .report = &iscsi_report,
};
