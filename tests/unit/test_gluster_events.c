/*
 * What the bricks' logs say becomes path events (harness/storage/gluster.c,
 * happened): a brick whose health check failed takes itself down
 * (brick-down), with the failed check's own words when the log has them
 * just before.  The lines are GlusterFS 10's (with the zone) and older
 * ones (without); a line before the run's start is an earlier run's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "../../harness/storage/storage.h"

static const char *const gs1[] = {
    "[2026-12-07 02:00:00.000000 +0000] M [MSGID: 113075] "
    "[posix-helpers.c:2185:posix_health_check_thread_proc] 0-fl-posix: health-check failed, "
    "going down \n",
    "[2026-12-07 03:10:20.500000 +0000] W [MSGID: 113075] "
    "[posix-helpers.c:2111:posix_fs_health_check] 0-fl-posix: aio_read_cmp_buf() on "
    "/brick/b/.glusterfs/health_check returned ret is -1 error is Input/output error\n",
    "[2026-12-07 03:10:20.500100 +0000] M [MSGID: 113075] "
    "[posix-helpers.c:2185:posix_health_check_thread_proc] 0-fl-posix: health-check failed, "
    "going down \n",
    "[2026-12-07 03:10:50.500000 +0000] M [MSGID: 113075] "
    "[posix-helpers.c:2203:posix_health_check_thread_proc] 0-fl-posix: still alive! -> "
    "SIGTERM \n",
};
static const char *const gs2[] = {
    "[2026-12-07 03:11:00.250000] M [posix-helpers.c:1314:posix_health_check_thread_proc] "
    "0-fl-posix: health-check failed, going down\n",
};

static void feed(const struct storage *st, const char *which, storage_line_fn fn, void *ctx)
{
    (void)st;
    if (strcmp(which, "brick") != 0)
        return;
    for (size_t i = 0; i < sizeof gs1 / sizeof gs1[0]; i++)
        fn(ctx, "gs1", gs1[i]);
    for (size_t i = 0; i < sizeof gs2 / sizeof gs2[0]; i++)
        fn(ctx, "gs2", gs2[i]);
}

struct seen {
    unsigned n;
    uint64_t wall_ns[4];
    char event[4][32], where[4][32], detail[4][512];
};

static void saw(void *ctx, uint64_t wall_ns, const char *event, const char *where,
                const char *detail)
{
    struct seen *s = ctx;
    assert_true(s->n < 4);
    s->wall_ns[s->n] = wall_ns;
    snprintf(s->event[s->n], sizeof s->event[0], "%s", event);
    snprintf(s->where[s->n], sizeof s->where[0], "%s", where);
    snprintf(s->detail[s->n], sizeof s->detail[0], "%s", detail);
    s->n++;
}

static void a_failed_health_check_is_a_brick_down(void **state)
{
    (void)state;
    struct storage st = {.kind = &storage_gluster, .logs = feed};
    struct seen s = {0};
    storage_gluster.happened(&st, 1796613000ull * 1000000000ull, saw, &s); /* 03:10:00 */
    assert_int_equal(s.n, 2);
    assert_string_equal(s.event[0], "brick-down");
    assert_string_equal(s.where[0], "gs1");
    assert_true(s.wall_ns[0] == 1796613020500100000ull);
    assert_non_null(strstr(s.detail[0], "gs1's brick takes itself down: its health check "
                                        "failed (aio_read_cmp_buf() on /brick/b/.glusterfs/"
                                        "health_check returned ret is -1 error is Input/output "
                                        "error)"));
    assert_string_equal(s.where[1], "gs2");
    assert_true(s.wall_ns[1] == 1796613060250000000ull);
    assert_non_null(strstr(s.detail[1], "health check failed (the brick's log)"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_failed_health_check_is_a_brick_down),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
