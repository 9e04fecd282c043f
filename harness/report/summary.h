/*
 * summary — the repetitions of a scenario (repeat.h) told together.
 *
 * Reads each repetition's report.json back as a result (result.h) — what
 * it measured, not what the runs kept in memory, so the summary says
 * exactly what the reports beside it say — and writes into the repeat's
 * directory:
 *
 *   report.json   "mode": "repeat": verdict; repetitions, completed,
 *                 passed, pass_rate; runs[] (rep, dir, verdict, exit,
 *                 lab); metrics[] (fault or null, metric, n, min, p50,
 *                 p95, max, mean, sd, values per repetition); the
 *                 expectations over repetitions, as a run's are written;
 *                 manifest (the first repetition's)
 *   report.txt    the verdict, the expectations, a table of the
 *                 distributions, one line per repetition
 *   report.html   the same, with each metric's values across the
 *                 repetitions drawn as a strip (summary_html.c)
 *
 * The metrics: for each fault, every expect_* metric of its report
 * (stall_s, recovery_s, impact_s, errors, max_latency_s,
 * first_io_after_inject_s, first_io_after_clear_s, heal_s); for the run,
 * max_stall_s, recovery_s, heal_s, max_latency_s, iops, errors, findings
 * and reverted, from each report's `measured` (there without the _s) — and
 * any other a rule names.
 *
 * The verdict: pass when every rule over repetitions holds.  Unless the
 * scenario says otherwise, pass_rate = 100% is one of them, and one rule
 * is always there: the integrity rules (lost_writes = 0, ...) held in
 * every repetition — a pass_rate below 100% forgives a slow failover,
 * never lost data.  error when no repetition left a report; one that could
 * not run (exit 2) counts as not passed.
 */
#ifndef FL_SUMMARY_H
#define FL_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../../checks/dist.h"
#include "../scenario/scenario.h"
#include "result.h"

/* One repetition, as the repeat saw it end. */
struct rep_outcome {
    unsigned rep;       /* 1..N */
    char dir[32];       /* "rep-K", in the repeat's directory */
    bool ran;           /* it was started */
    int exit;           /* its exit status; -1: ended by a signal */
    char lab[1200];     /* "healthy", or what was wrong before it; "" without a lab */
    struct result *report; /* its report.json read back; NULL: it wrote none, or one
                              that could not be read */
};

/* One metric over the repetitions. */
struct summary_metric {
    int fault;          /* index in the scenario's faults; -1: the whole run */
    int metric;         /* enum metric_id (checks/metric.h) */
    char key[48];       /* its name in the summary: "stall_s", "max_stall_s", "iops" */
    bool seconds;
    double *value;      /* per repetition (n asked) ... */
    bool *known;        /* ... and whether that repetition measured it */
    unsigned missing;   /* repetitions that ran and did not measure it */
    struct dist d;      /* over the known values */
};

/* One rule over repetitions, checked. */
struct summary_rule {
    char text[96];      /* "recovery_p95 <= 8s", "pass_rate = 100%" */
    char metric[48];    /* "recovery_p95", "pass_rate", "integrity" */
    int fault;          /* -1: [expect] */
    enum expect_op op;
    double value;
    const char *unit;   /* "s", "count", "%" */
    double measured;
    bool known, pass;
    int line;           /* 0: implicit */
    char why[160];
};

struct summary {
    const struct scenario *sc;
    const struct rep_outcome *runs;
    unsigned asked, ran, completed, passed;
    bool interrupted;
    int signal;          /* the signal that stopped the repetitions; 0: none */
    struct summary_metric *m;
    size_t nm;
    struct summary_rule *rule;
    size_t nrule, failed;
    const char *verdict; /* "pass", "fail", "interrupted", "error": interrupted unless a
                            repetition failed (what ran is summed up, not more) */
};

/* Builds the summary of runs[0..asked) (ran of them started; `signal`
 * stopped them, 0: none).  0, or -1 with err (memory). */
int summary_build(struct summary *s, const struct scenario *sc, const struct rep_outcome *runs,
                  unsigned asked, unsigned ran, int signal, char *err, size_t errlen);
void summary_free(struct summary *s);

/* Builds it and writes report.json, report.txt and report.html to dir, and
 * a few lines to out (NULL: none).  The exit status (0 pass, 1 fail,
 * 2 error, 128 + the signal when interrupted), or -1 with err. */
int summary_write(const char *dir, const struct scenario *sc, const struct rep_outcome *runs,
                  unsigned asked, unsigned ran, int signal, FILE *out, char *err,
                  size_t errlen);

/* report.html of the summary (summary_html.c).  0, or -1 with err. */
int summary_write_html(const struct summary *s, const char *dir, char *err, size_t errlen);

#endif
