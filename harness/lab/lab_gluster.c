/*
 * lab_gluster — the GlusterFS lab: three servers, a replica-3 volume, a
 * FUSE client.
 *
 *   switch      P-gsw               switch ports  P-gsw-c, P-gsw-1..3
 *   client      P-gcli              198.18.X.1/24, the FUSE mount
 *   gs1..gs3    namespace P-gluster-gsN, eth0 198.18.X.1N/24, glusterd
 *   volume      P-vol, bricks ADDR:LAB_DATA_DIR/P-gluster/gsN/brick/data
 *   disks       LAB/gsN/brick.img (xfs, [lab] size), each reached through
 *               its disk layer LAB/disk-gsN/disk (lab_disk.h) unless
 *               [lab] disk_faults = no
 *   mount       LAB_DATA_DIR/P-gluster/mnt
 *   c1..cN      with [lab] clients = N: each client host's own FUSE client
 *               (its traffic leaves from the host's namespace), mounted at
 *               LAB_DATA_DIR/P-gluster/mnt-cK
 *
 * A server boots as a machine of its own (lab_server_boot): in the host's
 * network namespace, a mount, UTS and PID namespace of its own (glusterd
 * keeps its identity in /var/lib/glusterd and talks to its CLI through
 * /run/glusterd.socket, so each server needs those private), its brick (an
 * xfs loop image, so that heal, xattrs and bit-rot behave as on a real
 * server) mounted where only it sees it; then glusterd is started there in
 * the foreground, so that the PID we record is glusterd's.  The bricks and
 * the self-heal daemon glusterd spawns live in the same namespaces, and so
 * does the server's sshd: a session on gsN runs `gluster volume ...`
 * against gsN's glusterd and sees gsN's processes only.  `lab down` kills
 * every process of the host's network namespace by PID, and the mount
 * namespace (with the loop device) goes with its last process.
 *
 * The gluster CLI runs in the namespaces of a live glusterd (like
 * nsenter), never against our own.
 *
 * For faults, a server's processes are glusterd (the default), its brick
 * (process = brick: glusterfsd) and its self-heal daemon (process = shd),
 * started again with `gluster volume start VOL force`; the client's is the
 * FUSE client.  A server's brick is its replica of the volume (corrupt
 * replica = gsN).  What the lab knows of its volume (its heal, its options)
 * is what storage/gluster.c asks of any GlusterFS volume, here through a
 * live server's CLI.
 *
 * power-off of a server: every process of it is frozen (SIGSTOP), its
 * brick filesystem shut down as a power cut leaves it (XFS_IOC_GOINGDOWN
 * without log flush, what `xfs_io -x -c shutdown` does: what was only in
 * memory or in the unwritten log is gone), then all are killed; with the
 * last of them its mount namespace and the brick's mount go (its disk
 * layer stays: it is the disk).  power-on: once the loop device has let
 * the layer's file (or the image) go, the server starts as at
 * first (the brick mounted again, XFS replaying its log), and the volume's
 * bricks are started again.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../lib/clock.h"
#include "../../lib/fsutil.h"
#include "../../lib/proc.h"
#include "../../lib/units.h"
#include "lab_disk.h"
#include "lab_gluster.h"
#include "lab_kind.h"
#include "lab_names.h"
#include "lab_record.h"
#include "lab_server.h"

#define CLI_TIMEOUT_MS 30000

/* Its [lab] keys. */
struct gluster_lab_opts {
    uint64_t ping_timeout_ns, heal_timeout_ns;
    bool bitrot;
    char volume_options[320]; /* KEY=VALUE,... */
    bool disk_faults;
};
_Static_assert(sizeof(struct gluster_lab_opts) <= LAB_OPTS_MAX, "gluster lab options");

#define OPT(field) LAB_OPT(struct gluster_lab_opts, field)

