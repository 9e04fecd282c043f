/* lab — what every lab kind shares: the table of kinds, names, the state
 * file, the switch and the hosts' network, up, down, status; see lab.h. */
#include "lab.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../lib/clock.h"
#include "../../lib/fsutil.h"
#include "../../lib/mountinfo.h"
#include "../../lib/net.h"
#include "../../lib/proc.h"
#include "../../lib/units.h"

/* Every lab kind, one line each. */
#define KINDS(X)                                                                               \
    X(lab_iscsi)                                                                               \
    X(lab_gluster)                                                                             \
    X(lab_ceph)                                                                                \
    /* one line per lab kind, each ending in a backslash */

#define DECLARE(kind) extern const struct lab_kind kind;
KINDS(DECLARE)
#define ENTRY(kind) &kind,
static const struct lab_kind *const kinds[] = {KINDS(ENTRY)};
#define NKINDS (sizeof kinds / sizeof kinds[0])

/* --- the kinds --- */

unsigned lab_kinds_all(const struct lab_kind *const **out)
{
    *out = kinds;
    return NKINDS;
}

const struct lab_kind *lab_kind_find(const char *name)
{
    for (size_t i = 0; i < NKINDS; i++)
        if (strcmp(kinds[i]->name, name) == 0)
            return kinds[i];
    return NULL;
}

/* "a, b" of the kinds that pass `want` (NULL: all). */
static const char *kind_list(char *text, size_t n, bool (*want)(const struct lab_kind *k))
{
    size_t used = 0;
    text[0] = '\0';
    for (size_t i = 0; i < NKINDS && used < n; i++)
        if (!want || want(kinds[i]))
            used += (size_t)snprintf(text + used, n - used, "%s%s", used ? ", " : "",
                                     kinds[i]->name);
    return text;
}

const char *lab_kinds(void)
{
    static char text[128];
    return text[0] ? text : kind_list(text, sizeof text, NULL);
}

static bool keeps_replicas(const struct lab_kind *k)
{
    return k->replica != NULL;
}

const char *lab_kinds_with_replicas(void)
{
    static char text[128];
    return text[0] ? text : kind_list(text, sizeof text, keeps_replicas);
}

const struct lab_kind *lab_kind_serving(const char *target)
{
    for (size_t i = 0; i < NKINDS; i++)
        if (kinds[i]->serves && strcmp(kinds[i]->serves, target) == 0)
            return kinds[i];
    return NULL;
}

unsigned lab_kind_hosts(const struct lab_kind *k, unsigned clients, char names[][16],
                        unsigned max)
{
    static struct lab scratch; /* large; scenario checks run on one thread */
    memset(&scratch, 0, sizeof scratch);
    scratch.kind = k;
    scratch.opts.clients = clients;
    snprintf(scratch.prefix, sizeof scratch.prefix, "fl");
    k->lay_out(&scratch);
    lab_lay_out_clients(&scratch);
    unsigned n = 0;
    for (; n < scratch.nhosts && n < max; n++)
        snprintf(names[n], 16, "%s", scratch.hosts[n].name);
    for (unsigned i = 0; i < scratch.nclients && n < max; i++, n++)
        snprintf(names[n], 16, "%s", scratch.clients[i].name);
    return n;
}

int lab_opts_init(const struct lab_kind *k, struct lab_opts *o, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    return key_defaults(o, k->keys.keys, k->keys.n, err, errlen);
}

/* --- names --- */

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

