/*
 * compare_side — one side of `faultline compare`: DIR/report.json read
 * back, its faults listed, a metric's value found (see compare.h).  A run's
 * report ("mode": "run" or "verify") is read as its result (result.h), the
 * one model of a run's result: the metrics are its faults' numbers and its
 * own.  A summary of repeats ("mode": "repeat") is no run's result: it has
 * the metrics in metrics[], one entry per fault and metric with its
 * statistics, and is read as the tree summary.c wrote.
 */
#include "compare.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool str_eq(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

static const char *str_or(const struct jv *v, const char *dflt)
{
    const char *s = jv_str(v);
    return s ? s : dflt;
}

/* The names of the faults, each once, in report order: a run's faults, a
 * summary's metrics[] that name one. */
static int list_faults(struct cmp_side *s, char *err, size_t errlen)
{
    const struct jv *list = s->summary ? jv_get(s->doc, "metrics") : NULL;
    size_t n = s->summary ? jv_len(list) : s->res->nfaults;
    s->faults = calloc(n ? n : 1, sizeof *s->faults);
    if (!s->faults) {
        snprintf(err, errlen, "%s/report.json: out of memory for %zu faults", s->dir, n);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        const char *name = s->summary ? jv_str(jv_get(jv_at(list, i), "fault"))
                                      : s->res->faults[i].name;
        if (name && !cmp_side_has_fault(s, name))
            s->faults[s->nfaults++] = name;
    }
    return 0;
}

/* A run's or verify's report, its tree made into its result (and let go):
 * what compare says of the side from then on is the result's. */
static int read_result(struct cmp_side *s, const char *path, char *err, size_t errlen)
{
    char why[768];
    s->res = calloc(1, sizeof *s->res);
    if (!s->res) {
        snprintf(err, errlen, "%s: out of memory for its result", path);
        return -1;
    }
    int rc = result_from_json(s->doc, s->res, why, sizeof why);
    jv_free(s->doc);
    s->doc = NULL;
    if (rc != 0) {
        snprintf(err, errlen, "%s: %s", path, why);
        return -1;
    }
    s->mode = s->res->mode;
    s->verdict = s->res->verdict[0] ? s->res->verdict : "?"; /* "": none written */
    s->scenario = s->res->scenario[0] ? s->res->scenario : "?";
    s->error = s->res->error;
    s->interrupted = s->res->interrupted;
    s->repetitions = 0;
    return 0;
}

/* A summary of repeats: its own shape, read as the tree it is. */
static void read_summary(struct cmp_side *s)
{
    s->verdict = str_or(jv_get(s->doc, "verdict"), "?");
    s->scenario = str_or(jv_get(s->doc, "scenario"), "?");
    s->error = jv_str(jv_get(s->doc, "error"));
    s->interrupted = false;
    jv_bool(jv_get(s->doc, "interrupted"), &s->interrupted);
    s->repetitions = 0;
    jv_num(jv_get(s->doc, "repetitions"), &s->repetitions);
}

int cmp_side_load(struct cmp_side *s, const char *dir, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->dir = dir;
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/report.json", dir) >= sizeof path) {
        snprintf(err, errlen, "%s: the path is too long", dir);
        return -1;
    }
    if (jv_load(path, &s->doc, err, errlen) != 0)
        return -1;
    if (s->doc->type != JV_OBJ) {
        snprintf(err, errlen, "%s: not a faultline report (not a JSON object)", path);
        cmp_side_free(s);
        return -1;
    }
    s->mode = jv_str(jv_get(s->doc, "mode"));
    if (!str_eq(s->mode, "run") && !str_eq(s->mode, "verify") && !str_eq(s->mode, "repeat")) {
        snprintf(err, errlen,
                 "%s: not a faultline report of a run, verify or repeat (\"mode\" is %s%s%s)",
                 path, s->mode ? "'" : "", s->mode ? s->mode : "missing", s->mode ? "'" : "");
        cmp_side_free(s);
        return -1;
    }
    s->summary = str_eq(s->mode, "repeat");
    if (s->summary)
        read_summary(s);
    else if (read_result(s, path, err, errlen) != 0) {
        cmp_side_free(s);
        return -1;
    }
    if (list_faults(s, err, errlen) != 0) {
        cmp_side_free(s);
        return -1;
    }
    return 0;
}