static const struct key_def gluster_keys[] = {
    {"ping_timeout", KEY_DURATION, "10s", NULL, OPT(ping_timeout_ns), 1000000000ull,
     3600000000000ull, "gluster: network.ping-timeout of the volume (whole seconds): how long a "
     "client waits for a silent server", 0},
    {"bitrot", KEY_BOOL, "off", NULL, OPT(bitrot), 0, 0,
     "gluster: enable bit-rot detection on the volume (the signer and the scrubber)", 0},
    {"heal_timeout", KEY_DURATION, "5s", NULL, OPT(heal_timeout_ns), 1000000000ull,
     3600000000000ull, "gluster: cluster.heal-timeout of the volume (whole seconds): how often "
     "the self-heal daemon crawls for pending heals", 0},
    {"volume_options", KEY_TEXT, "", NULL, OPT(volume_options), 0, 0,
     "gluster: more options of the volume, KEY=VALUE,... each set with `gluster volume set "
     "VOL KEY VALUE` before it starts (performance.quick-read=off)", 0},
    LAB_DISK_FAULTS_KEY(struct gluster_lab_opts, disk_faults, "yes"),
};

/* Its own names, from the prefix. */
struct gluster_lab {
    char volume[32];
    char mount[160];
};
_Static_assert(sizeof(struct gluster_lab) <= LAB_PRIV_MAX, "gluster lab names");

static struct gluster_lab *priv(const struct lab *lab)
{
    return LAB_PRIV((struct lab *)lab, struct gluster_lab);
}

static const struct gluster_lab_opts *opts(const struct lab *lab)
{
    return LAB_OPTS(&lab->opts, const struct gluster_lab_opts);
}

static unsigned seconds(uint64_t ns)
{
    return (unsigned)(ns / 1000000000ull);
}

/* Where a server's brick is mounted, inside its mount namespace. */
static void brick_of(const struct lab_host *h, char *out, size_t n)
{
    snprintf(out, n, "%s/brick", h->home);
}

static void gluster_lay_out(struct lab *lab)
{
    const char *P = lab->prefix;
    struct gluster_lab *g = priv(lab);
    snprintf(lab->bridge, sizeof lab->bridge, "%s-gsw", P);
    snprintf(g->volume, sizeof g->volume, "%s-vol", P);
    snprintf(g->mount, sizeof g->mount, "%s/mnt", lab->dir);
    lab->nhosts = 4;
    lab_lay_out_client(lab, "gcli");
    snprintf(lab->hosts[0].log, sizeof lab->hosts[0].log, "%s/client.log", lab->dir);
    snprintf(lab->hosts[0].service, sizeof lab->hosts[0].service, "glusterfs (FUSE client)");
    for (unsigned i = 1; i <= 3; i++) {
        struct lab_host *h = &lab->hosts[i];
        char name[16], port[16];
        snprintf(name, sizeof name, "gs%u", i);
        snprintf(port, sizeof port, "%s-gsw-%u", P, i);
        lab_lay_out_server(lab, h, name, port, 10 + i);
        snprintf(h->service, sizeof h->service, "glusterd");
        snprintf(h->home, sizeof h->home, "%s/gs%u", lab->dir, i);
        snprintf(h->log, sizeof h->log, "%s/glusterd.out", h->home);
    }
}

/* A server's disk: its brick image, HOME/brick.img (lab_faults.disk). */
static bool gluster_disk(const struct lab *lab, const struct lab_host *h,
                         struct lab_disk_spec *s)
{
    if (!h->netns[0] || lab_is_client_host(h))
        return false;
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", h->name);
    snprintf(s->image, sizeof s->image, "%.159s/brick.img", h->home);
    s->size = lab->opts.size;
    snprintf(s->what, sizeof s->what, "%s's brick disk", h->name);
    return true;
}

/* The file server h mounts its brick from: the disk layer's, or the image. */
static void brick_file(const struct lab *lab, const struct lab_host *h, char *out, size_t n)
{
    struct lab_disk_spec s;
    gluster_disk(lab, h, &s);
    lab_disk_file(lab, &s, out, n);
}

/* --- one server --- */

struct boot_ctx {
    const struct lab *lab;
    const struct lab_host *h;
};

/* Runs in the mount namespace of a server that boots (lab_server_boot):
 * glusterd's state, logs and socket of its own, and the brick (through
 * its disk layer, whose mount this namespace has from ours).  0 or
 * errno. */
