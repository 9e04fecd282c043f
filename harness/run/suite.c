/* suite — `faultline suite`: the scenarios collected and linted, then run
 * and judged one after another, with progress and the totals.  See
 * suite.h; the parts are in suite_parts.h. */
#include "suite.h"

#include <dirent.h>
#include <limits.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../lib/clock.h"
#include "../../lib/errbuf.h"
#include "../../lib/fsutil.h"
#include "../report/suite_report.h"
#include "repeat.h"
#include "rundir.h"
#include "suite_parts.h"

/* --- the scenarios --- */

static int add_file(struct suite *s, const char *path)
{
    char **more = realloc(s->files, (s->total + 1) * sizeof *more);
    char *copy = strdup(path);
    if (!more || !copy) {
        free(copy);
        if (more)
            s->files = more;
        fprintf(stderr, "faultline: suite: out of memory\n");
        return -1;
    }
    s->files = more;
    s->files[s->total++] = copy;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A folder's *.scn, sorted by name (not its subfolders'). */
static int add_folder(struct suite *s, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "faultline: suite: cannot read %s: %s\n", dir, strerror(errno));
        return -1;
    }
    unsigned first = s->total;
    int rc = 0;
    struct dirent *de;
    while (rc == 0 && (de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l <= 4 || strcmp(de->d_name + l - 4, ".scn") != 0)
            continue;
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/",
                 de->d_name);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
            rc = add_file(s, path);
    }
    closedir(d);
    if (s->total > first)
        qsort(s->files + first, s->total - first, sizeof *s->files, by_name);
    return rc;
}

/* Every PATH's scenarios, in order.  0, or -1 (said on stderr). */
static int collect(struct suite *s)
{
    for (unsigned i = 0; i < s->o->npaths; i++) {
        const char *p = s->o->paths[i];
        struct stat st;
        if (stat(p, &st) != 0) {
            fprintf(stderr, "faultline: suite: %s: %s\n", p, strerror(errno));
            return -1;
        }
        unsigned before = s->total;
        if ((S_ISDIR(st.st_mode) ? add_folder(s, p) : add_file(s, p)) != 0)
            return -1;
        if (S_ISDIR(st.st_mode) && s->total == before)
            fprintf(stderr, "faultline: suite: %s holds no *.scn\n", p);
    }
    if (!s->total) {
        fprintf(stderr, "faultline: suite: no scenario found\n");
        return -1;
    }
    return 0;
}

/* Every scenario checked before any runs (as `faultline check`, and the
 * rules a run refuses before it starts), each mistake as FILE:LINE.
 * 0, or -1 when any has one. */
static int lint_all(const struct suite *s, struct scenario *sc)
{
    unsigned bad = 0;
    char err[FL_ERRLEN];
    struct run_opts ro = {0};
    for (unsigned i = 0; i < s->total; i++) {
        ro.scenario = s->files[i];
        if (scenario_load(s->files[i], sc, err, sizeof err) != 0 ||
            repeat_count(&ro, sc, err, sizeof err) < 0) {
            fprintf(stderr, "%s\n", err);
            bad++;
        }
    }
    if (bad)
        fprintf(stderr, "faultline: suite: %u of %u scenarios have mistakes; none ran\n", bad,
                s->total);
    return bad ? -1 : 0;
}

/* --- one scenario --- */

/* Whether DIR/dir is taken: by a scenario before, or by the suite's own
 * files. */
static bool taken(const struct suite *s, const char *dir)
{
    static const char *const own[] = {"suite.json", "junit.xml", "report.txt", "report.html"};
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
        if (strcmp(dir, own[i]) == 0)
            return true;
    for (unsigned i = 0; i < s->ran; i++)
        if (strcmp(s->e[i].dir, dir) == 0)
            return true;
    return false;
}

/* What the entry keeps of the scenario, and its directory: NAME, or NAME-2
 * for the second scenario of that name. */
