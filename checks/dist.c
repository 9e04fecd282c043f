/* dist — see dist.h. */
#include "dist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double dist_percentile(const double *sorted, size_t n, double p)
{
    if (!n)
        return 0;
    double rank = p / 100.0 * (double)(n - 1);
    size_t lo = (size_t)floor(rank);
    if (lo >= n - 1)
        return sorted[n - 1];
    double frac = rank - (double)lo;
    return sorted[lo] + (sorted[lo + 1] - sorted[lo]) * frac;
}

bool dist_of(const double *v, size_t n, struct dist *d)
{
    memset(d, 0, sizeof *d);
    if (!n)
        return false;
    double *s = malloc(n * sizeof *s);
    if (!s)
        return false;
    memcpy(s, v, n * sizeof *s);
    qsort(s, n, sizeof *s, by_value);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += s[i];
    d->n = n;
    d->min = s[0];
    d->max = s[n - 1];
    d->mean = sum / (double)n;
    d->p50 = dist_percentile(s, n, 50);
    d->p95 = dist_percentile(s, n, 95);
    double sq = 0;
    for (size_t i = 0; i < n; i++)
        sq += (s[i] - d->mean) * (s[i] - d->mean);
    d->sd = n > 1 ? sqrt(sq / (double)(n - 1)) : 0;
    free(s);
    return true;
}

double dist_stat(const struct dist *d, enum dist_stat s)
{
    switch (s) {
    case DS_MIN:
        return d->min;
    case DS_P50:
        return d->p50;
    case DS_P95:
        return d->p95;
    case DS_MAX:
        return d->max;
    case DS_MEAN:
        return d->mean;
    case DS_SD:
        return d->sd;
    case DS_NONE:
    case DS_COUNT:
        break;
    }
    return 0;
}
