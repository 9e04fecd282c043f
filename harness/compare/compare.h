/*
 * compare — `faultline compare DIR_A DIR_B`: two runs (or two summaries of
 * repeats, or one of each) read back from their report.json and set side
 * by side, metric by metric: A's value, B's, the change, and whether B got
 * worse.  Its exit status makes it a gate for a change: 1 when an
 * expectation of B failed, B could not run or was interrupted, or a metric
 * named with --worse METRIC:RATIO got worse by more than RATIO.  Only the rows a --worse limit names count for
 * it: each row says which limit checks it, and "worse" on any other row is
 * information.  Two reports that should not be set side by side unwarned
 * (other scenarios, a verify, a summary next to a run, an interrupted run,
 * a verdict compare does not know) get a warning, on stderr and in --json.
 *
 *   compare_rule.c   the metrics compare knows (checks/metric.h's table), the
 *                    rule for "worse", --worse METRIC:RATIO parsed and
 *                    matched to rows (pure, unit tested)
 *   compare_side.c   one report.json read back: its faults, a metric's value
 *   compare.c        the verb: both sides, the rows, the limits, the exit
 *   compare_print.c  the table, and --json
 *
 * A run next to a summary counts as a distribution of one: each of its
 * statistics (p50, p95, max, mean) is its one value, its pass_rate is 1
 * when it passed and 0 otherwise.
 */
#ifndef FL_COMPARE_H
#define FL_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../../checks/metric.h"
#include "../../lib/jread.h"
#include "../report/result.h"

/* `faultline compare DIR_A DIR_B [--worse METRIC:RATIO]... [--json]`
 * (argv[1] is "compare").  Exit status 0, 1 or 2. */
int cmd_compare(int argc, char **argv);

/* ---- compare_rule.c: pure ---- */

enum cmp_better { CMP_LOWER_IS_BETTER, CMP_HIGHER_IS_BETTER };

/* A metric compare knows: a line of metric.h's table with a compare place,
 * in compare's words. */
struct cmp_metric {
    const char *name;     /* compare's name: the report's key ("stall_s"), "run_errors" */
    int id;               /* enum metric_id */
    bool per_fault;       /* each fault's (faults[].NAME), or the run's */
    enum cmp_better better;
    bool in_run;          /* a run's report.json has it */
    bool in_summary;      /* a summary of repeats has it */
};

/* compare's metrics, in its order (metric.h's compare places); n: how many. */
const struct cmp_metric *cmp_metric_list(size_t *n);

/* The statistics of a summary's metric that compare sets side by side. */
extern const char *const cmp_stats[];
extern const size_t cmp_nstats;

const struct cmp_metric *cmp_metric_find(const char *name);
bool cmp_is_stat(const char *name);

/* A value of one side; known is false where it was not measured (null or
 * missing in report.json). */
struct cmp_value {
    bool known;
    double v;
};

/* A and B judged: change = B - A and ratio = B / A (A = 0: 1 when B = 0,
 * else INFINITY); worse when B moved the wrong way at all.  Both unknown
 * or either: measured false, never worse. */
struct cmp_judgement {
    bool measured;
    double change;
    double ratio;
    bool worse;
};
struct cmp_judgement cmp_judge(struct cmp_value a, struct cmp_value b, enum cmp_better better);

/* Worse by more than the allowed ratio (>= 1): lower-is-better, B > A *
 * ratio (so A = 0 and B > 0 is always beyond); higher-is-better, B < A /
 * ratio (A = 0 never is). */
bool cmp_beyond(double a, double b, enum cmp_better better, double allowed);

/* --worse METRIC:RATIO, METRIC being [FAULT.]NAME[.STAT]: NAME a metric
 * compare knows, STAT one of cmp_stats.  Without FAULT a fault's metric
 * means every fault's. */
struct cmp_limit {
    char spec[256];        /* METRIC as given */
    char fault[256];       /* "" with any_fault */
    bool any_fault;
    const struct cmp_metric *metric;
    const char *stat;      /* NULL: every statistic (or a run's one value) */
    double ratio;
};

/* 0, or -1 with why in err (bad syntax, a ratio below 1, an unknown
 * metric: the known ones listed). */
int cmp_parse_limit(const char *arg, struct cmp_limit *out, char *err, size_t errlen);

