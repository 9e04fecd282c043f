/*
 * The table of metrics (checks/metric.h): what the scenario parser, the
 * verdict, report.json, the summary of repeats and `faultline compare` all
 * read.  Its promises: a metric's key is its name (with _s for a duration:
 * report.json's faults[] and the summary's metrics[] rely on it); names are
 * unique in their scope, compare's names among all; the places of a
 * listing are unique, so its order is the table's word; every metric has
 * its help; only the run's metrics are integrity rules.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../../checks/metric.h"

static void a_key_is_the_name_with_its_unit(void **state)
{
    (void)state;
    for (int i = 0; i < METRIC_COUNT; i++) {
        const struct metric_def *m = &metric_table[i];
        char want[64];
        snprintf(want, sizeof want, "%s%s", m->name, m->unit == UNIT_SECONDS ? "_s" : "");
        assert_non_null(m->key);
        assert_string_equal(m->key, want);
        assert_non_null(m->help);
        assert_true(strlen(m->help) > 10);
        assert_int_equal(m->scope, i < M_RUN_COUNT ? SCOPE_RUN : SCOPE_FAULT);
        assert_false(m->integrity && m->scope == SCOPE_FAULT);
    }
}

static void names_are_unique_and_found(void **state)
{
    (void)state;
    for (int i = 0; i < METRIC_COUNT; i++) {
        const struct metric_def *m = &metric_table[i];
        assert_int_equal(metric_find(m->scope, m->name), i);
        for (int k = i + 1; k < METRIC_COUNT; k++) {
            if (metric_table[k].scope == m->scope)
                assert_string_not_equal(metric_table[k].name, m->name);
            if (m->compare && metric_table[k].compare)
                assert_string_not_equal(metric_compare_name(&metric_table[k]),
                                        metric_compare_name(m));
        }
    }
    assert_int_equal(metric_find(SCOPE_RUN, "stall"), -1);
    assert_int_equal(metric_find(SCOPE_FAULT, "max_stall"), -1);
    assert_int_equal(metric_find(SCOPE_RUN, "max_stall"), M_MAX_STALL);
    assert_int_equal(metric_find(SCOPE_FAULT, "recover"), F_RECOVER);
}

/* A listing's places are 1..N with none twice (per scope for the summary,
 * whose fault metrics are listed per fault). */
static void check_places(enum metric_listing which, int scope)
{
    int ids[METRIC_COUNT];
    int n = metric_listed(which, scope, ids);
    assert_true(n > 0);
    for (int i = 0; i < n; i++) {
        const struct metric_def *m = &metric_table[ids[i]];
        assert_int_equal(which == LIST_SUMMARY ? m->summary : m->compare, i + 1);
        if (which == LIST_COMPARE)
            assert_true(m->compare_from != 0);
    }
}

static void listings_have_one_metric_per_place(void **state)
{
    (void)state;
    check_places(LIST_SUMMARY, SCOPE_RUN);
    check_places(LIST_SUMMARY, SCOPE_FAULT);
    check_places(LIST_COMPARE, -1);
    /* compare's order, which its output and --worse's list of known
     * metrics follow: each fault's first, then the run's */
    int ids[METRIC_COUNT];
    int n = metric_listed(LIST_COMPARE, -1, ids);
    assert_int_equal(n, 14);
    assert_int_equal(ids[0], F_STALL);
    assert_int_equal(ids[8], M_PASS_RATE);
    assert_string_equal(metric_compare_name(&metric_table[ids[11]]), "run_errors");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_key_is_the_name_with_its_unit),
        cmocka_unit_test(names_are_unique_and_found),
        cmocka_unit_test(listings_have_one_metric_per_place),
    };
    return cmocka_run_group_tests_name("metric", tests, NULL, NULL);
}