void cmp_side_free(struct cmp_side *s)
{
    jv_free(s->doc);
    if (s->res) {
        result_free(s->res);
        free(s->res);
    }
    free(s->faults);
    s->doc = NULL;
    s->res = NULL;
    s->faults = NULL;
    s->nfaults = 0;
}

bool cmp_side_has_fault(const struct cmp_side *s, const char *fault)
{
    for (size_t i = 0; i < s->nfaults; i++)
        if (strcmp(s->faults[i], fault) == 0)
            return true;
    return false;
}

static struct cmp_value num(const struct jv *v)
{
    struct cmp_value out = {false, 0};
    out.known = jv_num(v, &out.v);
    return out;
}

static struct cmp_value known(bool is_known, double v)
{
    return is_known ? (struct cmp_value){true, v} : (struct cmp_value){false, 0};
}

/* findings as [expect] findings counts them: each finding class's reads,
 * less those a corrupt fault explains.  Unknown when the report has no
 * counts. */
static struct cmp_value findings(const struct result *res)
{
    struct cmp_value out = {false, 0};
    for (size_t c = 0; c < RESULT_CLASSES; c++) {
        const char *cls = res->class_name[c];
        if (!cls)
            continue;
        out.known = true;
        if (strcmp(cls, "ok") == 0 || strcmp(cls, "unwritten") == 0 ||
            strcmp(cls, "reverted") == 0)
            continue; /* not findings */
        double n = (double)res->counts[c], ex = (double)res->explained[c];
        out.v += n > ex ? n - ex : 0;
    }
    return out;
}

static struct cmp_value run_value(const struct cmp_side *s, const char *fault,
                                  const struct cmp_metric *m)
{
    const struct result *res = s->res;
    if (fault) {
        const struct result_fault *f = result_fault_named(res, fault);
        const struct result_value *v = f ? result_value_of(f->values, f->nvalues, m->name) : NULL;
        return known(v && v->known, v ? v->v : 0);
    }
    switch (m->id) {
    case M_PASS_RATE:
        return (struct cmp_value){true, str_eq(s->verdict, "pass") ? 1 : 0};
    case M_IOPS:
        return known(res->io.present, res->io.iops);
    case M_ERRORS: { /* run_errors: the workload's and the sweep's */
        struct cmp_value io = known(res->io.present, (double)res->io.errors);
        if (io.known && res->sweep.present)
            io.v += (double)res->sweep.errors;
        return io;
    }
    case M_FINDINGS:
        return findings(res);
    case M_MAX_STALL:
        return known(res->max_stall.known, res->max_stall.s);
    case M_HUNG: /* written with the outage: a run's, not a verify's */
        return known(res->outage, (double)res->hung);
    default:
        break;
    }
    /* A run metric compare takes from a run is read above: one that is
     * not there was never written. */
    return (struct cmp_value){false, 0};
}

static struct cmp_value summary_value(const struct cmp_side *s, const char *fault,
                                      const struct cmp_metric *m, const char *stat)
{
    if (!fault && m->id == M_PASS_RATE)
        return num(jv_get(s->doc, "pass_rate"));
    const struct jv *metrics = jv_get(s->doc, "metrics");
    for (size_t i = 0; i < jv_len(metrics); i++) {
        const struct jv *e = jv_at(metrics, i);
        const char *f = jv_str(jv_get(e, "fault"));
        if ((fault ? str_eq(f, fault) : f == NULL) && str_eq(jv_str(jv_get(e, "metric")), m->name))
            return num(jv_get(e, stat ? stat : "p50"));
    }
    return (struct cmp_value){false, 0};
}

struct cmp_value cmp_side_value(const struct cmp_side *s, const char *fault,
                                const struct cmp_metric *m, const char *stat)
{
    /* A run next to a summary is a distribution of one: every statistic
     * is its value. */
    return s->summary ? summary_value(s, fault, m, stat) : run_value(s, fault, m);
}
