/* proc — see proc.h. */
#include "proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "nsname.h"
#include "spawner.h"

void proc_child_signals(void)
{
    signal(SIGPIPE, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

const char *proc_state_name(enum proc_state s)
{
    static const char *const names[] = {"gone", "running", "stopped", "zombie"};
    return names[s];
}

/* State letter and start time from /proc/PID/stat; 0 when it cannot be read. */
static int read_stat(pid_t pid, char *state, uint64_t *start)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    /* "pid (comm) S ...": comm may hold spaces and parentheses. */
    char *p = strrchr(buf, ')');
    if (!p || p[1] != ' ')
        return 0;
    *state = p[2];
    p += 2;
    /* field 3 is the state; the start time is field 22 */
    for (int field = 3; field < 22 && p; field++) {
        p = strchr(p, ' ');
        if (p)
            p++;
    }
    if (!p)
        return 0;
    *start = strtoull(p, NULL, 10);
    return 1;
}

uint64_t proc_starttime(pid_t pid)
{
    char st;
    uint64_t start;
    return read_stat(pid, &st, &start) ? start : 0;
}

enum proc_state proc_state(pid_t pid, uint64_t start)
{
    char st;
    uint64_t s;
    if (pid <= 0 || !read_stat(pid, &st, &s) || s != start)
        return PROC_GONE;
    switch (st) {
    case 'Z':
    case 'X':
        return PROC_ZOMBIE;
    case 'T':
    case 't':
        return PROC_STOPPED;
    default:
        return PROC_RUNNING;
    }
}

/* The namespace files a child enters, opened in the parent: nsfd[0] the
 * network namespace, nsfd[1] the mount namespace, nsfd[2] the UTS
 * namespace, nsfd[3] the PID namespace (-1: stay).  The hostname matters to
 * what runs there: a daemon may name itself after it in its cluster.  The
 * PID namespace too: a server's mount namespace may have /proc mounted for
 * its own PID namespace, where a process from outside it would find no
 * /proc/self. */
#define PLACE_NS 4
#define PLACE_PID 3

static void close_place(int nsfd[PLACE_NS])
{
    for (int i = 0; i < PLACE_NS; i++)
        if (nsfd[i] >= 0)
            close(nsfd[i]);
}

static int open_place(const struct proc_place *at, int nsfd[PLACE_NS], char *err,
                      size_t errlen)
{
    nsfd[0] = nsfd[1] = nsfd[2] = nsfd[3] = -1;
    if (at->join > 0) {
        if (proc_state(at->join, at->join_start) == PROC_GONE) {
            snprintf(err, errlen, "process %d is gone: its namespaces cannot be entered",
                     (int)at->join);
            return -1;
        }
        static const char *const kinds[PLACE_NS] = {"net", "mnt", "uts", "pid"};
        for (int i = 0; i < PLACE_NS; i++) {
            char path[64];
            snprintf(path, sizeof path, "/proc/%d/ns/%s", (int)at->join, kinds[i]);
            if ((nsfd[i] = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
                snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
                close_place(nsfd);
                return -1;
            }
        }
        /* Its PID namespace only when it is not ours. */
        struct stat theirs, ours;
        if (fstat(nsfd[PLACE_PID], &theirs) == 0 && stat("/proc/self/ns/pid", &ours) == 0 &&
            theirs.st_ino == ours.st_ino && theirs.st_dev == ours.st_dev) {
            close(nsfd[PLACE_PID]);
            nsfd[PLACE_PID] = -1;
        }
        return 0;
    }
    if (at->netns && *at->netns && strcmp(at->netns, "-") != 0 &&
        (nsfd[0] = netns_fd(at->netns, err, errlen)) < 0)
        return -1;
    return 0;
}

/* In the child: enter the namespaces, then the caller's setup.  0 or errno. */
static int enter_place(const struct proc_place *at, const int nsfd[PLACE_NS])
{
    if (nsfd[0] >= 0 && setns(nsfd[0], CLONE_NEWNET) != 0)
        return errno;
    if (nsfd[1] >= 0 && setns(nsfd[1], CLONE_NEWNS) != 0)
        return errno;
    if (nsfd[2] >= 0 && setns(nsfd[2], CLONE_NEWUTS) != 0)
        return errno;
    return at->setup ? at->setup(at->ctx) : 0;
}

static const char *place_name(const struct proc_place *at, char *buf, size_t n)
{
    if (at->join > 0)
        snprintf(buf, n, " in the namespaces of process %d", (int)at->join);
    else if (at->netns && *at->netns)
        snprintf(buf, n, " in %s", at->netns);
    else
        buf[0] = 0;
    return buf;
}

/* Why a child could not enter its place, for its parent. */
static void enter_failed(const struct proc_place *at, int e, char *msg, size_t n)
{
    char where[96];
    snprintf(msg, n, "cannot enter%s: %s", place_name(at, where, sizeof where), strerror(e));
}

/* What a child of fork_at runs once at its place: e is the errno of
 * getting there (0: it is there), out its end of the pipe.  It ends in
 * exec or _exit. */
typedef void (*at_body)(void *ctx, int e, int out);

struct at_child {
    const struct proc_place *at;
    const int *nsfd;
    int out;
    at_body body;
    void *ctx;
};

static void at_child_main(void *arg)
{
    struct at_child *c = arg;
    proc_child_signals();
    c->body(c->ctx, enter_place(c->at, c->nsfd), c->out);
    _exit(127);
}

/* A child at a place, with a pipe from it (close-on-exec), forked by the
 * spawner (spawner.h): it gets the pipe's end pipefd[1], the place's
 * namespaces and keep[0..nkeep), and runs body.  In the parent: the
 * child's PID, its end pipefd[0] (the other one closed).  -1 with err
 * when there is no child. */
static pid_t fork_at(const struct proc_place *at, int pipefd[2], const int *keep, unsigned nkeep,
                     at_body body, void *ctx, char *err, size_t errlen)
{
    int nsfd[PLACE_NS];
    if (open_place(at, nsfd, err, errlen) != 0)
        return -1;
    if (pipe2(pipefd, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        close_place(nsfd);
        return -1;
    }
    int give[PLACE_NS + 1 + 3]; /* the pipe, the namespaces, a caller's three at most */
    unsigned n = 0;
    give[n++] = pipefd[1];
    for (int i = 0; i < PLACE_NS; i++)
        if (nsfd[i] >= 0)
            give[n++] = nsfd[i];
    if (nkeep > 3)
        abort(); /* a caller of ours that outgrew give[] */
    for (unsigned i = 0; i < nkeep; i++)
        give[n++] = keep[i];
    struct at_child c = {.at = at, .nsfd = nsfd, .out = pipefd[1], .body = body, .ctx = ctx};
    pid_t child = spawner_fork(give, n, nsfd[PLACE_PID], at_child_main, &c);
    int forked = errno;
    close(pipefd[1]);
    close_place(nsfd);
    if (child < 0) {
        snprintf(err, errlen, "fork%s: %s", nsfd[PLACE_PID] >= 0 ? " into a PID namespace" : "",
                 strerror(forked));
        close(pipefd[0]);
        return -1;
    }
    return child;
}

int proc_spawn(const char *netns, char *const argv[], const char *log, pid_t *pid,
               uint64_t *start, char *err, size_t errlen)
{
    struct proc_place at = {.netns = netns};
    return proc_spawn_at(&at, argv, log, pid, start, err, errlen);
}

/* Whether a child at `at` would live in a PID namespace other than ours
 * (it joins a lab server's). */
static bool joins_pid_ns(const struct proc_place *at)
{
    if (at->join <= 0)
        return false;
    char path[64];
    struct stat theirs, ours;
    snprintf(path, sizeof path, "/proc/%d/ns/pid", (int)at->join);
    return stat(path, &theirs) == 0 && stat("/proc/self/ns/pid", &ours) == 0 &&
           (theirs.st_ino != ours.st_ino || theirs.st_dev != ours.st_dev);
}

/* The child of `parent` (as our namespace sees both), 0 when there is none. */
static pid_t child_of(pid_t parent)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    pid_t found = 0;
    while (d && !found && (e = readdir(d))) {
        char *end, path[300], line[128];
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0)
            continue;
        snprintf(path, sizeof path, "/proc/%ld/status", pid);
        FILE *f = fopen(path, "r");
        int ppid = 0;
        while (f && fgets(line, sizeof line, f))
            if (sscanf(line, "PPid: %d", &ppid) == 1)
                break;
        if (f)
            fclose(f);
        if (ppid == parent)
            found = (pid_t)pid;
    }
    if (d)
        closedir(d);
    return found;
}

/* What a spawned child and (in a PID namespace of its own) its
 * intermediate tell the parent on the pipe. */
struct spawn_said {
    char what; /* 'F': the intermediate forked the program; 'E': an errno */
    int value;
};

/* What proc_spawn_at's child needs. */
struct spawn_job {
    bool twice;
    int logfd;
    const int *go;
    char *const *argv;
    int e;   /* an errno of getting there, or 0 */
    int out; /* the pipe to the parent */
};

/* The program: its own session, output to logfd, stdin from /dev/null,
 * and the exec.  What fails is said on out. */
static _Noreturn void spawn_program(struct spawn_job *j)
{
    struct spawn_said m = {.what = 'E'};
    int e = j->e;
    /* Only the namespaces asked for: entering a mount namespace we do
     * not need would copy the mount table and pin mounts of others. */
    if (!e && (setsid() < 0 || dup2(j->logfd, 1) < 0 || dup2(j->logfd, 2) < 0))
        e = errno;
    int devnull = open("/dev/null", O_RDONLY);
    if (!e && (devnull < 0 || dup2(devnull, 0) < 0))
        e = errno;
    if (!e) {
        execvp(j->argv[0], j->argv);
        e = errno;
    }
    m.value = e;
    if (write(j->out, &m, sizeof m) != (ssize_t)sizeof m)
        _exit(126);
    _exit(127);
}

static void spawn_program_main(void *ctx)
{
    spawn_program(ctx);
}

/* In the child of proc_spawn_at: with twice, forks the program and stays,
 * as its intermediate, until the parent says go; else it is the program. */
static void spawn_child(void *ctx, int e, int out)
{
    struct spawn_job *j = ctx;
    j->e = e;
    j->out = out;
    if (j->twice && !e) {
        pid_t program = spawner_fork(NULL, 0, -1, spawn_program_main, j);
        if (program < 0) {
            j->e = errno;
        } else {
            struct spawn_said m = {.what = 'F'};
            char c;
            if (write(out, &m, sizeof m) != (ssize_t)sizeof m || read(j->go[0], &c, 1) < 0)
                _exit(126);
            _exit(0);
        }
    }
    spawn_program(j);
}

/* In the parent of proc_spawn_at: reads what child (and, twice, its
 * intermediate) say on in until EOF, lets the intermediate go once the
 * program's PID is read, and closes the pipes.  The program's PID (0 when
 * there is none); *e: the errno that stopped it, or 0. */
static pid_t spawn_wait(pid_t child, bool twice, int go[2], int in, int *e)
{
    pid_t program = twice ? 0 : child;
    struct spawn_said m;
    *e = 0;
    for (;;) { /* until EOF: the program's exec (close-on-exec) and the intermediate's exit */
        ssize_t r = read(in, &m, sizeof m);
        if (r < 0 && errno == EINTR)
            continue;
        if (r != (ssize_t)sizeof m)
            break;
        if (m.what == 'E' && !*e)
            *e = m.value;
        if (m.what == 'F' && twice) {
            program = child_of(child);
            if (write(go[1], "g", 1) != 1)
                *e = errno;
            close(go[1]);
            go[1] = -1;
            waitpid(child, NULL, 0);
        }
    }
    close(in);
    if (twice) {
        close(go[0]);
        if (go[1] >= 0) { /* the intermediate never forked */
            close(go[1]);
            waitpid(child, NULL, 0);
        }
    }
    return program;
}

int proc_spawn_at(const struct proc_place *at, char *const argv[], const char *log, pid_t *pid,
                  uint64_t *start, char *err, size_t errlen)
{
    int logfd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (logfd < 0) {
        snprintf(err, errlen, "cannot open %s: %s", log, strerror(errno));
        return -1;
    }
    /* In a lab server's PID namespace the program is not our child but its
     * init's, as a daemon's parent on a real server is its PID 1: an
     * intermediate forked into the namespace forks it and leaves, so the
     * server's init reaps it when it dies (a dying PID 1 waits until every
     * process of its namespace is reaped, and nothing of ours could wait
     * for one that died on its own).  The intermediate stays until we have
     * read the program's PID (the one our namespace sees) from /proc. */
    bool twice = joins_pid_ns(at);
    int go[2] = {-1, -1};
    if (twice && pipe2(go, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        close(logfd);
        return -1;
    }
    int pipefd[2], e = 0;
    struct spawn_job job = {.twice = twice, .logfd = logfd, .go = go, .argv = argv};
    int keep[3] = {logfd, go[0], go[1]};
    pid_t child = fork_at(at, pipefd, keep, twice ? 3 : 1, spawn_child, &job, err, errlen);
    if (child < 0) {
        close(logfd);
        if (twice) {
            close(go[0]);
            close(go[1]);
        }
        return -1;
    }
    close(logfd);
    pid_t program = spawn_wait(child, twice, go, pipefd[0], &e);
    if (!e && !program)
        e = ESRCH;
    if (e) {
        if (!twice)
            waitpid(child, NULL, 0);
        char where[96];
        snprintf(err, errlen, "cannot start %s%s: %s", argv[0], place_name(at, where, sizeof where),
                 strerror(e));
        return -1;
    }
    *pid = program;
    *start = proc_starttime(program);
    return 0;
}

/* What proc_start_init's child and grandchild tell the parent, in
 * records on one pipe that closes when both are done (the grandchild's
 * end at its exec). */
struct init_said {
    char what; /* 'P': the init's PID (as we see it), 'E': an errno at step `step` */
    int value;
    char step[24];
};

static void init_say(int fd, char what, int value, const char *step)
{
    struct init_said m = {.what = what, .value = value};
    snprintf(m.step, sizeof m.step, "%s", step);
    if (write(fd, &m, sizeof m) != (ssize_t)sizeof m)
        _exit(126);
}

/* What proc_start_init's child and grandchild need. */
struct init_job {
    char *const *argv;
    int out;
};

/* The grandchild: PID 1 of the new namespace. */
static void init_main(void *ctx)
{
    struct init_job *j = ctx;
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    /* its own /proc, in the mount namespace the setup made;
     * nothing of ours stays open in it past its exec */
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
        init_say(j->out, 'E', errno, "mount /proc");
    else if (setsid() < 0 || null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 ||
             dup2(null, 2) < 0)
        init_say(j->out, 'E', errno, "stdio");
    else {
        close_range(3, ~0u, CLOSE_RANGE_CLOEXEC);
        execv(j->argv[0], j->argv);
        init_say(j->out, 'E', errno, "exec");
    }
    _exit(127);
}

/* The child, at its place: a PID namespace of its own for its children,
 * and the init in it. */
static void init_parent(void *ctx, int e, int out)
{
    struct init_job *j = ctx;
    j->out = out;
    if (e) {
        init_say(out, 'E', e, "enter");
    } else if (unshare(CLONE_NEWPID) != 0) {
        init_say(out, 'E', errno, "unshare");
    } else {
        pid_t init = spawner_fork(NULL, 0, -1, init_main, j);
        if (init < 0)
            init_say(out, 'E', errno, "fork");
        else
            init_say(out, 'P', (int)init, "");
    }
    _exit(0);
}

int proc_start_init(const struct proc_place *at, char *const argv[], pid_t *pid,
                    uint64_t *start, char *err, size_t errlen)
{
    int pipefd[2];
    struct init_job job = {.argv = argv};
    pid_t child = fork_at(at, pipefd, NULL, 0, init_parent, &job, err, errlen);
    if (child < 0)
        return -1;
    struct init_said m;
    pid_t init = 0;
    char why[160] = "";
    for (;;) {
        ssize_t n = read(pipefd[0], &m, sizeof m);
        if (n < 0 && errno == EINTR)
            continue;
        if (n != (ssize_t)sizeof m)
            break;
        if (m.what == 'P')
            init = (pid_t)m.value;
        else if (!why[0])
            snprintf(why, sizeof why, "%s: %s", m.step, strerror(m.value));
    }
    close(pipefd[0]);
    while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
        ;
    char where[96];
    if (!why[0] && !init)
        snprintf(why, sizeof why, "its parent died");
    if (why[0]) {
        snprintf(err, errlen, "cannot start %s as the init of a new PID namespace%s: %s",
                 argv[0], place_name(at, where, sizeof where), why);
        if (init)
            kill(init, SIGKILL);
        return -1;
    }
    *pid = init;
    *start = proc_starttime(init);
    return 0;
}

struct call_job {
    const struct proc_place *at;
    int (*fn)(void *ctx, char *err, size_t errlen);
    void *ctx;
};

static void call_child(void *ctx, int e, int out)
{
    struct call_job *j = ctx;
    char msg[1024] = "";
    int rc = -1;
    if (e)
        enter_failed(j->at, e, msg, sizeof msg);
    else
        rc = j->fn(j->ctx, msg, sizeof msg);
    if (rc != 0 && write(out, msg, strlen(msg)) < 0)
        _exit(2);
    _exit(rc != 0);
}

int proc_call_at(const struct proc_place *at, int (*fn)(void *ctx, char *err, size_t errlen),
                 void *ctx, char *err, size_t errlen)
{
    int pipefd[2];
    struct call_job job = {.at = at, .fn = fn, .ctx = ctx};
    pid_t child = fork_at(at, pipefd, NULL, 0, call_child, &job, err, errlen);
    if (child < 0)
        return -1;
    char msg[1024];
    size_t used = 0;
    for (;;) { /* until the child exits and the pipe closes */
        ssize_t n = read(pipefd[0], msg + used, sizeof msg - 1 - used);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 || (used += (size_t)n) == sizeof msg - 1)
            break;
    }
    msg[used] = '\0';
    close(pipefd[0]);
    int status;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR)
        ;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    snprintf(err, errlen, "%s", used ? msg : "the child process failed");
    return -1;
}