int lab_mount_image(const char *img, const char *dir)
{
    pid_t m = fork();
    if (m < 0)
        return errno;
    if (m == 0) {
        proc_child_signals();
        execlp("mount", "mount", "-o", "loop", img, dir, (char *)NULL);
        _exit(127);
    }
    int status;
    if (waitpid(m, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return EIO;
    return 0;
}

void lab_pause_ms(unsigned ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

uint32_t lab_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static void state_path(const struct lab_kind *k, const char *prefix, char *out, size_t n)
{
    snprintf(out, n, "%s/%s-%s.state", LAB_STATE_DIR, prefix, k->name);
}

void lab_lay_out_client(struct lab *lab, const char *ifname)
{
    struct lab_host *c = &lab->hosts[0];
    snprintf(c->name, sizeof c->name, "client");
    c->netns[0] = '\0';
    snprintf(c->ifname, sizeof c->ifname, "%s-%s", lab->prefix, ifname);
    snprintf(c->port, sizeof c->port, "%.12s-c", lab->bridge); /* P-xsw: at most 12 */
    snprintf(c->addr, sizeof c->addr, "198.18.%u.1", lab->subnet);
}

void lab_lay_out_server(struct lab *lab, struct lab_host *h, const char *name, const char *port,
                        unsigned hostno)
{
    snprintf(h->name, sizeof h->name, "%s", name);
    snprintf(h->netns, sizeof h->netns, "%s-%s-%s", lab->prefix, lab->kind->name, name);
    snprintf(h->ifname, sizeof h->ifname, "eth0");
    snprintf(h->port, sizeof h->port, "%s", port);
    snprintf(h->addr, sizeof h->addr, "198.18.%u.%u", lab->subnet, hostno);
}

/* Everything but the subnet, options and PIDs follows from the prefix. */
static void lay_out(struct lab *lab)
{
    snprintf(lab->dir, sizeof lab->dir, "%s/%s-%s", LAB_DATA_DIR, lab->prefix, lab->kind->name);
    lab->kind->lay_out(lab);
    lab_lay_out_clients(lab);
}

const struct lab_host *lab_host(const struct lab *lab, const char *name)
{
    for (unsigned i = 0; i < lab->nhosts; i++)
        if (strcmp(lab->hosts[i].name, name) == 0)
            return &lab->hosts[i];
    for (unsigned i = 0; i < lab->nclients; i++)
        if (strcmp(lab->clients[i].name, name) == 0)
            return &lab->clients[i];
    return NULL;
}

static struct lab_host *host_mut(struct lab *lab, const char *name)
{
    return (struct lab_host *)lab_host(lab, name);
}

struct live {
    const char *want;
    pid_t found;
    uint64_t start;
};

static int prefer(void *ctx, const struct proc_seen *p)
{
    struct live *l = ctx;
    if (proc_state(p->pid, p->start) != PROC_RUNNING)
        return 0;
    bool wanted = strcmp(p->comm, l->want) == 0;
    if (!l->found || wanted) {
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

/* --- the state file: a write-ahead list of what was created --- */

struct record {
    char key[16];
    char a[PATH_MAX]; /* the rest of the line */
    char b[64];       /* pid, ctlport, opt: the first word */
    uint64_t n1, n2;
};

int lab_rec(int fd, char *err, size_t errlen, const char *fmt, ...)
{
    char line[PATH_MAX + 128];
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (len < 0 || (size_t)len >= sizeof line - 1) {
        snprintf(err, errlen, "a lab state record is too long");
        return -1;
    }
    line[len++] = '\n';
    /* Synced before the thing it names exists, so a crash never leaves
     * something that `lab down` does not know about. */
    if (write(fd, line, (size_t)len) != len || fdatasync(fd) != 0) {
        snprintf(err, errlen, "cannot write the lab state: %s", strerror(errno));
        return -1;
    }
    return 0;
}

/* One line "KEY ARGS" of the state file. */
static void parse_record(char *line, struct record *r)
{
    memset(r, 0, sizeof *r);
    line[strcspn(line, "\n")] = '\0';
    char *sp = strchr(line, ' ');
    if (sp)
        *sp = '\0';
    snprintf(r->key, sizeof r->key, "%.15s", line);
    if (!sp)
        return;
    char *arg = sp + 1;
    snprintf(r->a, sizeof r->a, "%s", arg);
    r->n1 = strtoull(arg, NULL, 10);
    if (strcmp(r->key, "pid") == 0 || strcmp(r->key, "ctlport") == 0 ||
        strcmp(r->key, "opt") == 0 || strcmp(r->key, "sshd") == 0 ||
        strcmp(r->key, "init") == 0) {
        size_t w = strcspn(arg, " ");
        snprintf(r->b, sizeof r->b, "%.*s", (int)(w < 63 ? w : 63), arg);
        const char *rest = arg[w] ? arg + w + 1 : arg + w;
        snprintf(r->a, sizeof r->a, "%s", rest);
        unsigned long long a = 0, b = 0;
        if (sscanf(rest, "%llu %llu", &a, &b) >= 1) {
            r->n1 = a;
            r->n2 = b;
        }
    }
}

/* A state file is read only when it is root's (or ours) alone: `lab down`
 * removes and kills what it names. */
static int read_records(const char *path, struct record **out, size_t *n, char *err,
                        size_t errlen)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "cannot read %s: %s%s", path, strerror(errno),
                 errno == ELOOP ? " (a symbolic link: refused)" : "");
        return -1;
    }
    if (trusted_file(fd, path, err, errlen) != 0) {
        close(fd);
        return -1;
    }
    FILE *f = fdopen(fd, "r");
    if (!f) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        close(fd);
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
        parse_record(line, &(*out)[(*n)++]);
    }
    fclose(f);
    if (!*out) {
        snprintf(err, errlen, "out of memory reading %s", path);
        return -1;
    }
    return 0;
}

/* The options the lab was brought up with, from its "opt" records. */
static void load_opt(struct lab *lab, const struct record *r)
{
    if (strcmp(r->b, "size") == 0) {
        lab->opts.size = r->n1;
        return;
    }
    if (strcmp(r->b, "clients") == 0) {
        lab->opts.clients = r->n1;
        return;
    }
    const struct key_def *k = key_find(lab->kind->keys.keys, lab->kind->keys.n, r->b);
    char why[256];
    if (k)
        key_set(&lab->opts, k, r->a, why, sizeof why);
}

/* The labs' state and data directories, each checked at every level
 * (root_only_dir) and made with mode when missing and mode is not 0. */
static int labs_home(unsigned mode, char *err, size_t errlen)
{
    char why[1536];
    if (root_only_dir(LAB_STATE_DIR, mode ? 0755 : 0, why, sizeof why) != 0 ||
        root_only_dir(LAB_DATA_DIR, mode, why, sizeof why) != 0) {
        snprintf(err, errlen, "the labs' home is not root's alone: %s", why);
        return -1;
    }
    return 0;
}

int lab_load(const struct lab_kind *k, const char *prefix, struct lab *lab, char *err,
             size_t errlen)
{
    char path[PATH_MAX];
    state_path(k, prefix, path, sizeof path);
    struct stat st;
    if (lstat(path, &st) != 0) {
        snprintf(err, errlen, "lab %s (prefix %s) is not up", k->name, prefix);
        return -1;
    }
    int rc = lab_load_file(k, prefix, path, lab, err, errlen);
    if (rc == 0 && labs_home(0, err, errlen) != 0)
        return -1;
    return rc;
}

int lab_load_file(const struct lab_kind *k, const char *prefix, const char *path, struct lab *lab,
                  char *err, size_t errlen)
{
    struct record *r;
    size_t n;
    if (read_records(path, &r, &n, err, errlen) != 0)
        return -1;
    memset(lab, 0, sizeof *lab);
    lab->kind = k;
    snprintf(lab->prefix, sizeof lab->prefix, "%s", prefix);
    lab_opts_init(k, &lab->opts, err, errlen);
    bool ready = false;
    const char *tree = NULL;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(r[i].key, "subnet") == 0)
            lab->subnet = (unsigned)r[i].n1;
        else if (strcmp(r[i].key, "opt") == 0)
            load_opt(lab, &r[i]);
        else if (strcmp(r[i].key, "ready") == 0)
            ready = true;
        else if (strcmp(r[i].key, "tree") == 0 && !tree)
            tree = r[i].a;
    }
    snprintf(lab->opts.prefix, sizeof lab->opts.prefix, "%s", prefix);
    lay_out(lab);
    if (tree && strcmp(tree, lab->dir) != 0) {
        bool old = strncmp(tree, LAB_OLD_DATA_DIR "/", strlen(LAB_OLD_DATA_DIR) + 1) == 0;
        snprintf(err, errlen, "lab %s (prefix %s) keeps its files in %.600s%s; take it down "
                 "(faultline lab down %s --prefix %s) and bring it up again, which puts them in "
                 "%s", k->name, prefix, tree,
                 old ? ", where an older faultline put them and where other users can change "
                       "them" : ", not where this faultline keeps a lab's files",
                 k->name, prefix, lab->dir);
        free(r);
        return LAB_LOAD_ELSEWHERE;
    }
    for (size_t i = 0; i < n; i++) {
        struct lab_host *h = r[i].b[0] ? host_mut(lab, r[i].b) : NULL;
        if (h && strcmp(r[i].key, "pid") == 0) { /* the newest record of a host wins */
            h->pid = (pid_t)r[i].n1;
            h->start = r[i].n2;
        } else if (h && strcmp(r[i].key, "ctlport") == 0) {
            h->ctlport = (unsigned)r[i].n1;
        } else if (h && strcmp(r[i].key, "init") == 0) {
            h->init = (pid_t)r[i].n1;
            h->init_start = r[i].n2;
        } else if (h && strcmp(r[i].key, "sshd") == 0) {
            h->sshd = (pid_t)r[i].n1;
            h->sshd_start = r[i].n2;
        } else if (strcmp(r[i].key, "sshd") == 0 && strcmp(r[i].b, LAB_SWITCH_HOST) == 0) {
            lab->switch_sshd = (pid_t)r[i].n1;
            lab->switch_sshd_start = r[i].n2;
        }
    }
    free(r);
    if (!ready) {
        snprintf(err, errlen, "lab %s (prefix %s) was not brought up completely; run "
                 "`faultline lab down %s` first", k->name, prefix, k->name);
        return -1;
    }
    return 0;
}