/* ---- compare_side.c: one report.json read back ---- */

struct cmp_side {
    const char *dir;
    struct result *res;    /* a run's or verify's result (result.h); NULL for a summary */
    struct jv *doc;        /* a summary of repeats' report.json, as a tree: it is not a
                              result (summary.c writes it); NULL for a run */
    const char *mode;      /* run, verify or repeat */
    const char *verdict;   /* "?" when absent */
    const char *scenario;  /* "?" when absent */
    const char *error;     /* why the run could not run, or NULL */
    bool summary;          /* mode repeat */
    bool interrupted;      /* "interrupted": true (the workload ended early) */
    double repetitions;    /* a summary's; 0 when not given */
    const char **faults;   /* fault names in report order */
    size_t nfaults;
};

/* Reads DIR/report.json.  0, or -1 with err naming the file and why. */
int cmp_side_load(struct cmp_side *s, const char *dir, char *err, size_t errlen);
void cmp_side_free(struct cmp_side *s);

bool cmp_side_has_fault(const struct cmp_side *s, const char *fault);

/* The value of metric m (of fault, or the run's when fault is NULL) and
 * statistic stat (NULL for a run-vs-run row). */
struct cmp_value cmp_side_value(const struct cmp_side *s, const char *fault,
                                const struct cmp_metric *m, const char *stat);

/* ---- compare_rule.c: what to warn of ---- */

/* A reason to read the comparison with care: kind is a fixed word for
 * scripts (scenarios-differ, verify, summary-vs-run, interrupted,
 * unknown-verdict), text says it for people. */
struct cmp_warning {
    const char *kind;
    char text[512];
};
#define CMP_MAX_WARNINGS 8

/* The warnings for sides a and b (their mode, scenario, verdict,
 * interrupted and repetitions only), at most CMP_MAX_WARNINGS into out.
 * How many. */
size_t cmp_warnings(const struct cmp_side *a, const struct cmp_side *b,
                    struct cmp_warning out[CMP_MAX_WARNINGS]);

/* Whether compare knows this verdict: pass, fail, error, interrupted. */
bool cmp_verdict_known(const char *verdict);

/* Whether the side was interrupted ("interrupted": true, or that verdict):
 * its workload was cut short, so B fails the comparison as one that could
 * not run does. */
bool cmp_side_cut_short(const struct cmp_side *s);

/* ---- compare.c / compare_print.c: the result ---- */

struct cmp_row {
    const char *fault; /* NULL: the run's */
    const struct cmp_metric *metric;
    const char *stat;  /* NULL when both sides are runs, and for pass_rate */
    struct cmp_value a, b;
    struct cmp_judgement j;
};

/* An expectation of B that failed: a run's from its result, a summary's
 * rule as its report.json has it (one of the two). */
struct cmp_failed {
    const struct result_expect *x;
    const struct jv *rule;
};

/* A row worse than a --worse limit allows. */
struct cmp_breach {
    const struct cmp_limit *limit;
    const struct cmp_row *row;
};

struct cmp_result {
    const struct cmp_side *a, *b;
    struct cmp_row *rows;
    size_t nrows;
    const struct cmp_limit *limits; /* the --worse limits given */
    size_t nlimits;
    size_t nchecked; /* rows at least one limit checks: the ones that count */
    struct cmp_warning warnings[CMP_MAX_WARNINGS];
    size_t nwarnings;
    const char **only_a, **only_b; /* faults on one side only */
    size_t nonly_a, nonly_b;
    struct cmp_failed *failed; /* B's expectations with pass false */
    size_t nfailed;
    struct cmp_breach *breaches;
    size_t nbreaches;
    int exit;
};

/* Whether --worse limit l checks row: its metric, its fault (or any), its
 * statistic (or every one) (compare_rule.c, as the next). */
bool cmp_row_matches(const struct cmp_row *row, const struct cmp_limit *l);

/* Whether row is beyond limit l (a breach of r). */
bool cmp_row_beyond(const struct cmp_result *r, const struct cmp_row *row,
                    const struct cmp_limit *l);

void cmp_print_text(FILE *f, const struct cmp_result *r);
void cmp_print_json(FILE *f, const struct cmp_result *r);

#endif