static int server_setup(void *ctx)
{
    const struct boot_ctx *b = ctx;
    const struct lab_host *h = b->h;
    char src[256], img[256], brick[200];
    brick_of(h, brick, sizeof brick);
    int e;
    snprintf(src, sizeof src, "%s/glusterd", h->home);
    if (mount(src, "/var/lib/glusterd", NULL, MS_BIND, NULL) != 0)
        return errno;
    snprintf(src, sizeof src, "%s/log", h->home);
    if (mount(src, "/var/log/glusterfs", NULL, MS_BIND, NULL) != 0)
        return errno;
    if (mount("tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=755") != 0)
        return errno;
    brick_file(b->lab, h, img, sizeof img);
    if ((e = lab_mount_image(img, brick)) != 0)
        return e;
    snprintf(src, sizeof src, "%s/data", brick);
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
    if (sparse_file(path, lab->opts.size, 0600, true, err, errlen) != 0)
        return -1;
    /* 512-byte inodes: room for gluster's extended attributes inline */
    char *mkfs[] = {"mkfs.xfs", "-q", "-f", "-i", "size=512", path, NULL};
    if (proc_run(mkfs, out, sizeof out, 60000) != 0) {
        snprintf(err, errlen, "mkfs.xfs %s failed: %s", path, out);
        return -1;
    }
    return 0;
}

/* Starts glusterd of h: in the server as it runs (its bricks may still
 * run there), or in a server booted anew when nothing of it is left (a
 * power cut). */
static int run_glusterd(const struct lab *lab, struct lab_host *h, int fd, char *err,
                        size_t errlen)
{
    struct boot_ctx b = {.lab = lab, .h = h};
    if (!lab_server_up(h) && lab_server_boot(h, server_setup, &b, fd, err, errlen) != 0)
        return -1;
    struct proc_place at;
    lab_server_place(h, &at);
    char *argv[] = {"glusterd", "-N", NULL};
    if (proc_spawn_at(&at, argv, h->log, &h->pid, &h->start, err, errlen) != 0)
        return -1;
    return lab_rec(fd, err, errlen, "pid %s %d %llu", h->name, (int)h->pid,
                   (unsigned long long)h->start);
}

/* A live glusterd of the lab (via: on that host, or NULL for any); NULL
 * with out saying there is none. */
static const struct lab_host *live_glusterd(const struct lab *lab, const char *via, char *out,
                                            size_t outlen)
{
    for (unsigned i = 1; i < lab->nhosts; i++) {
        const struct lab_host *x = &lab->hosts[i];
        if ((!via || strcmp(x->name, via) == 0) && x->pid &&
            proc_state(x->pid, x->start) == PROC_RUNNING)
            return x;
    }
    snprintf(out, outlen, "no running glusterd%s%s in the lab", via ? " on " : "",
             via ? via : "");
    return NULL;
}

/* The storage's CLI (lab_serve.cli): argv in the namespaces of any live
 * glusterd, as on that server. */
static int gluster_run(const struct lab *lab, char *const argv[], char *out, size_t outlen,
                       int timeout_ms)
{
    const struct lab_host *h = live_glusterd(lab, NULL, out, outlen);
    if (!h)
        return -1;
    struct proc_place at = {.join = h->pid, .join_start = h->start};
    return proc_run_at(&at, argv, out, outlen, timeout_ms);
}

/* Runs `gluster --mode=script ARGS` in the namespaces of a live glusterd of
 * the lab (via: that host, or NULL for any).  Exit status, or -1; out holds
 * the output or why it could not run. */
static int gluster_cli(const struct lab *lab, const char *via, const char *const args[], char *out,
                    size_t outlen, int timeout_ms)
{
    const struct lab_host *h = live_glusterd(lab, via, out, outlen);
    if (!h)
        return -1;
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
    int rc = gluster_cli(lab, via, args, out, sizeof out, CLI_TIMEOUT_MS);
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
        int rc = gluster_cli(lab, via, args, out, sizeof out, CLI_TIMEOUT_MS);
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
        lab_pause_ms(200);
    }
}

