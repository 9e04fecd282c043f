/* metric — see metric.h.  The table is the reference of every metric. */
#include "metric.h"

#include <limits.h>
#include <string.h>

#define RUN .scope = SCOPE_RUN
#define FAULT .scope = SCOPE_FAULT
#define SECONDS .unit = UNIT_SECONDS
#define INTEGRITY .integrity = true
/* compare takes a fault's metric from runs and summaries alike */
#define CMP_BOTH .compare_from = CMP_FROM_RUN | CMP_FROM_SUMMARY

const struct metric_def metric_table[METRIC_COUNT] = {
    [M_LOST_WRITES] = {"lost_writes", RUN, "lost_writes", INTEGRITY,
                       .help = "reads that found an older generation than a durable write"},
    [M_STALE_READS] = {"stale_reads", RUN, "stale_reads", INTEGRITY,
                       .help = "reads older than the newest acknowledged write, with nothing to "
                               "allow it"},
    [M_TORN] = {"torn", RUN, "torn", INTEGRITY,
                .help = "reads with sectors of different generations"},
    [M_MISDIRECTED] = {"misdirected", RUN, "misdirected", INTEGRITY,
                       .help = "reads that found another block's (or target's) data"},
    [M_CORRUPT] = {"corrupt", RUN, "corrupt", INTEGRITY,
                   .help = "reads with a bad checksum, not explained by a corrupt fault"},
    [M_ZEROED] = {"zeroed", RUN, "zeroed", INTEGRITY,
                  .help = "reads of zeroes where data was durable, not explained by a corrupt "
                          "fault"},
    [M_IO_ERRORS] = {"io_errors", RUN, "io_errors", INTEGRITY,
                     .help = "failed reads, writes and flushes (as findings); for files also "
                             "failed metadata operations"},
    [M_MISSING_FILES] = {"missing_files", RUN, "missing_files", INTEGRITY,
                         .help = "files: files or directories the tree (or a metadata stream's "
                                 "model) must hold that are not there"},
    [M_UNEXPECTED_FILES] = {"unexpected_files", RUN, "unexpected_files", INTEGRITY,
                            .help = "files: names in the tree that nothing made, or that an "
                                    "operation removed"},
    [M_WRONG_SIZES] = {"wrong_sizes", RUN, "wrong_sizes", INTEGRITY,
                       .help = "files: files with another size than they must have"},
    [M_FINDINGS] = {"findings", RUN, "findings", .summary = 8, .compare = 13,
                    .compare_from = CMP_FROM_RUN,
                    .help = "all findings not explained by a corrupt fault (the sum of the "
                            "above)"},
    [M_DETECTED_CORRUPT] = {"detected_corrupt", RUN, "detected_corrupt",
                            .help = "blocks a corrupt fault overwrote that a read then flagged"},
    [M_UNDETECTED_CORRUPT] = {"undetected_corrupt", RUN, "undetected_corrupt",
                              .help = "blocks a corrupt fault overwrote while they held data of "
                                      "the run, that no read flagged (meaningful with `read = "
                                      "100%`: a rewrite heals a block)"},
    [M_DOUBTFUL_WRITES] = {"doubtful_writes", RUN, "doubtful_writes",
                           .help = "writes that completed only after a reissue on another path"},
    [M_REVERTED] = {"reverted", RUN, "reverted", .summary = 9,
                    .help = "reads that found an older generation a power loss allowed (a fault "
                            "with `loses = unflushed`): not a finding"},
    [M_ERRORS] = {"errors", RUN, "errors", .summary = 7, .compare = 12,
                  .compare_from = CMP_FROM_RUN, .compare_name = "run_errors",
                  .help = "I/Os that failed, workload and sweep"},
    [M_HUNG] = {"hung", RUN, "hung", INTEGRITY, .compare = 14, .compare_from = CMP_FROM_RUN,
                .help = "I/Os in flight on a worker whose oldest I/O passed `hung_after` (the "
                        "no-progress watchdog)"},
    [M_LOST_CLIENTS] = {"lost_clients", RUN, "lost_clients", INTEGRITY,
                        .help = "several clients: clients (MPI ranks) that did not report by "
                                "the end of the run plus grace"},
    [M_MAX_STALL] = {"max_stall", RUN, "max_stall_s", SECONDS, .summary = 1, .compare = 11,
                     CMP_BOTH,
                     .help = "the longest span of the workload without a successful read or "
                             "write"},
    [M_RECOVERY] = {"recovery", RUN, "recovery_s", SECONDS, .summary = 2,
                    .help = "the longest `recovery_s` of any fault (one that never recovered "
                            "fails it)"},
    [M_HEAL] = {"heal", RUN, "heal_s", SECONDS, .summary = 3,
                .help = "gluster lab or `[cluster]`: the longest `heal_s` of any fault (one "
                        "whose volume never healed within `heal_wait` fails it)"},
    [M_RECOVER] = {"recover", RUN, "recover_s", SECONDS, .summary = 4,
                   .help = "ceph lab or `[cluster]`: the longest `recover_s` of any fault (one "
                           "after which the cluster never recovered within `heal_wait` fails "
                           "it)"},
    [M_MAX_LATENCY] = {"max_latency", RUN, "max_latency_s", SECONDS, .summary = 5,
                       .help = "the slowest I/O of the workload"},
    [M_IOPS] = {"iops", RUN, "iops", .worse = WORSE_LOWER, .summary = 6, .compare = 10, CMP_BOTH,
                .help = "reads and writes per second over the workload"},
    [M_PASS_RATE] = {"pass_rate", RUN, "pass_rate", .unit = UNIT_PERCENT, .worse = WORSE_LOWER,
                     .compare = 9, .compare_from = CMP_FROM_SUMMARY,
                     .help = "`repeat = N`: the share of repetitions that passed, as N% "
                             "(default 100%: `pass_rate >= 90%` allows one in ten to fail)"},

    [F_STALL] = {"stall", FAULT, "stall_s", SECONDS, .summary = 1, .compare = 1, CMP_BOTH,
                 .help = "`stall_s`: the longest span without a successful I/O that overlaps "
                         "the fault"},
    [F_RECOVERY] = {"recovery", FAULT, "recovery_s", SECONDS, .summary = 2, .compare = 2,
                    CMP_BOTH,
                    .help = "`recovery_s`: inject until throughput holds 90% of the baseline "
                            "for 1 s"},
    [F_IMPACT] = {"impact", FAULT, "impact_s", SECONDS, .summary = 3, .compare = 3, CMP_BOTH,
                  .help = "`impact_s`: inject until throughput falls below half the baseline or "
                          "an error"},
    [F_ERRORS] = {"errors", FAULT, "errors", .summary = 4, .compare = 4, CMP_BOTH,
                  .help = "I/Os that failed from inject until recovery"},
    [F_MAX_LATENCY] = {"max_latency", FAULT, "max_latency_s", SECONDS, .summary = 5,
                       .compare = 8, CMP_BOTH,
                       .help = "`max_latency_s`: the slowest I/O completing from inject until "
                               "recovery"},
    [F_FIRST_IO_AFTER_INJECT] = {"first_io_after_inject", FAULT, "first_io_after_inject_s",
                                 SECONDS, .summary = 6,
                                 .help = "`first_io_after_inject_s`: the first successful I/O "
                                         "after inject"},
    [F_FIRST_IO_AFTER_CLEAR] = {"first_io_after_clear", FAULT, "first_io_after_clear_s", SECONDS,
                                .summary = 7, .compare = 7, CMP_BOTH,
                                .help = "`first_io_after_clear_s`: the first successful I/O "
                                        "after clear"},
    [F_HEAL] = {"heal", FAULT, "heal_s", SECONDS, .summary = 8, .compare = 5, CMP_BOTH,
                .help = "`heal_s`: clear until `gluster volume heal VOL info` shows nothing "
                        "pending (gluster lab)"},
    [F_RECOVER] = {"recover", FAULT, "recover_s", SECONDS, .summary = 9, .compare = 6, CMP_BOTH,
                   .help = "`recover_s`: clear until `ceph status` says HEALTH_OK with every "
                           "placement group active+clean (ceph lab; asked every 2 s)"},
};

int metric_find(enum metric_scope scope, const char *name)
{
    for (int i = 0; i < METRIC_COUNT; i++)
        if (metric_table[i].scope == scope && strcmp(metric_table[i].name, name) == 0)
            return i;
    return -1;
}

int metric_listed(enum metric_listing which, int scope, int out[METRIC_COUNT])
{
    int n = 0;
    for (int place = 1; place <= UCHAR_MAX; place++)
        for (int i = 0; i < METRIC_COUNT; i++) {
            const struct metric_def *m = &metric_table[i];
            int at = which == LIST_SUMMARY ? m->summary : m->compare;
            if (at == place && (scope < 0 || m->scope == (enum metric_scope)scope))
                out[n++] = i;
        }
    return n;
}

const char *metric_compare_name(const struct metric_def *m)
{
    return m->compare_name ? m->compare_name : m->key;
}

const char *metric_unit_word(const struct metric_def *m)
{
    return m->unit == UNIT_SECONDS ? "duration" : m->unit == UNIT_PERCENT ? "percent" : "count";
}
