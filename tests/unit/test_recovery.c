/*
 * Recovery analysis: completions laid down at known times must give back
 * exactly the outage they describe: the baseline, the impact, the stall
 * from last completion to first, the recovery, and the first I/O after the
 * fault's inject and clear.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "../../checks/buckets.h"
#include "../../checks/recovery.h"

#define MS 1000000ull
#define S 1000000000ull

/* A steady 10000 IOPS (one completion every 100 us) from `from` to `to`,
 * reads and writes alternating, 1 ms latency. */
static void steady(struct buckets *b, uint64_t from, uint64_t to, uint64_t every)
{
    bool read = true;
    for (uint64_t t = from; t < to; t += every, read = !read)
        buckets_add(b, t, read, !read, true, 4096, MS);
}

static void near(double got, double want, double tol)
{
    if (got < want - tol || got > want + tol)
        fail_msg("got %.6f, wanted %.6f (+-%.6f)", got, want, tol);
}

/* Healthy 0..3 s, nothing from 3.2 s to 5.7 s (the outage), healthy again
 * to 10 s; the fault is injected at 3.0 s and cleared at 5.5 s. */
static void an_outage_reads_back_as_it_happened(void **state)
{
    (void)state;
    struct buckets b;
    assert_int_equal(buckets_init(&b, 10 * MS, 12 * S), 0);
    steady(&b, 0, 3200 * MS, 100000);
    buckets_add(&b, 5700 * MS, false, true, true, 4096, 2500 * MS); /* the one that waited */
    steady(&b, 5700 * MS + 100000, 10 * S, 100000);

    struct baseline base;
    recovery_baseline(&b, 1 * S, 3 * S, 10 * S, &base);
    assert_true(base.known);
    near(base.iops, 10000, 1);
    assert_int_equal(base.buckets, 200); /* 1.0 .. 3.0 s of 10 ms */

    struct recovery r;
    recovery_analyze(&b, &base, 3 * S, 5500 * MS, 10 * S, 10 * S, &r);
    assert_true(r.impact);
    near(r.impact_s, 0.2, 0.0002);        /* the last completion before the silence */
    near(r.stall_s, 2.5, 0.0002);         /* 3.1999 .. 5.7 */
    near((double)r.stall_from_ns / 1e9, 3.1999, 0.0001);
    near((double)r.stall_to_ns / 1e9, 5.7, 0.0001);
    assert_true(r.recovered);
    near(r.recovery_s, 2.7, 0.011);       /* back in the bucket of 5.7 s */
    near(r.max_latency_s, 2.5, 1e-9);
    assert_int_equal(r.errors, 0);
    assert_true(r.io_after_inject);
    near(r.first_io_after_inject_s, 0, 0.0001);  /* I/O went on for 0.2 s */
    assert_true(r.io_after_clear);
    near(r.first_io_after_clear_s, 0.2, 0.0001);

    uint64_t from, to;
    near((double)recovery_longest_gap(&b, 0, 10 * S, 10 * S, &from, &to) / 1e9, 2.5, 0.0002);
    buckets_free(&b);
}

/* Throughput at a third of the baseline for 2 s, no stall, and errors. */
static void a_slowdown_is_an_impact_without_a_stall(void **state)
{
    (void)state;
    struct buckets b;
    assert_int_equal(buckets_init(&b, 100 * MS, 12 * S), 0);
    steady(&b, 0, 4 * S, 100000);
    steady(&b, 4 * S, 6 * S, 300000);
    buckets_add(&b, 4500 * MS, true, false, false, 0, 30 * MS); /* a failed read */
    steady(&b, 6 * S, 10 * S, 100000);
    struct baseline base;
    recovery_baseline(&b, 1 * S, 4 * S, 10 * S, &base);
    struct recovery r;
    recovery_analyze(&b, &base, 4 * S, 6 * S, 10 * S, 10 * S, &r);
    assert_true(r.impact);
    near(r.impact_s, 0, 1e-9);
    assert_true(r.stall_s < 0.001);
    assert_int_equal(r.errors, 1);
    assert_true(r.recovered);
    near(r.recovery_s, 2.0, 0.101);
    buckets_free(&b);
}

/* A target that never answers again: no recovery, the stall runs to the
 * end of the workload, and no baseline without healthy time. */
