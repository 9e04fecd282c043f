/* summary — see summary.h. */
#include "summary.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/jread.h"
#include "../../lib/json.h"
#include "report.h"

/* The metric of fault (or of the run, fault < 0) in repetition x: the
 * run's from its `measured`, a fault's from that fault's numbers. */
static bool value_in(const struct summary *s, const struct summary_metric *m,
                     const struct rep_outcome *x, double *out)
{
    const struct result *res = x->report;
    if (!res)
        return false;
    const struct result_value *v = NULL;
    if (m->fault < 0) {
        v = result_value_of(res->measured, res->nmeasured, metric_table[m->metric].name);
    } else {
        const struct result_fault *f = result_fault_named(res, s->sc->faults[m->fault].name);
        if (f)
            v = result_value_of(f->values, f->nvalues, m->key);
    }
    if (!v || !v->known)
        return false;
    *out = v->v;
    return true;
}

static struct summary_metric *find_metric(struct summary *s, int fault, int metric)
{
    for (size_t i = 0; i < s->nm; i++)
        if (s->m[i].fault == fault && s->m[i].metric == metric)
            return &s->m[i];
    return NULL;
}

/* Adds (fault, metric) with its values from every repetition, once. */
static struct summary_metric *add_metric(struct summary *s, size_t *cap, int fault, int metric)
{
    struct summary_metric *m = find_metric(s, fault, metric);
    if (m)
        return m;
    if (s->nm == *cap) {
        size_t c = *cap ? *cap * 2 : 32;
        struct summary_metric *n = realloc(s->m, c * sizeof *n);
        if (!n)
            return NULL;
        s->m = n;
        *cap = c;
    }
    m = &s->m[s->nm];
    memset(m, 0, sizeof *m);
    m->fault = fault;
    m->metric = metric;
    const struct metric_def *def = &metric_table[metric];
    m->seconds = def->unit == UNIT_SECONDS;
    snprintf(m->key, sizeof m->key, "%s", def->key);
    m->value = calloc(s->asked, sizeof *m->value);
    m->known = calloc(s->asked, sizeof *m->known);
    double *vals = calloc(s->asked ? s->asked : 1, sizeof *vals);
    if (!m->value || !m->known || !vals) {
        free(m->value);
        free(m->known);
        free(vals);
        return NULL;
    }
    s->nm++;
    size_t nv = 0;
    for (unsigned k = 0; k < s->asked; k++) {
        const struct rep_outcome *x = &s->runs[k];
        m->known[k] = value_in(s, m, x, &m->value[k]);
        if (m->known[k])
            vals[nv++] = m->value[k];
        else if (x->ran && x->report)
            m->missing++;
    }
    dist_of(vals, nv, &m->d);
    free(vals);
    return m;
}

static struct summary_rule *add_rule(struct summary *s, size_t *cap)
{
    if (s->nrule == *cap) {
        size_t c = *cap ? *cap * 2 : 8;
        struct summary_rule *n = realloc(s->rule, c * sizeof *n);
        if (!n)
            return NULL;
        s->rule = n;
        *cap = c;
    }
    struct summary_rule *r = &s->rule[s->nrule++];
    memset(r, 0, sizeof *r);
    r->fault = -1;
    return r;
}

/* A rule on a statistic of a metric: unknown when a repetition that ran
 * did not measure it (a fault that never recovered has no recovery_s, and
 * leaving it out would make the tail look better than it was). */
static void check_stat(const struct summary *s, const struct expect_rule *e,
                       const struct summary_metric *m, struct summary_rule *r)
{
    if (m->missing) {
        unsigned first = 0;
        for (unsigned k = 0; k < s->asked && !first; k++)
            if (s->runs[k].ran && s->runs[k].report && !m->known[k])
                first = k + 1;
        snprintf(r->why, sizeof r->why, "not measured in %u repetition%s (rep-%u first)",
                 m->missing, m->missing == 1 ? "" : "s", first);
        return;
    }
    if (!m->d.n) {
        snprintf(r->why, sizeof r->why, "measured in no repetition");
        return;
    }
    r->known = true;
    r->measured = dist_stat(&m->d, e->stat);
}

