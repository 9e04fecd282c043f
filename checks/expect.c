/* expect — see expect.h.  The tables are the reference of [expect]. */
#include "expect.h"

#include <stdio.h>
#include <string.h>

const struct metric_def run_metrics[M_RUN_COUNT] = {
    [M_LOST_WRITES] = {"lost_writes", false, true,
                       "reads that found an older generation than a durable write"},
    [M_STALE_READS] = {"stale_reads", false, true,
                       "reads older than the newest acknowledged write, with nothing to allow it"},
    [M_TORN] = {"torn", false, true, "reads with sectors of different generations"},
    [M_MISDIRECTED] = {"misdirected", false, true,
                       "reads that found another block's (or target's) data"},
    [M_CORRUPT] = {"corrupt", false, true,
                   "reads with a bad checksum, not explained by a corrupt fault"},
    [M_ZEROED] = {"zeroed", false, true,
                  "reads of zeroes where data was durable, not explained by a corrupt fault"},
    [M_IO_ERRORS] = {"io_errors", false, true, "blocks whose read, write or flush failed"},
    [M_MISSING_FILES] = {"missing_files", false, true,
                         "files or directories a file tree must hold that are not there"},
    [M_UNEXPECTED_FILES] = {"unexpected_files", false, true,
                            "names in a file tree that must not be there"},
    [M_WRONG_SIZES] = {"wrong_sizes", false, true, "files with another size than they must have"},
    [M_FINDINGS] = {"findings", false, false,
                    "all findings not explained by a corrupt fault (the sum of the above)"},
    [M_DETECTED_CORRUPT] = {"detected_corrupt", false, false,
                            "blocks a corrupt fault overwrote that a read then flagged"},
    [M_UNDETECTED_CORRUPT] = {"undetected_corrupt", false, false,
                              "blocks a corrupt fault overwrote while they held data of the run, "
                              "that no read flagged (meaningful with read = 100%: a rewrite "
                              "heals a block)"},
    [M_DOUBTFUL_WRITES] = {"doubtful_writes", false, false,
                           "writes that completed only after a reissue on another path"},
    [M_REVERTED] = {"reverted", false, false,
                    "reads that found an older generation a power loss allowed (a fault with "
                    "loses = unflushed): not a finding"},
    [M_ERRORS] = {"errors", false, false, "I/Os that failed, workload and sweep"},
    [M_HUNG] = {"hung", false, true,
                "I/Os outstanding longer than hung_after (the no-progress watchdog)"},
    [M_LOST_CLIENTS] = {"lost_clients", false, true,
                        "clients (MPI ranks) of a run over several that did not report by the "
                        "end of the run plus grace"},
    [M_MAX_STALL] = {"max_stall", true, false,
                     "the longest span of the workload without a successful read or write"},
    [M_RECOVERY] = {"recovery", true, false,
                    "the longest recovery_s of any fault (a fault that never recovered fails it)"},
    [M_HEAL] = {"heal", true, false,
                "the longest heal_s of any fault (gluster lab: clear until nothing is left to "
                "heal; one that never healed fails it)"},
    [M_RECOVER] = {"recover", true, false,
                   "the longest recover_s of any fault (ceph lab: clear until HEALTH_OK with "
                   "every placement group active+clean; one that never recovered fails it)"},
    [M_MAX_LATENCY] = {"max_latency", true, false, "the slowest I/O of the workload"},
    [M_IOPS] = {"iops", false, false, "reads and writes per second over the workload"},
    [M_PASS_RATE] = {"pass_rate", false, false,
                     "repeat = N: the share of repetitions that passed, as N% (default 100%)",
                     true},
};

const char *const dist_stat_names[DS_COUNT] = {"", "min", "p50", "p95", "max", "mean", "sd"};

