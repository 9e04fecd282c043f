/*
 * The disk layer's command language (lib/diskctl.h): every command the
 * disk faults send reads back as itself; lines a layer must refuse are
 * refused with the reason; the counts read back as written, and what a
 * fault did is the difference of two answers.  diskctl_ask against a
 * socket nobody listens on says which socket and why.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "../../lib/diskctl.h"

/* cmd formatted, then parsed: the same command. */
static void round_trip(const struct disk_cmd *cmd)
{
    char line[DISKCTL_LINE_MAX], why[256] = "";
    assert_int_equal(diskctl_format(cmd, line, sizeof line), 0);
    struct disk_cmd back;
    if (diskctl_parse(line, &back, why, sizeof why) != 0)
        fail_msg("'%s' did not parse: %s", line, why);
    assert_int_equal(back.mode, cmd->mode);
    assert_int_equal(back.replace, cmd->replace);
    if (cmd->mode == DISK_ERRORS) {
        assert_int_equal(back.on, cmd->on);
        assert_int_equal(back.percent, cmd->percent ? cmd->percent : 100);
        assert_true(back.seed == cmd->seed);
        assert_int_equal(back.nranges, cmd->nranges);
        assert_memory_equal(back.ranges, cmd->ranges, sizeof back.ranges[0] * cmd->nranges);
    }
    if (cmd->mode == DISK_SLOW) {
        assert_true(back.latency_us == cmd->latency_us);
        assert_true(back.jitter_us == cmd->jitter_us);
    }
}

static void commands_read_back_as_themselves(void **state)
{
    (void)state;
    round_trip(&(struct disk_cmd){.mode = DISK_FAIL});
    round_trip(&(struct disk_cmd){.mode = DISK_FULL});
    round_trip(&(struct disk_cmd){.mode = DISK_OK});
    round_trip(&(struct disk_cmd){.mode = DISK_OK, .replace = true});
    round_trip(&(struct disk_cmd){.mode = DISK_SLOW, .latency_us = 50000});
    round_trip(&(struct disk_cmd){.mode = DISK_SLOW, .latency_us = 1, .jitter_us = 999});
    round_trip(&(struct disk_cmd){.mode = DISK_ERRORS, .on = DISK_ON_BOTH, .percent = 5});
    struct disk_cmd many = {.mode = DISK_ERRORS, .on = DISK_ON_WRITE, .percent = 100,
                            .seed = UINT64_MAX, .nranges = DISKCTL_RANGES_MAX};
    for (unsigned i = 0; i < many.nranges; i++) {
        many.ranges[i][0] = (uint64_t)i << 40;
        many.ranges[i][1] = 4096 + i;
    }
    round_trip(&many);
}

static void bad_lines_are_refused_with_the_reason(void **state)
{
    (void)state;
    static const struct {
        const char *line, *why;
    } bad[] = {
        {"", "none of"},
        {"set", "none of"},
        {"set melt", "fail, errors, slow or full"},
        {"set slow", "needs latency_us"},
        {"set slow latency_us=abc", "not a whole number"},
        {"set slow latency_us=-1", "not a whole number"},
        {"set fail percent=5", "takes no key 'percent'"},
        {"set errors on=sideways", "read, write or both"},
        {"set errors percent=0", "from 1 to 100"},
        {"set errors percent=101", "from 1 to 100"},
        {"set errors ranges=10", "not OFFSET+LENGTH"},
        {"set errors ranges=10+0", "the length above 0"},
        {"set errors ranges=18446744073709551615+2", "the length above 0"},
        {"set errors seed", "not KEY=VALUE"},
        {"clear now", "not 'now'"},
        {"clear replace twice", "more words"},
        {"status please", "none of"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct disk_cmd c;
        char why[256] = "";
        if (diskctl_parse(bad[i].line, &c, why, sizeof why) == 0)
            fail_msg("'%s' was taken", bad[i].line);
        if (!strstr(why, bad[i].why))
            fail_msg("'%s': '%s' does not say '%s'", bad[i].line, why, bad[i].why);
    }
    char many[DISKCTL_LINE_MAX] = "set errors ranges=";
    for (unsigned i = 0; i <= DISKCTL_RANGES_MAX; i++)
        snprintf(many + strlen(many), sizeof many - strlen(many), "%s%u+1", i ? "," : "", i);
    struct disk_cmd c;
    char why[256];
    assert_int_equal(diskctl_parse(many, &c, why, sizeof why), -1);
    assert_non_null(strstr(why, "more than 64 ranges"));
}

static void counts_read_back_and_subtract(void **state)
{
    (void)state;
    struct disk_counts a = {1, 2, 3, 4, 5, 6, 7, 8}, b, d;
    char text[512];
    assert_int_equal(diskctl_counts_format(&a, text, sizeof text), 0);
    assert_string_equal(text, "reads=1 writes=2 syncs=3 failed_reads=4 failed_writes=5 "
                              "failed_syncs=6 nospace=7 slowed=8");
    assert_int_equal(diskctl_counts_parse(text, &b), 0);
    assert_memory_equal(&a, &b, sizeof a);
    assert_int_equal(diskctl_counts_parse("reads=9", &b), 0);
    assert_true(b.reads == 9 && b.writes == 0);
    assert_int_equal(diskctl_counts_parse("reads=9 colour=3", &b), -1);
    assert_int_equal(diskctl_counts_parse("reads=x", &b), -1);
    b = (struct disk_counts){11, 12, 13, 14, 15, 16, 17, 18};
    d = disk_counts_since(&a, &b);
    assert_true(d.reads == 10 && d.slowed == 10 && d.nospace == 10);
    /* a layer started again counts from 0: never a negative count */
    d = disk_counts_since(&b, &a);
    assert_true(d.reads == 0 && d.failed_reads == 0);
    assert_int_equal(diskctl_counts_format(&a, text, 20), -1);
}

static void asking_nobody_says_which_socket(void **state)
{
    (void)state;
    char why[512] = "";
    assert_int_equal(diskctl_ask("/nonexistent/fl-disk.sock", "status", NULL, NULL, 1000, why,
                                 sizeof why),
                     -1);
    assert_non_null(strstr(why, "/nonexistent/fl-disk.sock"));
    assert_non_null(strstr(why, "No such file"));
    assert_string_equal(disk_mode_name(DISK_ERRORS), "errors");
    assert_string_equal(disk_mode_name((enum disk_mode)42), "?");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(commands_read_back_as_themselves),
        cmocka_unit_test(bad_lines_are_refused_with_the_reason),
        cmocka_unit_test(counts_read_back_and_subtract),
        cmocka_unit_test(asking_nobody_says_which_socket),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
