/*
 * lab_gluster — the GlusterFS lab: three servers, a replica-3 volume, a
 * FUSE client (see lab.h for names and addresses).
 *
 * A server is started in three steps inside one child process: enter the
 * host's network namespace; unshare a mount and UTS namespace of its own
 * (glusterd keeps its identity in /var/lib/glusterd and talks to its CLI
 * through /run/glusterd.socket, so each server needs those private); mount
 * its brick (an xfs loop image, so that heal, xattrs and bit-rot behave as
 * on a real server) where only it sees it; then exec glusterd in the
 * foreground, so that the PID we record is glusterd's.  The bricks and the
 * self-heal daemon glusterd spawns live in the same namespaces; `lab down`
 * kills every process of the host's network namespace by PID, and the
 * mount namespace (with the loop device) goes with its last process.
 *
 * The gluster CLI runs in the network and mount namespaces of a live
 * glusterd (like nsenter), never against our own.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../lib/clock.h"
#include "../lib/fsutil.h"
#include "../lib/json.h"
#include "lab.h"
#include "../lib/net.h"
#include "../lib/proc.h"
#include "../lib/units.h"

#define CLI_TIMEOUT_MS 30000

void lab_gluster_layout(struct lab *lab)
{
    const char *P = lab->prefix;
    snprintf(lab->bridge, sizeof lab->bridge, "%s-gsw", P);
    snprintf(lab->dir, sizeof lab->dir, "%s/%s-gluster", LAB_DATA_DIR, P);
    snprintf(lab->volume, sizeof lab->volume, "%s-vol", P);
    snprintf(lab->mount, sizeof lab->mount, "%s/mnt", lab->dir);
    lab->nhosts = 4;
    lab_layout_client(lab, "gcli");
    snprintf(lab->hosts[0].log, sizeof lab->hosts[0].log, "%s/client.log", lab->dir);
    for (int i = 1; i <= 3; i++) {
        struct lab_host *h = &lab->hosts[i];
        snprintf(h->name, sizeof h->name, "gs%d", i);
        snprintf(h->netns, sizeof h->netns, "%s-gluster-gs%d", P, i);
        snprintf(h->ifname, sizeof h->ifname, "eth0");
        snprintf(h->port, sizeof h->port, "%s-gsw-%d", P, i);
        snprintf(h->addr, sizeof h->addr, "198.18.%u.%d", lab->subnet, 10 + i);
        snprintf(h->home, sizeof h->home, "%s/gs%d", lab->dir, i);
        snprintf(h->brick, sizeof h->brick, "%s/brick", h->home);
        snprintf(h->log, sizeof h->log, "%s/glusterd.out", h->home);
    }
}

static void pause_ms(unsigned ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* --- one server --- */

/* Runs in the child, inside the host's network namespace, before glusterd
 * is exec'd: its own mounts and hostname, and the brick.  0 or errno. */
