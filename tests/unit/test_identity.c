/*
 * The pieces of a target's identity in the manifest: kv_add trims the
 * blanks SCSI and sysfs pad with, drops empty values, replaces a key given
 * twice and counts what found no room; mount_of_path finds the mount a
 * path is on (the deepest one: /proc/self is on proc, not on /), also for
 * a name not yet made, and says why it cannot for a directory that is
 * not there.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../../lib/kvlist.h"
#include "../../lib/mountinfo.h"

static struct kv_list l;

static void test_kv(void **state)
{
    (void)state;
    memset(&l, 0, sizeof l);
    kv_add(&l, "vendor", "%s", "FAULTLN ");
    kv_add(&l, "serial", "  %s  ", "FL123");
    kv_add(&l, "model", "%s", "   ");
    assert_int_equal(l.n, 2);
    assert_string_equal(kv_get(&l, "vendor"), "FAULTLN");
    assert_string_equal(kv_get(&l, "serial"), "FL123");
    assert_null(kv_get(&l, "model"));
    kv_add(&l, "vendor", "%s", "IET");
    assert_int_equal(l.n, 2);
    assert_string_equal(kv_get(&l, "vendor"), "IET");
    for (int i = 0; i < 5; i++)
        kv_add(&l, "again", "%d", i); /* the same key: one slot, the last value */
    assert_int_equal(l.n, 3);
    assert_string_equal(kv_get(&l, "again"), "4");
    char key[16];
    for (int i = 0; i < KV_MAX; i++) {
        snprintf(key, sizeof key, "key%d", i);
        kv_add(&l, key, "%d", i);
    }
    assert_int_equal(l.n, KV_MAX);
    assert_true(l.dropped > 0);
}

static void test_mount(void **state)
{
    (void)state;
    struct mount_info m;
    char err[512];
    assert_int_equal(mount_of_path("/proc/self/status", &m, err, sizeof err), 0);
    assert_string_equal(m.fs_type, "proc");
    assert_string_equal(m.mount_point, "/proc");
    assert_int_equal(mount_of_path("/", &m, err, sizeof err), 0);
    assert_string_equal(m.mount_point, "/");
    assert_true(m.fs_type[0] && m.options[0]);
    /* not made yet: its directory's mount */
    assert_int_equal(mount_of_path("/proc/no-such-name", &m, err, sizeof err), 0);
    assert_string_equal(m.fs_type, "proc");
    assert_int_equal(mount_of_path("/no-such-dir/x", &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "No such file"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kv),
        cmocka_unit_test(test_mount),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
