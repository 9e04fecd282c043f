/*
 * verdict — pass or fail, and why, from everything a run measured.
 *
 * One place turns findings, faults and recovery numbers into the metrics
 * of expect.h, adds the integrity rules the scenario did not restate
 * (lost_writes = 0, ..., hung = 0), and checks every rule.  A finding on a
 * block that a corrupt fault of this run overwrote, read after the fault,
 * is the detection the fault was there to provoke: it counts as
 * detected_corrupt, not against the integrity rules.
 *
 * The reports (report.h) only print what this computed.
 */
#ifndef FL_VERDICT_H
#define FL_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../checks/expect.h"
#include "../checks/findings.h"
#include "../checks/recovery.h"
#include "../faults/fault.h"
#include "../workloads/backend.h"
#include "scenario.h"

struct expect_result {
    struct expect_rule rule;
    double measured;
    bool known;    /* false: could not be measured (why says so) */
    bool pass;
    char why[96];  /* for unknown values: "never recovered", ... */
};

struct verdict_input {
    const struct scenario *sc;
    bool run;                        /* false: `faultline verify` (integrity rules only) */
    const struct findings *findings;
    const struct fault *faults;
    unsigned nfaults;
    const struct recovery *recovery; /* one per fault; NULL for verify */
    uint32_t block_size;
    uint64_t nblocks;
    /* whether a block held data of the run (was ever written) */
    bool (*written)(void *ctx, uint64_t block);
    void *written_ctx;
    const struct io_stats *io, *sweep;
    uint64_t doubtful_writes, hung;
    unsigned clients, lost_clients; /* a run over several clients (MPI ranks): 0 alone */
    double max_stall_s;              /* over the whole workload; < 0: unknown */
};

struct verdict {
    uint64_t unexplained[CLS_COUNT]; /* bad reads per class the rules count */
    uint64_t explained[CLS_COUNT];   /* bad reads on blocks a corrupt fault overwrote */
    uint64_t corrupted_blocks, detected_corrupt, undetected_corrupt;
    struct expect_result *results;   /* the scenario's rules in file order, then the implicit */
    size_t n;
    size_t failed;
    bool pass;
    double value[M_RUN_COUNT]; /* every run metric, written or not ... */
    bool known[M_RUN_COUNT];   /* ... and whether it could be measured */
};

/* Measures and checks.  0, or -1 when out of memory. */
int verdict_evaluate(const struct verdict_input *in, struct verdict *v);
void verdict_free(struct verdict *v);

/* The rule as a line for people: "max_stall <= 20s: measured 3.214 s". */
void verdict_describe(const struct expect_result *r, char *out, size_t n);

/* A measured value with its unit: "3.214 s", "12". */
void verdict_value(const struct expect_result *r, char *out, size_t n);

#endif
