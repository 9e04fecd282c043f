/*
 * Latency percentiles: the histogram (checks/lathist.h) against latencies
 * whose true percentiles are known — sorted and counted here — within the
 * error it promises (1/64 of the value from 32 us on, past fio's 17 s as
 * well); merging equals adding everything into one; an empty one has no
 * percentile.  Then the same through the time buckets: a fault's window,
 * the merge of workers' series, and a client's series sent to rank 0.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../checks/buckets.h"
#include "../../checks/lathist.h"
#include "../../checks/recovery.h"
#include "../../harness/clients/client_result.h"

#define US 1000ull
#define MS 1000000ull
#define S 1000000000ull
#define REL_ERR (1.0 / 64)

static int by_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The nearest-rank percentile of sorted v[n]. */
static uint64_t true_pct(const uint64_t *v, size_t n, double pct)
{
    double want = pct / 100.0 * (double)n;
    size_t rank = (size_t)want;
    if ((double)rank < want)
        rank++;
    if (rank < 1)
        rank = 1;
    return v[rank - 1];
}

static void within(uint64_t got, uint64_t want, const char *what)
{
    double err = got > want ? (double)(got - want) : (double)(want - got);
    double allowed = want >= 32 * US ? (double)want * REL_ERR : 500.0;
    if (err > allowed)
        fail_msg("%s: got %.6f ms, true %.6f ms (off by %.3f%%, allowed %.3f%%)", what,
                 (double)got / 1e6, (double)want / 1e6, 100.0 * err / (double)want,
                 100.0 * allowed / (double)want);
}

/* 90% near 1 ms, 9% near 20 ms, 1% near 30 s (a failover stall), each
 * spread by +-5% so that the answers are not just the bins' middles. */
static size_t the_mix(uint64_t *v, size_t n)
{
    unsigned seed = 13;
    for (size_t i = 0; i < n; i++) {
        uint64_t base = i % 100 < 90 ? MS : i % 100 < 99 ? 20 * MS : 30 * S;
        seed = seed * 1103515245u + 12345u;
        double f = 0.95 + 0.1 * (double)((seed >> 8) % 10000) / 10000.0;
        v[i] = (uint64_t)((double)base * f);
    }
    return n;
}

static void percentiles_of_a_known_mix(void **state)
{
    (void)state;
    enum { N = 20000 };
    uint64_t *v = malloc(N * sizeof *v);
    struct lathist *h = malloc(sizeof *h);
    assert_non_null(v);
    assert_non_null(h);
    lathist_clear(h);
    the_mix(v, N);
    for (size_t i = 0; i < N; i++)
        lathist_add(h, v[i]);
    qsort(v, N, sizeof *v, by_u64);
    assert_true(h->n == N);
    assert_true(h->max_ns == v[N - 1]);
    const double pcts[] = {1, 25, 50, 75, 89, 90, 91, 95, 98.5, 99, 99.5, 99.9, 100};
    for (size_t k = 0; k < sizeof pcts / sizeof pcts[0]; k++) {
        uint64_t got;
        char what[32];
        snprintf(what, sizeof what, "p%g", pcts[k]);
        assert_true(lathist_percentile(h, pcts[k], &got));
        within(got, true_pct(v, N, pcts[k]), what);
    }
    /* the mix's own landmarks, spelled out */
    uint64_t p50, p99, p999;
    assert_true(lathist_percentile(h, 50, &p50));
    assert_true(lathist_percentile(h, 99, &p99));
    assert_true(lathist_percentile(h, 99.9, &p999));
    assert_true(p50 > 940 * US && p50 < 1070 * US);
    assert_true(p99 > 18 * MS && p99 < 22 * MS);
    assert_true(p999 > 28 * S && p999 < 32 * S);
    free(v);
    free(h);
}

/* Every latency from 32 us to a day lands in a bin whose middle is within
 * 1/64 of it: past 17 s too, where fio's histograms give up. */
