/* lab_ceph_daemons — the daemons of a ceph lab server: which server runs
 * which, its disk, its boot as a machine of its own, starting what is
 * missing.  See lab_ceph.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../lib/fsutil.h"
#include "../../lib/proc.h"
#include "lab_ceph.h"
#include "lab_disk.h"
#include "lab_record.h"
#include "lab_server.h"

const struct daemon_type ceph_daemons[NDAEMONS] = {
    {"mon", "ceph-mon", 0xe},
    {"mgr", "ceph-mgr", 0x2},
    {"osd", "ceph-osd", 0xe},
    {"mds", "ceph-mds", 0x6},
};

const struct daemon_type *ceph_daemon_of(const char *type)
{
    for (size_t i = 0; i < NDAEMONS; i++)
        if (strcmp(ceph_daemons[i].type, type) == 0)
            return &ceph_daemons[i];
    return NULL;
}

unsigned ceph_server_no(const struct lab_host *h)
{
    return h->netns[0] && strncmp(h->name, "cs", 2) == 0 ? (unsigned)atoi(h->name + 2) : 0;
}

bool ceph_runs(const struct daemon_type *d, const struct lab_host *h)
{
    unsigned n = ceph_server_no(h);
    return n >= 1 && n <= NSERVERS && (d->on >> n & 1);
}

/* The daemon's id: mon, mgr and mds by host name, the OSD by number. */
void ceph_daemon_id(const struct daemon_type *d, const struct lab_host *h, char *out, size_t n)
{
    if (strcmp(d->type, "osd") == 0)
        snprintf(out, n, "%u", ceph_server_no(h) - 1);
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

pid_t ceph_live_daemon(const struct lab_host *h, const char *comm, uint64_t *start)
{
    struct find f = {.comm = comm};
    if (h->netns[0])
        proc_each_in_netns(h->netns, match, &f);
    *start = f.start;
    return f.pid;
}

/* A server's disk: an XFS image of its own, HOME.img (room for the OSD's
 * sparse store of [lab] size and the other daemons' files), on its disk
 * layer (lab_disk.h) unless [lab] disk_faults = no, mounted on its
 * directory HOME inside the server's mount namespace only: it goes with
 * the server's last process, and a power cut shuts it down (the layer
 * stays). */
#define DISK_EXTRA (2ull << 30)

bool ceph_disk(const struct lab *lab, const struct lab_host *h, struct lab_disk_spec *s)
{
    if (!ceph_server_no(h))
        return false;
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", h->name);
    snprintf(s->image, sizeof s->image, "%.159s.img", h->home);
    s->size = lab->opts.size + DISK_EXTRA;
    snprintf(s->what, sizeof s->what, "%s's disk", h->name);
    return true;
}

/* The file server h mounts: its disk layer's, or the image. */
static void disk_of(const struct lab *lab, const struct lab_host *h, char *out, size_t n)
{
    struct lab_disk_spec s;
    ceph_disk(lab, h, &s);
    lab_disk_file(lab, &s, out, n);
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
    disk_of(b->lab, h, img, sizeof img);
    int e = lab_mount_image(img, h->home);
    if (e != 0 || (e = etc_ceph(b->lab->dir)) != 0)
        return e;
    for (size_t k = 0; k < NDAEMONS; k++) {
        snprintf(dir, sizeof dir, "%s/%s", h->home, ceph_daemons[k].type);
        if (ceph_runs(&ceph_daemons[k], h) && mkdir(dir, 0755) != 0 && errno != EEXIST)
            return errno;
    }
    return 0;
}

/* The server's disk image, made, and the directory it is mounted on. */
int ceph_make_disk(struct lab *lab, const struct lab_host *h, int fd, char *err,
                   size_t errlen)
{
    struct lab_disk_spec s;
    char out[1024];
    ceph_disk(lab, h, &s);
    if (sparse_file(s.image, s.size, 0600, true, err, errlen) != 0)
        return -1;
    char *mkfs[] = {"mkfs.xfs", "-q", "-f", s.image, NULL};
    if (proc_run(mkfs, out, sizeof out, 60000) != 0) {
        snprintf(err, errlen, "mkfs.xfs %s failed: %s", s.image, out);
        return -1;
    }
    if (lab_disk_start(lab, &s, fd, err, errlen) != 0)
        return -1;
    return mkdir_p(h->home, err, errlen);
}

/* Waits until no loop device holds h's disk any more (lab_image_let_go). */
int ceph_disk_let_go(const struct lab *lab, const struct lab_host *h, char *err, size_t errlen)
{
    char img[200];
    disk_of(lab, h, img, sizeof img);
    return lab_image_let_go(img, err, errlen);
}

/* Where a daemon of h starts: in the server as it runs, or in one booted
 * anew when nothing of it is left (its first start, a power cut). */
int ceph_place_of(const struct lab *lab, struct lab_host *h, int fd, struct proc_place *at,
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
int ceph_start_daemon(const struct lab *lab, struct lab_host *h, const struct daemon_type *d,
                        int fd, char *err, size_t errlen)
{
    char id[16], log[256];
    ceph_daemon_id(d, h, id, sizeof id);
    snprintf(log, sizeof log, "%s/log/%s.%s.out", lab->dir, d->type, id);
    char *argv[] = {(char *)d->comm, "-f", "-c", priv(lab)->conf, "-i", id, NULL};
    struct proc_place at;
    if (ceph_place_of(lab, h, fd, &at, err, errlen) != 0)
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
int ceph_run_missing(const struct lab *lab, struct lab_host *h, int fd, char *err,
                       size_t errlen)
{
    for (size_t i = 0; i < NDAEMONS; i++) {
        uint64_t start;
        if (!ceph_runs(&ceph_daemons[i], h) || ceph_live_daemon(h, ceph_daemons[i].comm, &start))
            continue;
        if (ceph_start_daemon(lab, h, &ceph_daemons[i], fd, err, errlen) != 0)
            return -1;
    }
    return 0;
}