static int server_setup(void *ctx)
{
    const struct lab_host *h = ctx;
    char src[256], img[256];
    if (unshare(CLONE_NEWNS | CLONE_NEWUTS) != 0)
        return errno;
    /* Nothing mounted here may reach our namespace, or the other way. */
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        return errno;
    if (sethostname(h->name, strlen(h->name)) != 0)
        return errno;
    snprintf(src, sizeof src, "%s/glusterd", h->home);
    if (mount(src, "/var/lib/glusterd", NULL, MS_BIND, NULL) != 0)
        return errno;
    snprintf(src, sizeof src, "%s/log", h->home);
    if (mount(src, "/var/log/glusterfs", NULL, MS_BIND, NULL) != 0)
        return errno;
    if (mount("tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=755") != 0)
        return errno;
    /* mount(8) sets up the loop device (autoclear: it is freed with the
     * last user of this namespace). */
    snprintf(img, sizeof img, "%s/brick.img", h->home);
    pid_t m = fork();
    if (m < 0)
        return errno;
    if (m == 0) {
        execlp("mount", "mount", "-o", "loop", img, h->brick, (char *)NULL);
        _exit(127);
    }
    int status;
    if (waitpid(m, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return EIO;
    snprintf(src, sizeof src, "%s/data", h->brick);
    if (mkdir(src, 0755) != 0 && errno != EEXIST)
        return errno;
    return 0;
}

static int make_server_files(const struct lab *lab, const struct lab_host *h, char *err,
                             size_t errlen)
{
    char path[256], out[1024];
    static const char *const dirs[] = {"", "/glusterd", "/log", "/brick"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(path, sizeof path, "%s%s", h->home, dirs[i]);
        if (mkdir_p(path, err, errlen) != 0)
            return -1;
    }
    snprintf(path, sizeof path, "%s/brick.img", h->home);
    int f = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (f < 0 || ftruncate(f, (off_t)lab->size) != 0) {
        snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
        if (f >= 0)
            close(f);
        return -1;
    }
    close(f);
    /* 512-byte inodes: room for gluster's extended attributes inline */
    char *mkfs[] = {"mkfs.xfs", "-q", "-f", "-i", "size=512", path, NULL};
    if (proc_run(mkfs, out, sizeof out, 60000) != 0) {
        snprintf(err, errlen, "mkfs.xfs %s failed: %s", path, out);
        return -1;
    }
    return 0;
}

/* Inode of a host's network namespace (0: none). */
static ino_t netns_ino(const struct lab_host *h)
{
    char path[128];
    struct stat st;
    snprintf(path, sizeof path, "/run/netns/%s", h->netns);
    return stat(path, &st) == 0 ? st.st_ino : 0;
}

/* A live process in host h's namespaces, preferring comm `want`. */
static pid_t live_in(const struct lab_host *h, const char *want, uint64_t *start)
{
    ino_t ino = netns_ino(h);
    pid_t found = 0;
    DIR *d = ino ? opendir("/proc") : NULL;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0)
            continue;
        char p[64], comm[32] = "";
        struct stat st;
        snprintf(p, sizeof p, "/proc/%ld/ns/net", pid);
        if (stat(p, &st) != 0 || st.st_ino != ino)
            continue;
        snprintf(p, sizeof p, "/proc/%ld/comm", pid);
        FILE *c = fopen(p, "r");
        if (c) {
            if (fgets(comm, sizeof comm, c))
                comm[strcspn(comm, "\n")] = 0;
            fclose(c);
        }
        uint64_t s = proc_starttime((pid_t)pid);
        if (proc_state((pid_t)pid, s) != PROC_RUNNING)
            continue;
        if (!found || strcmp(comm, want) == 0) {
            found = (pid_t)pid;
            *start = s;
            if (strcmp(comm, want) == 0)
                break;
        }
    }
    if (d)
        closedir(d);
    return found;
}

/* Starts glusterd of h: in the mount namespace its bricks still hold, or in
 * a new one when nothing of the server is left. */
static int run_glusterd(struct lab_host *h, int fd, char *err, size_t errlen)
{
    uint64_t start = 0;
    pid_t keep = live_in(h, "glusterfsd", &start);
    struct proc_place at = {.netns = h->netns, .setup = server_setup, .ctx = h};
    if (keep) {
        at = (struct proc_place){.join = keep, .join_start = start};
    }
    char *argv[] = {"glusterd", "-N", NULL};
    if (proc_spawn_at(&at, argv, h->log, &h->pid, &h->start, err, errlen) != 0)
        return -1;
    if (lab_rec(fd, "pid %s %d %llu", h->name, (int)h->pid, (unsigned long long)h->start) != 0) {
        snprintf(err, errlen, "cannot write the lab state: %s", strerror(errno));
        return -1;
    }
    return 0;
}

int lab_gluster_cli(const struct lab *lab, const char *via, const char *const args[], char *out,
                    size_t outlen, int timeout_ms)
{
    const struct lab_host *h = NULL;
    for (unsigned i = 1; i < lab->nhosts && !h; i++) {
        const struct lab_host *x = &lab->hosts[i];
        if ((!via || strcmp(x->name, via) == 0) && x->pid &&
            proc_state(x->pid, x->start) == PROC_RUNNING)
            h = x;
    }
    if (!h) {
        snprintf(out, outlen, "no running glusterd%s%s in the lab", via ? " on " : "",
                 via ? via : "");
        return -1;
    }
    char *argv[32];
    int n = 0;
    argv[n++] = "gluster";
    argv[n++] = "--mode=script";
    for (int i = 0; args[i] && n < 31; i++)
        argv[n++] = (char *)args[i];
    argv[n] = NULL;
    struct proc_place at = {.join = h->pid, .join_start = h->start};
    return proc_run_at(&at, argv, out, outlen, timeout_ms);
}