static void long_latencies_keep_their_precision(void **state)
{
    (void)state;
    unsigned last = 0;
    for (double x = 32e3; x < 86400e9; x *= 1.0037) {
        uint64_t ns = (uint64_t)x;
        unsigned bin = lathist_bin(ns);
        assert_true(bin >= last); /* bins grow with the latency */
        last = bin;
        within(lathist_bin_mid_ns(bin), ns, "bin middle");
    }
    /* the clamp to the exact maximum: one stall alone reads exactly */
    struct lathist h;
    lathist_clear(&h);
    lathist_add(&h, 1000 * MS);
    lathist_add(&h, 45 * S + 123 * MS);
    uint64_t p99;
    assert_true(lathist_percentile(&h, 99, &p99));
    assert_true(p99 <= 45 * S + 123 * MS);
    within(p99, 45 * S + 123 * MS, "p99 of a 45 s stall");
    uint64_t p50;
    assert_true(lathist_percentile(&h, 50, &p50));
    within(p50, 1000 * MS, "p50 beside it");
    /* 20 s, 40 s, 1 h, each among many shorter ones */
    const uint64_t longs[] = {20 * S, 40 * S, 3600 * S};
    for (size_t k = 0; k < 3; k++) {
        lathist_clear(&h);
        for (int i = 0; i < 99; i++)
            lathist_add(&h, MS);
        lathist_add(&h, longs[k] - 7 * MS);
        lathist_add(&h, longs[k] + 7 * MS);
        uint64_t got;
        assert_true(lathist_percentile(&h, 99.5, &got));
        within(got, longs[k] - 7 * MS, "a long one among short ones");
    }
}

static void merging_equals_adding_into_one(void **state)
{
    (void)state;
    enum { N = 5000 };
    uint64_t *v = malloc(N * sizeof *v);
    struct lathist *a = malloc(sizeof *a), *b = malloc(sizeof *b), *all = malloc(sizeof *all);
    assert_true(v && a && b && all);
    the_mix(v, N);
    lathist_clear(a);
    lathist_clear(b);
    lathist_clear(all);
    for (size_t i = 0; i < N; i++) {
        lathist_add(i % 3 ? a : b, v[i]);
        lathist_add(all, v[i]);
    }
    lathist_merge(a, b);
    assert_memory_equal(a, all, sizeof *all);
    free(v);
    free(a);
    free(b);
    free(all);
}

static void an_empty_histogram_has_no_percentile(void **state)
{
    (void)state;
    struct lathist h;
    lathist_clear(&h);
    uint64_t got = 77;
    assert_false(lathist_percentile(&h, 50, &got));
    assert_false(lathist_percentile(&h, 99, &got));
    assert_true(got == 77);
    lathist_add(&h, 3 * MS);
    assert_true(lathist_percentile(&h, 0.001, &got));
    within(got, 3 * MS, "one sample");
    /* under 32 us: to the half microsecond */
    lathist_clear(&h);
    lathist_add(&h, 7 * US + 200);
    assert_true(lathist_percentile(&h, 50, &got));
    within(got, 7 * US + 200, "7.2 us");
}

/* Through the time buckets: two workers' series merged give the same
 * histograms as one series holding everything, bucket by bucket. */
static void series_keep_and_merge_histograms(void **state)
{
    (void)state;
    struct buckets a, b, one, sum;
    assert_int_equal(buckets_init(&a, 100 * MS, 3 * S), 0);
    assert_int_equal(buckets_init(&b, 100 * MS, 3 * S), 0);
    assert_int_equal(buckets_init(&one, 100 * MS, 3 * S), 0);
    assert_int_equal(buckets_init(&sum, 100 * MS, 3 * S), 0);
    enum { N = 3000 };
    uint64_t v[N];
    the_mix(v, N);
    for (size_t i = 0; i < N; i++) {
        uint64_t t = i * MS; /* 0 .. 3 s */
        buckets_add(i % 2 ? &a : &b, t, true, false, true, 4096, v[i]);
        buckets_add(&one, t, true, false, true, 4096, v[i]);
    }
    buckets_merge(&sum, &a);
    buckets_merge(&sum, &b);
    struct lathist *x = malloc(sizeof *x), *y = malloc(sizeof *y);
    assert_true(x && y);
    for (size_t i = 0; i < one.used; i++) {
        buckets_latency(&sum, i, i, x);
        buckets_latency(&one, i, i, y);
        assert_memory_equal(x, y, sizeof *x);
        assert_true(x->n == 100);
    }
    /* the whole run equals the raw latencies' percentiles */
    buckets_latency(&sum, 0, sum.used - 1, x);
    qsort(v, N, sizeof v[0], by_u64);
    uint64_t got;
    assert_true(lathist_percentile(x, 50, &got));
    within(got, true_pct(v, N, 50), "series p50");
    assert_true(lathist_percentile(x, 99, &got));
    within(got, true_pct(v, N, 99), "series p99");
    assert_true(x->max_ns == v[N - 1]);
    /* a bucket with nothing in it has no percentile */
    buckets_latency(&sum, sum.n - 1, sum.n - 1, x);
    assert_false(lathist_percentile(x, 50, &got));
    free(x);
    free(y);
    buckets_free(&a);
    buckets_free(&b);
    buckets_free(&one);
    buckets_free(&sum);
}