enum dist_stat expect_split_stat(const char *name, char *base, size_t n)
{
    size_t len = strlen(name);
    for (int s = DS_COUNT - 1; s > DS_NONE; s--) {
        size_t sl = strlen(dist_stat_names[s]);
        if (len > sl + 1 && name[len - sl - 1] == '_' &&
            strcmp(name + len - sl, dist_stat_names[s]) == 0) {
            snprintf(base, n, "%.*s", (int)(len - sl - 1), name);
            return (enum dist_stat)s;
        }
    }
    snprintf(base, n, "%s", name);
    return DS_NONE;
}

const struct metric_def fault_metrics[F_COUNT] = {
    [F_STALL] = {"stall", true, false,
                 "stall_s: the longest span without a successful I/O that overlaps the fault"},
    [F_RECOVERY] = {"recovery", true, false,
                    "recovery_s: inject until throughput holds 90% of the baseline for 1 s"},
    [F_IMPACT] = {"impact", true, false,
                  "impact_s: inject until throughput falls below half the baseline or an error"},
    [F_ERRORS] = {"errors", false, false, "I/Os that failed from inject until recovery"},
    [F_MAX_LATENCY] = {"max_latency", true, false,
                       "max_latency_s: the slowest I/O completing from inject until recovery"},
    [F_FIRST_IO_AFTER_INJECT] = {"first_io_after_inject", true, false,
                                 "first_io_after_inject_s: the first successful I/O after inject"},
    [F_FIRST_IO_AFTER_CLEAR] = {"first_io_after_clear", true, false,
                                "first_io_after_clear_s: the first successful I/O after clear"},
    [F_HEAL] = {"heal", true, false,
                "heal_s: clear until `gluster volume heal VOL info` shows nothing pending "
                "(gluster lab)"},
    [F_RECOVER] = {"recover", true, false,
                   "recover_s: clear until `ceph status` says HEALTH_OK with every placement "
                   "group active+clean (ceph lab)"},
};

int run_metric_find(const char *name)
{
    for (int i = 0; i < M_RUN_COUNT; i++)
        if (strcmp(run_metrics[i].name, name) == 0)
            return i;
    return -1;
}

int fault_metric_find(const char *name)
{
    for (int i = 0; i < F_COUNT; i++)
        if (strcmp(fault_metrics[i].name, name) == 0)
            return i;
    return -1;
}

int expect_op_parse(const char *text, enum expect_op *op)
{
    static const struct {
        const char *text;
        enum expect_op op;
    } ops[] = {{"=", EXP_EQ}, {"==", EXP_EQ}, {"<", EXP_LT},
               {"<=", EXP_LE}, {">", EXP_GT}, {">=", EXP_GE}};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(ops[i].text, text) == 0) {
            *op = ops[i].op;
            return 0;
        }
    return -1;
}

const char *expect_op_text(enum expect_op op)
{
    switch (op) {
    case EXP_EQ:
        return "=";
    case EXP_LT:
        return "<";
    case EXP_LE:
        return "<=";
    case EXP_GT:
        return ">";
    case EXP_GE:
        return ">=";
    }
    return "?";
}

bool expect_holds(const struct expect_rule *e, double measured, bool known)
{
    if (!known)
        return false;
    /* Durations are measured in ns and written in ms at best: compare to
     * the microsecond so that 0.1 + 0.2 is not "more than 0.3". */
    double eps = expect_metric(e)->seconds ? 1e-6 : 1e-9;
    switch (e->op) {
    case EXP_EQ:
        return measured > e->value - eps && measured < e->value + eps;
    case EXP_LT:
        return measured < e->value - eps;
    case EXP_LE:
        return measured < e->value + eps;
    case EXP_GT:
        return measured > e->value + eps;
    case EXP_GE:
        return measured > e->value - eps;
    }
    return false;
}

const struct metric_def *expect_metric(const struct expect_rule *e)
{
    return e->fault >= 0 ? &fault_metrics[e->metric] : &run_metrics[e->metric];
}

bool expect_over_repeats(const struct expect_rule *e)
{
    return e->stat != DS_NONE || (e->fault < 0 && e->metric == M_PASS_RATE);
}
