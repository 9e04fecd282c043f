/* shrink — a failed run made smaller while it fails the same way (see
 * shrink.h). */
#include "shrink.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../faults/table.h"
#include "../../lib/clock.h"
#include "../../lib/errbuf.h"
#include "../../lib/fsutil.h"
#include "../../lib/ini.h"
#include "../../lib/units.h"
#include "../report/result.h"
#include "runchild.h"

#define MAX_LINES 20000
#define MAX_NAMES 64 /* failing rules or finding classes kept */
#define TAIL_NS 20000000000ull /* the workload kept past the last fault's end */

/* A fault section of the scenario text. */
struct sfault {
    char name[64];
    int first, last;       /* its lines [first, last) */
    int hold_line;         /* the line of its hold key (-1 none) */
    const char *hold_key;  /* its action's (NULL: it takes none) */
    uint64_t at_ns, hold_ns;
};

/* The scenario as lines, and what a candidate changes of it. */
struct text {
    char **line;
    int n;
    int scenario_line, duration_line; /* [scenario] header, its duration (-1 none) */
    uint64_t duration_ns;
    struct sfault f[256];
    unsigned nf;
};

struct cand {
    bool drop[256];
    uint64_t hold[256]; /* 0: as written */
    uint64_t duration;  /* 0: as written */
};

/* How a run failed: its failing rules and its finding classes. */
struct failure {
    bool failed;
    char verdict[32];
    char rules[MAX_NAMES][64];
    unsigned nrules;
    char classes[MAX_NAMES][32];
    unsigned nclasses;
};

struct shrink {
    const struct shrink_opts *o;
    char out[PATH_MAX];
    FILE *log;
    uint64_t t0, longest;
    struct text t;
    struct failure target;
    struct cand best;
    unsigned ncand, kept;
};

static volatile sig_atomic_t stop_asked, running;

static void on_signal(int sig)
{
    if (!stop_asked)
        stop_asked = sig;
    if (running)
        kill((pid_t)running, sig);
}

static void say(struct shrink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct shrink *s, const char *fmt, ...)
{
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    uint64_t el = (mono_ns() - s->t0) / 1000000000ull;
    fprintf(stderr, "faultline: shrink [%3llum%02llus] %s\n", (unsigned long long)(el / 60),
            (unsigned long long)(el % 60), line);
    if (s->log) {
        fprintf(s->log, "[%3llum%02llus] %s\n", (unsigned long long)(el / 60),
                (unsigned long long)(el % 60), line);
        fflush(s->log);
    }
}

/* "key = value  # comment" -> key and value (trimmed); false for anything else. */
static bool key_value(const char *line, char *key, size_t kn, char *value, size_t vn)
{
    const char *eq = strchr(line, '=');
    if (!eq)
        return false;
    const char *a = line;
    while (isspace((unsigned char)*a))
        a++;
    if (*a == '#' || *a == ';' || *a == '[')
        return false;
    size_t kl = (size_t)(eq - a);
    while (kl && isspace((unsigned char)a[kl - 1]))
        kl--;
    snprintf(key, kn, "%.*s", (int)kl, a);
    const char *v = eq + 1;
    while (isspace((unsigned char)*v))
        v++;
    size_t vl = strlen(v);
    for (size_t i = 0; i < vl; i++)
        if ((v[i] == '#' || v[i] == ';') && i && isspace((unsigned char)v[i - 1])) {
            vl = i;
            break;
        }
    while (vl && isspace((unsigned char)v[vl - 1]))
        vl--;
    snprintf(value, vn, "%.*s", (int)vl, v);
    return true;
}

static bool header(const char *line, char *type, size_t tn, char *name, size_t nn)
{
    while (isspace((unsigned char)*line))
        line++;
    if (*line != '[')
        return false;
    const char *end = strchr(line, ']');
    if (!end)
        return false;
    char in[160];
    snprintf(in, sizeof in, "%.*s", (int)(end - line - 1), line + 1);
    char *sp = strchr(in, ' ');
    name[0] = '\0';
    if (sp) {
        *sp = '\0';
        snprintf(name, nn, "%s", sp + 1 + strspn(sp + 1, " "));
    }
    snprintf(type, tn, "%.31s", in);
    return true;
}

