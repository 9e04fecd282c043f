/*
 * verdict — pass or fail, and why, from everything a run measured.
 *
 * One place turns findings, faults and recovery numbers into the metrics
 * of checks/metric.h, adds the integrity rules the scenario did not restate
 * (lost_writes = 0, ..., hung = 0), and checks every rule.  A finding on a
 * block that a corrupt fault of this run overwrote, read after the fault,
 * is the detection the fault was there to provoke: it counts as
 * detected_corrupt, not against the integrity rules.
 *
 * It also says what did not happen as the scenario wrote it: a fault whose
 * inject failed, that never came (its time after the end of the workload),
 * whose agent never answered, or whose clear failed.  A run whose outage
 * did not happen proves nothing about that outage, so the outcome is then
 * `error` (exit 2: the test could not be run as written), not pass.  An
 * interrupted run (SIGINT, SIGTERM) is never pass either.  In order:
 *
 *   error        the run could not go on (report.error; not decided here)
 *   fail         something was found: an integrity rule did not hold, or a
 *                rule failed on a measured value
 *   interrupted  a signal cut the workload or the sweep short (exit 128 +
 *                the signal: 130 for SIGINT, 143 for SIGTERM)
 *   error        a fault did not happen as written (exit 2)
 *   fail         a rule failed on a value that could not be measured
 *                ("never recovered")
 *   pass
 *
 * The reports (report.h) only print what this computed.
 */
#ifndef FL_VERDICT_H
#define FL_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../checks/expect.h"
#include "../../checks/findings.h"
#include "../../checks/recovery.h"
#include "../../faults/runtime.h"
#include "../../workloads/backend.h"
#include "../scenario/scenario.h"

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
    uint64_t end_ns;                 /* the workload's planned end (its duration) */
    int interrupted;                 /* the signal that cut the run short; 0: none */
    bool abandoned;                  /* workers were left waiting on the target: the
                                        sweep did not read every block (never pass) */
};

/* A fault that did not happen as the scenario wrote it, and why. */
struct fault_miss {
    unsigned fault;    /* index in verdict_input.faults */
    bool counts;       /* false: explained by the interruption, not counted */
    char why[1200];
};

enum verdict_outcome {
    OUTCOME_PASS,
    OUTCOME_FAIL,        /* exit 1 */
    OUTCOME_INTERRUPTED, /* exit 128 + signal */
    OUTCOME_NOT_AS_WRITTEN, /* a fault did not happen: exit 2 */
};

struct verdict {
    uint64_t unexplained[CLS_COUNT]; /* bad reads per class the rules count */
    uint64_t explained[CLS_COUNT];   /* bad reads on blocks a corrupt fault overwrote */
    uint64_t corrupted_blocks, detected_corrupt, undetected_corrupt;
    struct expect_result *results;   /* the scenario's rules in file order, then the implicit */
    size_t n;
    size_t failed;
    bool pass;                       /* every rule held (the outcome says more) */
    enum verdict_outcome outcome;
    int signal;                      /* OUTCOME_INTERRUPTED: which signal */
    bool abandoned;                  /* verdict_input's: pass is not possible */
    struct fault_miss *missed;       /* faults that did not happen as written */
    size_t nmissed, nmissed_counted;
    double value[M_RUN_COUNT]; /* every run metric, written or not ... */
    bool known[M_RUN_COUNT];   /* ... and whether it could be measured */
};

/* Measures and checks.  0, or -1 when out of memory. */
int verdict_evaluate(const struct verdict_input *in, struct verdict *v);
void verdict_free(struct verdict *v);

/* The outcome as a word ("pass", "fail", "interrupted", "error") and as
 * an exit status (0, 1, 128 + signal, 2). */
const char *verdict_word(const struct verdict *v);
int verdict_exit_code(const struct verdict *v);

/* Whether fault f happened as written (false: why says what did not),
 * in a workload that was planned to end at end_ns and was cut short by
 * signal `interrupted` (0: none). */
bool verdict_fault_happened(const struct fault *f, uint64_t end_ns, int interrupted, char *why,
                            size_t n);

#endif