/* Runs a gluster command that must succeed; err names it and its output. */
static int cli_ok(const struct lab *lab, const char *via, const char *const args[], char *err,
                  size_t errlen)
{
    char out[2048];
    int rc = lab_gluster_cli(lab, via, args, out, sizeof out, CLI_TIMEOUT_MS);
    if (rc == 0)
        return 0;
    size_t used = (size_t)snprintf(err, errlen, "gluster");
    for (int i = 0; args[i] && used < errlen; i++)
        used += (size_t)snprintf(err + used, errlen - used, " %s", args[i]);
    if (used < errlen)
        snprintf(err + used, errlen - used, " failed (%d): %s", rc, out);
    return -1;
}

/* Waits (bounded) until `gluster ARGS` succeeds and its output holds
 * `want` count times. */
static int wait_cli(const struct lab *lab, const char *via, const char *const args[],
                    const char *want, int count, unsigned seconds, char *err, size_t errlen)
{
    uint64_t until = mono_ns() + (uint64_t)seconds * 1000000000ull;
    char out[8192];
    for (;;) {
        int rc = lab_gluster_cli(lab, via, args, out, sizeof out, CLI_TIMEOUT_MS);
        int seen = 0;
        for (const char *p = out; rc == 0 && (p = strstr(p, want)); p += strlen(want))
            seen++;
        if (rc == 0 && seen >= count)
            return 0;
        if (mono_ns() > until) {
            snprintf(err, errlen, "gluster %s %s: no '%s' within %u s: %.300s", args[0],
                     args[1] ? args[1] : "", want, seconds, out);
            return -1;
        }
        pause_ms(200);
    }
}

/* The FUSE client process of our mount (to record and kill by PID). */
static pid_t client_pid(const struct lab *lab, uint64_t *start)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    pid_t found = 0;
    while (d && (e = readdir(d)) && !found) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0)
            continue;
        char p[64], cmd[4096];
        snprintf(p, sizeof p, "/proc/%ld/cmdline", pid);
        int f = open(p, O_RDONLY | O_CLOEXEC);
        if (f < 0)
            continue;
        ssize_t n = read(f, cmd, sizeof cmd - 1);
        close(f);
        if (n <= 0)
            continue;
        cmd[n] = 0;
        if (strstr(cmd, "glusterfs") != cmd && !strstr(cmd, "/glusterfs"))
            continue;
        /* NUL-separated: the mount point is the last argument */
        bool ours = false;
        for (ssize_t i = 0; i < n; i += (ssize_t)strlen(cmd + i) + 1)
            ours |= strcmp(cmd + i, lab->mount) == 0;
        if (ours) {
            found = (pid_t)pid;
            *start = proc_starttime(found);
        }
    }
    if (d)
        closedir(d);
    return found;
}

