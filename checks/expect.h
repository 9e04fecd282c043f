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
 * Every metric is a number: a count, or seconds (written as a duration).
 * The integrity metrics (lost_writes, stale_reads, torn, misdirected,
 * corrupt, zeroed, io_errors, missing_files, unexpected_files, wrong_sizes),
 * hung and lost_clients must be 0 unless the scenario says otherwise about
 * that metric:
 * those are the integrity rules, and the
 * verdict is pass only if each of them and every written expectation holds.
 *
 * This module only knows the names and the comparison; the harness
 * measures (verdict.h) and the scenario parser reads the text.
 */
#ifndef FL_EXPECT_H
#define FL_EXPECT_H

#include <stdbool.h>
#include <stddef.h>

enum expect_op { EXP_EQ, EXP_LT, EXP_LE, EXP_GT, EXP_GE };

/* Metrics of the whole run ([expect]). */
enum run_metric {
    M_LOST_WRITES,
    M_STALE_READS,
    M_TORN,
    M_MISDIRECTED,
    M_CORRUPT,
    M_ZEROED,
    M_IO_ERRORS,
    M_MISSING_FILES,
    M_UNEXPECTED_FILES,
    M_WRONG_SIZES,
    M_FINDINGS,
    M_DETECTED_CORRUPT,
    M_UNDETECTED_CORRUPT,
    M_DOUBTFUL_WRITES,
    M_REVERTED,
    M_ERRORS,
    M_HUNG,
    M_LOST_CLIENTS,
    M_MAX_STALL,
    M_RECOVERY,
    M_HEAL,
    M_MAX_LATENCY,
    M_IOPS,
    M_RUN_COUNT
};

/* Metrics of one fault (expect_NAME in its [fault] section). */
enum fault_metric {
    F_STALL,
    F_RECOVERY,
    F_IMPACT,
    F_ERRORS,
    F_MAX_LATENCY,
    F_FIRST_IO_AFTER_INJECT,
    F_FIRST_IO_AFTER_CLEAR,
    F_HEAL,
    F_COUNT
};

struct metric_def {
    const char *name;  /* as written in [expect]; fault metrics without "expect_" */
    bool seconds;      /* a duration; else a count */
    bool integrity;    /* 0 unless the scenario says otherwise (run metrics only) */
    const char *help;
};

extern const struct metric_def run_metrics[M_RUN_COUNT];
extern const struct metric_def fault_metrics[F_COUNT];

/* The index of a metric by name, or -1. */
int run_metric_find(const char *name);
int fault_metric_find(const char *name); /* "stall", not "expect_stall" */

/* "=", "==", "<", "<=", ">", ">=" -> op.  -1 when it is none of them. */
int expect_op_parse(const char *text, enum expect_op *op);
const char *expect_op_text(enum expect_op op); /* "=", "<", "<=", ">", ">=" */

struct expect_rule {
    int metric;          /* enum run_metric, or enum fault_metric when fault >= 0 */
    int fault;           /* -1: [expect]; else the index of the fault */
    enum expect_op op;
    double value;        /* seconds or count */
    int line;            /* in the scenario; 0: an integrity rule nobody wrote */
    char text[80];       /* "max_stall <= 20s", as written */
};

/* Whether `measured` satisfies e.  A value that could not be measured
 * (known = false: a fault that never recovered, no baseline to measure
 * against) never satisfies anything; the report says why. */
bool expect_holds(const struct expect_rule *e, double measured, bool known);

/* The metric's definition. */
const struct metric_def *expect_metric(const struct expect_rule *e);

#endif