/* The integrity rules of every repetition: how many broke one, and which. */
static void check_integrity(const struct summary *s, struct summary_rule *r)
{
    snprintf(r->text, sizeof r->text, "integrity rules hold in every repetition");
    snprintf(r->metric, sizeof r->metric, "integrity");
    r->op = EXP_EQ;
    r->unit = "count";
    r->known = true;
    size_t used = 0;
    for (unsigned k = 0; k < s->asked; k++) {
        const struct result *res = s->runs[k].report;
        bool broke = false;
        for (size_t i = 0; res && i < res->nexpect; i++) {
            const struct result_expect *e = &res->expect[i];
            /* an integrity rule is the one nobody wrote: it has no line */
            if (e->line != 0 || e->pass)
                continue;
            if (!broke && used < sizeof r->why)
                used += (size_t)snprintf(r->why + used, sizeof r->why - used, "%srep-%u: %s",
                                         used ? "; " : "", k + 1, e->text ? e->text : "?");
            if (!broke && used < sizeof r->why && e->known)
                used += (size_t)snprintf(r->why + used, sizeof r->why - used, " (measured %g)",
                                         e->measured);
            broke = true;
        }
        r->measured += broke;
    }
    r->pass = r->measured == 0;
}

int summary_build(struct summary *s, const struct scenario *sc, const struct rep_outcome *runs,
                  unsigned asked, unsigned ran, int signal, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->sc = sc;
    s->runs = runs;
    s->asked = asked;
    s->ran = ran;
    s->interrupted = signal != 0;
    s->signal = signal;
    bool rep_failed = false;
    for (unsigned k = 0; k < asked; k++) {
        const struct rep_outcome *x = &runs[k];
        const char *v = x->report ? x->report->verdict : NULL;
        s->completed += x->report != NULL;
        s->passed += v && strcmp(v, "pass") == 0 && x->exit == 0;
        rep_failed |= v && strcmp(v, "fail") == 0;
    }
    size_t mcap = 0, rcap = 0;
    /* what the summary always lists (metric.h): each fault's, then the run's */
    int listed[METRIC_COUNT];
    int nfault = metric_listed(LIST_SUMMARY, SCOPE_FAULT, listed);
    for (unsigned f = 0; f < sc->nfaults; f++)
        for (int i = 0; i < nfault; i++)
            if (!add_metric(s, &mcap, (int)f, listed[i]))
                goto oom;
    int nrun = metric_listed(LIST_SUMMARY, SCOPE_RUN, listed);
    for (int i = 0; i < nrun; i++)
        if (!add_metric(s, &mcap, -1, listed[i]))
            goto oom;
    bool rate_written = false;
    for (unsigned i = 0; i < sc->nexpects; i++) {
        const struct expect_rule *e = &sc->expects[i];
        if (!expect_over_repeats(e))
            continue;
        struct summary_rule *r = add_rule(s, &rcap);
        if (!r)
            goto oom;
        const struct metric_def *def = expect_metric(e);
        snprintf(r->text, sizeof r->text, "%s", e->text);
        snprintf(r->metric, sizeof r->metric, "%s%s%s", def->name, e->stat ? "_" : "",
                 dist_stat_names[e->stat]);
        r->fault = e->fault;
        r->op = e->op;
        r->value = e->value;
        r->unit = def->unit == UNIT_PERCENT ? "%" : def->unit == UNIT_SECONDS ? "s" : "count";
        r->line = e->line;
        if (e->fault < 0 && e->metric == M_PASS_RATE) {
            rate_written = true;
            r->known = true;
            r->measured = asked ? 100.0 * s->passed / asked : 0;
        } else {
            const struct summary_metric *m = add_metric(s, &mcap, e->fault, e->metric);
            if (!m)
                goto oom;
            check_stat(s, e, m, r);
        }
        r->pass = expect_holds(e, r->measured, r->known);
    }
    if (!rate_written) {
        struct summary_rule *r = add_rule(s, &rcap);
        if (!r)
            goto oom;
        struct expect_rule e = {.metric = M_PASS_RATE, .fault = -1, .op = EXP_EQ, .value = 100};
        snprintf(r->text, sizeof r->text, "pass_rate = 100%%");
        snprintf(r->metric, sizeof r->metric, "pass_rate");
        r->op = EXP_EQ;
        r->value = 100;
        r->unit = "%";
        r->known = true;
        r->measured = asked ? 100.0 * s->passed / asked : 0;
        r->pass = expect_holds(&e, r->measured, true);
    }
    struct summary_rule *r = add_rule(s, &rcap);
    if (!r)
        goto oom;
    check_integrity(s, r);
    for (size_t i = 0; i < s->nrule; i++)
        s->failed += !s->rule[i].pass;
    /* Stopped by a signal: the rules over repetitions that never ran say
     * nothing; only a repetition that failed does. */
    s->verdict = !s->completed ? "error"
                 : s->interrupted ? (rep_failed ? "fail" : "interrupted")
                 : s->failed      ? "fail"
                                  : "pass";
    return 0;
oom:
    snprintf(err, errlen, "out of memory for the summary");
    summary_free(s);
    return -1;
}

