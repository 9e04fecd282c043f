/*
 * A fault's stall split by what an HA cluster did
 * (harness/report/report_failover.c): detection to the membership without
 * the node (or a failed monitor), fencing to its result, the resources'
 * start, and the client's reconnect to the end of the stall.  The events
 * are the cluster's, in the order the report lists them (the run's own
 * path events first, the cluster's after), with times in ns since the
 * workload began.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "../../harness/report/report_failover.h"

#define S(x) ((int64_t)((x) * 1e9))

static struct event ev(double t, const char *name)
{
    struct event e = {.t_ns = S(t)};
    snprintf(e.event, sizeof e.event, "%s", name);
    return e;
}

static void a_fenced_failover(void **state)
{
    (void)state;
    struct event list[] = {
        ev(9.0, "loss"), ev(19.1, "reconnect"), /* the client's, first */
        ev(2.0, "member-joined"),               /* before the fault */
        ev(7.6, "token-lost"),   ev(11.2, "member-lost"), ev(11.3, "member-lost"),
        ev(11.25, "fence-requested"), ev(17.3, "fence-done"), ev(17.5, "rsc-started"),
        ev(18.3, "rsc-started"), ev(30.0, "rsc-started"),
    };
    struct failover_split fs;
    failover_split(list, sizeof list / sizeof list[0], (uint64_t)S(5.0), (uint64_t)S(40.0), true,
                   (uint64_t)S(19.1), &fs);
    assert_true(fs.known);
    assert_string_equal(fs.lost_by, "member-lost");
    assert_true(fs.detection.known && fs.fencing.known && fs.start.known && fs.reconnect.known);
    assert_float_equal(fs.detection.s, 6.2, 1e-6);
    assert_float_equal(fs.fencing.s, 6.1, 1e-6);
    assert_float_equal(fs.start.s, 1.0, 1e-6); /* to the last start before the reconnect */
    assert_float_equal(fs.reconnect.s, 0.8, 1e-6);
}

/* No fencing: the resources start from the membership on; a restart in
 * place after a failed monitor the same way. */
static void without_a_fence(void **state)
{
    (void)state;
    struct event list[] = {ev(6.0, "rsc-failed"), ev(6.4, "rsc-stopped"), ev(6.6, "rsc-started")};
    struct failover_split fs;
    failover_split(list, 3, (uint64_t)S(5.0), (uint64_t)S(20.0), true, (uint64_t)S(7.0), &fs);
    /* the client's reconnect, once there, ends it (a stall that ended
     * before the restart cannot) */
    struct event more[] = {ev(5.0, "loss"), ev(7.5, "reconnect"), list[0], list[1], list[2]};
    struct failover_split fr;
    failover_split(more, 5, (uint64_t)S(5.0), (uint64_t)S(20.0), true, (uint64_t)S(5.01), &fr);
    assert_true(fr.reconnect.known);
    assert_float_equal(fr.reconnect.s, 0.9, 1e-6);
    assert_true(fs.known);
    assert_string_equal(fs.lost_by, "rsc-failed");
    assert_false(fs.fencing.known);
    assert_float_equal(fs.detection.s, 1.0, 1e-6);
    assert_float_equal(fs.start.s, 0.6, 1e-6);
    assert_float_equal(fs.reconnect.s, 0.4, 1e-6);
    /* no stall measured: no reconnect to split */
    failover_split(list, 3, (uint64_t)S(5.0), (uint64_t)S(20.0), false, 0, &fs);
    assert_true(fs.start.known);
    assert_false(fs.reconnect.known);
}

/* Nothing of the cluster in the fault's span: no split; nor one after it. */
static void no_cluster_event(void **state)
{
    (void)state;
    struct event list[] = {ev(9.0, "loss"), ev(10.0, "reconnect"), ev(50.0, "member-lost")};
    struct failover_split fs;
    failover_split(list, 3, (uint64_t)S(5.0), (uint64_t)S(40.0), true, (uint64_t)S(10.0), &fs);
    assert_false(fs.known);
    failover_split(NULL, 0, (uint64_t)S(5.0), (uint64_t)S(40.0), true, (uint64_t)S(10.0), &fs);
    assert_false(fs.known);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_fenced_failover),
        cmocka_unit_test(without_a_fence),
        cmocka_unit_test(no_cluster_event),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
