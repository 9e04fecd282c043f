/* undo — see undo.h for the record format and the primitives. */
#include "undo.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "../lib/fsutil.h"
#include "../lib/net.h"
#include "../lib/nft.h"
#include "../lib/proc.h"

#define COMMAND_TIMEOUT_MS 30000

static int open_log(struct undo_log *u, const char *dir, bool listed, char *err, size_t errlen);

int undo_open(struct undo_log *u, const char *dir, char *err, size_t errlen)
{
    return open_log(u, dir, true, err, errlen);
}

int undo_open_unlisted(struct undo_log *u, const char *dir, char *err, size_t errlen)
{
    return open_log(u, dir, false, err, errlen);
}

static int open_log(struct undo_log *u, const char *dir, bool listed, char *err, size_t errlen)
{
    memset(u, 0, sizeof *u);
    pthread_mutex_init(&u->mu, NULL);
    u->fd = -1;
    u->next = 1;
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/undo.log", dir);
    /* Read and write: NFS gives a shared flock only to a descriptor open
     * for reading (it is a POSIX read lock there). */
    /* Ours alone: whoever may open it could hold its lock and pass for
     * a live run, and a cleanup runs what it says (undo_replay checks). */
    u->fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (u->fd < 0) {
        snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    /* Held until undo_close: `faultline cleanup` leaves the log of a live
     * writer alone (undo_writer).  Shared, so that it never waits for
     * another holder; a cleanup's exclusive test holds it for microseconds. */
    if (flock(u->fd, LOCK_SH) != 0)
        fprintf(stderr, "faultline: cannot lock %s (%s): `faultline cleanup` knows this run "
                "is live only by its registration\n", path, strerror(errno));
    if (!listed)
        return 0;
    /* The registry names the run directory by its absolute path. */
    char abs[PATH_MAX];
    if (!realpath(dir, abs)) {
        snprintf(err, errlen, "cannot resolve %s: %s", dir, strerror(errno));
        return -1;
    }
    /* A cleanup replays the logs the registry names: root's alone. */
    char why[1536];
    if (root_only_dir(UNDO_REGISTRY, 0755, why, sizeof why) != 0) {
        snprintf(err, errlen, "the run registry is not root's alone: %s", why);
        return -1;
    }
    snprintf(u->registry, sizeof u->registry, "%s/%d-%lx", UNDO_REGISTRY, (int)getpid(),
             (unsigned long)(uintptr_t)u ^ (unsigned long)time(NULL));
    /* The run directory, then who runs it: "PID START" (undo_writer). */
    pid_t self = getpid();
    FILE *f = file_create(u->registry, 0600, true, err, errlen);
    if (!f)
        return -1;
    if (fprintf(f, "%s\n%d %llu\n", abs, (int)self, (unsigned long long)proc_starttime(self)) <
            0 ||
        fclose(f) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", u->registry, strerror(errno));
        return -1;
    }
    return 0;
}

void undo_close(struct undo_log *u, int clean)
{
    if (u->fd >= 0)
        close(u->fd);
    u->fd = -1;
    if (clean && u->registry[0])
        unlink(u->registry);
}

static int append(int fd, const char *line, char *err, size_t errlen)
{
    size_t len = strlen(line);
    if (write(fd, line, len) != (ssize_t)len || fdatasync(fd) != 0) {
        snprintf(err, errlen, "cannot write the undo log: %s", strerror(errno));
        return -1;
    }
    return 0;
}

int undo_record(struct undo_log *u, const char *kind, const char *args, int *seq, char *err,
                size_t errlen)
{
    char line[PATH_MAX + 2048];
    pthread_mutex_lock(&u->mu);
    snprintf(line, sizeof line, "U %d %s %s\n", u->next, kind, args);
    int rc = append(u->fd, line, err, errlen);
    if (rc == 0)
        *seq = u->next++;
    pthread_mutex_unlock(&u->mu);
    return rc;
}

int undo_done(struct undo_log *u, int seq, char *err, size_t errlen)
{
    char line[32];
    snprintf(line, sizeof line, "D %d\n", seq);
    pthread_mutex_lock(&u->mu);
    int rc = append(u->fd, line, err, errlen);
    pthread_mutex_unlock(&u->mu);
    return rc;
}

/* "NETNS REST": splits off the first word ("-" means our own namespace). */
static const char *split(const char *args, char *first, size_t n)
{
    size_t l = strcspn(args, " ");
    snprintf(first, n, "%.*s", (int)(l < n ? l : n - 1), args);
    if (strcmp(first, "-") == 0)
        first[0] = '\0';
    return args[l] ? args + l + 1 : args + l;
}

/* link-up NETNS IFNAME: the link up again, if it still exists. */
static int undo_link_up(const char *ns, const char *rest, char *err, size_t errlen)
{
    struct nl_sock *sk = net_open(ns[0] ? ns : NULL, err, errlen);
    if (!sk)
        return -1;
    struct link_state st;
    int rc = net_link_state(sk, rest, &st, err, errlen);
    if (rc == 0 && st.exists)
        rc = net_link_set_up(sk, rest, true, err, errlen);
    net_close(sk);
    return rc;
}

/* nft-delete NETNS TABLE */
static int undo_nft_delete(const char *ns, const char *rest, char *err, size_t errlen)
{
    return nft_delete_table(ns, rest, err, errlen);
}

/* qdisc-delete NETNS IFNAME */
static int undo_qdisc_delete(const char *ns, const char *rest, char *err, size_t errlen)
{
    struct nl_sock *sk = net_open(ns[0] ? ns : NULL, err, errlen);
    if (!sk)
        return -1;
    int rc = net_qdisc_delete_root(sk, rest, err, errlen);
    net_close(sk);
    return rc;
}

/* sigcont PID START (no namespace word: ns is the PID) */
static int undo_sigcont(const char *ns, const char *rest, char *err, size_t errlen)
{
    long pid = strtol(ns, NULL, 10);
    uint64_t start = strtoull(rest, NULL, 10);
    if (pid > 0 && proc_state((pid_t)pid, start) != PROC_GONE && kill((pid_t)pid, SIGCONT) != 0 &&
        errno != ESRCH) {
        snprintf(err, errlen, "cannot continue process %ld: %s", pid, strerror(errno));
        return -1;
    }
    return 0;
}

/* command NETNS COMMAND... */
static int undo_command(const char *ns, const char *rest, char *err, size_t errlen)
{
    char out[1024];
    char *argv[] = {"/bin/sh", "-c", (char *)rest, NULL};
    int rc = proc_run_in(ns, argv, out, sizeof out, COMMAND_TIMEOUT_MS);
    if (rc != 0) {
        snprintf(err, errlen, "undo command '%s' failed (%d): %s", rest, rc, out);
        return -1;
    }
    return 0;
}

/* The primitives, by the kind word of their records. */
static const struct undo_kind primitives[] = {
    {"link-up", true, undo_link_up, NULL},   {"nft-delete", true, undo_nft_delete, NULL},
    {"qdisc-delete", true, undo_qdisc_delete, NULL}, {"sigcont", false, undo_sigcont, NULL},
    {"command", true, undo_command, NULL},
};

/* The kinds the transports added (undo_register): written before main()
 * runs or any log is replayed, read-only after. */
static const struct undo_kind *added[UNDO_MAX_KINDS];
static unsigned nadded;

static const struct undo_kind *find_kind(const char *kind)
{
    for (size_t i = 0; i < sizeof primitives / sizeof primitives[0]; i++)
        if (strcmp(kind, primitives[i].kind) == 0)
            return &primitives[i];
    for (unsigned i = 0; i < nadded; i++)
        if (strcmp(kind, added[i]->kind) == 0)
            return added[i];
    return NULL;
}

int undo_register(const struct undo_kind *k)
{
    if (nadded == UNDO_MAX_KINDS || find_kind(k->kind))
        return -1;
    added[nadded++] = k;
    return 0;
}

int undo_apply(const char *kind, const char *args, char *err, size_t errlen)
{
    const struct undo_kind *k = find_kind(kind);
    if (!k) {
        snprintf(err, errlen, "unknown undo record '%s'", kind);
        return -1;
    }
    char first[64];
    const char *rest = split(args, first, sizeof first);
    /* A namespace that is gone took whatever we did in it along. */
    if (k->in_netns && first[0] && !netns_exists(first))
        return 0;
    return k->apply(first, rest, err, errlen);
}

int undo_check(const char *kind, const char *args, char *err, size_t errlen)
{
    const struct undo_kind *k = find_kind(kind);
    if (!k) {
        snprintf(err, errlen, "unknown undo record '%s'", kind);
        return -1;
    }
    char first[64];
    const char *rest = split(args, first, sizeof first);
    return k->check ? k->check(first, rest, err, errlen) : 0;
}

struct urec {
    int seq;
    bool done;
    char kind[16];
    char args[PATH_MAX + 1024];
};

int undo_replay(const char *dir, unsigned *undone, char *err, size_t errlen)
{
    return undo_replay_with(dir, undo_apply, undone, err, errlen);
}

int undo_replay_with(const char *dir, undo_apply_fn apply, unsigned *undone, char *err,
                     size_t errlen)
{
    *undone = 0;
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/undo.log", dir);
    /* Its commands run as us: only a log nobody else can have written. */
    int rfd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (rfd < 0) {
        if (errno == ENOENT)
            return 0;
        snprintf(err, errlen, "cannot read %s: %s%s", path, strerror(errno),
                 errno == ELOOP ? " (a symbolic link: refused)" : "");
        return -2;
    }
    if (trusted_file(rfd, path, err, errlen) != 0) {
        close(rfd);
        return -2;
    }
    FILE *f = fdopen(rfd, "r");
    if (!f) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        close(rfd);
        return -2;
    }
    size_t n = 0, cap = 16;
    struct urec *r = malloc(cap * sizeof *r);
    char line[PATH_MAX + 2048];
    while (r && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        int seq;
        if (line[0] == 'D' && sscanf(line, "D %d", &seq) == 1) {
            for (size_t i = 0; i < n; i++)
                if (r[i].seq == seq)
                    r[i].done = true;
            continue;
        }
        char kind[16];
        int off = 0;
        if (line[0] != 'U' || sscanf(line, "U %d %15s %n", &seq, kind, &off) < 2 || !off)
            continue; /* a torn last line: nothing was applied after it */
        if (n == cap) {
            struct urec *nr = realloc(r, cap * 2 * sizeof *nr);
            if (!nr)
                break;
            r = nr;
            cap *= 2;
        }
        r[n].seq = seq;
        r[n].done = false;
        snprintf(r[n].kind, sizeof r[n].kind, "%s", kind);
        snprintf(r[n].args, sizeof r[n].args, "%s", line + off);
        n++;
    }
    fclose(f);
    if (!r) {
        snprintf(err, errlen, "out of memory reading %s", path);
        return -1;
    }
    int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
    int rc = 0;
    for (size_t i = n; i-- > 0;) {
        if (r[i].done)
            continue;
        char e[1024];
        if (apply(r[i].kind, r[i].args, e, sizeof e) != 0) {
            if (rc == 0)
                snprintf(err, errlen, "%s: %s %s: %s", path, r[i].kind, r[i].args, e);
            rc = -1;
            continue;
        }
        (*undone)++;
        char done[32];
        snprintf(done, sizeof done, "D %d\n", r[i].seq);
        if (fd >= 0 && write(fd, done, strlen(done)) < 0 && rc == 0) {
            snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
            rc = -1;
        }
    }
    if (fd >= 0) {
        fdatasync(fd);
        close(fd);
    }
    free(r);
    return rc;
}

