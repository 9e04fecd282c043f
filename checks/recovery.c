/* recovery — see recovery.h. */
#include "recovery.h"

#include <stdlib.h>
#include <string.h>

#define ONE_SECOND 1000000000ull

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Buckets wholly inside [0, end_ns): the rest hold a partial slice. */
static size_t whole_buckets(const struct buckets *s, uint64_t end_ns)
{
    size_t n = (size_t)(end_ns / s->width_ns);
    return n < s->used ? n : s->used;
}

void recovery_baseline(const struct buckets *s, uint64_t warmup_ns, uint64_t first_inject_ns,
                       uint64_t end_ns, struct baseline *b)
{
    memset(b, 0, sizeof *b);
    uint64_t to = first_inject_ns < end_ns ? first_inject_ns : end_ns;
    size_t first = (size_t)((warmup_ns + s->width_ns - 1) / s->width_ns);
    size_t last = (size_t)(to / s->width_ns); /* exclusive: the bucket of the inject is mixed */
    size_t whole = whole_buckets(s, end_ns);
    if (last > whole)
        last = whole;
    if (last < first + 3)
        return;
    double *v = malloc((last - first) * sizeof *v);
    if (!v)
        return;
    for (size_t i = first; i < last; i++)
        v[i - first] = bucket_iops(s, i);
    size_t n = last - first;
    qsort(v, n, sizeof *v, by_double);
    b->iops = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    free(v);
    b->known = b->iops > 0;
    b->from_ns = first * s->width_ns;
    b->to_ns = last * s->width_ns;
    b->buckets = (unsigned)n;
}

uint64_t recovery_longest_gap(const struct buckets *s, uint64_t from_ns, uint64_t to_ns,
                              uint64_t end_ns, uint64_t *gap_from, uint64_t *gap_to)
{
    uint64_t best = 0, prev = 0; /* the workload's start counts as progress */
    *gap_from = *gap_to = 0;
    for (size_t i = 0; i < s->used; i++) {
        const struct bucket *k = &s->b[i];
        if (k->first_ok_ns == BUCKET_NONE)
            continue;
        uint64_t gap = k->first_ok_ns > prev ? k->first_ok_ns - prev : 0;
        if (prev <= to_ns && k->first_ok_ns >= from_ns && gap > best) {
            best = gap;
            *gap_from = prev;
            *gap_to = k->first_ok_ns;
        }
        if (k->last_ok_ns > prev)
            prev = k->last_ok_ns;
    }
    /* Nothing completed after the last one until the workload ended. */
    if (end_ns > prev && prev <= to_ns && end_ns >= from_ns && end_ns - prev > best) {
        best = end_ns - prev;
        *gap_from = prev;
        *gap_to = end_ns;
    }
    return best;
}

/* The first successful read or write at or after t: ns after t, or
 * UINT64_MAX.  Inside t's own bucket only "somewhere before last_ok" is
 * known: counted as at once (off by less than a bucket). */
static uint64_t first_ok_after(const struct buckets *s, uint64_t t)
{
    size_t i = (size_t)(t / s->width_ns);
    if (i < s->used && s->b[i].first_ok_ns != BUCKET_NONE && s->b[i].last_ok_ns >= t)
        return s->b[i].first_ok_ns >= t ? s->b[i].first_ok_ns - t : 0;
    for (i++; i < s->used; i++)
        if (s->b[i].first_ok_ns != BUCKET_NONE)
            return s->b[i].first_ok_ns - t;
    return UINT64_MAX;
}

/* The last successful completion before bucket i, or 0. */
static uint64_t last_ok_before(const struct buckets *s, size_t i)
{
    while (i-- > 0)
        if (s->b[i].first_ok_ns != BUCKET_NONE)
            return s->b[i].last_ok_ns;
    return 0;
}

/* The first bucket, from `from` on, that starts a 1 s window whose mean
 * holds 90% of the baseline and whose own throughput is at least half of
 * it (real work, not the tail of a stall that a busy second after it
 * would average away); `whole` when there is none. */
static size_t healthy_window(const struct buckets *s, const struct baseline *b, size_t from,
                             size_t whole)
{
    size_t span = (size_t)((ONE_SECOND + s->width_ns - 1) / s->width_ns);
    double sum = 0;
    for (size_t j = from; j < whole; j++) {
        sum += bucket_iops(s, j);
        if (j >= from + span)
            sum -= bucket_iops(s, j - span);
        if (j + 1 < from + span)
            continue;
        size_t first = j + 1 - span;
        if (sum / (double)span >= 0.9 * b->iops && bucket_iops(s, first) >= b->iops / 2)
            return first;
    }
    return whole;
}