/* --- down --- */

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

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path) == 0 || errno == ENOENT ? 0 : -1;
}

/* Whether dir is a lab's own directory, P-KIND right under home. */
static bool lab_dir_under(const char *dir, const char *home)
{
    size_t len = strlen(home);
    return strncmp(dir, home, len) == 0 && dir[len] == '/' && dir[len + 1] &&
           !strchr(dir + len + 1, '/') && !strstr(dir, "..");
}

/* A lab's own directory and everything its servers wrote into it; never
 * anything outside LAB_DATA_DIR (or LAB_OLD_DATA_DIR, for a lab an older
 * faultline brought up), and only while nobody but root can move things
 * under it as it goes. */
static int remove_tree(const char *dir, char *err, size_t errlen)
{
    struct stat st;
    bool old = lab_dir_under(dir, LAB_OLD_DATA_DIR);
    if (!old && !lab_dir_under(dir, LAB_DATA_DIR)) {
        snprintf(err, errlen, "refusing to remove %.900s: not a lab directory", dir);
        return -1;
    }
    if (lstat(dir, &st) != 0)
        return 0;
    char why[1536];
    if (!old && root_only_dir(LAB_DATA_DIR, 0, why, sizeof why) != 0) {
        snprintf(err, errlen, "refusing to remove %.200s: %.780s", dir, why);
        return -1;
    }
    struct stat home;
    if (old && (lstat(LAB_OLD_DATA_DIR, &home) != 0 || !S_ISDIR(home.st_mode) ||
                home.st_uid != 0 || (home.st_mode & 022) || st.st_uid != 0)) {
        snprintf(err, errlen, "refusing to remove %.200s: it, or %s, is not root's alone (made "
                 "by another user before an older faultline used it); look at what it holds, "
                 "and remove it yourself", dir, LAB_OLD_DATA_DIR);
        return -1;
    }
    if (nftw(dir, remove_one, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) != 0) {
        snprintf(err, errlen, "cannot remove %.900s: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}

/* Undoes the records of one kind, newest first; the first failure is
 * kept in err, the rest still tried. */
static void undo_records(const struct record *r, size_t n, const char *key,
                         int (*undo)(const struct record *r, void *ctx, char *e, size_t el),
                         void *ctx, int *rc, char *err, size_t errlen)
{
    for (size_t i = n; i-- > 0;) {
        char e[1024];
        if (strcmp(r[i].key, key) == 0 && undo(&r[i], ctx, e, sizeof e) != 0 && *rc == 0) {
            snprintf(err, errlen, "%s", e);
            *rc = -1;
        }
    }
}

/* A FUSE client's connection is aborted first: workers a run left behind
 * on it, and whatever its daemon started, are answered (an error) rather
 * than left waiting on a detached mount for ever. */
static int undo_mount(const struct record *r, void *ctx, char *e, size_t el)
{
    (void)ctx;
    char why[512];
    int aborted = fuse_abort_at(r->a, why, sizeof why); /* unmounted even when it fails */
    if (umount2(r->a, MNT_DETACH) != 0 && errno != EINVAL && errno != ENOENT) {
        snprintf(e, el, "cannot unmount %s: %s", r->a, strerror(errno));
        return -1;
    }
    if (aborted < 0) {
        snprintf(e, el, "%s", why);
        return -1;
    }
    return 0;
}

static int undo_pid(const struct record *r, void *ctx, char *e, size_t el)
{
    (void)ctx;
    return proc_kill((pid_t)r->n1, r->n2, SIGKILL, e, el);
}

static int undo_nsprocs(const struct record *r, void *ctx, char *e, size_t el)
{
    (void)ctx;
    return lab_kill_all_in(r->a, e, el); /* what a lab server started */
}

/* Every process running an executable from inside the lab directory: the
 * agents faults over ssh copied there (lab_ssh.c), wherever they run. */
static int undo_agents(const struct record *r, void *ctx, char *e, size_t el)
{
    (void)ctx;
    size_t len = strlen(r->a);
    DIR *d = opendir("/proc");
    struct dirent *de;
    int rc = 0;
    while (d && (de = readdir(d))) {
        char *end;
        long pid = strtol(de->d_name, &end, 10);
        if (*end || pid <= 0 || pid == getpid())
            continue;
        char link[64], exe[PATH_MAX];
        snprintf(link, sizeof link, "/proc/%ld/exe", pid);
        ssize_t n = readlink(link, exe, sizeof exe - 1);
        if (n <= 0)
            continue;
        exe[n] = '\0';
        if (strncmp(exe, r->a, len) != 0 || exe[len] != '/')
            continue;
        uint64_t start = proc_starttime((pid_t)pid);
        if (start && proc_kill((pid_t)pid, start, SIGKILL, e, el) != 0)
            rc = -1;
    }
    if (d)
        closedir(d);
    return rc;
}

static int undo_link(const struct record *r, void *ctx, char *e, size_t el)
{
    return ctx ? net_link_delete(ctx, r->a, e, el) : 0;
}

static int undo_netns(const struct record *r, void *ctx, char *e, size_t el)
{
    (void)ctx;
    return netns_delete(r->a, e, el);
}

static int undo_file(const struct record *r, void *ctx, char *e, size_t el)
{
    (void)ctx;
    if (unlink(r->a) != 0 && errno != ENOENT) {
        snprintf(e, el, "cannot remove %s: %s", r->a, strerror(errno));
        return -1;
    }
    return 0;
}

static int undo_dir(const struct record *r, void *ctx, char *e, size_t el)
{
    (void)ctx;
    if (rmdir(r->a) != 0 && errno != ENOENT) {
        snprintf(e, el, "cannot remove %s: %s", r->a, strerror(errno));
        return -1;
    }
    return 0;
}

static int undo_tree(const struct record *r, void *ctx, char *e, size_t el)
{
    (void)ctx;
    return remove_tree(r->a, e, el);
}

/* --- up and down take turns --- */

/* How long an up or down waits for another one of the same lab: the
 * slowest up (ceph's) takes about 90 s at worst. */
#define LAB_LOCK_WAIT_S 600u

/* Each up and down of a lab holds an exclusive lock (flock) on its state
 * file while it works, so that a down, or a second up, meets the lab whole
 * or gone, never half built: a down while an up is under way would leave
 * that up starting daemons into namespaces a next up makes again (two
 * ceph MDS daemons of one name then throw each other out of the map for
 * ever).  Waits (bounded) for the lock.  The locked descriptor (close it
 * to let go), -1 when the state file is gone (the other one took the lab
 * down), or -2 with err. */
static int state_lock(const struct lab_kind *k, const char *prefix, const char *path, char *err,
                      size_t errlen)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return -1;
        snprintf(err, errlen, "cannot open %s: %s%s", path, strerror(errno),
                 errno == ELOOP ? " (a symbolic link: refused)" : "");
        return -2;
    }
    if (trusted_file(fd, path, err, errlen) != 0) {
        close(fd);
        return -2;
    }
    for (unsigned waited_ms = 0; flock(fd, LOCK_EX | LOCK_NB) != 0; waited_ms += 100) {
        if (errno != EWOULDBLOCK && errno != EINTR) {
            snprintf(err, errlen, "cannot lock %s: %s", path, strerror(errno));
            close(fd);
            return -2;
        }
        if (waited_ms == 0)
            fprintf(stderr, "faultline: lab %s (prefix %s): waiting for another faultline "
                    "bringing it up or down\n", k->name, prefix);
        if (waited_ms >= LAB_LOCK_WAIT_S * 1000) {
            snprintf(err, errlen, "lab %s (prefix %s): another faultline has been bringing it "
                     "up or down for %u s (%s stays locked)", k->name, prefix, LAB_LOCK_WAIT_S,
                     path);
            close(fd);
            return -2;
        }
        lab_pause_ms(100);
    }
    struct stat st;
    if (fstat(fd, &st) == 0 && st.st_nlink == 0) { /* taken down meanwhile */
        close(fd);
        return -1;
    }
    return fd;
}

/* lab_down with its state file locked (or being made) by the caller. */
static int down_locked(const char *path, char *err, size_t errlen)
{
    struct record *r;
    size_t n;
    if (read_records(path, &r, &n, err, errlen) != 0)
        return -1;
    int rc = 0;
    /* A FUSE mount first: nothing may hang on it once its servers go.
     * Then processes (they hold the namespaces and the backing files),
     * links, namespaces, files. */
    undo_records(r, n, "mount", undo_mount, NULL, &rc, err, errlen);
    undo_records(r, n, "pid", undo_pid, NULL, &rc, err, errlen);
    undo_records(r, n, "sshd", undo_pid, NULL, &rc, err, errlen);
    undo_records(r, n, "tree", undo_agents, NULL, &rc, err, errlen);
    undo_records(r, n, "nsprocs", undo_nsprocs, NULL, &rc, err, errlen);
    /* a server's init after the rest of it (lab_kill_all_in says why) */
    undo_records(r, n, "init", undo_pid, NULL, &rc, err, errlen);
    char e[1024];
    struct nl_sock *sk = net_open(NULL, e, sizeof e);
    if (!sk && rc == 0) {
        snprintf(err, errlen, "%s", e);
        rc = -1;
    }
    undo_records(r, n, "link", undo_link, sk, &rc, err, errlen);
    net_close(sk);
    undo_records(r, n, "netns", undo_netns, NULL, &rc, err, errlen);
    undo_records(r, n, "socket", undo_file, NULL, &rc, err, errlen);
    undo_records(r, n, "file", undo_file, NULL, &rc, err, errlen);
    undo_records(r, n, "dir", undo_dir, NULL, &rc, err, errlen);
    undo_records(r, n, "tree", undo_tree, NULL, &rc, err, errlen);
    free(r);
    /* Keep the state while something could not be removed: down can retry. */
    if (rc == 0 && unlink(path) != 0 && errno != ENOENT) {
        snprintf(err, errlen, "cannot remove %s: %s", path, strerror(errno));
        rc = -1;
    }
    return rc;
}

int lab_down(const struct lab_kind *k, const char *prefix, char *err, size_t errlen)
{
    char path[PATH_MAX];
    state_path(k, prefix, path, sizeof path);
    int lock = state_lock(k, prefix, path, err, errlen);
    if (lock < 0)
        return lock == -1 ? 0 : -1;
    int rc = down_locked(path, err, errlen);
    close(lock);
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
    unsigned x = 10 + lab_hash(prefix) % 240;
    for (unsigned k = 0; k < 240 && used[x]; k++)
        x = 10 + (x - 10 + 1) % 240;
    return x;
}

/* A link's address and up, through a socket in its namespace. */
static int link_ready(struct nl_sock *sk, const char *ifname, const char *addr, char *err,
                      size_t errlen)
{
    char cidr[40];
    snprintf(cidr, sizeof cidr, "%s/24", addr);
    return net_link_set_up(sk, ifname, true, err, errlen) != 0 ||
                   net_addr_add(sk, ifname, cidr, err, errlen) != 0
               ? -1
               : 0;
}

/* The switch, with the client's port and cable, in our namespace. */
static int build_switch(struct lab *lab, struct nl_sock *sk, int fd, char *err, size_t errlen)
{
    if (lab_rec(fd, err, errlen, "link %s", lab->bridge) != 0)
        return -1;
    /* The client's address lives in our namespace, which also holds the
     * switch (the bridge device).  Without arp_ignore the bridge answers the
     * servers' ARP for the client too, and after a link bounce their
     * replies may come in through the bridge device, around the client's own
     * port and cable: faults on those would then cut nothing. */
    if (net_bridge_add(sk, lab->bridge, err, errlen) != 0 ||
        net_ipv4_conf(lab->bridge, "arp_ignore", "1", err, errlen) != 0 ||
        net_link_set_up(sk, lab->bridge, true, err, errlen) != 0)
        return -1;
    const struct lab_host *c = &lab->hosts[0];
    /* deleting one end of a veth pair deletes both */
    if (lab_rec(fd, err, errlen, "link %s", c->ifname) != 0 ||
        lab_rec(fd, err, errlen, "link %s", c->port) != 0)
        return -1;
    if (net_veth_add(sk, c->ifname, c->port, NULL, err, errlen) != 0 ||
        net_link_set_master(sk, c->port, lab->bridge, err, errlen) != 0 ||
        net_link_set_up(sk, c->port, true, err, errlen) != 0)
        return -1;
    return link_ready(sk, c->ifname, c->addr, err, errlen);
}

int lab_cable(struct nl_sock *sk, int fd, const char *bridge, const char *port,
              const char *netns, const char *ifname, const char *addr, char *err, size_t errlen)
{
    if (lab_rec(fd, err, errlen, "link %s", port) != 0 ||
        net_veth_add(sk, port, ifname, netns, err, errlen) != 0 ||
        net_link_set_master(sk, port, bridge, err, errlen) != 0 ||
        net_link_set_up(sk, port, true, err, errlen) != 0)
        return -1;
    struct nl_sock *in = net_open(netns, err, errlen);
    if (!in)
        return -1;
    int rc = net_link_set_up(in, "lo", true, err, errlen) != 0 ||
                     link_ready(in, ifname, addr, err, errlen) != 0
                 ? -1
                 : 0;
    net_close(in);
    return rc;
}

/* A server: its namespace, on the switch through its port. */
static int build_server(struct lab *lab, const struct lab_host *h, struct nl_sock *sk, int fd,
                        char *err, size_t errlen)
{
    if (lab_rec(fd, err, errlen, "netns %s", h->netns) != 0 ||
        netns_create(h->netns, err, errlen) != 0)
        return -1;
    return lab_cable(sk, fd, lab->bridge, h->port, h->netns, h->ifname, h->addr, err, errlen);
}

/* The lab's own directory, made fresh: anything found where it goes was
 * not made for this lab (its state would name it), so it is refused, and
 * left as it is (it is recorded only once it is ours). */
static int make_lab_dir(const struct lab *lab, int fd, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(lab->dir, &st) == 0) {
        snprintf(err, errlen, "%s is there already (a %s), and no lab state names it: a lab's "
                 "directory is made fresh by `lab up`, never reused; look at what it holds and "
                 "move it away, or use another prefix (--prefix)", lab->dir,
                 S_ISLNK(st.st_mode) ? "symbolic link" : S_ISDIR(st.st_mode) ? "directory"
                                                                             : "file");
        return -1;
    }
    if (lab_rec(fd, err, errlen, "tree %s", lab->dir) != 0)
        return -1;
    if (mkdir(lab->dir, 0700) != 0) {
        snprintf(err, errlen, "cannot create %s: %s", lab->dir, strerror(errno));
        return -1;
    }
    return 0;
}