void summary_free(struct summary *s)
{
    for (size_t i = 0; i < s->nm; i++) {
        free(s->m[i].value);
        free(s->m[i].known);
    }
    free(s->m);
    free(s->rule);
    s->m = NULL;
    s->rule = NULL;
    s->nm = s->nrule = 0;
}

static const char *fault_name(const struct summary *s, int fault)
{
    return fault >= 0 ? s->sc->faults[fault].name : NULL;
}

static void json_rule(struct json *j, const struct summary *s, const struct summary_rule *r)
{
    int dec = strcmp(r->unit, "s") == 0 ? 6 : strcmp(r->unit, "%") == 0 ? 2 : 3;
    json_obj_begin(j);
    json_key(j, "expect");
    json_str(j, r->text);
    json_key(j, "metric");
    json_str(j, r->metric);
    json_key(j, "fault");
    if (r->fault >= 0)
        json_str(j, fault_name(s, r->fault));
    else
        json_null(j);
    json_key(j, "op");
    json_str(j, expect_op_text(r->op));
    json_key(j, "value");
    json_num(j, r->value, dec);
    json_key(j, "unit");
    json_str(j, r->unit);
    json_key(j, "measured");
    if (r->known)
        json_num(j, r->measured, dec);
    else
        json_null(j);
    json_key(j, "pass");
    json_bool(j, r->pass);
    json_key(j, "line");
    if (r->line)
        json_u64(j, (uint64_t)r->line);
    else
        json_null(j);
    json_key(j, "implicit");
    json_bool(j, r->line == 0);
    if (r->why[0]) {
        json_key(j, "why");
        json_str(j, r->why);
    }
    json_obj_end(j);
}

static void json_metric(struct json *j, const struct summary *s, const struct summary_metric *m)
{
    int dec = m->seconds ? 6 : 3;
    json_obj_begin(j);
    json_key(j, "fault");
    if (m->fault >= 0)
        json_str(j, fault_name(s, m->fault));
    else
        json_null(j);
    json_key(j, "metric");
    json_str(j, m->key);
    json_key(j, "unit");
    json_str(j, m->seconds ? "s" : "count");
    json_key(j, "n");
    json_u64(j, m->d.n);
    json_key(j, "missing");
    json_u64(j, m->missing);
    static const char *const names[] = {"min", "p50", "p95", "max", "mean", "sd"};
    const double vals[] = {m->d.min, m->d.p50, m->d.p95, m->d.max, m->d.mean, m->d.sd};
    for (size_t i = 0; i < 6; i++) {
        json_key(j, names[i]);
        json_num(j, vals[i], dec);
    }
    json_key(j, "values");
    json_arr_begin(j);
    for (unsigned k = 0; k < s->asked; k++)
        if (m->known[k])
            json_num(j, m->value[k], dec);
        else
            json_null(j);
    json_arr_end(j);
    json_obj_end(j);
}