/* Reads the scenario into lines and finds its faults.  0, or -1 with err. */
static int text_read(struct text *t, const char *path, char *err, size_t errlen)
{
    char *all = ini_read_file(path, err, errlen);
    if (!all)
        return -1;
    memset(t, 0, sizeof *t);
    t->line = calloc(MAX_LINES, sizeof *t->line);
    t->scenario_line = t->duration_line = -1;
    t->duration_ns = 10000000000ull; /* [scenario] duration's default */
    int rc = t->line ? 0 : -1;
    char type[32] = "", name[64] = "";
    struct sfault *cur = NULL;
    for (char *p = all, *nl; rc == 0 && p && *p; p = nl ? nl + 1 : NULL) {
        nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        if (t->n == MAX_LINES || !(t->line[t->n] = strdup(p))) {
            snprintf(err, errlen, "%s: more than %d lines", path, MAX_LINES);
            rc = -1;
            break;
        }
        int i = t->n++;
        char key[64], value[256];
        if (header(p, type, sizeof type, name, sizeof name)) {
            if (cur)
                cur->last = i;
            cur = NULL;
            if (strcmp(type, "scenario") == 0)
                t->scenario_line = i;
            if (strcmp(type, "fault") == 0 && t->nf < 256) {
                cur = &t->f[t->nf++];
                memset(cur, 0, sizeof *cur);
                snprintf(cur->name, sizeof cur->name, "%s", name);
                cur->first = i;
                cur->hold_line = -1;
            }
        } else if (key_value(p, key, sizeof key, value, sizeof value)) {
            if (strcmp(type, "scenario") == 0 && strcmp(key, "duration") == 0) {
                t->duration_line = i;
                char why[200];
                if (parse_duration(value, &t->duration_ns, why, sizeof why) != 0) {
                    snprintf(err, errlen, "%s:%d: duration: %s", path, i + 1, why);
                    rc = -1;
                }
            } else if (cur && strcmp(key, "action") == 0) {
                const struct fault_ops *ops = fault_ops_find(value);
                cur->hold_key = ops ? ops->hold_key : NULL;
            } else if (cur && strcmp(key, "at") == 0) {
                char why[200];
                parse_duration(value, &cur->at_ns, why, sizeof why);
            }
        }
    }
    if (cur)
        cur->last = t->n;
    /* each fault's hold, now that its action is known */
    for (unsigned k = 0; rc == 0 && k < t->nf; k++) {
        struct sfault *f = &t->f[k];
        for (int i = f->first + 1; f->hold_key && i < f->last; i++) {
            char key[64], value[256], why[200];
            if (key_value(t->line[i], key, sizeof key, value, sizeof value) &&
                strcmp(key, f->hold_key) == 0 &&
                parse_duration(value, &f->hold_ns, why, sizeof why) == 0)
                f->hold_line = i;
        }
    }
    free(all);
    return rc;
}

static void text_free(struct text *t)
{
    for (int i = 0; t->line && i < t->n; i++)
        free(t->line[i]);
    free(t->line);
}

static unsigned live_faults(const struct text *t, const struct cand *c)
{
    unsigned n = 0;
    for (unsigned k = 0; k < t->nf; k++)
        n += !c->drop[k];
    return n;
}

static uint64_t duration_of(const struct text *t, const struct cand *c)
{
    return c->duration ? c->duration : t->duration_ns;
}

/* The candidate's text into path.  0, or -1 with err. */
static int cand_write(const struct shrink *s, const struct cand *c, const char *path,
                      const char *note, char *err, size_t errlen)
{
    const struct text *t = &s->t;
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    fprintf(f, "# %s\n", note);
    for (int i = 0; i < t->n; i++) {
        int dropped = -1, held = -1;
        for (unsigned k = 0; k < t->nf; k++) {
            if (i >= t->f[k].first && i < t->f[k].last && c->drop[k])
                dropped = (int)k;
            if (i == t->f[k].hold_line && c->hold[k])
                held = (int)k;
        }
        if (dropped >= 0)
            continue;
        char v[32];
        if (held >= 0) {
            format_duration(c->hold[held], v, sizeof v);
            fprintf(f, "%s = %s    # shrunk\n", t->f[held].hold_key, v);
        } else if (i == t->duration_line && c->duration) {
            format_duration(c->duration, v, sizeof v);
            fprintf(f, "duration = %s    # shrunk\n", v);
        } else {
            fprintf(f, "%s\n", t->line[i]);
        }
        if (i == t->scenario_line && t->duration_line < 0 && c->duration) {
            format_duration(c->duration, v, sizeof v);
            fprintf(f, "duration = %s    # shrunk\n", v);
        }
    }
    if (fclose(f) != 0) {
        snprintf(err, errlen, "cannot write %s", path);
        return -1;
    }
    return 0;
}