struct shared_call {
    const struct proc_place *at;
    int nsfd[PLACE_NS];
    int (*fn)(void *ctx, char *err, size_t errlen);
    void *ctx;
    int rc;
    char msg[1024];
};

static int shared_child(void *arg)
{
    struct shared_call *s = arg;
    int e = enter_place(s->at, s->nsfd);
    if (e)
        enter_failed(s->at, e, s->msg, sizeof s->msg);
    else
        s->rc = s->fn(s->ctx, s->msg, sizeof s->msg);
    return 0;
}

int proc_call_at_shared(const struct proc_place *at,
                        int (*fn)(void *ctx, char *err, size_t errlen), void *ctx, char *err,
                        size_t errlen)
{
    struct shared_call s = {.at = at, .fn = fn, .ctx = ctx, .rc = -1};
    if (open_place(at, s.nsfd, err, errlen) != 0)
        return -1;
    /* its own stack; no CLONE_FS, so that it may enter a mount namespace */
    size_t size = 256 * 1024;
    char *stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK,
                       -1, 0);
    if (stack == MAP_FAILED) {
        snprintf(err, errlen, "mmap of a child's stack: %s", strerror(errno));
        close_place(s.nsfd);
        return -1;
    }
    int back = s.nsfd[PLACE_PID] >= 0 ? spawner_pidns_enter(s.nsfd[PLACE_PID]) : -1;
    if (s.nsfd[PLACE_PID] >= 0 && back < 0) {
        snprintf(err, errlen, "cannot enter a PID namespace for a child: %s", strerror(errno));
        munmap(stack, size);
        close_place(s.nsfd);
        return -1;
    }
    pid_t child = clone(shared_child, stack + size, CLONE_VM | CLONE_FILES | CLONE_VFORK | SIGCHLD,
                        &s);
    int e = errno, status = 0;
    if (back >= 0)
        spawner_pidns_leave(back);
    if (child > 0)
        while (waitpid(child, &status, 0) < 0 && errno == EINTR)
            ;
    munmap(stack, size);
    close_place(s.nsfd);
    if (child < 0) {
        snprintf(err, errlen, "clone: %s", strerror(e));
        return -1;
    }
    if (s.rc != 0)
        snprintf(err, errlen, "%s", s.msg[0] ? s.msg : "the child process failed");
    return s.rc;
}

