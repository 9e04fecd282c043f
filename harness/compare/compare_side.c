/*
 * compare_side — one side of `faultline compare`: DIR/report.json read
 * back, its faults listed, a metric's value found (see compare.h).  A run's
 * report ("mode": "run" or "verify") has the metrics in faults[] and at the
 * top; a summary of repeats ("mode": "repeat") has them in metrics[], one
 * entry per fault and metric with its statistics.
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

/* The names of the faults, each once, in report order: a run's faults[],
 * a summary's metrics[] that name one. */
static int list_faults(struct cmp_side *s, char *err, size_t errlen)
{
    const struct jv *list = jv_get(s->doc, s->summary ? "metrics" : "faults");
    size_t n = jv_len(list);
    s->faults = calloc(n ? n : 1, sizeof *s->faults);
    if (!s->faults) {
        snprintf(err, errlen, "%s/report.json: out of memory for %zu faults", s->dir, n);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        const char *name = jv_str(jv_get(jv_at(list, i), s->summary ? "fault" : "name"));
        if (name && !cmp_side_has_fault(s, name))
            s->faults[s->nfaults++] = name;
    }
    return 0;
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
    s->verdict = str_or(jv_get(s->doc, "verdict"), "?");
    s->scenario = str_or(jv_get(s->doc, "scenario"), "?");
    s->error = jv_str(jv_get(s->doc, "error"));
    s->interrupted = false;
    jv_bool(jv_get(s->doc, "interrupted"), &s->interrupted);
    s->repetitions = 0;
    jv_num(jv_get(s->doc, "repetitions"), &s->repetitions);
    if (list_faults(s, err, errlen) != 0) {
        cmp_side_free(s);
        return -1;
    }
    return 0;
}

void cmp_side_free(struct cmp_side *s)
{
    jv_free(s->doc);
    free(s->faults);
    s->doc = NULL;
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

/* findings as [expect] findings counts them: each finding class's reads,
 * less those a corrupt fault explains. */
static struct cmp_value findings(const struct jv *doc)
{
    const struct jv *counts = jv_get(doc, "counts");
    const struct jv *explained = jv_path(doc, "corruption.explained");
    struct cmp_value out = {counts && counts->type == JV_OBJ, 0};
    for (size_t i = 0; out.known && i < counts->n; i++) {
        const char *cls = counts->key[i];
        if (strcmp(cls, "ok") == 0 || strcmp(cls, "unwritten") == 0 ||
            strcmp(cls, "reverted") == 0)
            continue; /* not findings */
        double n = 0, ex = 0;
        if (!jv_num(&counts->item[i], &n))
            continue;
        jv_num(jv_get(explained, cls), &ex);
        out.v += n > ex ? n - ex : 0;
    }
    return out;
}

static struct cmp_value run_value(const struct cmp_side *s, const char *fault,
                                  const struct cmp_metric *m)
{
    const struct jv *doc = s->doc;
    if (fault) {
        const struct jv *faults = jv_get(doc, "faults");
        for (size_t i = 0; i < jv_len(faults); i++)
            if (str_eq(jv_str(jv_get(jv_at(faults, i), "name")), fault))
                return num(jv_get(jv_at(faults, i), m->name));
        return (struct cmp_value){false, 0};
    }
    switch (m->id) {
    case M_PASS_RATE:
        return (struct cmp_value){true, str_eq(s->verdict, "pass") ? 1 : 0};
    case M_IOPS:
        return num(jv_path(doc, "io.iops"));
    case M_ERRORS: { /* run_errors */
        struct cmp_value io = num(jv_path(doc, "io.errors"));
        struct cmp_value sweep = num(jv_path(doc, "sweep.errors"));
        if (io.known && sweep.known)
            io.v += sweep.v;
        return io;
    }
    case M_FINDINGS:
        return findings(doc);
    default:
        break;
    }
    return num(jv_get(doc, m->name)); /* max_stall_s, hung */
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
