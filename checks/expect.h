/*
 * expect — what a scenario says must hold, and whether it held.
 *
 *   [expect]
 *   lost_writes = 0          # integrity: the rules every run has anyway
 *   errors <= 10             # availability: what this outage may cost
 *   max_stall <= 20s
 *   recovery <= 30s
 *   detected_corrupt >= 1
 *
 *   [fault bounce]
 *   expect_stall <= 8s       # the same, for one fault's window
 *
 * With repeat = N (repeat.h) a metric with a suffix _min, _p50, _p95,
 * _max, _mean or _sd is that statistic over the repetitions
 * (`recovery_p95 <= 8s`, `expect_stall_p95 <= 5s`), and pass_rate is the
 * share of repetitions that passed (`pass_rate = 100%`).  Each repetition
 * checks the plain rules; only the summary checks these.
 *
 * Every metric is a number: a count, or seconds (written as a duration).
 * The integrity metrics (lost_writes, stale_reads, torn, misdirected,
 * corrupt, zeroed, io_errors, missing_files, unexpected_files, wrong_sizes),
 * hung and lost_clients must be 0 unless the scenario says otherwise about
 * that metric:
 * those are the integrity rules, and the
 * verdict is pass only if each of them and every written expectation holds.
 *
 * This module only knows the comparison; the metrics are metric.h's
 * table, the harness measures (verdict.h) and the scenario parser reads
 * the text.
 */
#ifndef FL_EXPECT_H
#define FL_EXPECT_H

#include <stdbool.h>
#include <stddef.h>

#include "metric.h"

enum expect_op { EXP_EQ, EXP_LT, EXP_LE, EXP_GT, EXP_GE };

/* A statistic over the repetitions of a scenario; DS_NONE: one run's value. */
enum dist_stat { DS_NONE, DS_MIN, DS_P50, DS_P95, DS_MAX, DS_MEAN, DS_SD, DS_COUNT };

/* "", "min", "p50", "p95", "max", "mean", "sd". */
extern const char *const dist_stat_names[DS_COUNT];

/* Splits "recovery_p95" into "recovery" (base) and DS_P95; a name without
 * a statistic's suffix is copied whole with DS_NONE. */
enum dist_stat expect_split_stat(const char *name, char *base, size_t n);

/* "=", "==", "<", "<=", ">", ">=" -> op.  -1 when it is none of them. */
int expect_op_parse(const char *text, enum expect_op *op);
const char *expect_op_text(enum expect_op op); /* "=", "<", "<=", ">", ">=" */

struct expect_rule {
    int metric;          /* enum metric_id: the run's (M_*), or a fault's (F_*) when fault >= 0 */
    int fault;           /* -1: [expect]; else the index of the fault */
    enum expect_op op;
    double value;        /* seconds or count */
    int line;            /* in the scenario; 0: an integrity rule nobody wrote */
    enum dist_stat stat; /* DS_NONE, or a statistic over the repetitions */
    char text[80];       /* "max_stall <= 20s", as written */
};

/* Whether `measured` satisfies e.  A value that could not be measured
 * (known = false: a fault that never recovered, no baseline to measure
 * against) never satisfies anything; the report says why. */
bool expect_holds(const struct expect_rule *e, double measured, bool known);

/* The metric's definition. */
const struct metric_def *expect_metric(const struct expect_rule *e);

/* Whether the rule is about the repetitions (a statistic, pass_rate):
 * only the summary of repeats checks it. */
bool expect_over_repeats(const struct expect_rule *e);

#endif
