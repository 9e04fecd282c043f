/* suite_try — one attempt of a suite's scenario: a whole `faultline run`
 * as a child process, started as repeat.c starts a repetition (a process
 * group of its own, so that a terminal's ^C reaches only the suite, which
 * passes each signal on once), waited for, its report.json read back and
 * judged (suite_judge.c).  See suite.h. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../lib/clock.h"
#include "../../lib/errbuf.h"
#include "../../lib/proc.h"
#include "runchild.h"
#include "suite_parts.h"

static volatile sig_atomic_t stop_asked; /* the first SIGINT or SIGTERM */
static volatile pid_t running;           /* the attempt under way */
static struct sigaction old_int, old_term;

static void on_signal(int sig)
{
    if (!stop_asked)
        stop_asked = sig;
    if (running > 0)
        kill(running, sig);
}

void suite_signals_catch(void)
{
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
}

void suite_signals_restore(void)
{
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
}

int suite_stop_asked(void)
{
    return (int)stop_asked;
}

/* Starts `faultline run FILE --out TDIR [--keep-lab] [--quiet]`; its pid.
 * --keep-lab when the suite holds the lab: the run finds it up and must
 * leave it so (a scenario that brings up its own lab takes it down).  A
 * scenario with repeat = N does its repetitions itself; with --quiet its
 * closing lines are in its report.txt only. */
static pid_t start_run(const struct suite *s, const struct suite_entry *e, const char *tdir,
                       char *err, size_t errlen)
{
    char why[512];
    struct run_child c = {.scenario = e->file, .out = tdir, .keep_lab = e->lab[0] != '\0',
                          .quiet = s->o->quiet, .no_stdout = s->o->quiet};
    pid_t pid = run_child_start(&c, why, sizeof why);
    if (pid < 0)
        snprintf(err, errlen, "cannot start %s: %s", e->name, why);
    return pid;
}

/* The attempt's report.json, read back and judged; what kept it from
 * being judged into a->error. */
static void read_report(const char *tdir, struct suite_attempt *a)
{
    char path[2 * PATH_MAX + 32], err[FL_ERRLEN];
    snprintf(path, sizeof path, "%s/report.json", tdir);
    if (access(path, F_OK) != 0) {
        snprintf(a->error, sizeof a->error, "it wrote no report.json (exit %d)", a->exit);
        return;
    }
    struct result *res = calloc(1, sizeof *res);
    if (!res) {
        snprintf(a->error, sizeof a->error, "out of memory for its report");
        return;
    }
    if (result_read(tdir, res, err, sizeof err) != 0) {
        snprintf(a->error, sizeof a->error, "its report cannot be read: %.450s", err);
    } else {
        suite_judge_attempt(res, a);
        if (a->exit == 2 && !a->error[0]) {
            char why[400];
            result_why_not_pass(res, why, sizeof why);
            snprintf(a->error, sizeof a->error, "it could not run as written (exit 2)%s%s",
                     why[0] ? ": " : "", why);
        }
    }
    result_free(res);
    free(res);
}

/* The attempt's run ended but its threads wait on the lab's mount: the
 * lab is let go (taken down: its FUSE connections aborted), and the next
 * scenario brings up another. */
static void drop_held(void *ctx)
{
    suite_lab_drop(ctx, "its run ended with I/O still waiting on the lab's mount");
}

bool suite_try(struct suite *s, const struct suite_entry *e, struct suite_attempt *a,
               char *err, size_t errlen)
{
    snprintf(a->dir, sizeof a->dir, "%s/try-%u", e->dir, a->k);
    char tdir[PATH_MAX * 2 + 2];
    snprintf(tdir, sizeof tdir, "%s/%s", s->dir, a->dir);
    uint64_t t0 = mono_ns();
    pid_t pid = start_run(s, e, tdir, err, errlen);
    if (pid < 0)
        return false;
    running = pid;
    if (stop_asked) /* a signal between fork and running = pid */
        kill(pid, (int)stop_asked);
    int status = 0;
    bool reaped = run_child_wait(pid, &status, drop_held, s) == 0;
    running = 0;
    /* The lab's servers are our children when we brought the lab up: one
     * the attempt killed is reaped here, or it would stay a zombie. */
    while (waitpid(-1, NULL, WNOHANG) > 0)
        ;
    a->wall_s = (double)(mono_ns() - t0) / 1e9;
    a->exit = !reaped ? -1 : WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    read_report(tdir, a);
    if (!reaped && !a->error[0])
        snprintf(a->error, sizeof a->error, "its run (pid %d) ended, but threads of it still "
                 "wait in the kernel on a mount that does not answer; not waited for",
                 (int)pid);
    return true;
}
