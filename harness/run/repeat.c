/* repeat — see repeat.h. */
#include "repeat.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../lib/fsutil.h"
#include "../../lib/jread.h"
#include "../../lib/proc.h"
#include "../../lib/ranks.h"
#include "../lab/lab.h"
#include "rundir.h"
#include "runchild.h"
#include "../report/summary.h"

static volatile sig_atomic_t stop_asked; /* the first signal: the exit status is 128 + it */
static volatile pid_t running; /* the repetition under way */

/* A repetition is in a process group of its own (a terminal's ^C reaches
 * only us), so that it gets each signal once: from here. */
static void on_signal(int sig)
{
    if (!stop_asked)
        stop_asked = sig;
    if (running > 0)
        kill(running, sig);
}

int repeat_count(const struct run_opts *o, const struct scenario *sc, char *err, size_t errlen)
{
    if (getenv(REPEAT_ENV))
        return 1;
    unsigned n = o->repeat ? o->repeat : (unsigned)sc->repeat;
    const char *how;
    if (n > 1 && ranks_launched(&how)) {
        snprintf(err, errlen, "%s:%s repeat = %u: not with ranks started by %s; give the "
                 "scenario [lab] clients = N, or start the launcher once per repetition",
                 sc->file, o->repeat ? "" : " [scenario]", n, how);
        return -1;
    }
    for (unsigned i = 0; n < 2 && i < sc->nexpects; i++)
        if (expect_over_repeats(&sc->expects[i])) {
            snprintf(err, errlen, "%s:%d: %s is about repetitions: give [scenario] repeat = N "
                     "(N >= 2) or --repeat N", sc->file, sc->expects[i].line,
                     sc->expects[i].text);
            return -1;
        }
    return (int)(n ? n : 1);
}

/* Starts repetition k of n into rdir; its pid. */
static pid_t start_one(const struct run_opts *o, const char *rdir, unsigned k, unsigned n,
                       char *err, size_t errlen)
{
    char tag[32], why[512];
    snprintf(tag, sizeof tag, "%u/%u", k, n);
    struct run_child c = {.scenario = o->scenario, .out = rdir,
                          .keep_lab = true, /* ours to take down, after the last one */
                          .quiet = o->quiet, .repetition = tag};
    pid_t pid = run_child_start(&c, why, sizeof why);
    if (pid < 0)
        snprintf(err, errlen, "cannot start repetition %u: %s", k, why);
    return pid;
}

/* The lab's health before repetition k (x->lab): what a repetition left
 * down (a server killed, paused, powered off) is brought back (lab.h,
 * lab_revive); a lab left broken or gone is rebuilt by the next
 * repetition, which says so. */
static void check_lab_before(const struct run_opts *o, const struct scenario *sc,
                             struct lab *lab, bool *created, unsigned k, struct rep_outcome *x)
{
    if (!lab)
        return;
    if (k == 1) {
        snprintf(x->lab, sizeof x->lab, "healthy");
        return;
    }
    if (lab_revive(sc->lab, lab->prefix, x->lab, sizeof x->lab) != LAB_BROKEN) {
        if (strcmp(x->lab, "healthy") != 0 && !o->quiet)
            fprintf(stderr, "faultline: before repetition %u: %s\n", k, x->lab);
        return;
    }
    /* Rebuilt here, not left to the repetition: a lab that runs but is not
     * whole would be taken as it is by a run that finds it up. */
    fprintf(stderr, "faultline: before repetition %u the %s lab is %s; rebuilding it\n", k,
            sc->lab->name, x->lab);
    char err[FL_ERRLEN], prefix[sizeof lab->prefix];
    bool made = false;
    snprintf(prefix, sizeof prefix, "%s", lab->prefix);
    if (lab_down(sc->lab, prefix, err, sizeof err) != 0 ||
        lab_up(sc->lab, &sc->lab_opts, lab, &made, err, sizeof err) != 0)
        fprintf(stderr, "faultline: rebuilding the %s lab: %s (the repetition tries again)\n",
                sc->lab->name, err);
    *created |= made;
}

/* Repetition k's report.json, when it wrote one, read back as its result
 * into x->report (NULL when it cannot be read: said on stderr).  Parsed
 * here rather than by result_read so that a file that is not JSON is told
 * in jv_load's words, as it always was; the record is made from the tree. */
static void read_result(const char *rdir, unsigned k, struct rep_outcome *x, char *err,
                        size_t errlen)
{
    char rep_json[PATH_MAX + 64];
    snprintf(rep_json, sizeof rep_json, "%s/report.json", rdir);
    struct jv *doc = NULL;
    if (access(rep_json, F_OK) != 0)
        return;
    if (jv_load(rep_json, &doc, err, errlen) != 0) {
        fprintf(stderr, "faultline: repetition %u: %s\n", k, err);
        return;
    }
    struct result *res = calloc(1, sizeof *res);
    if (!res) {
        fprintf(stderr, "faultline: repetition %u: out of memory for its result\n", k);
    } else if (result_from_json(doc, res, err, errlen) != 0) {
        fprintf(stderr, "faultline: repetition %u: %s: %s\n", k, rep_json, err);
        result_free(res);
        free(res);
    } else {
        x->report = res;
    }
    jv_free(doc);
}

/* The repeat's lab, as a repetition held by a hung mount needs it. */
struct held_lab {
    const struct lab_kind *kind;
    const struct lab *lab; /* NULL: none */
    bool created;          /* ours: it may be taken down */
};

