/*
 * dist — a metric's distribution over the repetitions of a scenario.
 *
 * One value per repetition that measured it (a fault that never recovered
 * has no recovery_s: it is left out of the statistics, and the summary
 * says in how many repetitions it was missing).  Percentiles interpolate
 * linearly between the two nearest ranks (numpy's default, "type 7"), so
 * p50 of 1, 2, 3, 4 is 2.5 and p95 of ten values lies between the ninth
 * and the tenth.  sd is the sample standard deviation (n - 1), 0 for one
 * value.
 */
#ifndef FL_DIST_H
#define FL_DIST_H

#include <stdbool.h>
#include <stddef.h>

#include "expect.h"

struct dist {
    size_t n; /* values it was made of */
    double min, p50, p95, max, mean, sd;
};

/* The statistics of v[0..n) (v is not changed).  false when n is 0 or
 * memory is short (d->n is then 0). */
bool dist_of(const double *v, size_t n, struct dist *d);

/* The p-th percentile (0..100) of v[0..n), sorted ascending. */
double dist_percentile(const double *sorted, size_t n, double p);

/* One statistic of d by its name in expect.h (DS_MIN ... DS_SD). */
double dist_stat(const struct dist *d, enum dist_stat s);

#endif
