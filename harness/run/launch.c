/* launch — see launch.h. */
#include "launch.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../lib/clock.h"
#include "../../lib/errbuf.h"
#include "../../lib/proc.h"
#include "../../lib/spawner.h"
#include "../lab/lab.h"
#include "rundir.h"

#define SEC 1000000000ull
#define STATUS_FILE "exit-status"

static volatile sig_atomic_t stop_asked, stop_signal;

static void on_signal(int sig)
{
    if (!stop_asked)
        stop_signal = sig; /* passed on as it came: the ranks exit 128 + it */
    stop_asked++;
}

bool launch_needed(const struct scenario *sc)
{
    return sc->lab && sc->lab_opts.clients > 1;
}

void launch_save_status(const char *dir, int code)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", dir, STATUS_FILE);
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fprintf(f, "%d\n", code);
    fclose(f);
}

static int read_status(const char *dir)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", dir, STATUS_FILE);
    FILE *f = fopen(path, "r");
    int code = -1;
    if (f) {
        if (fscanf(f, "%d", &code) != 1)
            code = -1;
        fclose(f);
    }
    return code;
}

struct stopping {
    int sig;
    unsigned found;
};

static int stop_rank(void *ctx, const struct proc_seen *p)
{
    struct stopping *s = ctx;
    char err[256];
    if (strcmp(p->comm, "faultline") == 0 && proc_kill(p->pid, p->start, s->sig, err,
                                                      sizeof err) == 0)
        s->found++;
    return 0;
}

/* Every rank (a faultline process in a client host) gets sig. */
static unsigned signal_ranks(const struct lab *lab, int sig)
{
    struct stopping s = {.sig = sig};
    for (unsigned k = 0; k < lab->nclients; k++)
        proc_each_in_netns(lab->clients[k].netns, stop_rank, &s);
    return s.found;
}

static void mpirun_main(void *ctx)
{
    char **argv = ctx;
    proc_child_signals();
    signal(SIGINT, SIG_IGN); /* ours to pass on, to the ranks */
    signal(SIGTERM, SIG_DFL);
    execvp(argv[0], argv);
    fprintf(stderr, "faultline: cannot run %s: %s (Open MPI; Debian: openmpi-bin, or make "
            "deps)\n", argv[0], strerror(errno));
    _exit(127);
}

/* mpirun, with our stdout and stderr; its PID. */
static pid_t start(char **argv, char *err, size_t errlen)
{
    pid_t pid = spawner_fork(NULL, 0, -1, mpirun_main, argv);
    if (pid < 0)
        snprintf(err, errlen, "cannot start mpirun: %s", strerror(errno));
    return pid;
}

/* Waits for mpirun until `deadline` (mono_ns), passing our signals on to
 * the ranks; past the deadline it is stopped, by its PID.  Once rank 0 has
 * left its exit status in `dir` the run is over: mpirun then gets
 * TAIL_NS more to end (every rank has been told, or given up on), so that
 * one that never ends cannot hold the lab for the whole budget.  Its wait
 * status, or -1 when it had to be killed. */
#define TAIL_NS (60 * SEC)
static int wait_for(pid_t pid, const struct lab *lab, const char *dir, uint64_t deadline)
{
    int seen = 0;
    bool ended = false;
    for (;;) {
        int status;
        pid_t got = waitpid(pid, &status, WNOHANG);
        if (got == pid)
            return status;
        if (got < 0 && errno != EINTR)
            return -1;
        if (stop_asked > seen) {
            seen = stop_asked;
            unsigned n = signal_ranks(lab, stop_signal ? (int)stop_signal : SIGTERM);
            fprintf(stderr, "faultline: passed the signal on to %u rank%s\n", n,
                    n == 1 ? "" : "s");
        }
        if (!ended && read_status(dir) >= 0) {
            ended = true;
            if (deadline > mono_ns() + TAIL_NS)
                deadline = mono_ns() + TAIL_NS;
        }
        if (mono_ns() > deadline) {
            if (ended)
                fprintf(stderr, "faultline: mpirun did not end within %llu s of rank 0's exit "
                        "status; stopping it (pid %d)\n", TAIL_NS / SEC, (int)pid);
            else
                fprintf(stderr, "faultline: mpirun did not end in time; stopping it (pid %d)\n",
                        (int)pid);
            kill(pid, SIGTERM);
            for (int i = 0; i < 50 && waitpid(pid, &status, WNOHANG) == 0; i++) {
                struct timespec ts = {0, 100000000};
                nanosleep(&ts, NULL);
            }
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            signal_ranks(lab, SIGKILL);
            return -1;
        }
        struct timespec ts = {0, 50000000};
        nanosleep(&ts, NULL);
    }
}

/* The scenario and the run directory as absolute paths (the ranks start
 * in other sessions). */