/* How the run in dir failed (failed false: it did not, or wrote no report). */
static void failure_of(const char *dir, struct failure *x)
{
    memset(x, 0, sizeof *x);
    struct result *res = calloc(1, sizeof *res);
    char err[FL_ERRLEN];
    if (!res || result_read(dir, res, err, sizeof err) != 0) {
        snprintf(x->verdict, sizeof x->verdict, "no report");
        free(res);
        return;
    }
    snprintf(x->verdict, sizeof x->verdict, "%s", res->verdict ? res->verdict : "none");
    x->failed = res->verdict && strcmp(res->verdict, "fail") == 0;
    for (size_t i = 0; i < res->nexpect; i++) {
        const struct result_expect *e = &res->expect[i];
        if (e->pass || !e->metric)
            continue;
        bool seen = false;
        for (unsigned k = 0; k < x->nrules; k++)
            seen |= strcmp(x->rules[k], e->metric) == 0;
        if (!seen && x->nrules < MAX_NAMES)
            snprintf(x->rules[x->nrules++], sizeof x->rules[0], "%s", e->metric);
    }
    for (int c = 0; c < RESULT_CLASSES; c++)
        if (res->class_is_finding[c] && res->counts[c] && res->class_name[c] &&
            x->nclasses < MAX_NAMES)
            snprintf(x->classes[x->nclasses++], sizeof x->classes[0], "%s", res->class_name[c]);
    result_free(res);
    free(res);
}

static bool has(const char (*names)[64], unsigned n, const char *name)
{
    for (unsigned k = 0; k < n; k++)
        if (strcmp(names[k], name) == 0)
            return true;
    return false;
}

/* Whether x failed as the target did (shrink.h: "the same way"). */
static bool same_way(const struct failure *target, const struct failure *x)
{
    if (!x->failed || !x->nrules)
        return false;
    for (unsigned k = 0; k < x->nrules; k++)
        if (!has(target->rules, target->nrules, x->rules[k]))
            return false;
    if (!target->nclasses)
        return true;
    for (unsigned k = 0; k < x->nclasses; k++)
        for (unsigned j = 0; j < target->nclasses; j++)
            if (strcmp(x->classes[k], target->classes[j]) == 0)
                return true;
    return false;
}

static void failure_text(const struct failure *x, char *out, size_t n)
{
    size_t used = (size_t)snprintf(out, n, "%s", x->verdict);
    for (unsigned k = 0; k < x->nrules && used < n; k++)
        used += (size_t)snprintf(out + used, n - used, "%s%s", k ? ", " : " on ", x->rules[k]);
    for (unsigned k = 0; k < x->nclasses && used < n; k++)
        used += (size_t)snprintf(out + used, n - used, "%s%s", k ? " " : " [", x->classes[k]);
    if (x->nclasses && used < n)
        snprintf(out + used, n - used, "]");
}

static void noop_held(void *ctx)
{
    (void)ctx; /* each run brings its own lab up and down: nothing of ours holds it */
}

/* Whether a next try would still end within the budget. */
static bool budget_left(const struct shrink *s)
{
    uint64_t est = s->longest ? s->longest : duration_of(&s->t, &s->best) + 120000000000ull;
    return mono_ns() - s->t0 + est <= s->o->budget_ns;
}

/* Runs the candidate up to `tries` times; true when a try failed the same
 * way (*stopped: the budget or a signal ended it first). */