/* A repetition ended with I/O still waiting on the lab's mount: a lab the
 * repeat brought up is taken down (its FUSE connections aborted, which
 * ends that wait), and the next repetition rebuilds it (check_lab_before);
 * one found up is not ours to take down. */
static void drop_held(void *ctx)
{
    const struct held_lab *h = ctx;
    char err[FL_ERRLEN];
    if (!h->lab || !h->created)
        return;
    fprintf(stderr, "faultline: the repetition ended with I/O still waiting on the %s lab's "
            "mount; taking the lab down\n", h->kind->name);
    if (lab_down(h->kind, h->lab->prefix, err, sizeof err) != 0)
        fprintf(stderr, "faultline: lab down %s: %s\n", h->kind->name, err);
}

/* Repetition k of n, in rdir: a child `faultline run`, waited for, and its
 * report.json read back.  false when it could not be started (err). */
static bool run_one(const struct run_opts *o, const char *rdir, unsigned k, unsigned n,
                    struct held_lab *held, struct rep_outcome *x, char *err, size_t errlen)
{
    pid_t pid = start_one(o, rdir, k, n, err, errlen);
    if (pid < 0)
        return false;
    running = pid;
    if (stop_asked) /* a signal between fork and running = pid */
        kill(pid, (int)stop_asked);
    int status = 0;
    bool reaped = run_child_wait(pid, &status, drop_held, held) == 0;
    running = 0;
    /* The lab's servers are our children when we brought it up: one
     * a repetition killed is reaped here, or it would stay a zombie. */
    while (waitpid(-1, NULL, WNOHANG) > 0)
        ;
    x->exit = reaped && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (!reaped)
        fprintf(stderr, "faultline: repetition %u (pid %d) ended, but threads of it still "
                "wait in the kernel on a mount that does not answer; not waited for\n", k,
                (int)pid);
    x->ran = true;
    read_result(rdir, k, x, err, errlen);
    const char *v = x->report ? x->report->verdict : NULL;
    if (!o->quiet)
        fprintf(stderr, "faultline: repetition %u of %u: %s (exit %d)\n", k, n,
                v ? v : "no report", x->exit);
    return true;
}

int cmd_repeat(const struct run_opts *o, const struct scenario *sc, unsigned n)
{
    char err[FL_ERRLEN], dir[PATH_MAX];
    if (run_dir_make(o->out, sc->name, dir, sizeof dir, err, sizeof err) != 0) {
        fprintf(stderr, "faultline: %s\n", err);
        return 2;
    }
    char copy[PATH_MAX + 32];
    snprintf(copy, sizeof copy, "%s/scenario.scn", dir);
    if (copy_file(o->scenario, copy, err, sizeof err) != 0) {
        fprintf(stderr, "faultline: %s\n", err);
        return 2;
    }
    struct rep_outcome *runs = calloc(n, sizeof *runs);
    struct lab *lab = sc->lab ? calloc(1, sizeof *lab) : NULL;
    if (!runs || (sc->lab && !lab)) {
        fprintf(stderr, "faultline: out of memory\n");
        free(runs);
        free(lab);
        return 2;
    }
    bool created = false;
    if (lab) {
        if (!o->quiet)
            fprintf(stderr, "faultline: bringing up the %s lab once for %u repetitions\n",
                    sc->lab->name, n);
        if (lab_up(sc->lab, &sc->lab_opts, lab, &created, err, sizeof err) != 0) {
            fprintf(stderr, "faultline: lab up %s: %s\n", sc->lab->name, err);
            free(runs);
            free(lab);
            return 2;
        }
        setenv("FAULTLINE_LAB_PREFIX", lab->prefix, 1); /* the repetitions find it up */
    }
    struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    unsigned ran = 0;
    for (unsigned k = 1; k <= n && !stop_asked; k++) {
        struct rep_outcome *x = &runs[k - 1];
        x->rep = k;
        snprintf(x->dir, sizeof x->dir, "rep-%u", k);
        check_lab_before(o, sc, lab, &created, k, x);
        char rdir[PATH_MAX + 32];
        snprintf(rdir, sizeof rdir, "%s/%s", dir, x->dir);
        if (!o->quiet)
            fprintf(stderr, "faultline: repetition %u of %u: %s\n", k, n, rdir);
        struct held_lab held = {.kind = sc->lab, .lab = lab, .created = created};
        if (!run_one(o, rdir, k, n, &held, x, err, sizeof err)) {
            fprintf(stderr, "faultline: %s\n", err);
            break;
        }
        ran++;
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    int code = summary_write(dir, sc, runs, n, ran, (int)stop_asked, o->quiet ? NULL : stdout, err,
                             sizeof err);
    if (code < 0) {
        fprintf(stderr, "faultline: %s\n", err);
        code = 2;
    }
    if (lab && created && !o->keep_lab) {
        if (lab_down(sc->lab, lab->prefix, err, sizeof err) != 0) {
            fprintf(stderr, "faultline: lab down %s: %s (run `faultline lab down %s`)\n",
                    sc->lab->name, err, sc->lab->name);
            if (code == 0)
                code = 2;
        }
    } else if (lab && !o->quiet) {
        fprintf(stderr, "faultline: the %s lab (prefix %s) stays up; `faultline lab down %s` "
                "removes it\n", sc->lab->name, lab->prefix, sc->lab->name);
    }
    for (unsigned k = 0; k < n; k++)
        if (runs[k].report) {
            result_free(runs[k].report);
            free(runs[k].report);
        }
    free(runs);
    free(lab);
    return code;
}
