/* lathist — see lathist.h. */
#include "lathist.h"

#include <string.h>

/* log2 of LATHIST_SUB: the first power of two split into sub-bins. */
#define SUB_BITS 5

void lathist_clear(struct lathist *h)
{
    memset(h, 0, sizeof *h);
}

unsigned lathist_bin(uint64_t ns)
{
    uint64_t us = ns / 1000;
    if (us < LATHIST_SUB)
        return (unsigned)us;
    unsigned m = 63u - (unsigned)__builtin_clzll(us); /* us in [2^m, 2^(m+1)), m >= 5 */
    unsigned row = m - SUB_BITS + 1;
    if (row >= LATHIST_ROWS)
        return LATHIST_BINS - 1;
    unsigned sub = (unsigned)(us >> (m - SUB_BITS)) - LATHIST_SUB;
    return row * LATHIST_SUB + sub;
}

uint64_t lathist_bin_mid_ns(unsigned i)
{
    unsigned row = i / LATHIST_SUB, sub = i % LATHIST_SUB;
    if (row == 0)
        return (uint64_t)sub * 1000 + 500;
    unsigned m = row + SUB_BITS - 1;
    uint64_t width_us = 1ull << (m - SUB_BITS);
    uint64_t low_us = (1ull << m) + sub * width_us;
    return low_us * 1000 + width_us * 500;
}

void lathist_add(struct lathist *h, uint64_t ns)
{
    h->count[lathist_bin(ns)]++;
    h->n++;
    if (ns > h->max_ns)
        h->max_ns = ns;
}

void lathist_add_bin(struct lathist *h, unsigned i, uint64_t n)
{
    if (i >= LATHIST_BINS || !n)
        return;
    h->count[i] += n;
    h->n += n;
}

void lathist_merge(struct lathist *to, const struct lathist *from)
{
    for (unsigned i = 0; i < LATHIST_BINS; i++)
        to->count[i] += from->count[i];
    to->n += from->n;
    if (from->max_ns > to->max_ns)
        to->max_ns = from->max_ns;
}

bool lathist_percentile(const struct lathist *h, double pct, uint64_t *ns)
{
    if (!h->n)
        return false;
    /* nearest rank: the rank-th smallest, rank = ceil(pct% of n), at least 1 */
    double want = pct / 100.0 * (double)h->n;
    uint64_t rank = (uint64_t)want;
    if ((double)rank < want)
        rank++;
    if (rank < 1)
        rank = 1;
    if (rank > h->n)
        rank = h->n;
    uint64_t seen = 0;
    unsigned i = 0;
    for (; i < LATHIST_BINS - 1; i++) {
        seen += h->count[i];
        if (seen >= rank)
            break;
    }
    uint64_t v = lathist_bin_mid_ns(i);
    /* The maximum is exact: no percentile reads above it (and p99 <= max
     * holds in every row of timeline.csv).  A histogram filled only from
     * bins (lathist_add_bin) without a maximum reports the middle. */
    if (h->max_ns && v > h->max_ns)
        v = h->max_ns;
    *ns = v;
    return true;
}