/* Where client host `client` (0: us) mounts the volume. */
static void mount_of(const struct lab *lab, unsigned client, char *out, size_t n)
{
    if (client)
        snprintf(out, n, "%s/mnt-c%u", lab->dir, client);
    else
        snprintf(out, n, "%s", priv(lab)->mount);
}

/* The FUSE client process of mount point `mnt` (to record and kill by PID). */
static pid_t client_pid(const char *mnt, uint64_t *start)
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
            ours |= strcmp(cmd + i, mnt) == 0;
        if (ours) {
            found = (pid_t)pid;
            *start = proc_starttime(found);
        }
    }
    if (d)
        closedir(d);
    return found;
}

/* The servers' files, each one's disk layer (before it boots: its mount
 * namespace is a copy of ours) and glusterd on each; then they form one
 * pool. */
static int start_servers(struct lab *lab, int fd, char *err, size_t errlen)
{
    for (unsigned i = 1; i < lab->nhosts; i++) {
        struct lab_host *h = &lab->hosts[i];
        struct lab_disk_spec disk;
        gluster_disk(lab, h, &disk);
        if (lab_rec(fd, err, errlen, "nsprocs %s", h->netns) != 0 ||
            make_server_files(lab, h, err, errlen) != 0 ||
            lab_disk_start(lab, &disk, fd, err, errlen) != 0 ||
            run_glusterd(lab, h, fd, err, errlen) != 0)
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
    /* Every server must see the other two: a volume create staged on a
     * server that still misses one fails ("Host ... not connected"). */
    const char *peers[] = {"peer", "status", NULL};
    for (unsigned i = 1; i < lab->nhosts; i++)
        if (wait_cli(lab, lab->hosts[i].name, peers, "Peer in Cluster (Connected)",
                     (int)lab->nhosts - 2, 30, err, errlen) != 0)
            return -1;
    return 0;
}

/* [lab] volume_options: each KEY=VALUE of the list set on the volume (the
 * names and values are gluster's to judge: it refuses an unknown option by
 * name); dry: only the list's form checked, before anything is built.  0,
 * or -1 with err. */
static int set_volume_options(const struct lab *lab, bool dry, char *err, size_t errlen)
{
    char list[sizeof opts(lab)->volume_options];
    snprintf(list, sizeof list, "%s", opts(lab)->volume_options);
    char *save = NULL;
    for (char *item = strtok_r(list, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        if (!eq || eq == item || !eq[1] || strpbrk(item, " \t")) {
            snprintf(err, errlen, "volume_options: '%s' is not KEY=VALUE (the list is "
                     "KEY=VALUE,KEY=VALUE,... without spaces)", item);
            return -1;
        }
        *eq = '\0';
        const char *set[] = {"volume", "set", priv(lab)->volume, item, eq + 1, NULL};
        if (!dry && cli_ok(lab, "gs1", set, err, errlen) != 0)
            return -1;
    }
    return 0;
}

/* The replica-3 volume over the three bricks, with the lab's options. */
static int create_volume(const struct lab *lab, char *err, size_t errlen)
{
    const char *vol = priv(lab)->volume;
    char bricks[3][256];
    for (int i = 0; i < 3; i++) {
        char brick[200];
        brick_of(&lab->hosts[1 + i], brick, sizeof brick);
        snprintf(bricks[i], sizeof bricks[i], "%s:%s/data", lab->hosts[1 + i].addr, brick);
    }
    /* force: the bricks are below / of the server's view (our lab dir) */
    const char *create[] = {"volume", "create", vol, "replica", "3", bricks[0], bricks[1],
                            bricks[2], "force", NULL};
    char ping[16], heal[16];
    snprintf(ping, sizeof ping, "%u", seconds(opts(lab)->ping_timeout_ns));
    snprintf(heal, sizeof heal, "%u", seconds(opts(lab)->heal_timeout_ns));
    const char *set_ping[] = {"volume", "set", vol, "network.ping-timeout", ping, NULL};
    const char *set_heal[] = {"volume", "set", vol, "cluster.heal-timeout", heal, NULL};
    /* several files healed at once: a lab heals in seconds, not minutes */
    const char *set_threads[] = {"volume", "set", vol, "cluster.shd-max-threads", "4", NULL};
    const char *start[] = {"volume", "start", vol, NULL};
    if (cli_ok(lab, "gs1", create, err, errlen) != 0 ||
        cli_ok(lab, "gs1", set_ping, err, errlen) != 0 ||
        cli_ok(lab, "gs1", set_heal, err, errlen) != 0 ||
        cli_ok(lab, "gs1", set_threads, err, errlen) != 0 ||
        set_volume_options(lab, false, err, errlen) != 0 ||
        cli_ok(lab, "gs1", start, err, errlen) != 0)
        return -1;
    const char *vstatus[] = {"volume", "status", vol, "detail", NULL};
    if (wait_cli(lab, "gs1", vstatus, "Online               : Y", 3, 30, err, errlen) != 0)
        return -1;
    /* The signer checksums a file some time after its last close; the
     * scrubber compares, and a brick then refuses to serve a bad copy. */
    const char *bitrot[] = {"volume", "bitrot", vol, "enable", NULL};
    const char *scrub[] = {"volume", "bitrot", vol, "scrub-throttle", "aggressive", NULL};
    if (opts(lab)->bitrot && (cli_ok(lab, "gs1", bitrot, err, errlen) != 0 ||
                              cli_ok(lab, "gs1", scrub, err, errlen) != 0))
        return -1;
    return 0;
}

/* The FUSE client of host h (us, or a client host: then started in its
 * namespace, so that its traffic leaves from there) at mount point mnt,
 * the other two servers as backup volfile servers; its PID recorded. */
static int mount_client(struct lab *lab, struct lab_host *h, const char *mnt, int fd, char *err,
                        size_t errlen)
{
    const struct gluster_lab *g = priv(lab);
    if (lab_rec(fd, err, errlen, "dir %s", mnt) != 0 || mkdir_p(mnt, err, errlen) != 0 ||
        lab_rec(fd, err, errlen, "mount %s", mnt) != 0)
        return -1;
    char source[128], options[512], out[2048];
    snprintf(source, sizeof source, "%s:/%.31s", lab->hosts[1].addr, g->volume);
    snprintf(options, sizeof options, "backup-volfile-servers=%s:%s,log-file=%s",
             lab->hosts[2].addr, lab->hosts[3].addr, h->log);
    char *argv[] = {"mount", "-t", "glusterfs", "-o", options, source, (char *)mnt, NULL};
    if (proc_run_in(h->netns, argv, out, sizeof out, 30000) != 0) {
        snprintf(err, errlen, "mount -t glusterfs %s %s%s%s failed: %s (see %s)", source, mnt,
                 h->netns[0] ? " in " : "", h->netns, out, h->log);
        return -1;
    }
    if (!(h->pid = client_pid(mnt, &h->start))) {
        snprintf(err, errlen, "the glusterfs client of %s is not running", mnt);
        return -1;
    }
    return lab_rec(fd, err, errlen, "pid %s %d %llu", h->name, (int)h->pid,
                   (unsigned long long)h->start);
}

/* Ours, and each client host's. */
static int mount_clients(struct lab *lab, int fd, char *err, size_t errlen)
{
    if (mount_client(lab, &lab->hosts[0], priv(lab)->mount, fd, err, errlen) != 0)
        return -1;
    for (unsigned k = 1; k <= lab->nclients; k++) {
        struct lab_host *h = &lab->clients[k - 1];
        char mnt[200];
        mount_of(lab, k, mnt, sizeof mnt);
        if (mount_client(lab, h, mnt, fd, err, errlen) != 0)
            return -1;
    }
    return 0;
}

static int gluster_start(struct lab *lab, int fd, char *err, size_t errlen)
{
    if (set_volume_options(lab, true, err, errlen) != 0 ||
        start_servers(lab, fd, err, errlen) != 0 || create_volume(lab, err, errlen) != 0)
        return -1;
    return mount_clients(lab, fd, err, errlen);
}

static int gluster_restart(struct lab *lab, struct lab_host *h, int fd, char *err,
                           size_t errlen)
{
    if (lab_is_client_host(h) || !h->netns[0]) { /* a FUSE client: mounted again */
        unsigned k = h->netns[0] ? (unsigned)atoi(h->name + 1) : 0;
        char mnt[200];
        mount_of(lab, k, mnt, sizeof mnt);
        if (umount2(mnt, MNT_DETACH) != 0 && errno != EINVAL) {
            snprintf(err, errlen, "cannot unmount %s: %s", mnt, strerror(errno));
            return -1;
        }
        return mount_client(lab, h, mnt, fd, err, errlen);
    }
    if (proc_state(h->pid, h->start) != PROC_RUNNING &&
        run_glusterd(lab, h, fd, err, errlen) != 0)
        return -1;
    const char *pool[] = {"pool", "list", NULL};
    if (wait_cli(lab, h->name, pool, "localhost", 1, 20, err, errlen) != 0)
        return -1;
    /* Bricks and self-heal daemon of every server that lost them; a brick
     * just killed may still hold its port for a moment: try again. */
    const char *vol = priv(lab)->volume;
    const char *start[] = {"volume", "start", vol, "force", NULL};
    const char *vstatus[] = {"volume", "status", vol, "detail", NULL};
    uint64_t until = mono_ns() + 30000000000ull;
    for (;;) {
        char e[1024];
        if (cli_ok(lab, h->name, start, e, sizeof e) == 0 &&
            wait_cli(lab, h->name, vstatus, "Online               : Y", 3, 3, e, sizeof e) == 0)
            return 0;
        if (mono_ns() > until) {
            snprintf(err, errlen, "the bricks of %s do not come back: %s", vol, e);
            return -1;
        }
    }
}

/* The brick's filesystem shut down as a power cut leaves it.  The brick
 * is mounted only in the server's mount namespace; it is opened through
 * /proc/HOLDER/root, a process of that namespace, and not from a child
 * that enters it: a child forked from us would, on exit, flush every file
 * of the volume our workers have open, and FUSE would hold that flush
 * until the frozen server times out. */
static int shut_down_brick(pid_t holder, uint64_t start, const char *brick, char *err,
                           size_t errlen)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "/proc/%d/root%s", (int)holder, brick);
    if (proc_starttime(holder) != start) {
        snprintf(err, errlen, "%s: the process that held the brick is gone: not shut down",
                 path);
        return -1;
    }
    return lab_xfs_power_cut(path, err, errlen);
}

