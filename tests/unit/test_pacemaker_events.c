/*
 * What an HA cluster's nodes logged becomes path events
 * (harness/storage/pacemaker.c, happened): corosync's lost token and its
 * memberships, the controller's fencing request and result, and each
 * resource's start, stop or failed monitor, at the times the lines give.
 * The lines are Corosync 3.1's and Pacemaker 2.1's as the ha lab's nodes
 * wrote them in a failover; a line before the run's start is an earlier
 * run's, and a successful monitor or a probe is no news.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../harness/storage/storage.h"

#define SEC 1000000000ull
#define RUN_START 1796681610ull /* 2026-12-07 22:13:30 UTC */

static const char *const corosync_n2[] = {
    "Dec 07 22:13:10.702 [4] n2 corosync notice  [TOTEM ] A new membership (1.9) was formed. "
    "Members joined: 1\n", /* before the run: lab up */
    "Dec 07 22:13:34.890 [4] n2 corosync notice  [TOTEM ] A processor failed, forming new "
    "configuration: token timed out (3000ms), waiting 3600ms for consensus.\n",
    "Dec 07 22:13:38.494 [4] n2 corosync notice  [TOTEM ] A new membership (2.d) was formed. "
    "Members left: 1\n",
    "Dec 07 22:13:55.182 [4] n2 corosync notice  [TOTEM ] A new membership (1.12) was formed. "
    "Members joined: 1\n",
};

static const char *const pacemaker_n2[] = {
    "Dec 07 22:13:38.510 n2 pacemaker-controld  [27] (controld_execute_fence_action) \tnotice: "
    "Requesting fencing (off) of node n1 | action=1 timeout=60000 priority_delay=5\n",
    "Dec 07 22:13:43.694 n2 pacemaker-controld  [27] (handle_fence_notification) \tnotice: Peer "
    "n1 was terminated (off) by n2 on behalf of pacemaker-controld.27@n2: OK | event=02562481\n",
    "Dec 07 22:13:43.862 n2 pacemaker-controld  [27] (log_executor_event) \tnotice: Result of "
    "probe operation for tgtd on n2: not running | CIB update 60\n",
    "Dec 07 22:13:43.930 n2 pacemaker-controld  [27] (log_executor_event) \tnotice: Result of "
    "monitor operation for target on n2: ok | CIB update 70\n",
    "Dec 07 22:13:44.062 n2 pacemaker-controld  [27] (log_executor_event) \tnotice: Result of "
    "start operation for vip on n2: ok | CIB update 78, graph action confirmed; call=34\n",
    "Dec 07 22:13:50.000 n2 pacemaker-controld  [27] (log_executor_event) \tnotice: Result of "
    "monitor operation for tgtd on n2: not running | CIB update 90\n",
    "Dec 07 22:13:50.500 n2 pacemaker-controld  [27] (log_executor_event) \tnotice: Result of "
    "monitor operation for vip on n2: Cancelled | CIB update 90\n",
    "Dec 07 22:13:51.000 n2 pacemaker-controld  [27] (log_executor_event) \tnotice: Result of "
    "stop operation for tgtd on n2: ok | CIB update 91\n",
};

static void feed(const struct storage *st, const char *which, storage_line_fn fn, void *ctx)
{
    (void)st;
    const char *const *lines = strcmp(which, "corosync") == 0 ? corosync_n2 : pacemaker_n2;
    size_t n = strcmp(which, "corosync") == 0 ? sizeof corosync_n2 / sizeof corosync_n2[0]
                                              : sizeof pacemaker_n2 / sizeof pacemaker_n2[0];
    for (size_t i = 0; i < n; i++)
        fn(ctx, "n2", lines[i]);
}

#define MAX_SEEN 16
struct seen {
    unsigned n;
    uint64_t wall_ns[MAX_SEEN];
    char event[MAX_SEEN][32], where[MAX_SEEN][32], detail[MAX_SEEN][512];
};

