/*
 * metric — the one table of what a run measures.
 *
 * Every metric is one line of metric_table (metric.c): its name as a
 * scenario writes it, its key in report.json, its unit, whether it is the
 * run's or each fault's, which way is worse, whether it is an integrity
 * rule, where the summary of repeats and `faultline compare` list it, and
 * its help.  Everything that names a metric reads it from there:
 *
 *   the [expect] parser and `faultline help scenario`   harness/scenario/
 *   `faultline help metrics`, docs/scenario.md and
 *   faultline-scenario(5), generated from it            harness/scenario/
 *   the verdict's values and report.json's `measured`   harness/judge/verdict.c
 *   the summary of repeats: what it always lists        harness/report/summary.c
 *   `faultline compare`: its rows and --worse names     harness/compare/
 *
 * Adding a metric is one line here plus the code that measures it: a run
 * metric in the verdict's measure_run (verdict.c), a fault metric in its
 * measure_fault and, for report.json's faults[], in the report's
 * json_recovery.
 *
 *   [expect]
 *   max_stall <= 20s          run metric "max_stall", key "max_stall_s"
 *   [fault bounce]
 *   expect_stall <= 8s        fault metric "stall", key faults[].stall_s
 */
#ifndef FL_METRIC_H
#define FL_METRIC_H

#include <stdbool.h>

/* The metrics, run's first.  A rule keeps its metric as one of these. */
enum metric_id {
    /* the whole run's ([expect]) */
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
    M_RECOVER,
    M_MAX_LATENCY,
    M_IOPS,
    M_PASS_RATE, /* repetitions that passed, in percent (repeats only) */
    /* each fault's (expect_NAME in its [fault] section) */
    F_STALL,
    F_RECOVERY,
    F_IMPACT,
    F_ERRORS,
    F_MAX_LATENCY,
    F_FIRST_IO_AFTER_INJECT,
    F_FIRST_IO_AFTER_CLEAR,
    F_HEAL,
    F_RECOVER,
    METRIC_COUNT
};

/* The run's metrics are 0..M_RUN_COUNT-1, the faults' F_FIRST..METRIC_COUNT-1. */
#define M_RUN_COUNT F_STALL
#define F_FIRST F_STALL

enum metric_scope { SCOPE_RUN, SCOPE_FAULT };
enum metric_unit { UNIT_COUNT, UNIT_SECONDS, UNIT_PERCENT };
enum metric_worse { WORSE_HIGHER, WORSE_LOWER }; /* iops and pass_rate: lower is worse */

/* Which reports `faultline compare` takes a metric from. */
enum { CMP_FROM_RUN = 1, CMP_FROM_SUMMARY = 2 };

struct metric_def {
    const char *name;          /* in [expect]; a fault's as expect_NAME */
    enum metric_scope scope;
    const char *key;           /* report.json's: faults[].KEY of a fault's; of the run's,
                                  the summary's metrics[].metric (a run's report has it in
                                  `measured` by name) */
    enum metric_unit unit;
    enum metric_worse worse;
    bool integrity;            /* 0 unless the scenario says otherwise (run's only) */
    unsigned char summary;     /* the summary of repeats always lists it, at this place
                                  (1, 2, ...; per fault for a fault's); 0: when a rule names it */
    unsigned char compare;     /* `faultline compare` sets it side by side, at this place of
                                  its list; 0: it does not */
    unsigned char compare_from;/* CMP_FROM_RUN | CMP_FROM_SUMMARY */
    const char *compare_name;  /* compare's name when not the key (NULL: the key) */
    const char *help;
};

extern const struct metric_def metric_table[METRIC_COUNT];

/* The metric of that scope by name ("max_stall", or a fault's "stall"), or -1. */
int metric_find(enum metric_scope scope, const char *name);

/* Where a metric is listed: the summary of repeats, `faultline compare`. */
enum metric_listing { LIST_SUMMARY, LIST_COMPARE };

/* The ids of the metrics a listing has, in the order of their places:
 * those of `scope` (SCOPE_RUN, SCOPE_FAULT), or of both when scope is -1.
 * Returns how many. */
int metric_listed(enum metric_listing which, int scope, int out[METRIC_COUNT]);

/* The metric's compare name: compare_name, or else its key. */
const char *metric_compare_name(const struct metric_def *m);

/* A metric's unit as a scenario's reference says it: "duration", "count",
 * "percent". */
const char *metric_unit_word(const struct metric_def *m);

#endif
