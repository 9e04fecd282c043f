/*
 * compare_rule — what `faultline compare` compares and when B is worse
 * (see compare.h).  No I/O here: the catalogue of metrics, the judgement of
 * two values, and --worse METRIC:RATIO parsed, so that the rules can be
 * tested on their own (tests/unit/test_compare.c).
 */
#include "compare.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* compare's metrics are the lines of metric.h's table with a compare place:
 * each fault's (faults[].KEY of a run, a summary's metric of that name), then
 * the run's: from report.json's io, max_stall_s, counts, hung (compare_side.c);
 * pass_rate only where a summary is involved. */
const struct cmp_metric *cmp_metric_list(size_t *n)
{
    static struct cmp_metric list[METRIC_COUNT];
    static size_t count;
    if (!count) {
        int ids[METRIC_COUNT];
        int k = metric_listed(LIST_COMPARE, -1, ids);
        for (int i = 0; i < k; i++) {
            const struct metric_def *d = &metric_table[ids[i]];
            list[i] = (struct cmp_metric){
                .name = metric_compare_name(d),
                .id = ids[i],
                .per_fault = d->scope == SCOPE_FAULT,
                .better = d->worse == WORSE_LOWER ? CMP_HIGHER_IS_BETTER : CMP_LOWER_IS_BETTER,
                .in_run = d->compare_from & CMP_FROM_RUN,
                .in_summary = d->compare_from & CMP_FROM_SUMMARY,
            };
        }
        count = (size_t)k;
    }
    *n = count;
    return list;
}

const char *const cmp_stats[] = {"p50", "p95", "max", "mean"};
const size_t cmp_nstats = sizeof cmp_stats / sizeof cmp_stats[0];

const struct cmp_metric *cmp_metric_find(const char *name)
{
    size_t n;
    const struct cmp_metric *list = cmp_metric_list(&n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i].name, name) == 0)
            return &list[i];
    return NULL;
}

bool cmp_is_stat(const char *name)
{
    for (size_t i = 0; i < cmp_nstats; i++)
        if (strcmp(cmp_stats[i], name) == 0)
            return true;
    return false;
}

static const char *stat_interned(const char *name)
{
    for (size_t i = 0; i < cmp_nstats; i++)
        if (strcmp(cmp_stats[i], name) == 0)
            return cmp_stats[i];
    return NULL;
}

struct cmp_judgement cmp_judge(struct cmp_value a, struct cmp_value b, enum cmp_better better)
{
    struct cmp_judgement j = {false, NAN, NAN, false};
    if (!a.known || !b.known)
        return j; /* not measured on one side: nothing to say, never worse */
    j.measured = true;
    j.change = b.v - a.v;
    if (a.v != 0)
        j.ratio = b.v / a.v;
    else
        j.ratio = b.v == 0 ? 1 : INFINITY;
    j.worse = better == CMP_LOWER_IS_BETTER ? b.v > a.v : b.v < a.v;
    return j;
}

bool cmp_beyond(double a, double b, enum cmp_better better, double allowed)
{
    if (better == CMP_LOWER_IS_BETTER)
        return a == 0 ? b > 0 : b > a * allowed;
    return b < a / allowed;
}

/* The list of what METRIC may be, for a mistake in it. */
static void known_metrics(char *out, size_t n)
{
    size_t count;
    const struct cmp_metric *list = cmp_metric_list(&count);
    size_t used = (size_t)snprintf(out, n, "known metrics:");
    for (size_t i = 0; i < count && used < n; i++)
        used += (size_t)snprintf(out + used, n - used, " %s", list[i].name);
    if (used < n)
        snprintf(out + used, n - used,
                 " (a fault's as FAULT.NAME too; a summary's statistic as NAME.p50, .p95, "
                 ".max, .mean)");
}

int cmp_parse_limit(const char *arg, struct cmp_limit *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    const char *colon = strrchr(arg, ':');
    if (!colon || colon == arg || !colon[1]) {
        snprintf(err, errlen, "--worse %s: expected METRIC:RATIO, e.g. stall_s:1.2", arg);
        return -1;
    }
    size_t len = (size_t)(colon - arg);
    if (len >= sizeof out->spec) {
        snprintf(err, errlen, "--worse %s: METRIC is too long", arg);
        return -1;
    }
    memcpy(out->spec, arg, len);
    out->spec[len] = '\0';

    char *end;
    errno = 0;
    out->ratio = strtod(colon + 1, &end);
    if (errno || *end || !isfinite(out->ratio) || out->ratio < 1) {
        snprintf(err, errlen,
                 "--worse %s: RATIO '%s' must be a number >= 1 (1.2: B may be 1.2x A, or "
                 "A/1.2 for a metric where higher is better)",
                 arg, colon + 1);
        return -1;
    }

    /* [FAULT.]NAME[.STAT]: the statistic comes off the end first (no
     * metric is called p50 or max), then NAME is the last part; FAULT, the
     * rest, may hold dots of its own. */
    char name[256];
    snprintf(name, sizeof name, "%s", out->spec);
    char *dot = strrchr(name, '.');
    if (dot && cmp_is_stat(dot + 1)) {
        out->stat = stat_interned(dot + 1);
        *dot = '\0';
    }
    out->any_fault = true;
    const char *metric = name;
    if (!cmp_metric_find(name) && (dot = strrchr(name, '.')) != NULL && dot != name) {
        *dot = '\0';
        metric = dot + 1;
        out->any_fault = false;
        snprintf(out->fault, sizeof out->fault, "%s", name);
    }
    out->metric = cmp_metric_find(metric);
    if (!out->metric) {
        char known[1024];
        known_metrics(known, sizeof known);
        snprintf(err, errlen, "--worse %s: unknown metric '%s'; %s", arg, metric, known);
        return -1;
    }
    if (!out->any_fault && !out->metric->per_fault) {
        snprintf(err, errlen, "--worse %s: %s is the run's, not a fault's: write it without '%s.'",
                 arg, metric, out->fault);
        return -1;
    }
    if (out->stat && out->metric->id == M_PASS_RATE) {
        snprintf(err, errlen, "--worse %s: pass_rate is one number, without .%s", arg, out->stat);
        return -1;
    }
    return 0;
}