static int gluster_power(struct lab *lab, struct lab_host *h, bool on, int fd, char *what,
                         size_t whatlen, char *err, size_t errlen)
{
    char brick[200], img[256];
    brick_of(h, brick, sizeof brick);
    brick_file(lab, h, img, sizeof img); /* the disk layer's file: the layer stays on */
    if (!on) {
        /* A process that holds the brick's mount (found before the
         * freeze: a stopped process is not a live one). */
        uint64_t start = 0;
        pid_t holder = lab_live_in(h, "glusterfsd", &start);
        unsigned frozen = lab_freeze_all_in(h->netns);
        uint64_t t0 = mono_ns();
        char shut[512] = "nothing held the brick mounted";
        if (holder) {
            if (shut_down_brick(holder, start, brick, err, errlen) != 0) {
                char e[256];
                lab_kill_all_in(h->netns, e, sizeof e);
                return -1;
            }
            snprintf(shut, sizeof shut, "brick's xfs shut down without log flush after %.3f s",
                     (double)(mono_ns() - t0) / 1e9);
        }
        if (lab_kill_all_in(h->netns, err, errlen) != 0)
            return -1;
        snprintf(what, whatlen, "%u processes frozen, %s, all killed after %.3f s", frozen, shut,
                 (double)(mono_ns() - t0) / 1e9);
        return 0;
    }
    /* The last process took the mount namespace with it; the loop device
     * lets the image go a moment later.  Mounting it again before that
     * would meet the old filesystem (same UUID). */
    uint64_t t0 = mono_ns();
    if (lab_image_let_go(img, err, errlen) != 0)
        return -1;
    uint64_t t1 = mono_ns();
    if (gluster_restart(lab, h, fd, err, errlen) != 0)
        return -1;
    snprintf(what, whatlen, "brick image free after %.3f s, mounted again (xfs log replayed), "
             "glusterd (pid %d) and bricks up after %.3f s more", (double)(t1 - t0) / 1e9,
             (int)h->pid, (double)(mono_ns() - t1) / 1e9);
    return 0;
}

