/* spawner — see spawner.h. */
#include "spawner.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

#define KEEP_MAX 16 /* descriptors a child may be given, 0, 1 and 2 included */

struct request {
    int keep[KEEP_MAX];
    bool cloexec[KEEP_MAX];
    unsigned nkeep;
    int pidns;
    sigset_t mask; /* the caller's signal mask, the child's as after fork() */
    void (*child)(void *ctx);
    void *ctx;
    pid_t pid; /* the answer: the child, or -1 with err */
    int err;
    bool done;
};

static struct {
    pthread_mutex_t mu;   /* guards req and its done */
    pthread_cond_t cv;
    pthread_mutex_t call; /* one request at a time */
    struct request *req;
    pid_t owner; /* the process the thread lives in (0: none) */
} sp = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, NULL, 0};

int spawner_pidns_enter(int pidns)
{
    int back = open("/proc/thread-self/ns/pid_for_children", O_RDONLY | O_CLOEXEC);
    if (back < 0)
        return -1;
    if (setns(pidns, CLONE_NEWPID) != 0) {
        int e = errno;
        close(back);
        errno = e;
        return -1;
    }
    return back;
}

void spawner_pidns_leave(int back)
{
    /* our own namespace: always allowed (the one this thread lives in) */
    if (setns(back, CLONE_NEWPID) != 0) {
        dprintf(2, "faultline: cannot make children in our own PID namespace again: %s\n",
                strerror(errno));
        abort();
    }
    close(back);
}

/* fork(), child(ctx) in the child (with signal mask `mask`, when given), in
 * pidns when >= 0: the PID or -1 with errno. */
static pid_t fork_here(int pidns, const sigset_t *mask, void (*child)(void *ctx), void *ctx)
{
    int back = pidns >= 0 ? spawner_pidns_enter(pidns) : -1;
    if (pidns >= 0 && back < 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        if (back >= 0)
            close(back); /* the child lives in that namespace now */
        if (mask)
            pthread_sigmask(SIG_SETMASK, mask, NULL);
        child(ctx);
        _exit(127);
    }
    int e = errno;
    if (back >= 0)
        spawner_pidns_leave(back);
    errno = e;
    return pid;
}

/* In the spawner thread: the request's descriptors copied in from the
 * process's table at their own numbers.  0, or an errno (all closed). */
static int copy_in(const struct request *r)
{
    int top = 2;
    for (unsigned i = 0; i < r->nkeep; i++)
        top = r->keep[i] > top ? r->keep[i] : top;
    int pfd = (int)syscall(SYS_pidfd_open, sp.owner, 0);
    if (pfd < 0)
        return errno;
    /* above every number to fill, so that none lands on it */
    int table = fcntl(pfd, F_DUPFD_CLOEXEC, top + 1);
    int e = table < 0 ? errno : 0;
    close(pfd);
    for (unsigned i = 0; !e && i < r->nkeep; i++) {
        int got = (int)syscall(SYS_pidfd_getfd, table, r->keep[i], 0);
        if (got < 0) {
            e = errno;
            break;
        }
        if (got != r->keep[i]) {
            if (dup3(got, r->keep[i], r->cloexec[i] ? O_CLOEXEC : 0) < 0)
                e = errno;
            close(got);
        } else if (!r->cloexec[i] && fcntl(got, F_SETFD, 0) != 0) {
            e = errno;
        }
    }
    if (table >= 0)
        close(table);
    if (e)
        close_range(0, ~0u, 0); /* none of it is a target's file: no FLUSH to wait for */
    return e;
}

static void serve(struct request *r)
{
    int e = copy_in(r);
    if (e) {
        r->pid = -1;
        r->err = e;
        return;
    }
    r->pid = fork_here(r->pidns, &r->mask, r->child, r->ctx);
    r->err = r->pid < 0 ? errno : 0;
    close_range(0, ~0u, 0); /* the child has its copies: the table is empty again */
}

