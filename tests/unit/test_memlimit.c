/*
 * memlimit: the arithmetic of the up-front refusal of a run whose state map
 * would not fit in the memory it may use, and its message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../checks/memlimit.h"
#include "../../checks/statemap.h"

#define KiB 1024ull
#define MiB (1024 * KiB)
#define GiB (1024 * MiB)
#define TiB (1024 * GiB)

static void two_bytes_per_block_as_the_map_keeps_them(void **state)
{
    (void)state;
    assert_int_equal(memlimit_map_bytes(0), 0);
    assert_int_equal(memlimit_map_bytes(TiB / 4096), 512 * MiB);
    assert_int_equal(memlimit_map_bytes(100 * TiB / 4096), 50 * GiB);
    assert_int_equal(memlimit_map_bytes(UINT64_MAX), UINT64_MAX); /* no wrap */
    /* the same figure the map itself reports */
    struct statemap m;
    assert_int_equal(statemap_init(&m, 12345), 0);
    assert_int_equal(memlimit_map_bytes(12345), statemap_bytes_at_rest(&m));
    statemap_free(&m);
}

static void the_default_is_half_of_memavailable(void **state)
{
    (void)state;
    assert_int_equal(memlimit_default(0), 0);
    assert_int_equal(memlimit_default(2 * GiB), GiB);
    assert_int_equal(memlimit_default(101), 50);
    assert_int_equal(memlimit_default(UINT64_MAX), UINT64_MAX / 2); /* no overflow */
}

static void memavailable_is_read_from_meminfo(void **state)
{
    (void)state;
    uint64_t b = 0;
    const char *mi = "MemTotal:       24634644 kB\nMemFree:        23000000 kB\n"
                     "MemAvailable:   23871612 kB\nBuffers:           12345 kB\n";
    assert_int_equal(memlimit_parse_meminfo(mi, &b), 0);
    assert_int_equal(b, 23871612ull * 1024);
    assert_int_equal(memlimit_parse_meminfo("MemTotal: 1 kB\n", &b), -1);
    assert_int_equal(memlimit_parse_meminfo("MemAvailable: lots\n", &b), -1);
    assert_int_equal(memlimit_parse_meminfo("MemAvailable: 12 MB\n", &b), -1);
    assert_int_equal(memlimit_parse_meminfo("XMemAvailable: 12 kB\n", &b), -1);
}

static void a_map_that_fits_passes(void **state)
{
    (void)state;
    char msg[512] = "";
    /* exactly the limit fits */
    assert_int_equal(memlimit_check(GiB / 2, GiB, 0, msg, sizeof msg), 0);
    assert_int_equal(memlimit_check(TiB / 4096, 0, 2 * GiB, msg, sizeof msg), 0);
    /* MemAvailable unknown and no memory_limit: nothing to hold it against */
    assert_int_equal(memlimit_check(100 * TiB / 4096, 0, 0, msg, sizeof msg), 0);
    assert_string_equal(msg, "");
}

static void a_map_too_large_is_refused_with_the_numbers(void **state)
{
    (void)state;
    char msg[512];
    /* the default: 50% of 22.8 GiB */
    uint64_t avail = (uint64_t)(22.8 * (double)GiB);
    assert_int_equal(memlimit_check(100 * TiB / 4096, 0, avail, msg, sizeof msg), -1);
    assert_string_equal(msg, "the state map of 26843545600 blocks needs 50.0 GiB at 2 bytes per "
                             "block; this run may use 11.4 GiB (memory_limit, default: 50% of "
                             "MemAvailable 22.8 GiB; set it in [scenario])");
    /* set in the scenario: one block over */
    assert_int_equal(memlimit_check(2 * MiB + 1, 4 * MiB, avail, msg, sizeof msg), -1);
    assert_string_equal(msg, "the state map of 2097153 blocks needs 4.0 MiB at 2 bytes per "
                             "block; this run may use 4.0 MiB (memory_limit in [scenario]; "
                             "MemAvailable is 22.8 GiB)");
    /* an explicit limit holds even when MemAvailable is unknown */
    assert_int_equal(memlimit_check(GiB, GiB, 0, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "MemAvailable is unknown"));
}

static void sizes_are_formatted_with_one_decimal(void **state)
{
    (void)state;
    char s[32];
    memlimit_format(100, s, sizeof s);
    assert_string_equal(s, "100 B");
    memlimit_format(1536, s, sizeof s);
    assert_string_equal(s, "1.5 KiB");
    memlimit_format(50 * GiB, s, sizeof s);
    assert_string_equal(s, "50.0 GiB");
    memlimit_format(3 * TiB, s, sizeof s);
    assert_string_equal(s, "3.0 TiB");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_bytes_per_block_as_the_map_keeps_them),
        cmocka_unit_test(the_default_is_half_of_memavailable),
        cmocka_unit_test(memavailable_is_read_from_meminfo),
        cmocka_unit_test(a_map_that_fits_passes),
        cmocka_unit_test(a_map_too_large_is_refused_with_the_numbers),
        cmocka_unit_test(sizes_are_formatted_with_one_decimal),
    };
    return cmocka_run_group_tests_name("memlimit", tests, NULL, NULL);
}
