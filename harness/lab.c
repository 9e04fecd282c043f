/* lab — see lab.h for the layout. */
#include "lab.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../lib/clock.h"
#include "../lib/fsutil.h"
#include "../lib/json.h"
#include "../lib/net.h"
#include "../lib/proc.h"
#include "../lib/units.h"

#define TGTD_RUN_DIR "/var/run/tgtd"
#define ISCSI_PORT 3260
#define TGTADM_TIMEOUT_MS 10000

/* --- names --- */

const char *lab_kinds(void)
{
    return "iscsi, gluster";
}

bool lab_kind_known(const char *kind)
{
    return strcmp(kind, "iscsi") == 0 || strcmp(kind, "gluster") == 0;
}

/* The process a lab host runs for the lab, for people. */
static const char *service_name(const struct lab *lab, const struct lab_host *h)
{
    if (strcmp(lab->kind, "gluster") == 0)
        return h->netns[0] ? "glusterd" : "glusterfs (FUSE client)";
    return "tgtd";
}

int lab_prefix(const char *given, char *out, size_t n, char *err, size_t errlen)
{
    const char *p = given && *given ? given : getenv("FAULTLINE_LAB_PREFIX");
    if (!p || !*p)
        p = "fl";
    size_t len = strlen(p);
    bool ok = len >= 2 && len <= 8 && strncmp(p, "fl", 2) == 0;
    for (size_t i = 0; ok && i < len; i++)
        ok = islower((unsigned char)p[i]) || isdigit((unsigned char)p[i]);
    if (!ok) {
        snprintf(err, errlen, "lab prefix '%s': 2 to 8 lower-case letters or digits starting "
                 "with 'fl' (interface names have at most 15 characters)", p);
        return -1;
    }
    snprintf(out, n, "%s", p);
    return 0;
}

static uint32_t fnv1a(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static void state_path(const char *kind, const char *prefix, char *out, size_t n)
{
    snprintf(out, n, "%s/%s-%s.state", LAB_STATE_DIR, prefix, kind);
}

void lab_layout_client(struct lab *lab, const char *ifname)
{
    struct lab_host *c = &lab->hosts[0];
    snprintf(c->name, sizeof c->name, "client");
    c->netns[0] = '\0';
    snprintf(c->ifname, sizeof c->ifname, "%s-%s", lab->prefix, ifname);
    snprintf(c->port, sizeof c->port, "%.12s-c", lab->bridge); /* P-xsw: at most 12 */
    snprintf(c->addr, sizeof c->addr, "198.18.%u.1", lab->subnet);
}

/* Everything but the chosen subnet and control ports follows from the prefix. */
static void layout(struct lab *lab)
{
    if (strcmp(lab->kind, "gluster") == 0) {
        lab_gluster_layout(lab);
        return;
    }
    const char *P = lab->prefix;
    snprintf(lab->bridge, sizeof lab->bridge, "%s-isw", P);
    lab->nhosts = 3;
    lab_layout_client(lab, "icli");
    const char *ctrl[] = {"a", "b"};
    for (int i = 0; i < 2; i++) {
        struct lab_host *h = &lab->hosts[1 + i];
        snprintf(h->name, sizeof h->name, "ctrl-%s", ctrl[i]);
        snprintf(h->netns, sizeof h->netns, "%s-iscsi-ctrl-%s", P, ctrl[i]);
        snprintf(h->ifname, sizeof h->ifname, "eth0");
        snprintf(h->port, sizeof h->port, "%s-isw-%s", P, ctrl[i]);
        snprintf(h->addr, sizeof h->addr, "198.18.%u.%d", lab->subnet, 11 + i);
    }
    snprintf(lab->dir, sizeof lab->dir, "%s/%s-%s", LAB_DATA_DIR, P, lab->kind);
    snprintf(lab->lun, sizeof lab->lun, "%s/lun.img", lab->dir);
    snprintf(lab->iqn, sizeof lab->iqn, "iqn.2026-11.io.faultline:%s-lab", P);
    char seed[64];
    snprintf(seed, sizeof seed, "%s/%u", P, lab->subnet);
    snprintf(lab->serial, sizeof lab->serial, "FL%08X", fnv1a(seed));
    lab->nportals = 2;
    for (int i = 0; i < 2; i++) {
        snprintf(lab->portals[i], FL_URL_MAX, "iscsi://%s:%d/%s/1", lab->hosts[1 + i].addr,
                 ISCSI_PORT, lab->iqn);
        snprintf(lab->hosts[1 + i].log, sizeof lab->hosts[1 + i].log, "%s/tgtd-%s.log",
                 lab->dir, lab->hosts[1 + i].name);
    }
}

const struct lab_host *lab_host(const struct lab *lab, const char *name)
{
    for (unsigned i = 0; i < lab->nhosts; i++)
        if (strcmp(lab->hosts[i].name, name) == 0)
            return &lab->hosts[i];
    return NULL;
}

static struct lab_host *host_mut(struct lab *lab, const char *name)
{
    return (struct lab_host *)lab_host(lab, name);
}

/* --- the state file: a write-ahead list of what was created --- */

struct record {
    char key[16];
    char a[PATH_MAX];
    char b[64];
    uint64_t n1, n2;
};

int lab_rec(int fd, const char *fmt, ...)
{
    char line[PATH_MAX + 128];
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (len < 0 || (size_t)len >= sizeof line - 1)
        return -1;
    line[len++] = '\n';
    /* Synced before the thing it names exists, so a crash never leaves
     * something that `lab down` does not know about. */
    if (write(fd, line, (size_t)len) != len || fdatasync(fd) != 0)
        return -1;
    return 0;
}

static int read_records(const char *path, struct record **out, size_t *n, char *err,
                        size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    size_t cap = 32;
    *n = 0;
    *out = malloc(cap * sizeof **out);
    char line[PATH_MAX + 128];
    while (*out && fgets(line, sizeof line, f)) {
        if (*n == cap) {
            struct record *r = realloc(*out, cap * 2 * sizeof *r);
            if (!r)
                break;
            *out = r;
            cap *= 2;
        }
        struct record *r = &(*out)[*n];
        memset(r, 0, sizeof *r);
        line[strcspn(line, "\n")] = '\0';
        char *sp = strchr(line, ' ');
        if (sp)
            *sp = '\0';
        snprintf(r->key, sizeof r->key, "%.15s", line);
        if (sp) {
            char *arg = sp + 1;
            if (strcmp(r->key, "pid") == 0 || strcmp(r->key, "ctlport") == 0) {
                char name[64];
                unsigned long long a = 0, b = 0;
                if (sscanf(arg, "%63s %llu %llu", name, &a, &b) >= 2) {
                    snprintf(r->b, sizeof r->b, "%s", name);
                    r->n1 = a;
                    r->n2 = b;
                }
            } else {
                snprintf(r->a, sizeof r->a, "%s", arg);
                r->n1 = strtoull(arg, NULL, 10);
            }
        }
        (*n)++;
    }
    fclose(f);
    if (!*out) {
        snprintf(err, errlen, "out of memory reading %s", path);
        return -1;
    }
    return 0;
}

static bool ready_in(const struct record *r, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(r[i].key, "ready") == 0)
            return true;
    return false;
}