/* A registry entry: the run directory, and the PID and start time of its
 * run (start 0 when they are not known: see old_entry_start). */
struct reg_entry {
    const char *path, *dir;
    pid_t pid;
    uint64_t start;
};

/* The wall-clock time (s) a process started at `start` (clock ticks since
 * boot, lib/proc.h) began. */
static double started_at(uint64_t start)
{
    struct timespec now, boot;
    clock_gettime(CLOCK_REALTIME, &now);
    clock_gettime(CLOCK_BOOTTIME, &boot);
    long hz = sysconf(_SC_CLK_TCK);
    double since_boot = (double)start / (double)(hz > 0 ? hz : 100);
    return (double)now.tv_sec + now.tv_nsec / 1e9 - (boot.tv_sec + boot.tv_nsec / 1e9) +
           since_boot;
}

/* An entry of a build before "PID START" was written: its name begins with
 * the PID of the run that wrote it.  The process that has that PID now is
 * that run if it began before the entry was written, since two live
 * processes never share a PID.  The clocks agree to a tick; a second more
 * is allowed, on the safe side: a process that began just after is taken
 * for the run, which leaves a dead run alone (--force undoes it), never a
 * live one undone.  Its start time, or 0 when it is not the run. */
static uint64_t old_entry_start(const char *name, const char *path, pid_t *pid)
{
    struct stat st;
    *pid = (pid_t)strtol(name, NULL, 10);
    uint64_t start = *pid > 0 ? proc_starttime(*pid) : 0;
    if (!start || stat(path, &st) != 0)
        return 0;
    double written = (double)st.st_mtim.tv_sec + st.st_mtim.tv_nsec / 1e9;
    return started_at(start) <= written + 1.0 ? start : 0;
}