static bool try_cand(struct shrink *s, const struct cand *c, const char *what, bool *stopped)
{
    char path[PATH_MAX + 32], err[FL_ERRLEN], note[512];
    unsigned k = ++s->ncand;
    snprintf(path, sizeof path, "%s/cand-%03u.scn", s->out, k);
    char dur[32];
    format_duration(duration_of(&s->t, c), dur, sizeof dur);
    snprintf(note, sizeof note, "faultline shrink of %s, candidate %u: %s (%u of its faults, "
             "duration %s)", s->o->dir, k, what, live_faults(&s->t, c), dur);
    if (cand_write(s, c, path, note, err, sizeof err) != 0) {
        say(s, "%s", err);
        *stopped = true;
        return false;
    }
    unsigned live = live_faults(&s->t, c);
    say(s, "cand %u: %s (%u fault%s, duration %s)", k, what, live, live == 1 ? "" : "s", dur);
    for (unsigned i = 1; i <= s->o->tries; i++) {
        if (stop_asked || !budget_left(s)) {
            say(s, "cand %u: %s before try %u", k, stop_asked ? "stopped by a signal" :
                "the budget would be over", i);
            *stopped = true;
            return false;
        }
        char tdir[PATH_MAX + 48];
        snprintf(tdir, sizeof tdir, "%s/cand-%03u/try-%u", s->out, k, i);
        struct run_child rc = {.scenario = path, .out = tdir, .quiet = true, .no_stdout = true};
        uint64_t t0 = mono_ns();
        pid_t pid = run_child_start(&rc, err, sizeof err);
        if (pid < 0) {
            say(s, "cand %u: cannot start its run: %s", k, err);
            *stopped = true;
            return false;
        }
        running = pid;
        if (stop_asked)
            kill(pid, (int)stop_asked);
        int status = 0;
        run_child_wait(pid, &status, noop_held, NULL);
        running = 0;
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
        uint64_t took = mono_ns() - t0;
        if (took > s->longest)
            s->longest = took;
        struct failure x;
        failure_of(tdir, &x);
        char said[600];
        failure_text(&x, said, sizeof said);
        bool same = same_way(&s->target, &x);
        say(s, "cand %u try %u: %s (%.0f s)%s", k, i, said, (double)took / 1e9,
            same ? ": fails the same way, kept" : x.failed ? ": fails otherwise" : "");
        if (same)
            return true;
        if (stop_asked) {
            *stopped = true;
            return false;
        }
    }
    return false;
}

static int keep(struct shrink *s, const struct cand *c)
{
    s->best = *c;
    s->kept++;
    char path[PATH_MAX + 32], err[FL_ERRLEN], note[512], dur[32];
    format_duration(duration_of(&s->t, c), dur, sizeof dur);
    snprintf(path, sizeof path, "%s/minimal.scn", s->out);
    snprintf(note, sizeof note, "the smallest scenario `faultline shrink %s` found failing as "
             "that run did: %u of its %u faults, duration %s (candidate %u)", s->o->dir,
             live_faults(&s->t, c), s->t.nf, dur, s->ncand);
    if (cand_write(s, c, path, note, err, sizeof err) != 0) {
        say(s, "%s", err);
        return -1;
    }
    return 0;
}

/* The candidate's workload cut to TAIL_NS past its last fault's end
 * (whole seconds), when that is shorter. */
static void cut_duration(const struct text *t, struct cand *c)
{
    uint64_t end = 0;
    for (unsigned k = 0; k < t->nf; k++) {
        if (c->drop[k])
            continue;
        uint64_t hold = c->hold[k] ? c->hold[k] : t->f[k].hold_ns;
        if (t->f[k].at_ns + hold > end)
            end = t->f[k].at_ns + hold;
    }
    uint64_t want = (end + TAIL_NS + 999999999ull) / 1000000000ull * 1000000000ull;
    if (want < duration_of(t, c))
        c->duration = want;
}

/* 1. Faults dropped: halves first, then smaller chunks, down to one. */
static bool drop_faults(struct shrink *s)
{
    unsigned chunk = (live_faults(&s->t, &s->best) + 1) / 2;
    bool stopped = false;
    while (chunk >= 1 && live_faults(&s->t, &s->best) && !stopped) {
        unsigned live[256], n = 0;
        for (unsigned k = 0; k < s->t.nf; k++)
            if (!s->best.drop[k])
                live[n++] = k;
        bool took = false;
        for (unsigned from = 0; from < n && !took && !stopped; from += chunk) {
            struct cand c = s->best;
            char what[400] = "drop";
            size_t used = strlen(what);
            for (unsigned j = from; j < from + chunk && j < n; j++) {
                c.drop[live[j]] = true;
                if (used < sizeof what)
                    used += (size_t)snprintf(what + used, sizeof what - used, " %s",
                                             s->t.f[live[j]].name);
            }
            cut_duration(&s->t, &c); /* the time they took goes with them */
            if (try_cand(s, &c, what, &stopped)) {
                if (keep(s, &c) != 0)
                    return false;
                took = true;
            }
        }
        if (took) {
            unsigned left = live_faults(&s->t, &s->best);
            if (chunk > (left + 1) / 2)
                chunk = (left + 1) / 2;
        } else {
            chunk = chunk == 1 ? 0 : (chunk + 1) / 2 == chunk ? chunk - 1 : (chunk + 1) / 2;
        }
    }
    return !stopped;
}