static void silence_to_the_end_is_never_recovered(void **state)
{
    (void)state;
    struct buckets b;
    assert_int_equal(buckets_init(&b, 100 * MS, 12 * S), 0);
    steady(&b, 0, 2 * S, 100000);
    struct baseline base;
    recovery_baseline(&b, 1 * S, 2 * S, 8 * S, &base);
    assert_true(base.known);
    struct recovery r;
    recovery_analyze(&b, &base, 2 * S, 8 * S, 8 * S, 8 * S, &r);
    assert_false(r.recovered);
    near(r.stall_s, 6.0, 0.0002);
    assert_false(r.io_after_clear);
    assert_int_equal(r.until_ns, 8 * S);

    struct baseline none;
    recovery_baseline(&b, 1 * S, 1100 * MS, 8 * S, &none); /* one bucket of health */
    assert_false(none.known);
    recovery_analyze(&b, &none, 1100 * MS, 2 * S, 8 * S, 8 * S, &r);
    assert_false(r.recovered);
    buckets_free(&b);
}

/* A failover that costs nothing, then a slow second 3 s later: that dip
 * is not the fault's impact, and the recovery is at once. */
static void a_dip_after_a_healthy_second_is_not_the_faults(void **state)
{
    (void)state;
    struct buckets b;
    assert_int_equal(buckets_init(&b, 100 * MS, 12 * S), 0);
    steady(&b, 0, 7 * S, 100000);
    steady(&b, 7 * S, 7500 * MS, 400000); /* a quarter of the baseline */
    steady(&b, 7500 * MS, 10 * S, 100000);
    struct baseline base;
    recovery_baseline(&b, 1 * S, 4 * S, 10 * S, &base);
    struct recovery r;
    recovery_analyze(&b, &base, 4 * S, 4 * S, 10 * S, 10 * S, &r);
    assert_false(r.impact);
    assert_true(r.recovered);
    near(r.recovery_s, 0, 1e-9);

    /* A lasting fault still owns a dip while it is on, however late. */
    recovery_analyze(&b, &base, 4 * S, 7200 * MS, 10 * S, 10 * S, &r);
    assert_true(r.impact);
    near(r.impact_s, 3.0, 1e-6);
    assert_true(r.recovered);
    near(r.recovery_s, 3.5, 1e-6);
    buckets_free(&b);
}

/* Worker series add up, and a 10 ms grid keeps what a 100 ms one hides. */
static void series_merge_and_keep_their_edges(void **state)
{
    (void)state;
    struct buckets a, b, sum;
    assert_int_equal(buckets_init(&a, 10 * MS, S), 0);
    assert_int_equal(buckets_init(&b, 10 * MS, S), 0);
    assert_int_equal(buckets_init(&sum, 10 * MS, S), 0);
    buckets_add(&a, 15 * MS, true, false, true, 4096, MS);
    buckets_add(&b, 12 * MS, false, true, true, 4096, 3 * MS);
    buckets_add(&b, 95 * MS, false, true, false, 0, 7 * MS);
    buckets_merge(&sum, &a);
    buckets_merge(&sum, &b);
    assert_int_equal(sum.used, 10);
    assert_int_equal(sum.b[1].reads, 1);
    assert_int_equal(sum.b[1].writes, 1);
    assert_true(sum.b[1].first_ok_ns == 12 * MS);
    assert_true(sum.b[1].last_ok_ns == 15 * MS);
    assert_true(sum.b[1].lat_max_ns == 3 * MS);
    assert_int_equal(sum.b[9].errors, 1);
    assert_true(sum.b[9].first_ok_ns == BUCKET_NONE);
    near(bucket_iops(&sum, 1), 200, 1e-9);
    buckets_free(&a);
    buckets_free(&b);
    buckets_free(&sum);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(an_outage_reads_back_as_it_happened),
        cmocka_unit_test(a_slowdown_is_an_impact_without_a_stall),
        cmocka_unit_test(silence_to_the_end_is_never_recovered),
        cmocka_unit_test(a_dip_after_a_healthy_second_is_not_the_faults),
        cmocka_unit_test(series_merge_and_keep_their_edges),
    };
    return cmocka_run_group_tests_name("recovery", tests, NULL, NULL);
}
