/*
 * The resource sampler's readings of the kernel's files: a line of
 * /proc/diskstats, of /proc/net/dev and a /proc/PID/stat (with a command
 * that holds spaces and parentheses) give back the counters they hold; the
 * sample period follows the bucket within 100 ms .. 1 s; and a sampler
 * started here reads this machine's CPU.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "../../harness/live/resources.h"
#include "../../lib/clock.h"

static void a_diskstats_line_gives_its_fields(void **state)
{
    (void)state;
    unsigned maj, min;
    char name[32];
    uint64_t f[11];
    assert_true(resources_parse_diskstats(" 254       0 vda 32057 6982 2328114 11040 133186 "
                                          "9166 2036264 81391 3 10924 95030 5305 85 222640 916 "
                                          "4084 1682\n",
                                          &maj, &min, name, sizeof name, f));
    assert_int_equal(maj, 254);
    assert_int_equal(min, 0);
    assert_string_equal(name, "vda");
    assert_int_equal(f[0], 32057);   /* reads */
    assert_int_equal(f[2], 2328114); /* sectors read */
    assert_int_equal(f[4], 133186);  /* writes */
    assert_int_equal(f[6], 2036264); /* sectors written */
    assert_int_equal(f[8], 3);       /* in flight */
    assert_int_equal(f[9], 10924);   /* io_ticks */
    assert_false(resources_parse_diskstats("garbage\n", &maj, &min, name, sizeof name, f));
}

static void a_netdev_line_gives_bytes_packets_drops(void **state)
{
    (void)state;
    char ifname[32];
    uint64_t v[6];
    assert_true(resources_parse_netdev("  eth0: 66093070    2354    1    7    0     0          0"
                                       "         0   130876    1796    0    9    0     0       0"
                                       "          0\n",
                                       ifname, sizeof ifname, v));
    assert_string_equal(ifname, "eth0");
    assert_int_equal(v[0], 66093070);
    assert_int_equal(v[1], 2354);
    assert_int_equal(v[2], 7);
    assert_int_equal(v[3], 130876);
    assert_int_equal(v[4], 1796);
    assert_int_equal(v[5], 9);
    assert_false(resources_parse_netdev(" face |bytes    packets errs drop fifo frame\n", ifname,
                                        sizeof ifname, v));
}

static void a_pid_stat_gives_cpu_start_and_blkio(void **state)
{
    (void)state;
    /* fields 3..42; utime (14) 100, stime (15) 23, starttime (22) 4242,
     * delayacct_blkio_ticks (42) 17 */
    const char *text = "1234 (a (b) c) S 1 1234 1234 0 -1 4194560 100 0 0 0 100 23 0 0 20 0 3 "
                       "0 4242 12345678 300 18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 "
                       "1 0 0 17 0 0\n";
    uint64_t cpu = 0, start = 0, blkio = 0;
    assert_true(resources_parse_pidstat(text, &cpu, &start, &blkio));
    assert_int_equal(cpu, 123);
    assert_int_equal(start, 4242);
    assert_int_equal(blkio, 17);
    assert_false(resources_parse_pidstat("1234 no parenthesis", &cpu, &start, &blkio));
}

static void the_period_follows_the_bucket_within_bounds(void **state)
{
    (void)state;
    assert_int_equal(resources_period(10000000ull), RES_MIN_PERIOD_NS);    /* 10 ms */
    assert_int_equal(resources_period(100000000ull), 100000000ull);       /* 100 ms */
    assert_int_equal(resources_period(250000000ull), 250000000ull);       /* 250 ms */
    assert_int_equal(resources_period(10000000000ull), RES_MAX_PERIOD_NS); /* 10 s */
    /* a long run: never more than RES_MAX_SAMPLES samples, whole 100 ms */
    assert_int_equal(resources_period_for(100000000ull, 60000000000ull), 100000000ull); /* 1 m */
    assert_int_equal(resources_period_for(100000000ull, 1200000000000ull), 400000000ull); /* 20 m */
    assert_int_equal(resources_period_for(100000000ull, 7200000000000ull), 2000000000ull); /* 2 h */
    assert_int_equal(resources_period_for(250000000ull, 600000000000ull), 250000000ull); /* 10 m */
}

/* A sampler of this machine alone: its CPU rows, on the period's grid. */
static void a_sampler_reads_the_machine(void **state)
{
    (void)state;
    struct resources res;
    char err[256];
    assert_int_equal(resources_prepare(&res, resources_period(100000000ull), NULL, NULL, err,
                                       sizeof err), 0);
    assert_int_equal(resources_start(&res, mono_ns(), err, sizeof err), 0);
    uint64_t until = mono_ns() + 450000000ull;
    volatile uint64_t spin = 0;
    while (mono_ns() < until)
        spin++; /* busy: the CPU has something to show */
    resources_stop(&res);
    resources_stop(&res); /* twice: harmless */
    assert_true(res.nsamples >= 5);
    const struct res_series *busy = resources_find(&res, "client", "cpu", "machine",
                                                   "busy_pct");
    assert_non_null(busy);
    assert_non_null(resources_find(&res, "client", "cpu", "machine", "iowait_pct"));
    double most = 0;
    for (size_t i = 1; i < res.nsamples; i++)
        if (busy->values[i] > most)
            most = busy->values[i];
    assert_true(most > 0);
    assert_true(res.t_s[1] > 0.09 && res.t_s[1] < 0.2);
    resources_free(&res);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_diskstats_line_gives_its_fields),
        cmocka_unit_test(a_netdev_line_gives_bytes_packets_drops),
        cmocka_unit_test(a_pid_stat_gives_cpu_start_and_blkio),
        cmocka_unit_test(the_period_follows_the_bucket_within_bounds),
        cmocka_unit_test(a_sampler_reads_the_machine),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