int lab_load(const char *kind, const char *prefix, struct lab *lab, char *err, size_t errlen)
{
    char path[PATH_MAX];
    state_path(kind, prefix, path, sizeof path);
    if (access(path, F_OK) != 0) {
        snprintf(err, errlen, "lab %s (prefix %s) is not up", kind, prefix);
        return -1;
    }
    struct record *r;
    size_t n;
    if (read_records(path, &r, &n, err, errlen) != 0)
        return -1;
    memset(lab, 0, sizeof *lab);
    snprintf(lab->kind, sizeof lab->kind, "%s", kind);
    snprintf(lab->prefix, sizeof lab->prefix, "%s", prefix);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(r[i].key, "subnet") == 0)
            lab->subnet = (unsigned)r[i].n1;
        else if (strcmp(r[i].key, "size") == 0)
            lab->size = r[i].n1;
        else if (strcmp(r[i].key, "write_cache") == 0)
            lab->write_cache = r[i].n1 != 0;
        else if (strcmp(r[i].key, "ping_timeout") == 0)
            lab->ping_timeout_s = (unsigned)r[i].n1;
        else if (strcmp(r[i].key, "heal_timeout") == 0)
            lab->heal_timeout_s = (unsigned)r[i].n1;
        else if (strcmp(r[i].key, "bitrot") == 0)
            lab->bitrot = r[i].n1 != 0;
    }
    layout(lab);
    for (size_t i = 0; i < n; i++) {
        struct lab_host *h = r[i].b[0] ? host_mut(lab, r[i].b) : NULL;
        if (!h)
            continue;
        if (strcmp(r[i].key, "pid") == 0) {
            h->pid = (pid_t)r[i].n1;
            h->start = r[i].n2;
        } else if (strcmp(r[i].key, "ctlport") == 0) {
            h->ctlport = (unsigned)r[i].n1;
        }
    }
    bool ready = ready_in(r, n);
    free(r);
    if (!ready) {
        snprintf(err, errlen, "lab %s (prefix %s) was not brought up completely; run "
                 "`faultline lab down %s` first", kind, prefix, kind);
        return -1;
    }
    return 0;
}

/* --- down --- */

/* Every process in network namespace `netns` (what a lab server started:
 * glusterd, its bricks, its self-heal daemon), by PID and start time. */
