/*
 * Heal and recover times: a fault's time is from its clear to the answer
 * from which on the lab's storage stayed whole, up to the next fault.  A
 * whole answer that a later one contradicts is not the time: ceph's status
 * said HEALTH_OK 3.5 s after cs1's cable was back (a stale view: cs1 runs
 * the manager), and the cluster was whole only 142 s later.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../harness/live/heal.h"

#define S(sec) ((uint64_t)((sec) * 1e9))
#define N(a) (sizeof(a) / sizeof((a)[0]))

static void whole_from_the_first_answer_with_nothing_pending(void **state)
{
    (void)state;
    const struct heal_sample s[] = {{S(1), 5, 5}, {S(2), 0, 0}, {S(3), 0, 0}};
    double t = -1;
    assert_true(heal_time_of(s, N(s), S(1.5), UINT64_MAX, &t));
    assert_float_equal(t, 0.5, 1e-9);
}

static void a_whole_answer_that_a_later_one_contradicts_is_not_the_time(void **state)
{
    (void)state;
    /* stale OK 1 s after the clear, then the degraded truth, then whole */
    const struct heal_sample s[] = {{S(2), 0, 0}, {S(3), 4, 4}, {S(4), 4, 4}, {S(5), 0, 0},
                                    {S(6), 0, 0}};
    double t = -1;
    assert_true(heal_time_of(s, N(s), S(1), UINT64_MAX, &t));
    assert_float_equal(t, 4.0, 1e-9);
}

static void a_failed_question_contradicts_nothing(void **state)
{
    (void)state;
    const struct heal_sample s[] = {{S(2), 0, 0}, {S(3), -1, -1}, {S(4), 0, 0}};
    double t = -1;
    assert_true(heal_time_of(s, N(s), S(1), UINT64_MAX, &t));
    assert_float_equal(t, 1.0, 1e-9);
}

static void the_next_fault_may_undo_it(void **state)
{
    (void)state;
    /* whole at 2 s; the next fault, injected at 3.5 s, leaves work */
    const struct heal_sample s[] = {{S(2), 0, 0}, {S(3), 0, 0}, {S(4), 6, 6}, {S(5), 0, 0}};
    double t = -1;
    assert_true(heal_time_of(s, N(s), S(1), S(3.5), &t));
    assert_float_equal(t, 1.0, 1e-9);
    /* without it, the pending answer at 4 s would have started again */
    assert_true(heal_time_of(s, N(s), S(1), UINT64_MAX, &t));
    assert_float_equal(t, 4.0, 1e-9);
}

static void never_whole_for_good_has_no_time(void **state)
{
    (void)state;
    double t = -1;
    const struct heal_sample ends_pending[] = {{S(2), 3, 3}, {S(3), 0, 0}, {S(4), 2, 2}};
    assert_false(heal_time_of(ends_pending, N(ends_pending), S(1), UINT64_MAX, &t));
    /* whole only before the clear counts for nothing */
    const struct heal_sample before[] = {{S(0.5), 0, 0}, {S(2), 3, 3}};
    assert_false(heal_time_of(before, N(before), S(1), UINT64_MAX, &t));
    assert_false(heal_time_of(NULL, 0, S(1), UINT64_MAX, &t));
    assert_float_equal(t, -1, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(whole_from_the_first_answer_with_nothing_pending),
        cmocka_unit_test(a_whole_answer_that_a_later_one_contradicts_is_not_the_time),
        cmocka_unit_test(a_failed_question_contradicts_nothing),
        cmocka_unit_test(the_next_fault_may_undo_it),
        cmocka_unit_test(never_whole_for_good_has_no_time),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
