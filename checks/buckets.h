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
 *
 * Latency percentiles: each bucket keeps a latency histogram of its
 * completions (lathist.h, bins within 1.6%), compactly: only the rows (one
 * power-of-two range of 32 bins, 128 bytes) that its completions touched,
 * taken from the series' pool of rows, which grows in chunks and never
 * moves (a worker adds to its own series, so no locks).  A bucket costs
 * 232 bytes plus 128 per latency range it saw: a 10-minute run at 100 ms
 * buckets whose I/Os span three ranges holds about 3.8 MB per worker and
 * the same again for the merged series (a dense histogram per bucket would
 * take 8.3 KiB each, 53 MB).
 *
 * Who carried the I/O: a backend with several paths (iSCSI portals) tells
 * which one each I/O completed over; each bucket counts the successful
 * reads and writes per path (the first BUCKET_PATHS paths).
 */
#ifndef FL_BUCKETS_H
#define FL_BUCKETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lathist.h"

#define BUCKET_NONE UINT64_MAX
#define BUCKET_PATHS 4 /* paths counted per bucket */

struct bucket {
    uint32_t reads, writes, flushes, errors;
    uint64_t bytes;
    uint64_t lat_max_ns;
    uint64_t first_ns, last_ns;       /* any completion, ns since time zero */
    uint64_t first_ok_ns, last_ok_ns; /* successful reads and writes */
    /* sampled by the main thread at the end of the bucket */
    uint32_t inflight;
    uint64_t oldest_age_ns;
    /* latency histogram: 1 + index into the series' pool of the row for
     * each power-of-two range (lathist.h), 0 where nothing fell */
    uint32_t lat_row[LATHIST_ROWS];
    uint32_t path_ios[BUCKET_PATHS]; /* successful reads and writes per path */
};

struct buckets {
    uint64_t width_ns;
    size_t n;          /* how many the arrays hold */
    size_t used;       /* highest bucket touched + 1 */
    struct bucket *b;
    /* the pool of latency rows: chunks of BUCKET_ROW_CHUNK rows, allocated
     * as needed, never moved */
    uint32_t (**row_chunk)[LATHIST_SUB];
    size_t row_chunks; /* room in row_chunk */
    size_t rows;       /* rows handed out */
    uint64_t lat_lost; /* completions left out of the histograms (no memory) */
    unsigned npaths;   /* paths named (timeline.csv's path_N_ios columns) */
};

#define BUCKET_ROW_CHUNK 1024

/* Room for `span_ns` of buckets of `width_ns`.  0, or -1 (memory). */
int buckets_init(struct buckets *s, uint64_t width_ns, uint64_t span_ns);
void buckets_free(struct buckets *s);

/* One completion at t_ns (ns since time zero), latency lat_ns. */
void buckets_add(struct buckets *s, uint64_t t_ns, bool read, bool write, bool ok,
                 uint64_t bytes, uint64_t lat_ns);

/* The backend's path (0-based) that a successful read or write at t_ns
 * completed over (path >= BUCKET_PATHS: not counted). */
void buckets_path(struct buckets *s, uint64_t t_ns, unsigned path);

/* Adds every bucket of `from` into `to` (same width), histograms and
 * path counts too. */
void buckets_merge(struct buckets *to, const struct buckets *from);

/* The latency histogram of buckets [first, last] together (out cleared
 * first); its maximum is the buckets' exact one. */
void buckets_latency(const struct buckets *s, size_t first, size_t last, struct lathist *out);

/* Row k of the pool (k < s->rows). */
uint32_t *buckets_row(const struct buckets *s, size_t k);

/* Makes the pool hold n rows, zeroed (decoding a received series).  0, or
 * -1 (memory). */
int buckets_rows_reserve(struct buckets *s, size_t n);

/* Writes DIR/timeline.csv.  0, or -1 with err. */
int buckets_write_csv(const struct buckets *s, const char *dir, char *err, size_t errlen);

/* I/Os per second of bucket i (reads and writes). */
double bucket_iops(const struct buckets *s, size_t i);

#endif
