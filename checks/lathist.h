/*
 * lathist — a log-bucketed latency histogram with percentile queries.
 *
 * HDR-style: latencies are counted in microseconds; below 32 us each
 * microsecond has its own bin, and from there on every power-of-two range
 * [2^m, 2^(m+1)) us is split into LATHIST_SUB = 32 linear sub-bins of
 * width 2^(m-5) us.  Ranges run up to 2^37 us (38 hours): past the longest
 * hung_after a scenario may set (a day, harness/scenario.c).  A longer
 * latency falls into the last bin; the exact maximum is kept besides.
 *
 * Accuracy: a percentile is reported as the middle of its bin, clamped to
 * the exact maximum, so it is off by at most half a bin: 1/64 = 1.57% of
 * the value from 32 us to 38 hours (a 30 s stall reads 30 s +- 0.47 s;
 * fio's histograms lose their resolution near 17 s), and at most 0.5 us
 * below 32 us.  Percentiles are by nearest rank: pXX is the smallest
 * latency with at least XX% of the completions at or below it.
 *
 * The bins are laid out in LATHIST_ROWS rows of LATHIST_SUB: row 0 is
 * [0, 32) us, row k >= 1 the power-of-two range [2^(k+4), 2^(k+5)) us.
 * buckets.h keeps, per time bucket, only the rows that bucket touched.
 *
 * A struct lathist is fixed-size (8.3 KiB), adding is a few
 * instructions and no allocation, and two of them merge by adding their
 * bins: each worker keeps its own and they are summed at the end.
 */
#ifndef FL_LATHIST_H
#define FL_LATHIST_H

#include <stdbool.h>
#include <stdint.h>

#define LATHIST_SUB 32
#define LATHIST_ROWS 33
#define LATHIST_BINS (LATHIST_ROWS * LATHIST_SUB)

struct lathist {
    uint64_t n;      /* completions counted */
    uint64_t max_ns; /* the slowest, exact */
    uint64_t count[LATHIST_BINS];
};

void lathist_clear(struct lathist *h);

/* The bin a latency falls into (0 .. LATHIST_BINS - 1). */
unsigned lathist_bin(uint64_t ns);

/* The middle of bin i, in ns: what a percentile in it reports. */
uint64_t lathist_bin_mid_ns(unsigned i);

void lathist_add(struct lathist *h, uint64_t ns);

/* Adds n completions to bin i (from a compact copy of the bins). */
void lathist_add_bin(struct lathist *h, unsigned i, uint64_t n);

/* to += from. */
void lathist_merge(struct lathist *to, const struct lathist *from);

/* The pct-th percentile (0 < pct <= 100) in ns; false when the histogram
 * is empty. */
bool lathist_percentile(const struct lathist *h, double pct, uint64_t *ns);

#endif