/* "gs1, gs2, gs3": the servers, for messages. */
static void server_names(const struct lab *lab, char *out, size_t n)
{
    size_t used = 0;
    out[0] = '\0';
    for (unsigned i = 1; i < lab->nhosts && used < n; i++)
        used += (size_t)snprintf(out + used, n - used, "%s%s", i > 1 ? ", " : "",
                                 lab->hosts[i].name);
}

/* A server's brick is its replica; it is written from the namespaces of
 * a live process that holds the brick's mount (its glusterfsd). */
static int gluster_replica(const struct lab *lab, const char *name, struct lab_replica *r,
                           char *err, size_t errlen)
{
    const struct lab_host *h = lab_host(lab, name);
    if (!h || !h->netns[0]) {
        char names[64];
        server_names(lab, names, sizeof names);
        snprintf(err, errlen, "not a server of the gluster lab (%s)", names);
        return -1;
    }
    memset(r, 0, sizeof *r);
    snprintf(r->mount, sizeof r->mount, "%s", priv(lab)->mount);
    char brick[200];
    brick_of(h, brick, sizeof brick);
    snprintf(r->copy, sizeof r->copy, "%s/data", brick);
    if (!(r->at.join = lab_live_in(h, "glusterfsd", &r->at.join_start))) {
        snprintf(err, errlen, "nothing runs on %s: its brick is not mounted", name);
        return -1;
    }
    return 0;
}