static int kill_netns_procs(const char *netns, char *err, size_t errlen)
{
    char path[PATH_MAX + 16];
    struct stat ns;
    snprintf(path, sizeof path, "/run/netns/%s", netns);
    if (stat(path, &ns) != 0)
        return 0; /* the namespace is gone, and everything in it */
    for (int round = 0; round < 3; round++) { /* a dying parent may start nothing new */
        DIR *d = opendir("/proc");
        struct dirent *e;
        int found = 0;
        while (d && (e = readdir(d))) {
            char *end;
            long pid = strtol(e->d_name, &end, 10);
            struct stat st;
            if (*end || pid <= 0 || pid == getpid())
                continue;
            snprintf(path, sizeof path, "/proc/%ld/ns/net", pid);
            if (stat(path, &st) != 0 || st.st_ino != ns.st_ino || st.st_dev != ns.st_dev)
                continue;
            uint64_t start = proc_starttime((pid_t)pid);
            if (proc_kill((pid_t)pid, start, SIGKILL, err, errlen) != 0) {
                closedir(d);
                return -1;
            }
            found++;
        }
        if (d)
            closedir(d);
        if (!found)
            break;
    }
    return 0;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path) == 0 || errno == ENOENT ? 0 : -1;
}

/* A lab's own directory and everything its servers wrote into it; never
 * anything outside LAB_DATA_DIR. */