/* Every entry of the registry that can be trusted: the registry root's
 * alone, each entry a regular file of root's (or ours) that nobody else
 * can write.  What is refused is said on stderr and counted (a registry
 * that is not root's alone counts as one). */
static int each_entry(void (*fn)(const struct reg_entry *r, void *ctx), void *ctx)
{
    char why[1536];
    struct stat st;
    if (lstat(UNDO_REGISTRY, &st) != 0)
        return 0; /* no run was ever registered */
    if (root_only_dir(UNDO_REGISTRY, 0, why, sizeof why) != 0) {
        fprintf(stderr, "faultline: the run registry is not used: %s\n", why);
        return 1;
    }
    int refused = 0;
    DIR *d = opendir(UNDO_REGISTRY);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char p[PATH_MAX + 300], line[PATH_MAX], who[64] = "";
        snprintf(p, sizeof p, "%s/%s", UNDO_REGISTRY, e->d_name);
        int fd = open(p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
            if (errno == ELOOP) {
                fprintf(stderr, "faultline: run registry: refusing %s: a symbolic link\n", p);
                refused++;
            }
            continue;
        }
        if (trusted_file(fd, p, why, sizeof why) != 0) {
            fprintf(stderr, "faultline: run registry: %s\n", why);
            refused++;
            close(fd);
            continue;
        }
        FILE *f = fdopen(fd, "r");
        if (!f) {
            close(fd);
            continue;
        }
        bool ok = fgets(line, sizeof line, f) != NULL;
        if (ok && !fgets(who, sizeof who, f))
            who[0] = '\0';
        fclose(f);
        if (!ok)
            continue;
        line[strcspn(line, "\n")] = '\0';
        int pid = 0;
        unsigned long long start = 0;
        struct reg_entry r = {.path = p, .dir = line};
        if (sscanf(who, "%d %llu", &pid, &start) == 2) {
            r.pid = pid;
            r.start = start;
        } else {
            r.start = old_entry_start(e->d_name, p, &r.pid);
        }
        fn(&r, ctx);
    }
    if (d)
        closedir(d);
    return refused;
}