int lab_gluster_start(struct lab *lab, int fd, char *err, size_t errlen)
{
    for (unsigned i = 1; i < lab->nhosts; i++) {
        struct lab_host *h = &lab->hosts[i];
        REC("nsprocs %s", h->netns);
        if (make_server_files(lab, h, err, errlen) != 0 || run_glusterd(h, fd, err, errlen) != 0)
            return -1;
    }
    for (unsigned i = 1; i < lab->nhosts; i++) {
        const char *status[] = {"pool", "list", NULL};
        if (wait_cli(lab, lab->hosts[i].name, status, "localhost", 1, 20, err, errlen) != 0)
            return -1;
    }
    for (unsigned i = 2; i < lab->nhosts; i++) {
        const char *probe[] = {"peer", "probe", lab->hosts[i].addr, NULL};
        if (cli_ok(lab, "gs1", probe, err, errlen) != 0)
            return -1;
    }
    const char *peers[] = {"peer", "status", NULL};
    if (wait_cli(lab, "gs1", peers, "Peer in Cluster (Connected)", 2, 30, err, errlen) != 0)
        return -1;
    char bricks[3][256];
    for (int i = 0; i < 3; i++)
        snprintf(bricks[i], sizeof bricks[i], "%s:%s/data", lab->hosts[1 + i].addr,
                 lab->hosts[1 + i].brick);
    /* force: the bricks are below / of the server's view (our lab dir) */
    const char *create[] = {"volume", "create", lab->volume, "replica", "3", bricks[0], bricks[1],
                            bricks[2], "force", NULL};
    char ping[16], heal[16];
    snprintf(ping, sizeof ping, "%u", lab->ping_timeout_s);
    snprintf(heal, sizeof heal, "%u", lab->heal_timeout_s);
    const char *set_ping[] = {"volume", "set", lab->volume, "network.ping-timeout", ping, NULL};
    const char *set_heal[] = {"volume", "set", lab->volume, "cluster.heal-timeout", heal, NULL};
    /* several files healed at once: a lab heals in seconds, not minutes */
    const char *set_threads[] = {"volume", "set", lab->volume, "cluster.shd-max-threads", "4",
                                 NULL};
    const char *start[] = {"volume", "start", lab->volume, NULL};
    if (cli_ok(lab, "gs1", create, err, errlen) != 0 ||
        cli_ok(lab, "gs1", set_ping, err, errlen) != 0 ||
        cli_ok(lab, "gs1", set_heal, err, errlen) != 0 ||
        cli_ok(lab, "gs1", set_threads, err, errlen) != 0 ||
        cli_ok(lab, "gs1", start, err, errlen) != 0)
        return -1;
    const char *vstatus[] = {"volume", "status", lab->volume, "detail", NULL};
    if (wait_cli(lab, "gs1", vstatus, "Online               : Y", 3, 30, err, errlen) != 0)
        return -1;
    /* The signer checksums a file some time after its last close; the
     * scrubber compares, and a brick then refuses to serve a bad copy. */
    const char *bitrot[] = {"volume", "bitrot", lab->volume, "enable", NULL};
    const char *scrub[] = {"volume", "bitrot", lab->volume, "scrub-throttle", "aggressive", NULL};
    if (lab->bitrot && (cli_ok(lab, "gs1", bitrot, err, errlen) != 0 ||
                        cli_ok(lab, "gs1", scrub, err, errlen) != 0))
        return -1;

    REC("dir %s", lab->mount);
    if (mkdir_p(lab->mount, err, errlen) != 0)
        return -1;
    REC("mount %s", lab->mount);
    char source[128], opts[512], out[2048];
    snprintf(source, sizeof source, "%s:/%s", lab->hosts[1].addr, lab->volume);
    snprintf(opts, sizeof opts, "backup-volfile-servers=%s:%s,log-file=%s", lab->hosts[2].addr,
             lab->hosts[3].addr, lab->hosts[0].log);
    char *mnt[] = {"mount", "-t", "glusterfs", "-o", opts, source, lab->mount, NULL};
    if (proc_run(mnt, out, sizeof out, 30000) != 0) {
        snprintf(err, errlen, "mount -t glusterfs %s %s failed: %s (see %s)", source, lab->mount,
                 out, lab->hosts[0].log);
        return -1;
    }
    struct lab_host *c = &lab->hosts[0];
    if (!(c->pid = client_pid(lab, &c->start))) {
        snprintf(err, errlen, "the glusterfs client of %s is not running", lab->mount);
        return -1;
    }
    REC("pid client %d %llu", (int)c->pid, (unsigned long long)c->start);
    return 0;
}

int lab_gluster_restart(struct lab *lab, struct lab_host *h, int fd, char *err, size_t errlen)
{
    if (!h->netns[0]) {
        snprintf(err, errlen, "the client has no service to start");
        return -1;
    }
    if (proc_state(h->pid, h->start) != PROC_RUNNING && run_glusterd(h, fd, err, errlen) != 0)
        return -1;
    const char *pool[] = {"pool", "list", NULL};
    if (wait_cli(lab, h->name, pool, "localhost", 1, 20, err, errlen) != 0)
        return -1;
    /* Bricks and self-heal daemon of every server that lost them; a brick
     * just killed may still hold its port for a moment: try again. */
    const char *start[] = {"volume", "start", lab->volume, "force", NULL};
    const char *vstatus[] = {"volume", "status", lab->volume, "detail", NULL};
    uint64_t until = mono_ns() + 30000000000ull;
    for (;;) {
        char e[1024];
        if (cli_ok(lab, h->name, start, e, sizeof e) == 0 &&
            wait_cli(lab, h->name, vstatus, "Online               : Y", 3, 3, e, sizeof e) == 0)
            return 0;
        if (mono_ns() > until) {
            snprintf(err, errlen, "the bricks of %s do not come back: %s", lab->volume, e);
            return -1;
        }
    }
}