/* glusterd (the default), brick and shd on a server; the FUSE client. */
static int gluster_process(const struct lab *lab, const char *host, const char *process,
                           struct lab_process *p, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    const struct lab_host *h = lab_host(lab, host);
    if (!h)
        return 1;
    bool client = !h->netns[0] || lab_is_client_host(h); /* its service: the FUSE client */
    const char *service = client ? "glusterfs" : "glusterd";
    *p = (struct lab_process){.restartable = true};
    if (!process[0] || strcmp(process, service) == 0) {
        snprintf(p->name, sizeof p->name, "%s", service);
        p->pid = h->pid;
        p->start = h->start;
        return 0;
    }
    if (!client && (strcmp(process, "brick") == 0 || strcmp(process, "shd") == 0)) {
        snprintf(p->name, sizeof p->name, "%s", process);
        snprintf(p->comm, sizeof p->comm, "%s",
                 strcmp(process, "brick") == 0 ? "glusterfsd" : "glusterfs");
        return 0;
    }
    return 1;
}

static bool gluster_healthy(const struct lab *lab, char *why, size_t n)
{
    const char *mount = priv(lab)->mount;
    struct stat a, b;
    char parent[200];
    snprintf(parent, sizeof parent, "%s/..", mount);
    if (stat(mount, &a) != 0 || stat(parent, &b) != 0 || a.st_dev == b.st_dev) {
        snprintf(why, n, "the volume is not mounted at %s", mount);
        return false;
    }
    const struct lab_host *c = &lab->hosts[0];
    if (!c->pid || proc_state(c->pid, c->start) != PROC_RUNNING) {
        snprintf(why, n, "the glusterfs client of %s is not running", mount);
        return false;
    }
    for (unsigned k = 1; k <= lab->nclients; k++) {
        const struct lab_host *h = &lab->clients[k - 1];
        char mnt[200];
        mount_of(lab, k, mnt, sizeof mnt);
        if (!h->pid || proc_state(h->pid, h->start) != PROC_RUNNING) {
            snprintf(why, n, "the glusterfs client of %s (%s) is not running", h->name, mnt);
            return false;
        }
    }
    return true;
}

