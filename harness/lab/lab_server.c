/* lab_server — a lab server as a machine of its own (its namespaces and
 * init), its processes, its power and its disk: what the kinds that run
 * servers share.  See lab_server.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../lib/clock.h"
#include "../../lib/proc.h"
#include "../../lib/spawner.h"
#include "lab_names.h"
#include "lab_record.h"
#include "lab_server.h"

/* --- a server as a machine of its own --- */

struct boot {
    const struct lab_host *h;
    int (*setup)(void *ctx);
    void *ctx;
};

/* In the child that becomes the server, inside its network namespace:
 * its mount and UTS namespaces, the kind's own mounts, sshd's directory
 * (the PID namespace is proc_start_init's). */
static int boot_setup(void *ctx)
{
    const struct boot *b = ctx;
    if (unshare(CLONE_NEWNS | CLONE_NEWUTS) != 0)
        return errno;
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        return errno;
    if (sethostname(b->h->name, strlen(b->h->name)) != 0)
        return errno;
    int e = b->setup ? b->setup(b->ctx) : 0;
    if (e == 0 && mkdir("/run/sshd", 0755) != 0 && errno != EEXIST)
        e = errno;
    return e;
}

int lab_server_boot(struct lab_host *h, int (*setup)(void *ctx), void *ctx, int fd, char *err,
                    size_t errlen)
{
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) {
        snprintf(err, errlen, "cannot find our own binary (/proc/self/exe), %s's init: %s",
                 h->name, strerror(errno));
        return -1;
    }
    self[len] = '\0';
    struct boot b = {.h = h, .setup = setup, .ctx = ctx};
    struct proc_place at = {.netns = h->netns, .setup = boot_setup, .ctx = &b};
    char *argv[] = {self, "lab", "init", NULL};
    if (proc_start_init(&at, argv, &h->init, &h->init_start, err, errlen) != 0)
        return -1;
    return lab_rec(fd, err, errlen, "init %s %d %llu", h->name, (int)h->init,
                   (unsigned long long)h->init_start);
}

bool lab_server_up(const struct lab_host *h)
{
    return h->init && proc_state(h->init, h->init_start) == PROC_RUNNING;
}

void lab_server_place(const struct lab_host *h, struct proc_place *at)
{
    *at = (struct proc_place){.join = h->init, .join_start = h->init_start};
}

static void init_heard(int sig)
{
    (void)sig;
}

int lab_init_main(void)
{
    if (getpid() != 1) {
        fprintf(stderr, "faultline lab init: the init of a lab server's PID namespace runs as "
                "PID 1 there (lab up starts it), not as process %d\n", (int)getpid());
        return 2;
    }
    /* Reaps whatever the server's daemons leave to it (a killed glusterd's
     * bricks are reparented here).  SIGCHLD is blocked but while waiting,
     * so that none comes between a look and the wait. */
    sigset_t chld, none;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigemptyset(&none);
    struct sigaction sa = {.sa_handler = init_heard};
    sigaction(SIGCHLD, &sa, NULL);
    sigprocmask(SIG_BLOCK, &chld, NULL);
    for (;;) {
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
        sigsuspend(&none);
    }
}

struct mount_job {
    const char *img, *dir;
};

static void mount_main(void *ctx)
{
    const struct mount_job *j = ctx;
    proc_child_signals();
    execlp("mount", "mount", "-o", "loop", j->img, j->dir, (char *)NULL);
    _exit(127);
}

int lab_mount_image(const char *img, const char *dir)
{
    struct mount_job job = {img, dir};
    pid_t m = spawner_fork(NULL, 0, -1, mount_main, &job);
    if (m < 0)
        return errno;
    int status;
    if (waitpid(m, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return EIO;
    return 0;
}

/* --- the processes of a host: the live one, all killed, all frozen; a
 * server's disk at a power cut --- */

struct live {
    const char *want;
    bool only; /* none but a process named want */
    pid_t found;
    uint64_t start;
};

static int prefer(void *ctx, const struct proc_seen *p)
{
    struct live *l = ctx;
    if (proc_state(p->pid, p->start) != PROC_RUNNING)
        return 0;
    bool wanted = strcmp(p->comm, l->want) == 0;
    if ((!l->found && !l->only) || wanted) {
        l->found = p->pid;
        l->start = p->start;
    }
    return wanted;
}

pid_t lab_live_in(const struct lab_host *h, const char *want, uint64_t *start)
{
    struct live l = {.want = want};
    if (h->netns[0])
        proc_each_in_netns(h->netns, prefer, &l);
    *start = l.start;
    return l.found;
}

pid_t lab_named_in(const struct lab_host *h, const char *comm, uint64_t *start)
{
    struct live l = {.want = comm, .only = true};
    if (h->netns[0])
        proc_each_in_netns(h->netns, prefer, &l);
    *start = l.start;
    return l.found;
}

struct signalled {
    pid_t pid[256];
    uint64_t start[256];
    unsigned n;
};

/* SIGKILL now, waited for later (proc_kill waits for each in turn). */
static int signal_one(void *ctx, const struct proc_seen *p)
{
    struct signalled *s = ctx;
    if (proc_starttime(p->pid) == p->start && kill(p->pid, SIGKILL) == 0 && s->n < 256) {
        s->pid[s->n] = p->pid;
        s->start[s->n++] = p->start;
    }
    return 0;
}

/* Whether pid is PID 1 of a PID namespace below ours (a server's init):
 * the last of its PIDs (NSpid) is 1. */
static bool is_init(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    bool init = false;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "NSpid:", 6) == 0) {
            line[strcspn(line, "\n")] = '\0';
            const char *last = strrchr(line, '\t');
            init = last && last > line + 6 && strcmp(last + 1, "1") == 0;
            break;
        }
    if (f)
        fclose(f);
    return init;
}