long lab_gluster_heal_pending(const struct lab *lab, char *err, size_t errlen)
{
    const char *info[] = {"volume", "heal", lab->volume, "info", "summary", NULL};
    char out[8192];
    int rc = lab_gluster_cli(lab, NULL, info, out, sizeof out, 10000);
    if (rc != 0) {
        snprintf(err, errlen, "gluster volume heal %s info summary failed (%d): %.300s",
                 lab->volume, rc, out);
        return -1;
    }
    /* Per brick: "Status: Connected" and "Total Number of entries: N";
     * a brick that is not connected cannot say: it counts as pending. */
    long pending = 0;
    int bricks = 0;
    for (const char *p = out; (p = strstr(p, "Brick ")); p++) {
        bricks++;
        const char *next = strstr(p + 1, "Brick ");
        const char *st = strstr(p, "Status: ");
        const char *tot = strstr(p, "Total Number of entries: ");
        bool in = st && (!next || st < next);
        if (!in || strncmp(st + 8, "Connected", 9) != 0) {
            pending++;
            continue;
        }
        if (tot && (!next || tot < next))
            pending += strtol(tot + 25, NULL, 10);
        else
            pending++;
    }
    if (bricks == 0) {
        snprintf(err, errlen, "gluster volume heal %s info summary named no brick: %.300s",
                 lab->volume, out);
        return -1;
    }
    return pending;
}

int lab_gluster_brick(const struct lab *lab, const char *host, char *brick, size_t n, pid_t *pid,
                      uint64_t *start, char *err, size_t errlen)
{
    const struct lab_host *h = lab_host(lab, host);
    if (!h || !h->netns[0] || strcmp(lab->kind, "gluster") != 0) {
        snprintf(err, errlen, "%s is not a server of the gluster lab (gs1, gs2, gs3)", host);
        return -1;
    }
    snprintf(brick, n, "%s/data", h->brick);
    if (!(*pid = live_in(h, "glusterfsd", start))) {
        snprintf(err, errlen, "nothing runs on %s: its brick is not mounted", host);
        return -1;
    }
    return 0;
}

bool lab_gluster_healthy(const struct lab *lab, char *why, size_t n)
{
    struct stat a, b;
    char parent[200];
    snprintf(parent, sizeof parent, "%s/..", lab->mount);
    if (stat(lab->mount, &a) != 0 || stat(parent, &b) != 0 || a.st_dev == b.st_dev) {
        snprintf(why, n, "the volume is not mounted at %s", lab->mount);
        return false;
    }
    const struct lab_host *c = &lab->hosts[0];
    if (!c->pid || proc_state(c->pid, c->start) != PROC_RUNNING) {
        snprintf(why, n, "the glusterfs client of %s is not running", lab->mount);
        return false;
    }
    return true;
}

void lab_gluster_status(const struct lab *lab, bool json, void *jp, FILE *out)
{
    if (json) {
        struct json *j = jp;
        json_key(j, "volume");
        json_obj_begin(j);
        json_key(j, "name");
        json_str(j, lab->volume);
        json_key(j, "mount");
        json_str(j, lab->mount);
        json_key(j, "bricks");
        json_arr_begin(j);
        for (unsigned i = 1; i < lab->nhosts; i++) {
            char b[256];
            snprintf(b, sizeof b, "%s:%s/data", lab->hosts[i].addr, lab->hosts[i].brick);
            json_str(j, b);
        }
        json_arr_end(j);
        json_key(j, "brick_bytes");
        json_u64(j, lab->size);
        json_key(j, "ping_timeout_s");
        json_u64(j, lab->ping_timeout_s);
        json_key(j, "heal_timeout_s");
        json_u64(j, lab->heal_timeout_s);
        json_key(j, "bitrot");
        json_bool(j, lab->bitrot);
        json_obj_end(j);
        return;
    }
    char size[32];
    format_size(lab->size, size, sizeof size);
    fprintf(out, "  volume  %s, replica 3, bricks of %s (xfs), ping-timeout %u s, heal-timeout "
                 "%u s, bit-rot detection %s\n", lab->volume, size, lab->ping_timeout_s,
            lab->heal_timeout_s, lab->bitrot ? "on" : "off");
    for (unsigned i = 1; i < lab->nhosts; i++)
        fprintf(out, "          brick %s:%s/data\n", lab->hosts[i].addr, lab->hosts[i].brick);
    fprintf(out, "  mount   %s (FUSE, client pid %d %s)\n", lab->mount, (int)lab->hosts[0].pid,
            proc_state_name(proc_state(lab->hosts[0].pid, lab->hosts[0].start)));
}