static void gluster_status(const struct lab *lab, struct json *j, FILE *out)
{
    const struct gluster_lab *g = priv(lab);
    const struct gluster_lab_opts *o = opts(lab);
    char bricks[3][256];
    for (unsigned i = 1; i < lab->nhosts && i <= 3; i++) {
        char brick[200];
        brick_of(&lab->hosts[i], brick, sizeof brick);
        snprintf(bricks[i - 1], sizeof bricks[0], "%s:%s/data", lab->hosts[i].addr, brick);
    }
    if (j) {
        json_key(j, "volume");
        json_obj_begin(j);
        json_key(j, "name");
        json_str(j, g->volume);
        json_key(j, "mount");
        json_str(j, g->mount);
        json_key(j, "bricks");
        json_arr_begin(j);
        for (unsigned i = 0; i < 3; i++)
            json_str(j, bricks[i]);
        json_arr_end(j);
        json_key(j, "brick_bytes");
        json_u64(j, lab->opts.size);
        json_key(j, "ping_timeout_s");
        json_u64(j, seconds(o->ping_timeout_ns));
        json_key(j, "heal_timeout_s");
        json_u64(j, seconds(o->heal_timeout_ns));
        json_key(j, "bitrot");
        json_bool(j, o->bitrot);
        json_key(j, "volume_options");
        json_str(j, o->volume_options);
        json_obj_end(j);
        return;
    }
    char size[32];
    format_size(lab->opts.size, size, sizeof size);
    fprintf(out, "  volume  %s, replica 3, bricks of %s (xfs), ping-timeout %u s, heal-timeout "
                 "%u s, bit-rot detection %s\n", g->volume, size, seconds(o->ping_timeout_ns),
            seconds(o->heal_timeout_ns), o->bitrot ? "on" : "off");
    if (o->volume_options[0])
        fprintf(out, "          options %s\n", o->volume_options);
    for (unsigned i = 0; i < 3; i++)
        fprintf(out, "          brick %s\n", bricks[i]);
    fprintf(out, "  mount   %s (FUSE, client pid %d %s)\n", g->mount, (int)lab->hosts[0].pid,
            proc_state_name(proc_state(lab->hosts[0].pid, lab->hosts[0].start)));
}

/* A files target without path: the volume's FUSE mount (a client host's
 * own one). */
static void gluster_place(const struct lab *lab, unsigned client, struct lab_place *p)
{
    const struct gluster_lab *g = priv(lab);
    char mnt[200];
    mount_of(lab, client, mnt, sizeof mnt);
    snprintf(p->where, sizeof p->where, "%.199s", mnt);
    snprintf(p->name, sizeof p->name, "%.31s", g->volume);
    snprintf(p->desc, sizeof p->desc, "volume %.31s mounted at %.199s", g->volume, mnt);
}

/* Bringing it up. */
static const struct lab_build gluster_build = {
    .default_size = 512ull << 20, /* xfs needs 300 MB at least; the images are sparse */
    .client_service = "glusterfs (FUSE client)",
    .lay_out = gluster_lay_out,
    .start = gluster_start,
};

/* What it lends a run. */
static const struct lab_serve gluster_serve = {
    .place = gluster_place,
    .storage = &storage_gluster,
    .cli = gluster_run,
    .logs = gluster_logs,
};

/* What faults reach. */
static const struct lab_faults gluster_faults = {
    .process = gluster_process,
    .restart = gluster_restart,
    .power = gluster_power,
    .replica = gluster_replica,
    .disk = gluster_disk,
};

/* Its health and status. */
static const struct lab_report gluster_report = {
    .healthy = gluster_healthy,
    .status = gluster_status,
};

const struct lab_kind lab_gluster = {
    .name = "gluster",
    .summary = "servers gs1, gs2, gs3 with a replica-3 GlusterFS volume, FUSE-mounted here",
    .keys = KEY_TABLE(gluster_keys),
    .serves = "files",
    .serves_what = "the embedded GlusterFS volume",
    .build = &gluster_build,
    .serve = &gluster_serve,
    .faults = &gluster_faults,
    .report = &gluster_report,
};