int lab_kill_all_in(const char *netns, char *err, size_t errlen)
{
    for (int round = 0; round < 3; round++) { /* a dying parent may start nothing new */
        struct signalled s = {.n = 0};
        int seen = proc_each_in_netns(netns, signal_one, &s);
        if (seen < 0)
            return 0; /* the namespace is gone, and everything in it */
        /* A server's init is waited for last: the kernel keeps a dying PID
         * 1 until every PID of its namespace is free, and the processes we
         * started there are ours to reap (proc_kill does). */
        for (int inits = 0; inits < 2; inits++)
            for (unsigned i = 0; i < s.n; i++)
                if (is_init(s.pid[i]) == (inits == 1) &&
                    proc_kill(s.pid[i], s.start[i], SIGKILL, err, errlen) != 0)
                    return -1;
        if (!seen)
            break;
    }
    return 0;
}

static int freeze_one(void *ctx, const struct proc_seen *p)
{
    unsigned *n = ctx;
    if (proc_starttime(p->pid) == p->start && kill(p->pid, SIGSTOP) == 0)
        (*n)++;
    return 0;
}

unsigned lab_freeze_all_in(const char *netns)
{
    unsigned n = 0;
    proc_each_in_netns(netns, freeze_one, &n);
    return n;
}

/* A stopped process of a namespace, continued. */
static int thaw_one(void *ctx, const struct proc_seen *p)
{
    unsigned *n = ctx;
    if (proc_state(p->pid, p->start) == PROC_STOPPED && kill(p->pid, SIGCONT) == 0)
        (*n)++;
    return 0;
}

unsigned lab_thaw_all_in(const char *netns)
{
    unsigned n = 0;
    proc_each_in_netns(netns, thaw_one, &n);
    return n;
}

/* XFS_IOC_GOINGDOWN and its flag from <xfs/xfs_fs.h> (xfslibs-dev). */
#define XFS_SUPER_MAGIC_ 0x58465342
#define XFS_IOC_GOINGDOWN_ _IOR('X', 125, uint32_t)
#define XFS_GOING_NOLOGFLUSH_ 0x2

int lab_xfs_power_cut(const char *path, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct statfs sf;
    if (fd < 0 || fstatfs(fd, &sf) != 0) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (sf.f_type != XFS_SUPER_MAGIC_) {
        snprintf(err, errlen, "%s is not on an xfs (type 0x%lx): not shut down", path,
                 (unsigned long)sf.f_type);
        close(fd);
        return -1;
    }
    uint32_t flags = XFS_GOING_NOLOGFLUSH_;
    int rc = ioctl(fd, XFS_IOC_GOINGDOWN_, &flags);
    if (rc != 0)
        snprintf(err, errlen, "XFS_IOC_GOINGDOWN of %s: %s", path, strerror(errno));
    close(fd);
    return rc == 0 ? 0 : -1;
}

/* Whether a loop device holds image `img`. */
static bool image_attached(const char *img)
{
    DIR *d = opendir("/sys/block");
    struct dirent *e;
    bool held = false;
    while (d && (e = readdir(d)) && !held) {
        if (strncmp(e->d_name, "loop", 4) != 0)
            continue;
        char path[300], back[PATH_MAX];
        snprintf(path, sizeof path, "/sys/block/%.64s/loop/backing_file", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        if (fgets(back, sizeof back, f)) {
            back[strcspn(back, "\n")] = '\0';
            held = strcmp(back, img) == 0;
        }
        fclose(f);
    }
    if (d)
        closedir(d);
    return held;
}

int lab_image_let_go(const char *img, char *err, size_t errlen)
{
    for (uint64_t until = mono_ns() + 20000000000ull; image_attached(img); lab_pause_ms(20))
        if (mono_ns() > until) {
            snprintf(err, errlen, "%s is still attached to a loop device after 20 s", img);
            return -1;
        }
    return 0;
}