static int remove_tree(const char *dir, char *err, size_t errlen)
{
    if (strncmp(dir, LAB_DATA_DIR "/", strlen(LAB_DATA_DIR) + 1) != 0 || strstr(dir, "..")) {
        snprintf(err, errlen, "refusing to remove %.900s: not a lab directory", dir);
        return -1;
    }
    if (access(dir, F_OK) != 0)
        return 0;
    if (nftw(dir, remove_one, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) != 0) {
        snprintf(err, errlen, "cannot remove %.900s: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}

int lab_down(const char *kind, const char *prefix, char *err, size_t errlen)
{
    char path[PATH_MAX];
    state_path(kind, prefix, path, sizeof path);
    if (access(path, F_OK) != 0)
        return 0;
    struct record *r;
    size_t n;
    if (read_records(path, &r, &n, err, errlen) != 0)
        return -1;
    int rc = 0;
    char e[1024];
    /* A FUSE mount first: nothing may hang on it once its servers go. */
    for (size_t i = n; i-- > 0;)
        if (strcmp(r[i].key, "mount") == 0 && umount2(r[i].a, MNT_DETACH) != 0 &&
            errno != EINVAL && errno != ENOENT && rc == 0) {
            snprintf(err, errlen, "cannot unmount %s: %s", r[i].a, strerror(errno));
            rc = -1;
        }
    /* Processes (they hold the namespaces and the backing files), then
     * links, namespaces, files; newest first within each kind. */
    for (size_t i = n; i-- > 0;)
        if (strcmp(r[i].key, "pid") == 0 &&
            proc_kill((pid_t)r[i].n1, r[i].n2, SIGKILL, e, sizeof e) != 0 && rc == 0) {
            snprintf(err, errlen, "%s", e);
            rc = -1;
        }
    for (size_t i = n; i-- > 0;)
        if (strcmp(r[i].key, "nsprocs") == 0 && kill_netns_procs(r[i].a, e, sizeof e) != 0 &&
            rc == 0) {
            snprintf(err, errlen, "%s", e);
            rc = -1;
        }
    struct nl_sock *sk = net_open(NULL, e, sizeof e);
    if (!sk && rc == 0) {
        snprintf(err, errlen, "%s", e);
        rc = -1;
    }
    for (size_t i = n; sk && i-- > 0;)
        if (strcmp(r[i].key, "link") == 0 && net_link_delete(sk, r[i].a, e, sizeof e) != 0 &&
            rc == 0) {
            snprintf(err, errlen, "%s", e);
            rc = -1;
        }
    net_close(sk);
    for (size_t i = n; i-- > 0;)
        if (strcmp(r[i].key, "netns") == 0 && netns_delete(r[i].a, e, sizeof e) != 0 &&
            rc == 0) {
            snprintf(err, errlen, "%s", e);
            rc = -1;
        }
    for (size_t i = n; i-- > 0;) {
        if ((strcmp(r[i].key, "socket") == 0 || strcmp(r[i].key, "file") == 0) &&
            unlink(r[i].a) != 0 && errno != ENOENT && rc == 0) {
            snprintf(err, errlen, "cannot remove %s: %s", r[i].a, strerror(errno));
            rc = -1;
        }
        if (strcmp(r[i].key, "dir") == 0 && rmdir(r[i].a) != 0 && errno != ENOENT && rc == 0) {
            snprintf(err, errlen, "cannot remove %s: %s", r[i].a, strerror(errno));
            rc = -1;
        }
    }
    for (size_t i = n; i-- > 0;)
        if (strcmp(r[i].key, "tree") == 0 && remove_tree(r[i].a, e, sizeof e) != 0 && rc == 0) {
            snprintf(err, errlen, "%s", e);
            rc = -1;
        }
    free(r);
    /* Keep the state while something could not be removed: down can retry. */
    if (rc == 0 && unlink(path) != 0 && errno != ENOENT) {
        snprintf(err, errlen, "cannot remove %s: %s", path, strerror(errno));
        rc = -1;
    }
    return rc;
}

/* --- up --- */

/* A /24 of 198.18.0.0/15 that no other lab's state file names. */
static unsigned pick_subnet(const char *prefix, const char *own_state)
{
    bool used[256] = {false};
    DIR *d = opendir(LAB_STATE_DIR);
    struct dirent *de;
    while (d && (de = readdir(d))) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", LAB_STATE_DIR, de->d_name);
        if (de->d_name[0] == '.' || strcmp(path, own_state) == 0)
            continue;
        FILE *f = fopen(path, "r");
        char line[256];
        unsigned x;
        while (f && fgets(line, sizeof line, f))
            if (sscanf(line, "subnet %u", &x) == 1 && x < 256)
                used[x] = true;
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
    unsigned x = 10 + fnv1a(prefix) % 240;
    for (unsigned k = 0; k < 240 && used[x]; k++)
        x = 10 + (x - 10 + 1) % 240;
    return x;
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

/* Starts tgtd of h on its control port and configures the shared LUN. */
static int run_tgtd(const struct lab *lab, struct lab_host *h, int fd, char *err, size_t errlen)
{
    char portal[64], ctl[16];
    snprintf(portal, sizeof portal, "portal=%s:%d", h->addr, ISCSI_PORT);
    snprintf(ctl, sizeof ctl, "%u", h->ctlport);
    /* -f: stay in the foreground, so the PID is tgtd's own. */
    char *argv[] = {"tgtd", "-f", "-C", ctl, "--iscsi", portal, NULL};
    if (proc_spawn(h->netns, argv, h->log, &h->pid, &h->start, err, errlen) != 0)
        return -1;
    if (lab_rec(fd, "pid %s %d %llu", h->name, (int)h->pid, (unsigned long long)h->start) != 0) {
        snprintf(err, errlen, "cannot write the lab state: %s", strerror(errno));
        return -1;
    }
    /* Ready when its management socket answers (bounded: 10 s). */
    const char *show[] = {"--op", "show", "--mode", "sys", NULL};
    uint64_t until = mono_ns() + 10000000000ull;
    for (;;) {
        if (proc_state(h->pid, h->start) == PROC_GONE ||
            proc_state(h->pid, h->start) == PROC_ZOMBIE) {
            snprintf(err, errlen, "tgtd of %s exited at start; see %s", h->name, h->log);
            return -1;
        }
        if (tgtadm(h->ctlport, err, errlen, show) == 0)
            break;
        if (mono_ns() > until) {
            snprintf(err, errlen, "tgtd of %s does not answer on control port %u; see %s",
                     h->name, h->ctlport, h->log);
            return -1;
        }
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    char params[256];
    snprintf(params, sizeof params, "scsi_sn=%s,scsi_id=%s,vendor_id=FAULTLN,product_id=LABLUN",
             lab->serial, lab->serial);
    const char *target[] = {"--op", "new", "--mode", "target", "--tid", "1", "-T", lab->iqn, NULL};
    const char *lu[] = {"--op", "new", "--mode", "logicalunit", "--tid", "1", "--lun", "1",
                        "-b", lab->lun, NULL};
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
        (!lab->write_cache && tgtadm(h->ctlport, err, errlen, nocache) != 0) ||
        tgtadm(h->ctlport, err, errlen, bind) != 0)
        return -1;
    return 0;
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
    if (lab_rec(fd, "ctlport %s %u", h->name, h->ctlport) != 0 ||
        lab_rec(fd, "socket %s/socket.%u", TGTD_RUN_DIR, h->ctlport) != 0 ||
        lab_rec(fd, "socket %s/socket.%u.lock", TGTD_RUN_DIR, h->ctlport) != 0 ||
        lab_rec(fd, "file %s", h->log) != 0) {
        snprintf(err, errlen, "cannot write the lab state: %s", strerror(errno));
        return -1;
    }
    return run_tgtd(lab, h, fd, err, errlen);
}

int lab_restart_service(const char *kind, const char *prefix, const char *host, char *err,
                        size_t errlen)
{
    struct lab lab;
    if (lab_load(kind, prefix, &lab, err, errlen) != 0)
        return -1;
    struct lab_host *h = host_mut(&lab, host);
    bool gluster = strcmp(kind, "gluster") == 0;
    if (!h || (!gluster && !h->ctlport) || (gluster && !h->netns[0])) {
        snprintf(err, errlen, "lab host %s has no service to start", host);
        return -1;
    }
    enum proc_state st = proc_state(h->pid, h->start);
    if (!gluster && (st == PROC_RUNNING || st == PROC_STOPPED)) {
        snprintf(err, errlen, "tgtd of %s (pid %d) is still %s", host, (int)h->pid,
                 proc_state_name(st));
        return -1;
    }
    char path[PATH_MAX];
    state_path(kind, prefix, path, sizeof path);
    int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    /* The new PID goes after the old one: the newest record of a host wins,
     * and `lab down` kills every recorded one.  A gluster server also gets
     * back the bricks and daemons glusterd starts. */
    int rc = gluster ? lab_gluster_restart(&lab, h, fd, err, errlen)
                     : run_tgtd(&lab, h, fd, err, errlen);
    close(fd);
    return rc;
}

static int build(struct lab *lab, int fd, char *err, size_t errlen)
{
    bool gluster = strcmp(lab->kind, "gluster") == 0;
    REC("%s %s", gluster ? "tree" : "dir", lab->dir);
    if (mkdir_p(lab->dir, err, errlen) != 0)
        return -1;
    if (gluster)
        goto network;
    REC("file %s", lab->lun);
    int lf = open(lab->lun, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (lf < 0 || ftruncate(lf, (off_t)lab->size) != 0) {
        snprintf(err, errlen, "cannot create %s: %s", lab->lun, strerror(errno));
        if (lf >= 0)
            close(lf);
        return -1;
    }
    close(lf);

network:;
    struct nl_sock *sk = net_open(NULL, err, errlen);
    if (!sk)
        return -1;
    int rc = -1;
    REC("link %s", lab->bridge);
    /* The client's address lives in our namespace, which also holds the
     * switch (the bridge device).  Without arp_ignore the bridge answers the
     * controllers' ARP for the client too, and after a link bounce their
     * replies may come in through the bridge device, around the client's own
     * port and cable: faults on those would then cut nothing. */
    if (net_bridge_add(sk, lab->bridge, err, errlen) != 0 ||
        net_ipv4_conf(lab->bridge, "arp_ignore", "1", err, errlen) != 0 ||
        net_link_set_up(sk, lab->bridge, true, err, errlen) != 0)
        goto out;
    const struct lab_host *c = &lab->hosts[0];
    REC("link %s", c->ifname); /* deleting one end of a veth pair deletes both */
    REC("link %s", c->port);
    char cidr[40];
    snprintf(cidr, sizeof cidr, "%s/24", c->addr);
    if (net_veth_add(sk, c->ifname, c->port, NULL, err, errlen) != 0 ||
        net_link_set_master(sk, c->port, lab->bridge, err, errlen) != 0 ||
        net_link_set_up(sk, c->port, true, err, errlen) != 0 ||
        net_link_set_up(sk, c->ifname, true, err, errlen) != 0 ||
        net_addr_add(sk, c->ifname, cidr, err, errlen) != 0)
        goto out;
    for (unsigned i = 1; i < lab->nhosts; i++) {
        const struct lab_host *h = &lab->hosts[i];
        REC("netns %s", h->netns);
        if (netns_create(h->netns, err, errlen) != 0)
            goto out;
        REC("link %s", h->port);
        if (net_veth_add(sk, h->port, h->ifname, h->netns, err, errlen) != 0 ||
            net_link_set_master(sk, h->port, lab->bridge, err, errlen) != 0 ||
            net_link_set_up(sk, h->port, true, err, errlen) != 0)
            goto out;
        struct nl_sock *in = net_open(h->netns, err, errlen);
        if (!in)
            goto out;
        snprintf(cidr, sizeof cidr, "%s/24", h->addr);
        int r = net_link_set_up(in, "lo", true, err, errlen) != 0 ||
                net_link_set_up(in, h->ifname, true, err, errlen) != 0 ||
                net_addr_add(in, h->ifname, cidr, err, errlen) != 0;
        net_close(in);
        if (r)
            goto out;
    }
    rc = 0;
out:
    net_close(sk);
    if (rc != 0)
        return -1;
    if (gluster) {
        if (lab_gluster_start(lab, fd, err, errlen) != 0)
            return -1;
        REC("ready");
        return 0;
    }
    if (mkdir_p(TGTD_RUN_DIR, err, errlen) != 0)
        return -1;
    for (unsigned i = 1; i < lab->nhosts; i++)
        if (start_controller(lab, &lab->hosts[i], fd, err, errlen) != 0)
            return -1;
    REC("ready");
    return 0;
}

/* Is everything the state names still there and running? */
static bool healthy(const struct lab *lab, char *why, size_t n)
{
    char err[512];
    struct nl_sock *sk = net_open(NULL, err, sizeof err);
    if (!sk) {
        snprintf(why, n, "%s", err);
        return false;
    }
    bool ok = true;
    struct link_state st;
    if (net_link_state(sk, lab->bridge, &st, err, sizeof err) != 0 || !st.exists) {
        snprintf(why, n, "switch %s is missing", lab->bridge);
        ok = false;
    }
    for (unsigned i = 0; ok && i < lab->nhosts; i++) {
        const struct lab_host *h = &lab->hosts[i];
        if (h->netns[0] && !netns_exists(h->netns)) {
            snprintf(why, n, "namespace %s is missing", h->netns);
            ok = false;
        } else if (net_link_state(sk, h->port, &st, err, sizeof err) != 0 || !st.exists) {
            snprintf(why, n, "switch port %s is missing", h->port);
            ok = false;
        } else if (h->pid && proc_state(h->pid, h->start) != PROC_RUNNING) {
            snprintf(why, n, "%s of %s (pid %d) is %s", service_name(lab, h), h->name,
                     (int)h->pid, proc_state_name(proc_state(h->pid, h->start)));
            ok = false;
        }
    }
    net_close(sk);
    if (ok && strcmp(lab->kind, "gluster") == 0)
        ok = lab_gluster_healthy(lab, why, n);
    return ok;
}

int lab_up(const char *kind, const struct lab_opts *o, struct lab *lab, bool *created, char *err,
           size_t errlen)
{
    *created = false;
    if (!lab_kind_known(kind)) {
        snprintf(err, errlen, "unknown lab '%s' (known: %s)", kind, lab_kinds());
        return -1;
    }
    char prefix[9];
    if (lab_prefix(o->prefix, prefix, sizeof prefix, err, errlen) != 0)
        return -1;
    char path[PATH_MAX];
    state_path(kind, prefix, path, sizeof path);
    if (access(path, F_OK) == 0) {
        char why[512] = "";
        if (lab_load(kind, prefix, lab, why, sizeof why) == 0 && healthy(lab, why, sizeof why)) {
            /* up already: harmless, if it is the lab that was asked for */
            unsigned ping = o->ping_timeout_s ? o->ping_timeout_s : 10;
            unsigned heal = o->heal_timeout_s ? o->heal_timeout_s : 5;
            bool gluster = strcmp(kind, "gluster") == 0;
            if ((!gluster && lab->write_cache != o->write_cache) ||
                (gluster && (lab->ping_timeout_s != ping || lab->heal_timeout_s != heal ||
                             lab->bitrot != o->bitrot))) {
                snprintf(err, errlen, "lab %s (prefix %s) is up with other settings (%s); take "
                         "it down first: faultline lab down %s", kind, prefix,
                         gluster ? "ping_timeout, heal_timeout or bitrot" : "write_cache", kind);
                return -1;
            }
            return 0;
        }
        fprintf(stderr, "faultline: lab %s (prefix %s) is broken (%s); rebuilding it\n", kind,
                prefix, why);
        if (lab_down(kind, prefix, err, errlen) != 0)
            return -1;
    }
    if (mkdir_p(LAB_STATE_DIR, err, errlen) != 0)
        return -1;
    memset(lab, 0, sizeof *lab);
    snprintf(lab->kind, sizeof lab->kind, "%s", kind);
    snprintf(lab->prefix, sizeof lab->prefix, "%s", prefix);
    lab->subnet = pick_subnet(prefix, path);
    bool gluster = strcmp(kind, "gluster") == 0;
    /* xfs needs 300 MB at least; the images are sparse */
    lab->size = o->size ? o->size : gluster ? 512ull << 20 : 256ull << 20;
    lab->write_cache = o->write_cache;
    lab->ping_timeout_s = o->ping_timeout_s ? o->ping_timeout_s : 10;
    lab->heal_timeout_s = o->heal_timeout_s ? o->heal_timeout_s : 5;
    lab->bitrot = o->bitrot;
    layout(lab);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    int rc = lab_rec(fd, "kind %s", kind) || lab_rec(fd, "prefix %s", prefix) ||
                     lab_rec(fd, "subnet %u", lab->subnet) ||
                     lab_rec(fd, "size %llu", (unsigned long long)lab->size) ||
                     lab_rec(fd, "write_cache %d", lab->write_cache) ||
                     lab_rec(fd, "ping_timeout %u", lab->ping_timeout_s) ||
                     lab_rec(fd, "heal_timeout %u", lab->heal_timeout_s) ||
                     lab_rec(fd, "bitrot %d", lab->bitrot)
                 ? -1
                 : 0;
    if (rc != 0)
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    else
        rc = build(lab, fd, err, errlen);
    close(fd);
    if (rc != 0) {
        char derr[512];
        if (lab_down(kind, prefix, derr, sizeof derr) != 0)
            fprintf(stderr, "faultline: could not remove the half-built lab either: %s\n", derr);
        return -1;
    }
    *created = true;
    return 0;
}

/* --- status --- */

static void host_json(struct json *j, const struct lab *lab, const struct lab_host *h,
                      struct nl_sock *sk)
{
    struct link_state st = {0};
    char err[256];
    if (sk)
        net_link_state(sk, h->port, &st, err, sizeof err);
    json_obj_begin(j);
    json_key(j, "name");
    json_str(j, h->name);
    json_key(j, "netns");
    if (h->netns[0])
        json_str(j, h->netns);
    else
        json_null(j);
    json_key(j, "interface");
    json_str(j, h->ifname);
    json_key(j, "address");
    json_str(j, h->addr);
    json_key(j, "switch_port");
    json_str(j, h->port);
    json_key(j, "port_up");
    json_bool(j, st.exists && st.admin_up);
    if (h->pid) {
        json_key(j, "process");
        json_obj_begin(j);
        json_key(j, "name");
        json_str(j, service_name(lab, h));
        json_key(j, "pid");
        json_i64(j, h->pid);
        json_key(j, "state");
        json_str(j, proc_state_name(proc_state(h->pid, h->start)));
        if (h->ctlport) {
            json_key(j, "control_port");
            json_u64(j, h->ctlport);
        }
        json_key(j, "log");
        json_str(j, h->log);
        json_obj_end(j);
    }
    json_obj_end(j);
}

void lab_status(const struct lab *lab, bool json, FILE *out)
{
    char err[256];
    struct nl_sock *sk = net_open(NULL, err, sizeof err);
    if (json) {
        struct json j;
        json_init(&j, out, true);
        json_obj_begin(&j);
        json_key(&j, "lab");
        json_str(&j, lab->kind);
        json_key(&j, "prefix");
        json_str(&j, lab->prefix);
        json_key(&j, "switch");
        json_str(&j, lab->bridge);
        json_key(&j, "subnet");
        char net[32];
        snprintf(net, sizeof net, "198.18.%u.0/24", lab->subnet);
        json_str(&j, net);
        json_key(&j, "hosts");
        json_arr_begin(&j);
        for (unsigned i = 0; i < lab->nhosts; i++)
            host_json(&j, lab, &lab->hosts[i], sk);
        json_arr_end(&j);
        if (strcmp(lab->kind, "gluster") == 0) {
            lab_gluster_status(lab, true, &j, out);
            json_obj_end(&j);
            fputc('\n', out);
            net_close(sk);
            return;
        }
        json_key(&j, "lun");
        json_obj_begin(&j);
        json_key(&j, "backing_file");
        json_str(&j, lab->lun);
        json_key(&j, "bytes");
        json_u64(&j, lab->size);
        json_key(&j, "serial");
        json_str(&j, lab->serial);
        json_key(&j, "iqn");
        json_str(&j, lab->iqn);
        json_key(&j, "write_cache");
        json_bool(&j, lab->write_cache);
        json_obj_end(&j);
        json_key(&j, "portals");
        json_arr_begin(&j);
        for (unsigned i = 0; i < lab->nportals; i++)
            json_str(&j, lab->portals[i]);
        json_arr_end(&j);
        json_obj_end(&j);
        fputc('\n', out);
        net_close(sk);
        return;
    }
    char size[32];
    format_size(lab->size, size, sizeof size);
    fprintf(out, "lab %s (prefix %s): switch %s, subnet 198.18.%u.0/24\n", lab->kind,
            lab->prefix, lab->bridge, lab->subnet);
    for (unsigned i = 0; i < lab->nhosts; i++) {
        const struct lab_host *h = &lab->hosts[i];
        struct link_state st = {0};
        if (sk)
            net_link_state(sk, h->port, &st, err, sizeof err);
        fprintf(out, "  %-7s %s%s, %s %s/24, switch port %s (%s)", h->name,
                h->netns[0] ? "namespace " : "our namespace", h->netns, h->ifname, h->addr,
                h->port, !st.exists ? "missing" : st.admin_up ? "up" : "DOWN");
        if (h->pid && h->ctlport)
            fprintf(out, ", tgtd pid %d %s (control port %u)", (int)h->pid,
                    proc_state_name(proc_state(h->pid, h->start)), h->ctlport);
        else if (h->pid && h->netns[0])
            fprintf(out, ", %s pid %d %s", service_name(lab, h), (int)h->pid,
                    proc_state_name(proc_state(h->pid, h->start)));
        fputc('\n', out);
    }
    if (strcmp(lab->kind, "gluster") == 0) {
        lab_gluster_status(lab, false, NULL, out);
        net_close(sk);
        return;
    }
    fprintf(out, "  LUN     %s, %s, serial %s, write cache %s\n", lab->lun, size, lab->serial,
            lab->write_cache ? "on" : "off");
    for (unsigned i = 0; i < lab->nportals; i++)
        fprintf(out, "  %s %s\n", i ? "       " : "portals", lab->portals[i]);
    net_close(sk);
}

static const char usage_lab[] =
    "usage: faultline lab up|down|status KIND [--prefix P] [--json] [--size SIZE]\n"
    "                     [--write-cache on|off]\n"
    "\n"
    "The embedded lab: a storage cluster on this machine, in network namespaces\n"
    "on a Linux bridge, addresses from 198.18.0.0/15.  KIND: iscsi (two tgtd\n"
    "controllers ctrl-a and ctrl-b exporting one LUN) or gluster (servers gs1, gs2,\n"
    "gs3 with a replica-3 GlusterFS volume, FUSE-mounted here).\n"
    "\n"
    "  up       build it (harmless when it is up already)\n"
    "  down     remove everything it created, also after a crash\n"
    "  status   hosts, addresses, switch ports, processes, portals (exit 1: not up)\n"
    "  --prefix P   names start with P (default fl, or $FAULTLINE_LAB_PREFIX)\n"
    "  --json       status as JSON\n"
    "  --size, --write-cache   for up: the iscsi LUN (default 256MiB, off); --size is\n"
    "               each gluster brick (default 512MiB, sparse)\n";

int cmd_lab(int argc, char **argv)
{
    const char *op = NULL, *kind = NULL, *prefix = NULL;
    bool json = false;
    struct lab_opts o = {.size = 0};
    char err[2048];
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage_lab, stdout);
            return 0;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--prefix") == 0 && i + 1 < argc) {
            prefix = argv[++i];
        } else if (strcmp(argv[i], "--size") == 0 && i + 1 < argc) {
            if (parse_size(argv[++i], &o.size, err, sizeof err) != 0) {
                fprintf(stderr, "faultline: --size: %s\n", err);
                return 2;
            }
        } else if (strcmp(argv[i], "--write-cache") == 0 && i + 1 < argc) {
            if (parse_bool(argv[++i], &o.write_cache, err, sizeof err) != 0) {
                fprintf(stderr, "faultline: --write-cache: %s\n", err);
                return 2;
            }
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "faultline: unknown option %s\n\n%s", argv[i], usage_lab);
            return 2;
        } else if (!op) {
            op = argv[i];
        } else if (!kind) {
            kind = argv[i];
        } else {
            fprintf(stderr, "faultline: extra argument %s\n\n%s", argv[i], usage_lab);
            return 2;
        }
    }
    if (!op || !kind) {
        fprintf(stderr, "faultline: lab needs an operation and a kind\n\n%s", usage_lab);
        return 2;
    }
    if (!lab_kind_known(kind)) {
        fprintf(stderr, "faultline: unknown lab '%s' (known: %s)\n", kind, lab_kinds());
        return 2;
    }
    char pfx[9];
    if (lab_prefix(prefix, pfx, sizeof pfx, err, sizeof err) != 0) {
        fprintf(stderr, "faultline: %s\n", err);
        return 2;
    }
    snprintf(o.prefix, sizeof o.prefix, "%s", pfx);
    struct lab lab;
    if (strcmp(op, "up") == 0) {
        bool created;
        if (lab_up(kind, &o, &lab, &created, err, sizeof err) != 0) {
            fprintf(stderr, "faultline: lab up %s: %s\n", kind, err);
            return 2;
        }
        if (!json)
            printf("%s\n", created ? "lab is up:" : "lab was up already:");
        lab_status(&lab, json, stdout);
        return 0;
    }
    if (strcmp(op, "down") == 0) {
        bool was = lab_load(kind, pfx, &lab, err, sizeof err) == 0;
        char path[PATH_MAX];
        state_path(kind, pfx, path, sizeof path);
        bool state = access(path, F_OK) == 0;
        if (lab_down(kind, pfx, err, sizeof err) != 0) {
            fprintf(stderr, "faultline: lab down %s: %s\n", kind, err);
            return 2;
        }
        printf("lab %s (prefix %s) %s\n", kind, pfx,
               was || state ? "is down: everything it created is removed" : "was not up");
        return 0;
    }
    if (strcmp(op, "status") == 0) {
        if (lab_load(kind, pfx, &lab, err, sizeof err) != 0) {
            if (json)
                printf("{\"lab\": \"%s\", \"prefix\": \"%s\", \"up\": false}\n", kind, pfx);
            else
                printf("%s\n", err);
            return 1;
        }
        lab_status(&lab, json, stdout);
        return 0;
    }
    fprintf(stderr, "faultline: unknown lab operation '%s'\n\n%s", op, usage_lab);
    return 2;
}