struct each_ctx {
    void (*fn)(const char *entry, const char *dir, void *ctx);
    void *ctx;
};

static void each_dir(const struct reg_entry *r, void *ctx)
{
    struct each_ctx *c = ctx;
    c->fn(r->path, r->dir, c->ctx);
}

int undo_each_registered(void (*fn)(const char *entry, const char *dir, void *ctx), void *ctx)
{
    struct each_ctx c = {fn, ctx};
    return each_entry(each_dir, &c);
}

static void drop_if_same(const char *entry, const char *dir, void *ctx)
{
    if (strcmp(dir, ctx) == 0)
        unlink(entry);
}

void undo_unregister(const char *dir)
{
    char abs[PATH_MAX];
    if (realpath(dir, abs))
        undo_each_registered(drop_if_same, abs);
}

/* --- who writes a log --- */

struct live_ctx {
    const char *dir;
    struct undo_writer *w;
};

/* A registration of the directory whose process is still the one that
 * registered it. */
static void live_if_registered(const struct reg_entry *r, void *ctx)
{
    struct live_ctx *c = ctx;
    if (c->w->live || strcmp(r->dir, c->dir) != 0 || r->pid <= 0)
        return;
    enum proc_state st = proc_state(r->pid, r->start);
    if (st != PROC_RUNNING && st != PROC_STOPPED)
        return;
    *c->w = (struct undo_writer){
        .live = true, .pid = r->pid, .state = st, .found_by = "registration"};
}