/* The latency percentiles of what completed in buckets [first, last]. */
static void window_latency(const struct buckets *s, size_t first, size_t last,
                           struct recovery *r)
{
    struct lathist *h = malloc(sizeof *h); /* 8 KiB: not on a thread's stack */
    if (!h)
        return; /* unknown, as if nothing completed: better than a wrong number */
    buckets_latency(s, first, last, h);
    uint64_t p50, p99;
    if (lathist_percentile(h, 50, &p50) && lathist_percentile(h, 99, &p99)) {
        r->latency_known = true;
        r->latency_p50_s = (double)p50 / 1e9;
        r->latency_p99_s = (double)p99 / 1e9;
        r->latency_max_s = (double)h->max_ns / 1e9;
    }
    free(h);
}

void recovery_analyze(const struct buckets *s, const struct baseline *b, uint64_t inject_ns,
                      uint64_t clear_ns, uint64_t horizon_ns, uint64_t end_ns,
                      struct recovery *r)
{
    memset(r, 0, sizeof *r);
    r->injected = true;
    r->inject_ns = inject_ns;
    r->clear_ns = clear_ns > inject_ns ? clear_ns : inject_ns;
    r->lasting = clear_ns > inject_ns;
    uint64_t w = s->width_ns;
    size_t whole = whole_buckets(s, end_ns);
    size_t k0 = (size_t)(inject_ns / w);

    /* The first healthy second at or after the clear: from there on a dip
     * in throughput is the system's own noise, not this fault's impact (a
     * failover done in a millisecond must not be charged for a slow
     * second 6 s later).  A failed I/O stays the fault's up to the horizon:
     * a command that hung through the fault may fail long after. */
    size_t healthy_at = b->known ? healthy_window(s, b, (size_t)(r->clear_ns / w), whole) : whole;

    /* Impact: the first bucket below half the baseline, or with a failed I/O. */
    size_t impact_at = 0;
    for (size_t i = k0; i < whole && i * w < horizon_ns; i++) {
        const struct bucket *k = &s->b[i];
        bool low = b->known ? bucket_iops(s, i) < b->iops / 2 : k->first_ok_ns == BUCKET_NONE;
        if (i >= healthy_at)
            low = false;
        if (!low && !k->errors)
            continue;
        uint64_t t = i * w;
        if (k->first_ok_ns == BUCKET_NONE && !k->errors)
            t = last_ok_before(s, i); /* nothing at all: it began at the last completion */
        r->impact = true;
        r->impact_s = t > inject_ns ? (double)(t - inject_ns) / 1e9 : 0;
        impact_at = i;
        break;
    }

    /* Recovery: the first 1 s window from there whose mean holds 90%. */
    uint64_t recovered_at = 0;
    size_t back_at = b->known ? healthy_window(s, b, r->impact ? impact_at + 1 : k0, whole) : whole;
    if (back_at < whole) {
        uint64_t start = back_at * w;
        r->recovered = true;
        r->recovery_s = start > inject_ns ? (double)(start - inject_ns) / 1e9 : 0;
        recovered_at = start > inject_ns ? start : inject_ns;
    }
    /* What the fault is answerable for: its window, and on to the end of
     * the bucket where throughput was back (or to the end of the workload). */
    uint64_t back = recovered_at + w;
    r->until_ns = r->recovered ? (back > r->clear_ns ? back : r->clear_ns)
                               : (end_ns > r->clear_ns ? end_ns : r->clear_ns);

    uint64_t from, to;
    r->stall_s = (double)recovery_longest_gap(s, inject_ns, r->clear_ns, end_ns, &from, &to) / 1e9;
    r->stall_from_ns = from;
    r->stall_to_ns = to;
    if (to > r->until_ns && from <= r->clear_ns)
        r->until_ns = to; /* the stall it caused is part of it */

    uint64_t lat = 0;
    size_t last = (size_t)(r->until_ns / w);
    for (size_t i = k0; i <= last && i < s->used; i++) {
        r->errors += s->b[i].errors;
        if (s->b[i].lat_max_ns > lat)
            lat = s->b[i].lat_max_ns;
    }
    r->max_latency_s = (double)lat / 1e9;
    window_latency(s, k0, last, r);

    uint64_t a = first_ok_after(s, inject_ns);
    r->io_after_inject = a != UINT64_MAX;
    r->first_io_after_inject_s = r->io_after_inject ? (double)a / 1e9 : 0;
    if (r->lasting) {
        uint64_t c = first_ok_after(s, clear_ns);
        r->io_after_clear = c != UINT64_MAX;
        r->first_io_after_clear_s = r->io_after_clear ? (double)c / 1e9 : 0;
    }
}