/* A fault's window: steady 1 ms I/O, then 3 s of silence from the inject
 * whose I/Os complete after 3 s (the stall), then 2 ms: the window holds
 * the stall's latencies and its p99/max say so; a window where nothing
 * completed has none. */
static void a_faults_window_has_its_percentiles(void **state)
{
    (void)state;
    struct buckets s;
    assert_int_equal(buckets_init(&s, 100 * MS, 20 * S), 0);
    for (uint64_t t = 0; t < 4 * S; t += 100 * US)
        buckets_add(&s, t, true, false, true, 4096, MS);
    for (int k = 0; k < 8; k++) /* the ones that waited through the outage */
        buckets_add(&s, 7 * S + (uint64_t)k * US, true, false, true, 4096, 3 * S + 50 * MS);
    for (uint64_t t = 7 * S + 100 * US; t < 12 * S; t += 100 * US)
        buckets_add(&s, t, true, false, true, 4096, 2 * MS);
    struct baseline base;
    recovery_baseline(&s, S, 4 * S, 12 * S, &base);
    assert_true(base.known);
    struct recovery r;
    memset(&r, 0, sizeof r);
    recovery_analyze(&s, &base, 4 * S, 5 * S, 12 * S, 12 * S, &r);
    assert_true(r.latency_known);
    within((uint64_t)(r.latency_max_s * 1e9), 3 * S + 50 * MS, "window max");
    assert_true(r.latency_max_s == r.max_latency_s);
    within((uint64_t)(r.latency_p50_s * 1e9), 2 * MS, "window p50");
    assert_true(r.latency_p50_s <= r.latency_p99_s && r.latency_p99_s <= r.latency_max_s);

    /* nothing completes after the inject: no percentiles */
    struct buckets q;
    assert_int_equal(buckets_init(&q, 100 * MS, 20 * S), 0);
    for (uint64_t t = 0; t < 4 * S; t += 100 * US)
        buckets_add(&q, t, true, false, true, 4096, MS);
    recovery_baseline(&q, S, 5 * S, 12 * S, &base);
    memset(&r, 0, sizeof r);
    recovery_analyze(&q, &base, 5 * S, 12 * S, 12 * S, 12 * S, &r);
    assert_false(r.latency_known);
    buckets_free(&s);
    buckets_free(&q);
}

/* A client's series goes to rank 0 as bytes: its histograms and path
 * counts come back the same. */
static void a_clients_histograms_travel_to_rank0(void **state)
{
    (void)state;
    struct client_result r, back;
    memset(&r, 0, sizeof r);
    findings_init(&r.findings, 10);
    assert_int_equal(buckets_init(&r.series, 100 * MS, 2 * S), 0);
    enum { N = 2000 };
    uint64_t v[N];
    the_mix(v, N);
    for (size_t i = 0; i < N; i++) {
        buckets_add(&r.series, i * MS, false, true, true, 4096, v[i]);
        buckets_path(&r.series, i * MS, i < 1200 ? 0 : 1);
    }
    r.series.npaths = 2;
    void *buf;
    size_t len;
    assert_int_equal(client_result_encode(&r, &buf, &len), 0);
    char err[256];
    assert_int_equal(client_result_decode(&back, buf, len, err, sizeof err), 0);
    assert_true(back.series.used == r.series.used);
    assert_int_equal(back.series.npaths, 2);
    struct lathist *x = malloc(sizeof *x), *y = malloc(sizeof *y);
    assert_true(x && y);
    for (size_t i = 0; i < r.series.used; i++) {
        buckets_latency(&r.series, i, i, x);
        buckets_latency(&back.series, i, i, y);
        assert_memory_equal(x, y, sizeof *x);
        assert_memory_equal(r.series.b[i].path_ios, back.series.b[i].path_ios,
                            sizeof r.series.b[i].path_ios);
    }
    assert_int_equal(back.series.b[5].path_ios[0], 100);
    assert_int_equal(back.series.b[15].path_ios[1], 100);
    free(x);
    free(y);
    free(buf);
    client_result_free(&r);
    client_result_free(&back);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(percentiles_of_a_known_mix),
        cmocka_unit_test(long_latencies_keep_their_precision),
        cmocka_unit_test(merging_equals_adding_into_one),
        cmocka_unit_test(an_empty_histogram_has_no_percentile),
        cmocka_unit_test(series_keep_and_merge_histograms),
        cmocka_unit_test(a_faults_window_has_its_percentiles),
        cmocka_unit_test(a_clients_histograms_travel_to_rank0),
    };
    return cmocka_run_group_tests_name("lathist", tests, NULL, NULL);
}