/* The process that holds a flock on fd's file, from /proc/locks
 * ("N: FLOCK  ADVISORY  READ  PID MAJ:MIN:INODE 0 EOF"); 0 when none is
 * named there (a process of another PID namespace, a filesystem whose
 * device /proc/locks names otherwise). */
static pid_t lock_holder(int fd)
{
    struct stat st;
    FILE *f = fstat(fd, &st) == 0 ? fopen("/proc/locks", "r") : NULL;
    if (!f)
        return 0;
    char line[256];
    pid_t found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        const char *p = strstr(line, "FLOCK");
        if (!p || strstr(line, "->")) /* "->": one waiting for the lock */
            continue;
        int pid;
        unsigned maj, min;
        unsigned long long ino;
        if (sscanf(p, "FLOCK %*s %*s %d %x:%x:%llu", &pid, &maj, &min, &ino) == 4 &&
            maj == major(st.st_dev) && min == minor(st.st_dev) && ino == st.st_ino && pid > 0)
            found = pid;
    }
    fclose(f);
    return found;
}

/* Another process holds a lock on DIR/undo.log: the test takes the
 * exclusive lock without waiting, and gives it back at once. */
static void live_if_locked(const char *dir, struct undo_writer *w)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/undo.log", dir);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        fd = open(path, O_RDONLY | O_CLOEXEC); /* one we may only read */
    if (fd < 0)
        return; /* no log: nothing is written, nothing to undo */
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
        flock(fd, LOCK_UN);
    } else if (errno == EWOULDBLOCK) {
        pid_t pid = lock_holder(fd);
        enum proc_state st = pid ? proc_state(pid, proc_starttime(pid)) : PROC_RUNNING;
        *w = (struct undo_writer){.live = true,
                                  .pid = pid,
                                  .state = st == PROC_STOPPED ? PROC_STOPPED : PROC_RUNNING,
                                  .found_by = "lock"};
    }
    close(fd);
}

void undo_writer(const char *dir, struct undo_writer *w)
{
    *w = (struct undo_writer){.live = false, .state = PROC_GONE};
    char abs[PATH_MAX];
    if (realpath(dir, abs)) {
        struct live_ctx c = {abs, w};
        each_entry(live_if_registered, &c);
    }
    if (!w->live)
        live_if_locked(dir, w);
}