static int absolute(const char *path, char *out, size_t n, char *err, size_t errlen)
{
    if (path[0] == '/') {
        snprintf(out, n, "%s", path);
        return 0;
    }
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) {
        snprintf(err, errlen, "cannot tell the working directory: %s", strerror(errno));
        return -1;
    }
    if ((size_t)snprintf(out, n, "%s/%s", cwd, path) >= n) {
        snprintf(err, errlen, "%s/%s: path too long", cwd, path);
        return -1;
    }
    return 0;
}

/* mpirun's words: the lab's part, then this binary's run of the scenario. */
static char **command(const struct lab *lab, const struct run_opts *o, unsigned ranks,
                      const char *scn, const char *dir, char *err, size_t errlen)
{
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) {
        snprintf(err, errlen, "cannot tell where this faultline is: %s", strerror(errno));
        return NULL;
    }
    self[len] = '\0';
    char *argv[] = {self, "run", (char *)scn, "--out", (char *)dir, NULL, NULL};
    if (o->quiet)
        argv[5] = "--quiet";
    char **cmd;
    return lab_mpirun(lab, ranks, argv, &cmd, err, errlen) == 0 ? cmd : NULL;
}

int launch_run(const struct run_opts *o, struct scenario *sc)
{
    char err[FL_ERRLEN], scn[PATH_MAX], dir[PATH_MAX], abs_dir[PATH_MAX];
    unsigned ranks = (unsigned)sc->lab_opts.clients;
    const struct lab_kind *k = sc->lab;
    if (absolute(o->scenario, scn, sizeof scn, err, sizeof err) != 0 ||
        run_dir_make(o->out, sc->name, dir, sizeof dir, err, sizeof err) != 0 ||
        absolute(dir, abs_dir, sizeof abs_dir, err, sizeof err) != 0) {
        fprintf(stderr, "faultline: %s\n", err);
        return 2;
    }
    char status_path[PATH_MAX + 32]; /* only rank 0 of this run may leave one */
    snprintf(status_path, sizeof status_path, "%s/%s", abs_dir, STATUS_FILE);
    unlink(status_path);
    if (!o->quiet)
        fprintf(stderr, "faultline: bringing up the %s lab with %u client hosts\n", k->name,
                ranks);
    struct lab *lab = calloc(1, sizeof *lab);
    bool created = false;
    if (!lab || lab_up(k, &sc->lab_opts, lab, &created, err, sizeof err) != 0) {
        fprintf(stderr, "faultline: lab up %s: %s\n", k->name, lab ? err : "out of memory");
        free(lab);
        return 2;
    }
    int code = 2;
    char **cmd = command(lab, o, ranks, scn, abs_dir, err, sizeof err);
    if (!cmd) {
        fprintf(stderr, "faultline: %s\n", err);
    } else {
        if (!o->quiet)
            fprintf(stderr, "faultline: one rank in each of c1..c%u through mpirun over the "
                    "lab's ssh; run directory %s\n", ranks, abs_dir);
        struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, &old_int);
        sigaction(SIGTERM, &sa, &old_term);
        pid_t pid = start(cmd, err, sizeof err);
        if (pid < 0) {
            fprintf(stderr, "faultline: %s\n", err);
        } else {
            /* The run's own bounds, with room for preparing, the sweep and
             * gathering: a hung mpirun is stopped, the lab still goes. */
            uint64_t budget = sc->duration_ns + 4 * sc->grace_ns + sc->heal_wait_ns + 600 * SEC;
            int status = wait_for(pid, lab, abs_dir, mono_ns() + budget);
            code = read_status(abs_dir);
            if (code < 0) {
                fprintf(stderr, "faultline: rank 0 left no exit status in %s (mpirun %s %d)\n",
                        abs_dir, status >= 0 && WIFEXITED(status) ? "exited" : "ended by signal",
                        status < 0 ? -1
                        : WIFEXITED(status) ? WEXITSTATUS(status)
                                            : WIFSIGNALED(status) ? WTERMSIG(status) : -1);
                code = 2;
            }
        }
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
        for (size_t i = 0; cmd[i]; i++)
            free(cmd[i]);
        free(cmd);
    }
    if (created && !o->keep_lab) {
        if (lab_down(k, lab->prefix, err, sizeof err) != 0) {
            fprintf(stderr, "faultline: lab down %s: %s (run `faultline lab down %s`)\n",
                    k->name, err, k->name);
            if (code == 0)
                code = 2;
        }
    } else if (!o->quiet) {
        fprintf(stderr, "faultline: the %s lab (prefix %s) stays up; `faultline lab down %s` "
                "removes it\n", k->name, lab->prefix, k->name);
    }
    free(lab);
    return code;
}
