/*
 * What the monitors' cluster log says of the OSDs becomes path events
 * (harness/storage/ceph.c, happened): an OSD marked down (by its peers'
 * reports, its refused connections, or its own word when it stops, as an
 * OSD whose disk failed does), taken out, and up again; a primary that met
 * a bad copy of its own on a read.  The lines are Pacific's, as the
 * monitors write them; a line before the run's start, a line of another
 * channel and an unknown line are not events.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "../../harness/storage/storage.h"

static const char *const cluster_log[] = {
    "2026-12-07T03:00:00.000000+0000 mon.cs1 (mon.0) 10 : cluster [INF] osd.1 failed "
    "(root=default,host=cs2) (connection refused reported by osd.0)",
    "2026-12-07T03:10:01.250000+0000 mon.cs1 (mon.0) 90 : cluster [INF] osd.2 marked itself "
    "dead as of e47",
    "2026-12-07T03:10:02.000000+0000 mon.cs1 (mon.0) 91 : cluster [WRN] Health check failed: 1 "
    "osds down (OSD_DOWN)",
    "2026-12-07T03:10:03.500000+0000 mon.cs2 (mon.1) 12 : cluster [INF] osd.0 failed "
    "(root=default,host=cs1) (2 reporters from different host after 20.000136 >= grace "
    "20.000000)",
    "2026-12-07T03:10:31.000000+0000 mon.cs1 (mon.0) 95 : cluster [INF] Marking osd.2 out (has "
    "been down for 30 seconds)",
    "2026-12-07T03:11:00.000000+0000 mon.cs1 (mon.0) 99 : cluster [INF] osd.2 "
    "[v2:198.18.5.23:6802/1234,v1:198.18.5.23:6803/1234] boot",
    "2026-12-07T03:11:05.000000+0000 osd.1 (osd.1) 7 : cluster [ERR] 2.1f missing primary copy "
    "of 2:f8e0c1d2:::10000000000.00000003:head, will try copies on 0,2",
    "2026-12-07T03:11:06.000000+0000 mon.cs1 (mon.0) 100 : cluster [INF] osd.2 is doing "
    "something new",
    "2026-12-07T03:11:07.000000+0000 mon.cs1 (mon.0) 101 : audit [INF] osd.2 failed (x) (y)",
};

static void feed(const struct storage *st, const char *which, storage_line_fn fn, void *ctx)
{
    (void)st;
    if (strcmp(which, "cluster.log") != 0)
        return;
    for (size_t i = 0; i < sizeof cluster_log / sizeof cluster_log[0]; i++)
        fn(ctx, "cs1", cluster_log[i]);
}

#define SEEN_MAX 16
struct seen {
    unsigned n;
    uint64_t wall_ns[SEEN_MAX];
    char event[SEEN_MAX][32], where[SEEN_MAX][64], detail[SEEN_MAX][400];
};

static void saw(void *ctx, uint64_t wall_ns, const char *event, const char *where,
                const char *detail)
{
    struct seen *s = ctx;
    assert_true(s->n < SEEN_MAX);
    s->wall_ns[s->n] = wall_ns;
    snprintf(s->event[s->n], sizeof s->event[0], "%s", event);
    snprintf(s->where[s->n], sizeof s->where[0], "%s", where);
    snprintf(s->detail[s->n], sizeof s->detail[0], "%s", detail);
    s->n++;
}

static void osd_states_become_path_events(void **state)
{
    (void)state;
    struct storage st = {.kind = &storage_ceph, .logs = feed};
    struct seen s = {0};
    /* from 03:10:00: the 03:00 line is an earlier run's */
    storage_ceph.happened(&st, 1796613000ull * 1000000000ull, saw, &s);
    assert_int_equal(s.n, 5);
    assert_string_equal(s.event[0], "osd-down");
    assert_string_equal(s.where[0], "osd.2");
    assert_true(s.wall_ns[0] == 1796613001250000000ull);
    assert_non_null(strstr(s.detail[0], "osd.2 stops and says so: marked itself dead as of e47"));
    assert_string_equal(s.event[1], "osd-down");
    assert_string_equal(s.where[1], "osd.0");
    assert_non_null(strstr(s.detail[1], "mark osd.0 down: 2 reporters from different host "
                                        "after 20.000136 >= grace 20.000000"));
    assert_string_equal(s.event[2], "osd-out");
    assert_non_null(strstr(s.detail[2], "(has been down for 30 seconds)"));
    assert_string_equal(s.event[3], "osd-up");
    assert_string_equal(s.where[3], "osd.2");
    assert_string_equal(s.event[4], "read-repair");
    assert_string_equal(s.where[4], "osd.1");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(osd_states_become_path_events),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
