/*
 * buckets — what completed when, in fixed slices of time (default 100 ms).
 *
 * Every worker counts its own completions into its own array (no locks on
 * the I/O path); the main thread samples, once per bucket, how many I/Os are
 * in flight and how old the oldest one is.  At the end the arrays are
 * summed into one series: DIR/timeline.csv, the plots of report.html, and
 * the input of the recovery analysis (recovery.h).
 *
 * Besides counts, each bucket keeps the first and last completion time, so
 * that a stall (no completion at all) is measured from the last completion
 * before it to the first one after it, not in whole buckets.
 */
#ifndef FL_BUCKETS_H
#define FL_BUCKETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BUCKET_NONE UINT64_MAX

struct bucket {
    uint32_t reads, writes, flushes, errors;
    uint64_t bytes;
    uint64_t lat_max_ns;
    uint64_t first_ns, last_ns;       /* any completion, ns since time zero */
    uint64_t first_ok_ns, last_ok_ns; /* successful reads and writes */
    /* sampled by the main thread at the end of the bucket */
    uint32_t inflight;
    uint64_t oldest_age_ns;
};

struct buckets {
    uint64_t width_ns;
    size_t n;          /* how many the arrays hold */
    size_t used;       /* highest bucket touched + 1 */
    struct bucket *b;
};

/* Room for `span_ns` of buckets of `width_ns`.  0, or -1 (memory). */
int buckets_init(struct buckets *s, uint64_t width_ns, uint64_t span_ns);
void buckets_free(struct buckets *s);

/* One completion at t_ns (ns since time zero), latency lat_ns. */
void buckets_add(struct buckets *s, uint64_t t_ns, bool read, bool write, bool ok,
                 uint64_t bytes, uint64_t lat_ns);

/* Adds every bucket of `from` into `to` (same width). */
void buckets_merge(struct buckets *to, const struct buckets *from);

/* Writes DIR/timeline.csv.  0, or -1 with err. */
int buckets_write_csv(const struct buckets *s, const char *dir, char *err, size_t errlen);

/* I/Os per second of bucket i (reads and writes). */
double bucket_iops(const struct buckets *s, size_t i);

#endif
