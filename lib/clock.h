/*
 * clock — the two clocks of a run.  Durations and event times use the
 * monotonic clock (ns since the run started); the wall clock is recorded once
 * so that reports can name the date.
 */
#ifndef FL_CLOCK_H
#define FL_CLOCK_H

#include <stdint.h>
#include <time.h>

/* A time that is not known (never happened, or not recorded). */
#define FL_TIME_UNKNOWN UINT64_MAX

static inline uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