static int write_json(const struct summary *s, const char *dir, char *err, size_t errlen)
{
    char tmp[PATH_MAX + 64];
    FILE *f = report_open_tmp(dir, "report.json", tmp, sizeof tmp, err, errlen);
    if (!f)
        return -1;
    struct json j;
    json_init(&j, f, true);
    json_obj_begin(&j);
    json_key(&j, "verdict");
    json_str(&j, s->verdict);
    json_key(&j, "mode");
    json_str(&j, "repeat");
    json_key(&j, "scenario");
    json_str(&j, s->sc->name);
    json_key(&j, "repetitions");
    json_u64(&j, s->asked);
    json_key(&j, "completed");
    json_u64(&j, s->completed);
    json_key(&j, "passed");
    json_u64(&j, s->passed);
    json_key(&j, "pass_rate");
    json_num(&j, s->asked ? (double)s->passed / s->asked : 0, 4);
    json_key(&j, "interrupted");
    json_bool(&j, s->interrupted);
    json_key(&j, "interrupted_by");
    if (s->interrupted)
        json_str(&j, report_signal_name(s->signal));
    else
        json_null(&j);
    json_key(&j, "expectations");
    json_arr_begin(&j);
    for (size_t i = 0; i < s->nrule; i++)
        json_rule(&j, s, &s->rule[i]);
    json_arr_end(&j);
    json_key(&j, "metrics");
    json_arr_begin(&j);
    for (size_t i = 0; i < s->nm; i++)
        if (s->m[i].d.n)
            json_metric(&j, s, &s->m[i]);
    json_arr_end(&j);
    json_key(&j, "runs");
    json_arr_begin(&j);
    for (unsigned k = 0; k < s->asked; k++) {
        const struct rep_outcome *x = &s->runs[k];
        if (!x->ran)
            continue;
        json_obj_begin(&j);
        json_key(&j, "rep");
        json_u64(&j, x->rep);
        json_key(&j, "dir");
        json_str(&j, x->dir);
        json_key(&j, "verdict");
        if (x->report && x->report->verdict)
            json_str(&j, x->report->verdict);
        else
            json_null(&j);
        json_key(&j, "exit");
        json_i64(&j, x->exit);
        json_key(&j, "lab");
        if (x->lab[0])
            json_str(&j, x->lab);
        else
            json_null(&j);
        json_obj_end(&j);
    }
    json_arr_end(&j);
    for (unsigned k = 0; k < s->asked; k++) {
        const struct jv *man = s->runs[k].report ? s->runs[k].report->manifest : NULL;
        if (man) {
            json_key(&j, "manifest");
            jv_emit(&j, man);
            break;
        }
    }
    json_obj_end(&j);
    fputc('\n', f);
    return report_install(f, tmp, dir, "report.json", err, errlen);
}

/* "1.234 s", "12", "95%" */
static void fmt(char *out, size_t n, double v, const char *unit)
{
    if (strcmp(unit, "s") == 0)
        snprintf(out, n, "%.3f s", v);
    else if (strcmp(unit, "%") == 0)
        snprintf(out, n, "%.0f%%", v);
    else if (v == floor(v))
        snprintf(out, n, "%.0f", v);
    else
        snprintf(out, n, "%.2f", v);
}

