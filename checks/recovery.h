/*
 * recovery — what an outage cost, read from the time buckets (buckets.h).
 *
 *   baseline   the median throughput (reads + writes per second) of the
 *              buckets between `warmup` and the first fault: the healthy
 *              system
 *
 * and for each fault, inject at I, clear at C (C = I for an instant fault
 * such as a kill without restart):
 *
 *   impact_s      I until throughput first falls below half the baseline or
 *                 an I/O fails (none: the fault did not hurt); a fall that
 *                 comes after throughput has held 90% for 1 s at or after C
 *                 is the system's own noise, not the fault's
 *   stall_s       the longest span without a successful read or write that
 *                 overlaps [I, C], from the last completion before it to the
 *                 first one after it; exact where it crosses a bucket edge,
 *                 and shorter than a bucket when it does not
 *   recovery_s    I until throughput holds 90% of the baseline for 1 s (a
 *                 rolling mean over a window whose first bucket holds at
 *                 least half the baseline), searched from the impact on; not
 *                 reached before the end of the workload: unknown
 *   errors, max_latency_s   over [I, the later of C and the recovery]
 *   latency_p50_s, latency_p99_s, latency_max_s   the latencies of the I/Os
 *                 that completed in that same window (to the end of the
 *                 workload when it never recovered or never cleared), in
 *                 whole buckets, from their histograms (lathist.h: within
 *                 1.6%; the max is exact); unknown when none completed
 *   first_io_after_inject_s, first_io_after_clear_s   the first successful
 *                 I/O at or after I (and C), to within a bucket
 *
 * Times are ns since the workload started; `end_ns` is where the workload's
 * buckets stop being whole (its duration).
 */
#ifndef FL_RECOVERY_H
#define FL_RECOVERY_H

#include <stdbool.h>
#include <stdint.h>

#include "buckets.h"

struct baseline {
    bool known;
    double iops;
    uint64_t from_ns, to_ns; /* the healthy span it was taken from */
    unsigned buckets;
};

struct recovery {
    bool injected;
    uint64_t inject_ns, clear_ns, until_ns; /* until: the end of what is counted */
    bool impact;                   /* throughput fell or an I/O failed */
    double impact_s;
    double stall_s;
    uint64_t stall_from_ns, stall_to_ns;
    bool recovered;
    double recovery_s;
    uint64_t errors;
    double max_latency_s;
    bool latency_known;            /* something completed in the window */
    double latency_p50_s, latency_p99_s, latency_max_s;
    bool io_after_inject, io_after_clear;
    double first_io_after_inject_s, first_io_after_clear_s;
    bool lasting;                  /* C > I: a clear to measure from */
    bool clear_failed;             /* the clear failed: nothing is measured from it, and
                                      no recovery is claimed (recovered false) */
    /* replicated storage in a lab: clear until it is whole again, in the
     * lab's word (lab_heal): "heal" (gluster: heal_s) or "recover" (ceph:
     * recover_s), the name of the metric it is; whole says what that means */
    bool heal_measured, healed;
    double heal_s;
    const char *heal_word, *heal_whole; /* static strings; NULL unless measured */
};

/* The baseline from buckets in [warmup_ns, first_inject_ns) (first_inject
 * UINT64_MAX: no fault, up to end_ns).  Needs at least 3 whole buckets. */
void recovery_baseline(const struct buckets *s, uint64_t warmup_ns, uint64_t first_inject_ns,
                       uint64_t end_ns, struct baseline *b);

/* Analyses one fault.  horizon_ns: where the next fault starts (or end_ns);
 * a drop after it is not this fault's impact. */
void recovery_analyze(const struct buckets *s, const struct baseline *b, uint64_t inject_ns,
                      uint64_t clear_ns, uint64_t horizon_ns, uint64_t end_ns,
                      struct recovery *r);

/* The longest span without a successful read or write that overlaps
 * [from_ns, to_ns], within [0, end_ns]; its edges in *gap_from, *gap_to.
 * 0 when there is none longer than what a bucket hides. */
uint64_t recovery_longest_gap(const struct buckets *s, uint64_t from_ns, uint64_t to_ns,
                              uint64_t end_ns, uint64_t *gap_from, uint64_t *gap_to);

#endif