/* The lab directory, the switch and every host; then the kind's servers. */
static int build_lab(struct lab *lab, int fd, char *err, size_t errlen)
{
    if (make_lab_dir(lab, fd, err, errlen) != 0)
        return -1;
    struct nl_sock *sk = net_open(NULL, err, errlen);
    if (!sk)
        return -1;
    int rc = build_switch(lab, sk, fd, err, errlen);
    for (unsigned i = 1; rc == 0 && i < lab->nhosts; i++)
        rc = build_server(lab, &lab->hosts[i], sk, fd, err, errlen);
    if (rc == 0)
        rc = lab_clients_build(lab, sk, fd, err, errlen);
    net_close(sk);
    if (rc != 0 || lab->kind->start(lab, fd, err, errlen) != 0 ||
        lab_ssh_start(lab, fd, err, errlen) != 0)
        return -1;
    return lab_rec(fd, err, errlen, "ready");
}

/* lab.h */
bool lab_healthy(const struct lab *lab, char *why, size_t n)
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
            snprintf(why, n, "%s of %s (pid %d) is %s", h->service, h->name, (int)h->pid,
                     proc_state_name(proc_state(h->pid, h->start)));
            ok = false;
        } else if (h->init && !lab_server_up(h)) {
            snprintf(why, n, "%s is down: its init (pid %d) is %s", h->name, (int)h->init,
                     proc_state_name(proc_state(h->init, h->init_start)));
            ok = false;
        } else if (h->netns[0] && (!h->sshd || proc_state(h->sshd, h->sshd_start) == PROC_GONE)) {
            snprintf(why, n, "the sshd of %s is not running", h->name);
            ok = false;
        }
    }
    if (ok && (!lab->switch_sshd ||
               proc_state(lab->switch_sshd, lab->switch_sshd_start) == PROC_GONE)) {
        snprintf(why, n, "the sshd of the switch is not running");
        ok = false;
    }
    if (ok)
        ok = lab_clients_healthy(lab, sk, why, n);
    net_close(sk);
    if (ok && lab->kind->healthy)
        ok = lab->kind->healthy(lab, why, n);
    return ok;
}