int proc_each_in_netns(const char *netns, int (*fn)(void *ctx, const struct proc_seen *p),
                       void *ctx)
{
    char path[PATH_MAX];
    struct stat ns;
    if (netns && *netns)
        snprintf(path, sizeof path, "%s/%s", NETNS_DIR, netns);
    else
        snprintf(path, sizeof path, "/proc/self/ns/net");
    if (stat(path, &ns) != 0)
        return -1;
    DIR *d = opendir("/proc");
    struct dirent *e;
    int seen = 0;
    while (d && (e = readdir(d))) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        struct stat st;
        if (*end || pid <= 0 || pid == getpid())
            continue;
        snprintf(path, sizeof path, "/proc/%ld/ns/net", pid);
        if (stat(path, &st) != 0 || st.st_ino != ns.st_ino || st.st_dev != ns.st_dev)
            continue;
        struct proc_seen p = {.pid = (pid_t)pid, .start = proc_starttime((pid_t)pid)};
        snprintf(path, sizeof path, "/proc/%ld/comm", pid);
        FILE *c = fopen(path, "r");
        if (c) {
            if (fgets(p.comm, sizeof p.comm, c))
                p.comm[strcspn(p.comm, "\n")] = '\0';
            fclose(c);
        }
        seen++;
        if (fn(ctx, &p))
            break;
    }
    if (d)
        closedir(d);
    return seen;
}