static void *spawner_thread(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&sp.mu);
    for (;;) {
        while (!sp.req || sp.req->done)
            pthread_cond_wait(&sp.cv, &sp.mu);
        struct request *r = sp.req;
        pthread_mutex_unlock(&sp.mu);
        serve(r);
        pthread_mutex_lock(&sp.mu);
        r->done = true;
        pthread_cond_broadcast(&sp.cv);
    }
    return NULL;
}

/* The thread's first steps, before it serves: a table of its own, empty. */
struct start {
    int err;
    bool ready;
};

static void *spawner_begin(void *arg)
{
    struct start *s = arg;
    int e = 0;
    /* pidfd_getfd on our own process: a kernel without it (before 5.6) or
     * a seccomp filter that refuses it leaves children forked as before */
    int pfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
    int probe = pfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pfd, 2, 0);
    if (pfd < 0 || probe < 0)
        e = errno;
    if (probe >= 0)
        close(probe);
    if (pfd >= 0)
        close(pfd);
    if (!e && unshare(CLONE_FILES) != 0)
        e = errno;
    if (!e)
        close_range(0, ~0u, 0); /* copies of what main had open: none of a target's yet */
    pthread_mutex_lock(&sp.mu);
    s->err = e;
    s->ready = true;
    pthread_cond_broadcast(&sp.cv);
    pthread_mutex_unlock(&sp.mu);
    return e ? NULL : spawner_thread(NULL);
}

int spawner_start(char *err, size_t errlen)
{
    if (sp.owner == getpid())
        return 0;
    /* every signal is for the other threads */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    struct start s = {0};
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&t, &attr, spawner_begin, &s);
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        snprintf(err, errlen, "cannot start the thread that forks children: %s", strerror(rc));
        return -1;
    }
    pthread_mutex_lock(&sp.mu);
    while (!s.ready)
        pthread_cond_wait(&sp.cv, &sp.mu);
    pthread_mutex_unlock(&sp.mu);
    if (s.err) {
        snprintf(err, errlen, "children inherit every descriptor (pidfd_getfd or "
                 "unshare(CLONE_FILES): %s), so a target that stops answering may hold "
                 "them", strerror(s.err));
        return -1;
    }
    sp.owner = getpid();
    return 0;
}

pid_t spawner_fork(const int *keep, unsigned nkeep, int pidns, void (*child)(void *ctx),
                   void *ctx)
{
    if (sp.owner != getpid())
        return fork_here(pidns, NULL, child, ctx);
    struct request r = {.pidns = pidns, .child = child, .ctx = ctx};
    pthread_sigmask(SIG_SETMASK, NULL, &r.mask);
    for (int fd = 0; fd < 3; fd++) { /* the ones of 0, 1, 2 that are open */
        int flags = fcntl(fd, F_GETFD);
        if (flags >= 0) {
            r.cloexec[r.nkeep] = flags & FD_CLOEXEC;
            r.keep[r.nkeep++] = fd;
        }
    }
    for (unsigned i = 0; i < nkeep; i++) {
        bool twice = keep[i] < 3;
        for (unsigned k = 0; k < r.nkeep; k++)
            twice = twice || r.keep[k] == keep[i];
        if (twice)
            continue;
        int flags = keep[i] < 0 ? -1 : fcntl(keep[i], F_GETFD);
        if (flags < 0 || r.nkeep == KEEP_MAX) {
            errno = flags < 0 ? EBADF : EMFILE;
            return -1;
        }
        r.cloexec[r.nkeep] = flags & FD_CLOEXEC;
        r.keep[r.nkeep++] = keep[i];
    }
    pthread_mutex_lock(&sp.call);
    pthread_mutex_lock(&sp.mu);
    sp.req = &r;
    pthread_cond_broadcast(&sp.cv);
    while (!r.done)
        pthread_cond_wait(&sp.cv, &sp.mu);
    sp.req = NULL;
    pthread_mutex_unlock(&sp.mu);
    pthread_mutex_unlock(&sp.call);
    errno = r.err;
    return r.pid;
}