static void saw(void *ctx, uint64_t wall_ns, const char *event, const char *where,
                const char *detail)
{
    struct seen *s = ctx;
    assert_true(s->n < MAX_SEEN);
    s->wall_ns[s->n] = wall_ns;
    snprintf(s->event[s->n], sizeof s->event[0], "%s", event);
    snprintf(s->where[s->n], sizeof s->where[0], "%s", where);
    snprintf(s->detail[s->n], sizeof s->detail[0], "%s", detail);
    s->n++;
}

static void a_failover_in_time_order(void **state)
{
    (void)state;
    struct storage st = {.kind = &storage_pacemaker, .logs = feed};
    struct seen s = {0};
    storage_pacemaker.happened(&st, RUN_START * SEC, saw, &s);
    static const struct {
        const char *event, *where, *detail;
        uint64_t ms; /* after 22:13:30 */
    } want[] = {
        {"token-lost", "n2", "corosync on n2: A processor failed", 4890},
        {"member-lost", "n2", "a membership without node 1", 8494},
        {"fence-requested", "n1", "Requesting fencing (off) of node n1", 8510},
        {"fence-done", "n1", "Peer n1 was terminated (off) by n2", 13694},
        {"rsc-started", "n2", "start of vip on n2: ok", 14062},
        {"rsc-failed", "n2", "monitor of tgtd on n2: not running", 20000},
        {"rsc-stopped", "n2", "stop of tgtd on n2: ok", 21000},
        {"member-joined", "n2", "a membership with node 1", 25182},
    };
    assert_int_equal(s.n, sizeof want / sizeof want[0]);
    for (unsigned i = 0; i < s.n; i++) {
        assert_string_equal(s.event[i], want[i].event);
        assert_string_equal(s.where[i], want[i].where);
        assert_non_null(strstr(s.detail[i], want[i].detail));
        assert_true(s.wall_ns[i] == RUN_START * SEC + want[i].ms * 1000000ull);
    }
    /* pacemaker's details end before its " | key=value" part */
    assert_null(strstr(s.detail[2], "priority_delay"));
}

/* Pacemaker writes no year: each line is read in the year nearest the
 * run's start, here 2026-12-31 23:59:50. */
static const char *const new_year[] = {
    "Dec 31 23:59:59.500 n2 pacemaker-controld  [27] (log_executor_event) \tnotice: Result "
    "of stop operation for vip on n2: ok | CIB update 78\n",
    "Jan 01 00:00:01.250 n2 pacemaker-controld  [27] (log_executor_event) \tnotice: Result "
    "of start operation for vip on n1: ok | CIB update 79\n",
};

static void feed_new_year(const struct storage *st, const char *which, storage_line_fn fn,
                          void *ctx)
{
    (void)st;
    for (size_t i = 0; strcmp(which, "pacemaker") == 0 && i < 2; i++)
        fn(ctx, "n2", new_year[i]);
}

static void a_line_without_a_year(void **state)
{
    (void)state;
    struct storage st = {.kind = &storage_pacemaker, .logs = feed_new_year};
    struct seen s = {0};
    uint64_t start = 1798761590ull; /* 2026-12-31 23:59:50 UTC */
    storage_pacemaker.happened(&st, start * SEC, saw, &s);
    assert_int_equal(s.n, 2);
    assert_true(s.wall_ns[0] == (start + 9) * SEC + 500000000ull);
    assert_true(s.wall_ns[1] == (start + 11) * SEC + 250000000ull);
    assert_string_equal(s.where[1], "n1");
    /* without the nodes' logs (a real cluster's): nothing */
    st.logs = NULL;
    s.n = 0;
    storage_pacemaker.happened(&st, start * SEC, saw, &s);
    assert_int_equal(s.n, 0);
}

int main(void)
{
    setenv("TZ", "UTC", 1); /* the nodes log in local time: here UTC */
    tzset();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_failover_in_time_order),
        cmocka_unit_test(a_line_without_a_year),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