/* ---- a row against a --worse limit ---- */

bool cmp_row_matches(const struct cmp_row *row, const struct cmp_limit *l)
{
    if (row->metric != l->metric)
        return false;
    if (!l->any_fault && (!row->fault || strcmp(row->fault, l->fault) != 0))
        return false;
    return !l->stat || (row->stat && strcmp(row->stat, l->stat) == 0);
}

bool cmp_row_beyond(const struct cmp_result *r, const struct cmp_row *row,
                    const struct cmp_limit *l)
{
    for (size_t i = 0; i < r->nbreaches; i++)
        if (r->breaches[i].row == row && r->breaches[i].limit == l)
            return true;
    return false;
}

/* ---- warnings ---- */

bool cmp_side_cut_short(const struct cmp_side *s)
{
    return s->interrupted || strcmp(s->verdict, "interrupted") == 0;
}

bool cmp_verdict_known(const char *verdict)
{
    static const char *const known[] = {"pass", "fail", "error", "interrupted"};
    for (size_t i = 0; verdict && i < sizeof known / sizeof known[0]; i++)
        if (strcmp(verdict, known[i]) == 0)
            return true;
    return false;
}

static bool add_warning(struct cmp_warning *out, size_t *n, const char *kind, const char *fmt,
                        ...) __attribute__((format(printf, 4, 5)));
static bool add_warning(struct cmp_warning *out, size_t *n, const char *kind, const char *fmt,
                        ...)
{
    if (*n >= CMP_MAX_WARNINGS)
        return false;
    out[*n].kind = kind;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out[*n].text, sizeof out[*n].text, fmt, ap);
    va_end(ap);
    (*n)++;
    return true;
}

/* What one side is that the comparison should say: a verify, an
 * interrupted run, a verdict compare does not know. */
static void side_warnings(const char *label, const struct cmp_side *s, struct cmp_warning *out,
                          size_t *n)
{
    if (strcmp(s->mode, "verify") == 0)
        add_warning(out, n, "verify",
                    "%s is a verify (the target read back after its run), not a run: its iops "
                    "is the read-back's, and it has no faults, stalls or hung I/O of a run",
                    label);
    if (cmp_side_cut_short(s))
        add_warning(out, n, "interrupted",
                    "%s was interrupted (SIGINT or SIGTERM): its workload ended early, and its "
                    "metrics cover only what ran",
                    label);
    if (!cmp_verdict_known(s->verdict) && strcmp(s->verdict, "?") == 0)
        add_warning(out, n, "unknown-verdict", "%s's report.json has no verdict", label);
    else if (!cmp_verdict_known(s->verdict))
        add_warning(out, n, "unknown-verdict",
                    "%s's verdict '%s' is not one compare knows (pass, fail, error, "
                    "interrupted): its rows are compared as they are, and the verdict itself "
                    "decides nothing",
                    label, s->verdict);
}

size_t cmp_warnings(const struct cmp_side *a, const struct cmp_side *b,
                    struct cmp_warning out[CMP_MAX_WARNINGS])
{
    size_t n = 0;
    /* "?": a report without its scenario's name, which tells nothing */
    if (strcmp(a->scenario, b->scenario) != 0 && strcmp(a->scenario, "?") != 0 &&
        strcmp(b->scenario, "?") != 0)
        add_warning(out, &n, "scenarios-differ",
                    "the scenarios differ (A: %s, B: %s): the rows set different workloads "
                    "and faults side by side",
                    a->scenario, b->scenario);
    if (a->summary != b->summary) {
        const struct cmp_side *sum = a->summary ? a : b;
        char reps[64] = "repetitions";
        if (sum->repetitions > 0)
            snprintf(reps, sizeof reps, "%.0f repetitions", sum->repetitions);
        add_warning(out, &n, "summary-vs-run",
                    "%s is a summary of %s, %s a single %s: each statistic of %s (p50, p95, "
                    "max, mean) is its one value, set against a distribution",
                    a->summary ? "A" : "B", reps, a->summary ? "B" : "A",
                    strcmp((a->summary ? b : a)->mode, "verify") == 0 ? "verify" : "run",
                    a->summary ? "B" : "A");
    }
    side_warnings("A", a, out, &n);
    side_warnings("B", b, out, &n);
    return n;
}
