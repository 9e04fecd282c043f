/*
 * Repeats: the statistics of a metric over the repetitions are the ones a
 * reader would compute by hand (numpy's percentiles, the sample standard
 * deviation), and the rules over repetitions are read as written
 * (recovery_p95, expect_stall_p95, pass_rate = 100%) and left to the
 * summary, not checked by each run.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../../checks/dist.h"
#include "../../harness/scenario/scenario.h"

#define NEAR(a, b) assert_true(fabs((a) - (b)) < 1e-9)

static void statistics_are_those_computed_by_hand(void **state)
{
    (void)state;
    /* nine failovers near 4 s and one of 9.4 s, in the order they ran */
    const double v[] = {4.1, 4.0, 4.2, 9.4, 4.1, 4.0, 4.2, 4.1, 4.0, 4.2};
    struct dist d;
    assert_true(dist_of(v, 10, &d));
    assert_int_equal(d.n, 10);
    NEAR(d.min, 4.0);
    NEAR(d.max, 9.4);
    NEAR(d.p50, 4.1);          /* ranks 4.5: between 4.1 and 4.1 */
    NEAR(d.p95, 4.2 + (9.4 - 4.2) * 0.55); /* rank 8.55 between 4.2 and 9.4 */
    NEAR(d.mean, 4.63);
    /* sum of squares of (v - 4.63): by hand */
    double sq = 0;
    for (int i = 0; i < 10; i++)
        sq += (v[i] - 4.63) * (v[i] - 4.63);
    NEAR(d.sd, sqrt(sq / 9));
    NEAR(dist_stat(&d, DS_P95), d.p95);
    NEAR(dist_stat(&d, DS_SD), d.sd);
    assert_true(v[3] == 9.4); /* the input is not sorted in place */

    const double four[] = {4, 1, 3, 2};
    assert_true(dist_of(four, 4, &d));
    NEAR(d.p50, 2.5);
    NEAR(d.p95, 3.85);
    const double one[] = {7};
    assert_true(dist_of(one, 1, &d));
    NEAR(d.p50, 7);
    NEAR(d.p95, 7);
    NEAR(d.sd, 0);
    assert_false(dist_of(one, 0, &d));
    assert_int_equal(d.n, 0);
}

static void a_statistic_is_a_suffix_of_the_metric(void **state)
{
    (void)state;
    char base[48];
    assert_int_equal(expect_split_stat("recovery_p95", base, sizeof base), DS_P95);
    assert_string_equal(base, "recovery");
    assert_int_equal(expect_split_stat("stall_max", base, sizeof base), DS_MAX);
    assert_string_equal(base, "stall");
    assert_int_equal(expect_split_stat("max_stall", base, sizeof base), DS_NONE);
    assert_string_equal(base, "max_stall");
    assert_int_equal(expect_split_stat("max_latency_sd", base, sizeof base), DS_SD);
    assert_string_equal(base, "max_latency");
    assert_int_equal(expect_split_stat("_p95", base, sizeof base), DS_NONE);
}

static const char base_scn[] = "[scenario]\nrepeat = 10\n[target]\nkind = file\npath = /tmp/x\n"
                               "[fault f]\naction = command\ncommand = true\nat = 1s\n";

static int parse(const char *extra, struct scenario *sc, char *err, size_t n)
{
    char text[1024];
    snprintf(text, sizeof text, "%s%s", base_scn, extra);
    return scenario_parse(text, "r.scn", sc, err, n);
}

static void rules_over_repetitions_read_as_written(void **state)
{
    (void)state;
    static struct scenario sc;
    char err[512];
    if (parse("expect_stall_p95 <= 5s\n[expect]\nrecovery_p95 <= 8s\npass_rate = 90%\n"
              "errors_mean <= 0.5\nmax_stall <= 20s\n", &sc, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(sc.repeat, 10);
    assert_int_equal(sc.nexpects, 5);
    const struct expect_rule *e = sc.expects;
    assert_int_equal(e[0].fault, 0);
    assert_int_equal(e[0].metric, F_STALL);
    assert_int_equal(e[0].stat, DS_P95);
    NEAR(e[0].value, 5);
    assert_true(expect_over_repeats(&e[0]));
    assert_int_equal(e[1].fault, -1);
    assert_int_equal(e[1].metric, M_RECOVERY);
    assert_int_equal(e[1].stat, DS_P95);
    NEAR(e[1].value, 8);
    assert_int_equal(e[2].metric, M_PASS_RATE);
    NEAR(e[2].value, 90);
    assert_true(expect_over_repeats(&e[2]));
    assert_true(expect_holds(&e[2], 90, true));
    assert_false(expect_holds(&e[2], 80, true));
    assert_int_equal(e[3].stat, DS_MEAN);
    NEAR(e[3].value, 0.5);
    assert_int_equal(e[4].stat, DS_NONE);
    assert_false(expect_over_repeats(&e[4])); /* each run checks it */
}

static void mistakes_in_rules_over_repetitions_are_named(void **state)
{
    (void)state;
    static struct scenario sc;
    char err[512];
    assert_int_equal(parse("[expect]\npass_rate = 120%\n", &sc, err, sizeof err), -1);
    assert_non_null(strstr(err, "r.scn:11:"));
    assert_non_null(strstr(err, "not a percentage"));
    assert_int_equal(parse("[expect]\npass_rate = 9\n", &sc, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a percentage"));
    assert_int_equal(parse("[expect]\npass_rate_p95 = 90%\n", &sc, err, sizeof err), -1);
    assert_non_null(strstr(err, "has no p95"));
    assert_int_equal(parse("[expect]\nrecovery_p99 <= 8s\n", &sc, err, sizeof err), -1);
    assert_non_null(strstr(err, "r.scn:11: unknown metric in [expect] 'recovery_p99'"));
    assert_int_equal(parse("[expect]\nrecovery_p95 <= 8 furlongs\n", &sc, err, sizeof err), -1);
    assert_non_null(strstr(err, "r.scn:11:"));
    assert_int_equal(parse("[scenario]\n", &sc, err, sizeof err), -1); /* a second one */
    char text[256];
    snprintf(text, sizeof text, "[scenario]\nrepeat = 0\n[target]\nkind = file\npath = /x\n");
    assert_int_equal(scenario_parse(text, "r.scn", &sc, err, sizeof err), -1);
    assert_non_null(strstr(err, "r.scn:2:"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(statistics_are_those_computed_by_hand),
        cmocka_unit_test(a_statistic_is_a_suffix_of_the_metric),
        cmocka_unit_test(rules_over_repetitions_read_as_written),
        cmocka_unit_test(mistakes_in_rules_over_repetitions_are_named),
    };
    return cmocka_run_group_tests_name("repeat", tests, NULL, NULL);
}