/* The [lab] keys whose values differ between a lab and what is asked for:
 * "write_cache", "" when none. */
static void settings_differ(const struct lab *lab, const struct lab_opts *want, char *out,
                            size_t n)
{
    const struct key_table *t = &lab->kind->keys;
    size_t used = 0;
    out[0] = '\0';
    if ((lab->opts.clients > 1 ? lab->opts.clients : 1) != (want->clients > 1 ? want->clients : 1))
        used += (size_t)snprintf(out, n, "clients");
    for (unsigned i = 0; i < t->n && used < n; i++)
        if (!key_same(&lab->opts, want, &t->keys[i]))
            used += (size_t)snprintf(out + used, n - used, "%s%s", used ? ", " : "",
                                     t->keys[i].name);
}

/* The settings go to the state file first, as "opt KEY VALUE" records. */
static int record_opts(const struct lab *lab, int fd, char *err, size_t errlen)
{
    if (lab_rec(fd, err, errlen, "opt size %llu", (unsigned long long)lab->opts.size) != 0 ||
        lab_rec(fd, err, errlen, "opt clients %llu", (unsigned long long)lab->opts.clients) != 0)
        return -1;
    const struct key_table *t = &lab->kind->keys;
    for (unsigned i = 0; i < t->n; i++) {
        char v[512];
        key_format(&lab->opts, &t->keys[i], v, sizeof v);
        if (lab_rec(fd, err, errlen, "opt %s %s", t->keys[i].name, v) != 0)
            return -1;
    }
    return 0;
}