static void text_report(const struct summary *s, FILE *f, bool brief)
{
    fprintf(f, "%s: %s, %u of %u repetitions passed%s%s\n", s->sc->name,
            report_verdict_caps(s->verdict), s->passed, s->asked,
            s->interrupted ? "; interrupted by " : "",
            s->interrupted ? report_signal_name(s->signal) : "");
    fprintf(f, "expectations over the repetitions: %zu of %zu hold\n", s->nrule - s->failed,
            s->nrule);
    for (size_t i = 0; i < s->nrule; i++) {
        const struct summary_rule *r = &s->rule[i];
        char m[48] = "unknown";
        if (r->known)
            fmt(m, sizeof m, r->measured, r->unit);
        fprintf(f, "  %s %s", r->pass ? "ok  " : "FAIL", r->text);
        if (r->fault >= 0)
            fprintf(f, " [fault %s]", fault_name(s, r->fault));
        fprintf(f, "%s: measured %s%s%s\n", r->line ? "" : " (implicit)", m,
                r->why[0] ? " - " : "", r->why);
    }
    if (brief)
        return;
    fprintf(f, "\ndistributions over %u repetitions (values in seconds, or counts):\n",
            s->completed);
    fprintf(f, "  %-24s %-26s %4s %10s %10s %10s %10s %10s %10s\n", "fault", "metric", "n", "min",
            "p50", "p95", "max", "mean", "sd");
    for (size_t i = 0; i < s->nm; i++) {
        const struct summary_metric *m = &s->m[i];
        if (!m->d.n)
            continue;
        const char *form = m->seconds ? "%10.3f" : "%10.1f";
        fprintf(f, "  %-24s %-26s %4zu", m->fault >= 0 ? fault_name(s, m->fault) : "(run)",
                m->key, m->d.n);
        const double v[] = {m->d.min, m->d.p50, m->d.p95, m->d.max, m->d.mean, m->d.sd};
        for (size_t k = 0; k < 6; k++) {
            fputc(' ', f);
            fprintf(f, form, v[k]);
        }
        if (m->missing)
            fprintf(f, "  (not measured in %u)", m->missing);
        fputc('\n', f);
    }
    fprintf(f, "\nrepetitions:\n");
    for (unsigned k = 0; k < s->asked; k++) {
        const struct rep_outcome *x = &s->runs[k];
        if (!x->ran) {
            fprintf(f, "  rep-%-3u not run\n", k + 1);
            continue;
        }
        const char *v = x->report ? x->report->verdict : NULL;
        fprintf(f, "  %-7s %-5s exit %d%s%s  %s/report.txt\n", x->dir, v ? v : "no report",
                x->exit, x->lab[0] ? ", lab before it: " : "", x->lab, x->dir);
    }
}

int summary_write(const char *dir, const struct scenario *sc, const struct rep_outcome *runs,
                  unsigned asked, unsigned ran, int signal, FILE *out, char *err,
                  size_t errlen)
{
    struct summary s;
    if (summary_build(&s, sc, runs, asked, ran, signal, err, errlen) != 0)
        return -1;
    char tmp[PATH_MAX + 64];
    FILE *f = report_open_tmp(dir, "report.txt", tmp, sizeof tmp, err, errlen);
    int rc = -1;
    if (f) {
        text_report(&s, f, false);
        rc = report_install(f, tmp, dir, "report.txt", err, errlen);
    }
    if (rc == 0)
        rc = write_json(&s, dir, err, errlen);
    if (rc == 0)
        rc = summary_write_html(&s, dir, err, errlen);
    if (rc == 0 && out) {
        text_report(&s, out, true);
        fprintf(out, "summary: %s/report.txt\nplots: %s/report.html\n", dir, dir);
    }
    int code = strcmp(s.verdict, "pass") == 0          ? 0
               : strcmp(s.verdict, "fail") == 0        ? 1
               : strcmp(s.verdict, "interrupted") == 0 ? 128 + s.signal
                                                       : 2;
    summary_free(&s);
    return rc == 0 ? code : -1;
}