static void entry_of(const struct suite *s, const struct scenario *sc, const char *file,
                     struct suite_entry *e)
{
    snprintf(e->file, sizeof e->file, "%s", file);
    snprintf(e->name, sizeof e->name, "%s", sc->name);
    snprintf(e->description, sizeof e->description, "%s", sc->description);
    char base[128];
    snprintf(base, sizeof base, "%s", sc->name);
    for (char *c = base; *c; c++)
        if (*c == '/')
            *c = '_'; /* a directory of DIR, never below it */
    if (!base[0] || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
        snprintf(base, sizeof base, "scenario");
    snprintf(e->dir, sizeof e->dir, "%s", base);
    for (unsigned n = 2; taken(s, e->dir); n++)
        snprintf(e->dir, sizeof e->dir, "%s-%u", base, n);
    for (unsigned i = 0; i < sc->nfaults; i++) {
        struct suite_fault *f = &e->faults[e->nfaults++];
        snprintf(f->name, sizeof f->name, "%s", sc->faults[i].name);
        snprintf(f->action, sizeof f->action, "%s", sc->faults[i].ops->action);
        snprintf(f->host, sizeof f->host, "%s", sc->faults[i].host);
    }
    e->expect_fail = sc->expect_verdict == EXPECT_VERDICT_FAIL;
    e->nfailing = sc->nexpect_failing;
    memcpy(e->failing, sc->expect_failing, sizeof e->failing);
    e->outcome = "error";
}

/* "1m 3s" */
static void span(double s, char *out, size_t n)
{
    unsigned t = (unsigned)(s + 0.5);
    if (t >= 60)
        snprintf(out, n, "%um %us", t / 60, t % 60);
    else
        snprintf(out, n, "%us", t);
}

/* The line after scenario k of n. */
static void said_after(const struct suite *s, const struct suite_entry *e)
{
    if (s->o->quiet)
        return;
    const struct suite_attempt *last = e->ntries ? &e->tries[e->ntries - 1] : NULL;
    const char *word = strcmp(e->outcome, "not-met") == 0 ? "NOT MET" : e->outcome;
    double elapsed = (double)(mono_ns() - s->t0) / 1e9;
    char el[32], left[64] = "", tries[32] = "";
    span(elapsed, el, sizeof el);
    if (s->ran < s->total) {
        char l[32];
        span(elapsed / s->ran * (s->total - s->ran), l, sizeof l);
        snprintf(left, sizeof left, ", about %s left at this pace", l);
    }
    if (e->ntries > 1)
        snprintf(tries, sizeof tries, ", %u attempts", e->ntries);
    fprintf(stderr, "suite: [%u/%u] %s: %s (%s, exit %d%s) in %.1f s; elapsed %s%s\n", s->ran,
            s->total, e->name, word, last && last->verdict[0] ? last->verdict : "no verdict",
            last ? last->exit : -1, tries, e->wall_s, el, left);
    if (e->why[0])
        fprintf(stderr, "suite:   %s\n", e->why);
}

/* The attempts of e, until one meets its expectation, one misses more
 * than timing, or the retries are spent. */
static void attempts(struct suite *s, struct suite_entry *e)
{
    char err[FL_ERRLEN], why[1024] = "";
    unsigned most = 1 + s->o->retry_timing;
    e->tries = calloc(most, sizeof *e->tries);
    if (!e->tries) {
        snprintf(e->why, sizeof e->why, "out of memory for its attempts");
        return;
    }
    for (unsigned k = 1; k <= most && !suite_stop_asked(); k++) {
        struct suite_attempt *a = &e->tries[e->ntries];
        a->k = k;
        if (!suite_try(s, e, a, err, sizeof err)) {
            snprintf(e->why, sizeof e->why, "%.1000s", err);
            return;
        }
        e->ntries++;
        e->wall_s += a->wall_s;
        e->met = suite_judge_met(e, a, e->why, sizeof e->why);
        if (e->met || !a->timing_only || k == most || suite_stop_asked())
            break;
        snprintf(why + strlen(why), sizeof why - strlen(why), "%stry %u missed only timing (%.300s)",
                 why[0] ? "; " : "", k, e->why);
        if (!s->o->quiet)
            fprintf(stderr, "suite: %s: try %u missed only timing (%s); trying again\n",
                    e->name, k, e->why);
    }
    const struct suite_attempt *last = e->ntries ? &e->tries[e->ntries - 1] : NULL;
    if (!e->ntries && suite_stop_asked()) {
        e->outcome = "not-met";
        snprintf(e->why, sizeof e->why, "the suite was interrupted before its run started");
    } else if (e->met && e->ntries > 1) {
        e->outcome = "flaky";
        snprintf(e->why, sizeof e->why, "%s", why); /* what missed before */
    } else if (e->met) {
        e->outcome = "met";
    } else if (last && (last->exit == 2 || last->error[0] || !last->verdict[0])) {
        e->outcome = "error";
    } else if (last) {
        e->outcome = "not-met";
    }
}

/* Scenario i: loaded again, its directory and copy, its lab, its
 * attempts.  The entry is s->e[s->ran] (ran counts it once it starts). */
static void run_one(struct suite *s, unsigned i, struct scenario *sc)
{
    struct suite_entry *e = &s->e[s->ran];
    char err[FL_ERRLEN];
    memset(e, 0, sizeof *e);
    if (scenario_load(s->files[i], sc, err, sizeof err) != 0) {
        memset(sc, 0, sizeof *sc); /* changed since the lint: it cannot run */
        snprintf(sc->name, sizeof sc->name, "%s", s->files[i]);
    }
    entry_of(s, sc, s->files[i], e);
    s->ran++;
    char copy[PATH_MAX * 2 + 32], edir[PATH_MAX * 2 + 2];
    snprintf(edir, sizeof edir, "%s/%s", s->dir, e->dir);
    snprintf(copy, sizeof copy, "%s/scenario.scn", edir);
    if (!sc->backend) {
        snprintf(e->why, sizeof e->why, "it no longer loads: %.900s", err);
    } else if (mkdir_p(edir, err, sizeof err) != 0 ||
               copy_file(s->files[i], copy, err, sizeof err) != 0) {
        snprintf(e->why, sizeof e->why, "%.1000s", err);
    } else if (suite_lab_ready(s, sc, e, err, sizeof err) != 0) {
        snprintf(e->why, sizeof e->why, "%.1000s", err);
    } else {
        if (!s->o->quiet)
            fprintf(stderr, "suite: [%u/%u] %s (%s%s%s%s)\n", s->ran, s->total, e->name,
                    e->lab[0] ? "lab " : "no lab", e->lab, e->lab[0] ? ", " : "",
                    e->lab[0] ? e->lab_use : "");
        attempts(s, e);
    }
    said_after(s, e);
    if (suite_json_write(s, 0, err, sizeof err) != 0)
        fprintf(stderr, "faultline: suite: %s\n", err);
}

/* --- the suite --- */

static void totals(const struct suite *s, int signal)
{
    unsigned met = 0, flaky = 0, errors = 0;
    for (unsigned i = 0; i < s->ran; i++) {
        met += s->e[i].met;
        flaky += strcmp(s->e[i].outcome, "flaky") == 0;
        errors += strcmp(s->e[i].outcome, "error") == 0;
    }
    char el[32];
    span((double)(mono_ns() - s->t0) / 1e9, el, sizeof el);
    fprintf(stderr, "suite: %s: %u of %u scenarios ran, %u met (%u flaky), %u not met, %u "
            "errors; %u lab up%s (%.1f s), %u scenario%s on a lab already up; %s in all\n",
            suite_verdict(s, signal), s->ran, s->total, met, flaky, s->ran - met - errors,
            errors, s->lab.ups, s->lab.ups == 1 ? "" : "s", s->lab.up_s, s->lab.shared,
            s->lab.shared == 1 ? "" : "s", el);
}

/* Runs every scenario; the exit status. */
static int run_all(struct suite *s, struct scenario *sc)
{
    s->e = calloc(s->total, sizeof *s->e);
    if (!s->e) {
        fprintf(stderr, "faultline: suite: out of memory\n");
        return 2;
    }
    suite_signals_catch();
    for (unsigned i = 0; i < s->total && !suite_stop_asked(); i++)
        run_one(s, i, sc);
    int signal = suite_stop_asked();
    suite_lab_release(s, s->o->keep_lab);
    suite_signals_restore();
    char err[FL_ERRLEN];
    if (suite_json_write(s, signal, err, sizeof err) != 0) {
        fprintf(stderr, "faultline: suite: %s\n", err);
        return 1;
    }
    if (!s->o->quiet)
        totals(s, signal);
    int code = strcmp(suite_verdict(s, signal), "pass") == 0 ? 0 : 1;
    if (suite_report_write(s->dir, s->o->quiet ? NULL : stdout, err, sizeof err) != 0) {
        fprintf(stderr, "faultline: suite: the reports of %s: %s\n", s->dir, err);
        code = 1;
    }
    if (!s->o->quiet)
        fprintf(stderr, "suite: %s/suite.json, report.txt, report.html, junit.xml\n", s->dir);
    return code;
}

/* DIR: --out or runs/<time>-suite; one that holds a suite already is
 * refused, so that no report is written over another. */
static int make_dir(struct suite *s)
{
    char err[FL_ERRLEN], probe[PATH_MAX + 16];
    if (run_dir_make(s->o->out, "suite", s->dir, sizeof s->dir, err, sizeof err) != 0) {
        fprintf(stderr, "faultline: suite: %s\n", err);
        return -1;
    }
    snprintf(probe, sizeof probe, "%s/suite.json", s->dir);
    if (access(probe, F_OK) == 0) {
        fprintf(stderr, "faultline: suite: %s already holds a suite; choose another --out\n",
                s->dir);
        return -1;
    }
    return 0;
}

int cmd_suite(const struct suite_opts *o)
{
    struct suite s = {.o = o, .t0 = mono_ns()};
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(s.started_at, sizeof s.started_at, "%Y-%m-%dT%H:%M:%SZ", &tm);
    struct scenario *sc = calloc(1, sizeof *sc);
    int code = 2;
    if (!sc)
        fprintf(stderr, "faultline: suite: out of memory\n");
    else if (collect(&s) == 0 && lint_all(&s, sc) == 0 && make_dir(&s) == 0)
        code = run_all(&s, sc);
    for (unsigned i = 0; i < s.ran; i++) {
        for (unsigned k = 0; k < s.e[i].ntries; k++)
            suite_attempt_free(&s.e[i].tries[k]);
        free(s.e[i].tries);
    }
    for (unsigned i = 0; i < s.total; i++)
        free(s.files[i]);
    free(s.files);
    free(s.e);
    free(sc);
    return code;
}