/* How long a SIGKILLed process may take to be gone.  A server of many
 * threads exits in milliseconds on an idle machine, but took over 2 s with
 * some 60 runnable tasks on 2 cores (a glusterfsd at `lab down`), and a lab
 * server's sshd was once still running its exit (state R) 10 s after the
 * signal, with one test at work: the kernel's teardown of the server's PID
 * namespace, not the process, is what takes the time. */
#define KILL_WAIT_MS 30000

/* Why a SIGKILLed process is still there: its name, its state (R: its
 * exit starved of CPU; D: waiting in the kernel, an unmount flushing say)
 * and the kernel function it waits in. */
static void still_alive(pid_t pid, char *err, size_t errlen)
{
    char path[64], comm[64] = "?", wchan[64] = "?", state = '?';
    snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
    FILE *f = fopen(path, "r");
    if (f) {
        if (fgets(comm, sizeof comm, f))
            comm[strcspn(comm, "\n")] = '\0';
        fclose(f);
    }
    snprintf(path, sizeof path, "/proc/%d/wchan", (int)pid);
    if ((f = fopen(path, "r"))) {
        if (!fgets(wchan, sizeof wchan, f))
            snprintf(wchan, sizeof wchan, "?");
        fclose(f);
    }
    uint64_t start;
    read_stat(pid, &state, &start);
    snprintf(err, errlen, "process %d (%s, state %c, waiting in %s) is still alive %d s after "
             "SIGKILL", (int)pid, comm, state, wchan, KILL_WAIT_MS / 1000);
}