/* 2. Each fault's hold halved while it still fails (not under 1 s). */
static bool shorten_holds(struct shrink *s)
{
    bool stopped = false;
    for (unsigned k = 0; k < s->t.nf && !stopped; k++) {
        const struct sfault *f = &s->t.f[k];
        if (s->best.drop[k] || f->hold_line < 0)
            continue;
        for (;;) {
            uint64_t now = s->best.hold[k] ? s->best.hold[k] : f->hold_ns;
            uint64_t half = now / 2 / 1000000ull * 1000000ull;
            if (half < 1000000000ull)
                break;
            struct cand c = s->best;
            c.hold[k] = half;
            char what[200], v[32];
            format_duration(half, v, sizeof v);
            snprintf(what, sizeof what, "%s %s = %s", f->name, f->hold_key, v);
            if (!try_cand(s, &c, what, &stopped) || keep(s, &c) != 0)
                break;
        }
    }
    return !stopped;
}

/* 3. The workload cut to TAIL_NS past the last fault's end. */
static void shorten_duration(struct shrink *s)
{
    struct cand c = s->best;
    cut_duration(&s->t, &c);
    if (c.duration == s->best.duration)
        return;
    uint64_t want = c.duration;
    char what[96], v[32];
    format_duration(want, v, sizeof v);
    snprintf(what, sizeof what, "duration = %s", v);
    bool stopped = false;
    if (try_cand(s, &c, what, &stopped))
        keep(s, &c);
}

int cmd_shrink(const struct shrink_opts *o)
{
    struct shrink *s = calloc(1, sizeof *s);
    if (!s) {
        fprintf(stderr, "faultline: shrink: out of memory\n");
        return 2;
    }
    s->o = o;
    s->t0 = mono_ns();
    char err[FL_ERRLEN], path[PATH_MAX + 32];
    int code = 2;
    failure_of(o->dir, &s->target);
    if (!s->target.failed) {
        fprintf(stderr, "faultline: shrink: %s: its verdict is %s, not fail: shrink makes a "
                "failed run smaller\n", o->dir, s->target.verdict);
        goto out;
    }
    snprintf(path, sizeof path, "%s/schedule.scn", o->dir);
    if (access(path, F_OK) != 0)
        snprintf(path, sizeof path, "%s/scenario.scn", o->dir);
    if (text_read(&s->t, path, err, sizeof err) != 0) {
        fprintf(stderr, "faultline: shrink: %s\n", err);
        goto out;
    }
    snprintf(s->out, sizeof s->out, "%s", o->out ? o->out : "");
    if (!o->out)
        snprintf(s->out, sizeof s->out, "%s/shrink", o->dir);
    char probe[PATH_MAX + 32];
    snprintf(probe, sizeof probe, "%s/shrink.log", s->out);
    if (access(probe, F_OK) == 0) {
        fprintf(stderr, "faultline: shrink: %s already holds a shrink; choose another --out\n",
                s->out);
        goto out;
    }
    if (mkdir_p(s->out, err, sizeof err) != 0 || !(s->log = fopen(probe, "w"))) {
        fprintf(stderr, "faultline: shrink: cannot write %s: %s\n", probe,
                err[0] ? err : strerror(errno));
        goto out;
    }
    struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    char said[600], dur[32];
    failure_text(&s->target, said, sizeof said);
    format_duration(s->t.duration_ns, dur, sizeof dur);
    say(s, "%s: %s, %u faults, duration %s; its run: %s; each candidate up to %u tries, "
        "budget %.0f min", o->dir, path, s->t.nf, dur, said, o->tries,
        (double)o->budget_ns / 60e9);
    if (keep(s, &s->best) == 0) {
        s->kept = 0; /* the run's own scenario is no success */
        if (drop_faults(s) && shorten_holds(s))
            shorten_duration(s);
        format_duration(duration_of(&s->t, &s->best), dur, sizeof dur);
        say(s, "%s: %u candidates, %u kept; minimal.scn has %u of %u faults, duration %s%s",
            s->kept ? "smaller" : "nothing smaller failed", s->ncand, s->kept,
            live_faults(&s->t, &s->best), s->t.nf, dur,
            stop_asked ? " (stopped by a signal)" : "");
        code = stop_asked ? 128 + (int)stop_asked : s->kept ? 0 : 1;
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
out:
    if (s->log)
        fclose(s->log);
    text_free(&s->t);
    free(s);
    return code;
}