/* A lab found up: fine if it is healthy and has the same settings. */
static int check_found(const struct lab_kind *k, const struct lab_opts *o, struct lab *lab,
                       const char *prefix, char *err, size_t errlen)
{
    char why[2048] = "";
    int loaded = lab_load(k, prefix, lab, why, sizeof why);
    if (loaded == LAB_LOAD_ELSEWHERE) {
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    if (loaded == 0 && lab_healthy(lab, why, sizeof why)) {
        char differ[256];
        settings_differ(lab, o, differ, sizeof differ);
        if (!differ[0])
            return 0; /* up already: harmless, if it is the lab that was asked for */
        snprintf(err, errlen, "lab %s (prefix %s) is up with other settings (%s); take it down "
                 "first: faultline lab down %s", k->name, prefix, differ, k->name);
        return -1;
    }
    fprintf(stderr, "faultline: lab %s (prefix %s) is broken (%s); rebuilding it\n", k->name,
            prefix, why);
    char path[PATH_MAX];
    state_path(k, prefix, path, sizeof path);
    return down_locked(path, err, errlen) != 0 ? -1 : 1;
}

/* A new state file at path, locked before any other process can see it
 * (made under a name of our own, locked, then linked into place).  Its
 * descriptor, -1 when one exists already, or -2 with err. */
static int state_create(const char *path, char *err, size_t errlen)
{
    char tmp[PATH_MAX];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.new-%d", path, (int)getpid()) >= sizeof tmp) {
        snprintf(err, errlen, "%s: the path is too long", path);
        return -2;
    }
    unlink(tmp); /* one a crashed faultline of our PID left (only root writes here) */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create %s: %s", tmp, strerror(errno));
        return -2;
    }
    int rc = flock(fd, LOCK_EX) != 0 ? -2 : link(tmp, path) != 0 ? (errno == EEXIST ? -1 : -2) : 0;
    if (rc == -2)
        snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
    unlink(tmp);
    if (rc != 0) {
        close(fd);
        return rc;
    }
    return fd;
}

int lab_up(const struct lab_kind *k, const struct lab_opts *o, struct lab *lab, bool *created,
           char *err, size_t errlen)
{
    *created = false;
    char prefix[9];
    if (lab_prefix(o->prefix, prefix, sizeof prefix, err, errlen) != 0)
        return -1;
    char path[PATH_MAX];
    state_path(k, prefix, path, sizeof path);
    if (labs_home(0700, err, errlen) != 0)
        return -1;
    int fd;
    /* A lab found up is checked once another faultline making or removing
     * it is done; one that was broken, and taken down, is made anew. */
    for (unsigned tries = 0; (fd = state_create(path, err, errlen)) < 0; tries++) {
        if (fd == -2)
            return -1;
        if (tries == 100) {
            snprintf(err, errlen, "lab %s (prefix %s) keeps coming and going under another "
                     "faultline", k->name, prefix);
            return -1;
        }
        int lock = state_lock(k, prefix, path, err, errlen);
        if (lock == -2)
            return -1;
        if (lock == -1)
            continue; /* gone meanwhile */
        int rc = check_found(k, o, lab, prefix, err, errlen);
        close(lock);
        if (rc <= 0)
            return rc;
    }
    memset(lab, 0, sizeof *lab);
    lab->kind = k;
    snprintf(lab->prefix, sizeof lab->prefix, "%s", prefix);
    lab->subnet = pick_subnet(prefix, path);
    lab->opts = *o;
    snprintf(lab->opts.prefix, sizeof lab->opts.prefix, "%s", prefix);
    if (!lab->opts.size)
        lab->opts.size = k->default_size;
    lay_out(lab);
    int rc = lab_rec(fd, err, errlen, "kind %s", k->name) != 0 ||
                     lab_rec(fd, err, errlen, "prefix %s", prefix) != 0 ||
                     lab_rec(fd, err, errlen, "subnet %u", lab->subnet) != 0 ||
                     record_opts(lab, fd, err, errlen) != 0
                 ? -1
                 : build_lab(lab, fd, err, errlen);
    if (rc != 0) {
        char derr[512];
        if (down_locked(path, derr, sizeof derr) != 0)
            fprintf(stderr, "faultline: could not remove the half-built lab either: %s\n", derr);
    }
    close(fd); /* the lock: a down or up waiting for it finds the lab whole, or gone */
    if (rc != 0)
        return -1;
    *created = true;
    return 0;
}