/* Reaps pid when it is our child: it has died, but a process of many
 * threads is reapable only once the last of them is gone, a moment after
 * its pidfd said it died.  An unreaped child of ours in a lab server's PID
 * namespace would also keep that namespace's dying PID 1 waiting.  Returns
 * once reaped, or at once when it is not ours; bounded by `until`. */
static void reap_if_ours(pid_t pid, uint64_t until)
{
    for (;;) {
        pid_t r = waitpid(pid, NULL, WNOHANG);
        if (r == pid || (r < 0 && errno != EINTR) || mono_ns() >= until)
            return;
        struct timespec ts = {0, 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

int proc_kill(pid_t pid, uint64_t start, int sig, char *err, size_t errlen)
{
    enum proc_state s = proc_state(pid, start);
    if (s == PROC_GONE) {
        waitpid(pid, NULL, WNOHANG);
        return 0;
    }
    /* A pidfd names this very process: opened, then checked against the
     * start time, nothing can take its PID before the signal. */
    int pidfd = sig == SIGKILL && s != PROC_ZOMBIE ? (int)syscall(SYS_pidfd_open, pid, 0) : -1;
    if (pidfd >= 0 && proc_state(pid, start) == PROC_GONE) {
        close(pidfd);
        return 0;
    }
    int sent = s == PROC_ZOMBIE ? 0
               : pidfd >= 0 ? (int)syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0)
                            : kill(pid, sig);
    if (sent != 0 && errno != ESRCH) {
        snprintf(err, errlen, "cannot signal process %d: %s", (int)pid, strerror(errno));
        if (pidfd >= 0)
            close(pidfd);
        return -1;
    }
    if (sig != SIGKILL)
        return 0;
    if (pidfd >= 0) {
        /* Readable the moment it has died: the time of death, not the
         * next look after a sleep. */
        struct pollfd p = {.fd = pidfd, .events = POLLIN};
        int rc;
        do
            rc = poll(&p, 1, KILL_WAIT_MS);
        while (rc < 0 && errno == EINTR);
        close(pidfd);
        if (rc == 1) {
            reap_if_ours(pid, mono_ns() + KILL_WAIT_MS * 1000000ull);
            return 0;
        }
        still_alive(pid, err, errlen);
        return -1;
    }
    uint64_t until = mono_ns() + KILL_WAIT_MS * 1000000ull;
    while (mono_ns() < until) {
        if (waitpid(pid, NULL, WNOHANG) == pid) /* ours: reaped, gone */
            return 0;
        s = proc_state(pid, start);
        if (s == PROC_GONE || s == PROC_ZOMBIE) { /* a zombie is dead: reaped if ours */
            reap_if_ours(pid, until);
            return 0;
        }
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    still_alive(pid, err, errlen);
    return -1;
}

void proc_failed_text(char *const argv[], const char *where, int rc, const char *output,
                      char *err, size_t errlen)
{
    size_t used = 0;
    err[0] = '\0';
    for (int i = 0; argv[i] && used < errlen; i++)
        used += (size_t)snprintf(err + used, errlen - used, "%s%s", i ? " " : "", argv[i]);
    if (used < errlen)
        snprintf(err + used, errlen - used, "%s failed (%d): %.400s", where, rc, output);
}

int proc_run(char *const argv[], char *out, size_t outlen, int timeout_ms)
{
    return proc_run_in(NULL, argv, out, outlen, timeout_ms);
}

int proc_run_in(const char *netns, char *const argv[], char *out, size_t outlen, int timeout_ms)
{
    struct proc_place at = {.netns = netns};
    return proc_run_at(&at, argv, out, outlen, timeout_ms);
}

struct run_job {
    const struct proc_place *at;
    char *const *argv;
};

static void run_child(void *ctx, int e, int out)
{
    struct run_job *j = ctx;
    if (e) {
        char msg[192];
        enter_failed(j->at, e, msg, sizeof msg);
        dprintf(out, "%s", msg);
        _exit(127);
    }
    dup2(out, 1);
    dup2(out, 2);
    execvp(j->argv[0], j->argv);
    dprintf(2, "cannot run %s: %s", j->argv[0], strerror(errno));
    _exit(127);
}

int proc_run_at(const struct proc_place *at, char *const argv[], char *out, size_t outlen,
                int timeout_ms)
{
    out[0] = '\0';
    int pipefd[2];
    struct run_job job = {.at = at, .argv = argv};
    pid_t child = fork_at(at, pipefd, NULL, 0, run_child, &job, out, outlen);
    if (child < 0)
        return -1;
    size_t used = 0;
    uint64_t until = mono_ns() + (uint64_t)timeout_ms * 1000000;
    bool timed_out = false;
    for (;;) {
        uint64_t now = mono_ns();
        if (now >= until) {
            timed_out = true;
            break;
        }
        struct pollfd p = {.fd = pipefd[0], .events = POLLIN};
        int rc = poll(&p, 1, (int)((until - now) / 1000000) + 1);
        if (rc < 0 && errno == EINTR)
            continue;
        if (rc <= 0)
            continue;
        char buf[512];
        ssize_t n = read(pipefd[0], buf, sizeof buf);
        if (n <= 0)
            break;
        size_t take = (size_t)n < outlen - 1 - used ? (size_t)n : outlen - 1 - used;
        memcpy(out + used, buf, take);
        used += take;
        out[used] = '\0';
    }
    close(pipefd[0]);
    if (timed_out) {
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
        snprintf(out + used, outlen - used, "%s%s did not finish within %d ms", used ? "; " : "",
                 argv[0], timeout_ms);
        return -1;
    }
    int status;
    if (waitpid(child, &status, 0) < 0)
        return -1;
    /* trim a trailing newline for messages */
    while (used && (out[used - 1] == '\n' || out[used - 1] == ' '))
        out[--used] = '\0';
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