/* The lab's state file, open for appending what a restart or power-on
 * starts.  The descriptor, or -1 with err. */
static int state_append(const struct lab *lab, char *err, size_t errlen)
{
    char path[PATH_MAX];
    state_path(lab->kind, lab->prefix, path, sizeof path);
    int fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
    else if (trusted_file(fd, path, err, errlen) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

int lab_restart(const struct lab *lab, const char *host, char *err, size_t errlen)
{
    struct lab now; /* the state as it is: PIDs change with every restart */
    if (lab_load(lab->kind, lab->prefix, &now, err, errlen) != 0)
        return -1;
    struct lab_host *h = host_mut(&now, host);
    if (!h || !h->netns[0] || !now.kind->restart) {
        snprintf(err, errlen, "lab host %s has no service to start", host);
        return -1;
    }
    int fd = state_append(&now, err, errlen);
    if (fd < 0)
        return -1;
    /* The new PID goes after the old one: the newest record of a host wins,
     * and `lab down` kills every recorded one. */
    int rc = now.kind->restart(&now, h, fd, err, errlen);
    close(fd);
    return rc;
}

int lab_power(const struct lab *lab, const char *host, bool on, char *what, size_t whatlen,
              char *err, size_t errlen)
{
    struct lab now; /* the state as it is: PIDs change with every power-on */
    if (lab_load(lab->kind, lab->prefix, &now, err, errlen) != 0)
        return -1;
    struct lab_host *h = host_mut(&now, host);
    if (!h || !h->netns[0] || lab_is_client_host(h) || !now.kind->power) {
        snprintf(err, errlen, "the %s lab cannot cut the power of %s (only of its servers)",
                 now.kind->name, host);
        return -1;
    }
    int fd = state_append(&now, err, errlen);
    if (fd < 0)
        return -1;
    what[0] = '\0';
    int rc = now.kind->power(&now, h, on, fd, what, whatlen, err, errlen);
    if (rc == 0 && on) {
        int sshd = lab_ssh_revive(&now, fd, h, err, errlen);
        if (sshd > 0) {
            size_t len = strlen(what);
            snprintf(what + len, whatlen - len, "%sits sshd started again", len ? ", " : "");
        }
        rc = sshd < 0 ? -1 : 0;
    }
    close(fd);
    return rc;
}

/* --- its storage --- */

static int storage_cli(const struct storage *st, char *const argv[], char *out, size_t outlen,
                       int timeout_ms)
{
    const struct lab *lab = st->at;
    return lab->kind->cli(lab, argv, out, outlen, timeout_ms);
}

static void storage_logs(const struct storage *st, const char *which, storage_line_fn fn,
                         void *ctx)
{
    const struct lab *lab = st->at;
    lab->kind->logs(lab, which, fn, ctx);
}

/* A [lab] key's value as the lab was brought up with it: a duration (ns)
 * or a count. */
static bool storage_setting(const struct storage *st, const char *name, uint64_t *value)
{
    const struct lab *lab = st->at;
    const struct key_def *k = key_find(lab->kind->keys.keys, lab->kind->keys.n, name);
    if (!k || (k->type != KEY_DURATION && k->type != KEY_COUNT) || k->len != sizeof *value)
        return false;
    memcpy(value, (const unsigned char *)&lab->opts + k->off, sizeof *value);
    return true;
}

/* "mds.cs1": the address of host cs1; the kind knows other names. */
static void storage_address(const struct storage *st, const char *name, char *out, size_t n)
{
    const struct lab *lab = st->at;
    const char *dot = strchr(name, '.');
    const struct lab_host *h = dot ? lab_host(lab, dot + 1) : NULL;
    out[0] = '\0';
    if (h)
        snprintf(out, n, "%s", h->addr);
    else if (lab->kind->address)
        lab->kind->address(lab, name, out, n);
}

bool lab_storage(const struct lab *lab, struct storage *st)
{
    memset(st, 0, sizeof *st);
    if (!lab->kind->storage || !lab->kind->cli)
        return false;
    struct lab_place p;
    lab_place_of(lab, &p);
    st->kind = lab->kind->storage;
    snprintf(st->volume, sizeof st->volume, "%s", p.name);
    st->cli = storage_cli;
    st->at = lab;
    snprintf(st->where, sizeof st->where, "in the %s lab (prefix %s)", lab->kind->name,
             lab->prefix);
    st->logs = lab->kind->logs ? storage_logs : NULL;
    st->setting = storage_setting;
    st->address = storage_address;
    return true;
}

bool lab_describe(const struct lab *lab, struct kv_list *about, struct kv_list *options)
{
    if (lab->kind->describe) {
        lab->kind->describe(lab, about, options);
        return true;
    }
    struct storage st;
    if (!lab_storage(lab, &st) || !st.kind->describe)
        return false;
    st.kind->describe(&st, about, options);
    return true;
}

void lab_place_for(const struct lab *lab, unsigned client, struct lab_place *p)
{
    memset(p, 0, sizeof *p);
    if (lab->kind->place)
        lab->kind->place(lab, client <= lab->nclients ? client : 0, p);
}

void lab_place_of(const struct lab *lab, struct lab_place *p)
{
    lab_place_for(lab, 0, p);
}

/* --- for faults --- */

static int fault_process(void *ctx, const char *host, const char *process,
                         struct lab_process *p, char *err, size_t errlen)
{
    const struct lab *lab = ctx;
    struct lab now; /* the PID running now */
    if (!lab->kind->process)
        return 1;
    if (lab_load(lab->kind, lab->prefix, &now, err, errlen) != 0)
        return -1;
    return lab->kind->process(&now, host, process, p, err, errlen);
}

static int fault_restart(void *ctx, const char *host, const char *process, char *err,
                         size_t errlen)
{
    (void)process; /* the lab brings back whatever of the host is gone */
    return lab_restart(ctx, host, err, errlen);
}

static int fault_power(void *ctx, const char *host, bool on, char *what, size_t whatlen,
                       char *err, size_t errlen)
{
    return lab_power(ctx, host, on, what, whatlen, err, errlen);
}

static int fault_replica(void *ctx, const char *name, struct lab_replica *r, char *err,
                         size_t errlen)
{
    const struct lab *lab = ctx;
    return lab->kind->replica(lab, name, r, err, errlen);
}

void lab_fault_lab(const struct lab *lab, struct fault_lab *out)
{
    *out = (struct fault_lab){.ctx = (void *)lab, .process = fault_process,
                              .restart = fault_restart,
                              .replica = lab->kind->replica ? fault_replica : NULL,
                              .power = lab->kind->power ? fault_power : NULL};
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
    if (h->mgmt_addr[0]) {
        json_key(j, "management_address");
        json_str(j, h->mgmt_addr);
    }
    lab_ssh_json(lab, j, h->name);
    if (h->pid) {
        json_key(j, "process");
        json_obj_begin(j);
        json_key(j, "name");
        json_str(j, h->service);
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

static void status_json(const struct lab *lab, struct nl_sock *sk, FILE *out)
{
    struct json j;
    json_init(&j, out, true);
    json_obj_begin(&j);
    json_key(&j, "lab");
    json_str(&j, lab->kind->name);
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
    json_key(&j, "clients"); /* client hosts c1..cN ([lab] clients) */
    json_arr_begin(&j);
    for (unsigned i = 0; i < lab->nclients; i++)
        host_json(&j, lab, &lab->clients[i], sk);
    json_arr_end(&j);
    if (lab->nclients) {
        json_key(&j, "management");
        json_obj_begin(&j);
        json_key(&j, "switch");
        json_str(&j, lab->mgmt_bridge);
        json_key(&j, "address");
        json_str(&j, lab->mgmt_addr);
        json_key(&j, "subnet");
        char mnet[32];
        snprintf(mnet, sizeof mnet, "198.19.%u.0/24", lab->subnet);
        json_str(&j, mnet);
        json_obj_end(&j);
    }
    json_key(&j, "switch_host"); /* the switch, reached over ssh ([lab] control = ssh) */
    json_obj_begin(&j);
    json_key(&j, "name");
    json_str(&j, LAB_SWITCH_HOST);
    lab_ssh_json(lab, &j, LAB_SWITCH_HOST);
    json_obj_end(&j);
    lab->kind->status(lab, &j, out);
    json_obj_end(&j);
    fputc('\n', out);
}

/* One host of `lab status`: where it is, its port, its service, its ssh. */
static void host_line(const struct lab_host *h, struct nl_sock *sk, FILE *out)
{
    struct link_state st = {0};
    char err[256];
    if (sk)
        net_link_state(sk, h->port, &st, err, sizeof err);
    fprintf(out, "  %-7s %s%s, %s %s/24, switch port %s (%s)", h->name,
            h->netns[0] ? "namespace " : "our namespace", h->netns, h->ifname, h->addr, h->port,
            !st.exists ? "missing" : st.admin_up ? "up" : "DOWN");
    if (h->mgmt_addr[0])
        fprintf(out, ", management %s", h->mgmt_addr);
    if (h->pid && h->ctlport)
        fprintf(out, ", %s pid %d %s (control port %u)", h->service, (int)h->pid,
                proc_state_name(proc_state(h->pid, h->start)), h->ctlport);
    else if (h->pid && h->netns[0])
        fprintf(out, ", %s pid %d %s", h->service, (int)h->pid,
                proc_state_name(proc_state(h->pid, h->start)));
    if (h->sshd)
        fprintf(out, ", ssh root@%s", h->mgmt_addr[0] ? h->mgmt_addr : h->addr);
    fputc('\n', out);
}

static void status_text(const struct lab *lab, struct nl_sock *sk, FILE *out)
{
    fprintf(out, "lab %s (prefix %s): switch %s, subnet 198.18.%u.0/24\n", lab->kind->name,
            lab->prefix, lab->bridge, lab->subnet);
    for (unsigned i = 0; i < lab->nhosts; i++)
        host_line(&lab->hosts[i], sk, out);
    if (lab->switch_sshd)
        fprintf(out, "  switch  ssh root@%s port %d (its ports, for faults over ssh)\n",
                lab->hosts[0].addr, LAB_SWITCH_SSH_PORT);
    if (lab->nclients)
        fprintf(out, "  management network %s, 198.19.%u.0/24 (ssh and MPI to the client hosts; "
                     "never faulted)\n", lab->mgmt_bridge, lab->subnet);
    for (unsigned i = 0; i < lab->nclients; i++)
        host_line(&lab->clients[i], sk, out);
    lab->kind->status(lab, NULL, out);
}

void lab_status(const struct lab *lab, bool json, FILE *out)
{
    char err[256];
    struct nl_sock *sk = net_open(NULL, err, sizeof err);
    if (json)
        status_json(lab, sk, out);
    else
        status_text(lab, sk, out);
    net_close(sk);
}
