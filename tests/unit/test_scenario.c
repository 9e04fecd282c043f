/*
 * Scenario files: the minimum scenario of the contract parses exactly as
 * written, values in every unit, and every mistake is named as file:line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../../harness/scenario/scenario.h"
#include "../../workloads/backend_iscsi.h"
#include "../../lib/units.h"

static const char minimum[] = "[scenario]\n"
                              "name = smoke\n"
                              "duration = 10s\n"
                              "[target]\n"
                              "kind = file          # or blockdev\n"
                              "path = /tmp/x.img\n"
                              "size = 64MiB         # file created/extended if needed\n"
                              "[workload]\n"
                              "block = 4KiB\n"
                              "pattern = random     # or sequential\n"
                              "read = 50%\n"
                              "depth = 8\n"
                              "flush = 64           # writes between flushes\n"
                              "direct = no\n";

static void the_minimum_scenario_works_exactly_as_written(void **state)
{
    (void)state;
    struct scenario sc;
    char err[FL_ERRLEN];
    if (scenario_parse(minimum, "smoke.scn", &sc, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_string_equal(sc.name, "smoke");
    assert_true(sc.duration_ns == 10000000000ull);
    assert_string_equal(sc.target.kind, "file");
    assert_string_equal(sc.target.path, "/tmp/x.img");
    assert_true(sc.target.size == 64ull << 20);
    assert_int_equal(sc.workload.block_size, 4096);
    assert_int_equal(sc.workload.pattern, PATTERN_RANDOM);
    assert_int_equal(sc.workload.read_pct, 50);
    assert_int_equal(sc.workload.depth, 8);
    assert_int_equal(sc.workload.flush_every, 64);
    assert_false(sc.target.direct);
    assert_int_equal(sc.target.engine, ENGINE_SYNC); /* buffered file */
    assert_true(sc.journal);
}

static void defaults_fill_what_is_not_said(void **state)
{
    (void)state;
    struct scenario sc;
    char err[FL_ERRLEN];
    const char *text = "[target]\nkind = blockdev\npath = /dev/loop7\n";
    if (scenario_parse(text, "dir/my-test.scn", &sc, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_string_equal(sc.name, "my-test");
    assert_true(sc.duration_ns == 10000000000ull);
    assert_int_equal(sc.workload.block_size, 4096);
    assert_int_equal(sc.workload.depth, 8);
    assert_true(sc.target.direct); /* block devices always */
    assert_int_equal(sc.target.engine, ENGINE_URING);
    assert_int_equal(sc.target.size, 0);
    assert_int_equal(sc.workload.reread_pct, 0); /* the op sequence of old seeds */
}

/* Parses text and expects an error that starts with want_prefix and holds
 * want_part. */
static void expect_error(const char *text, const char *want_prefix, const char *want_part)
{
    struct scenario sc;
    char err[FL_ERRLEN] = "";
    assert_int_equal(scenario_parse(text, "t.scn", &sc, err, sizeof err), -1);
    if (strncmp(err, want_prefix, strlen(want_prefix)) != 0 || !strstr(err, want_part))
        fail_msg("got \"%s\", wanted \"%s...%s...\"", err, want_prefix, want_part);
}

static void mistakes_are_named_by_file_and_line(void **state)
{
    (void)state;
    expect_error("[target]\nkind = file\npath = /x\n[workload]\nblok = 4k\n", "t.scn:5:",
                 "did you mean 'block'?");
    expect_error("[target]\nkind = file\npath = /x\n[workload]\nblock = 4 furlongs\n",
                 "t.scn:5:", "unknown size unit");
    expect_error("[target]\nkind = file\npath = /x\n[workload]\nread = 120%\n", "t.scn:5:",
                 "percentage");
    expect_error("[target]\nkind = file\npath = /x\n[workload]\npattern = zigzag\n", "t.scn:5:",
                 "random|sequential");
    expect_error("[target]\nkind = nfs\npath = /x\n", "t.scn:2:", "unknown target kind");
    expect_error("[target]\nkind = file\nkind = file\npath = /x\n", "t.scn:3:", "set twice");
    expect_error("[targets]\nkind = file\n", "t.scn:1:", "unknown section [targets]");
    expect_error("kind = file\n", "t.scn:1:", "outside any [section]");
    expect_error("[target]\nkind file\n", "t.scn:2:", "expected 'key = value'");
    expect_error("[target]\nkind =\n", "t.scn:2:", "has no value");
    expect_error("[target]\nkind = file\npath = /x\n[target]\n", "t.scn:4:", "second [target]");
    expect_error("[target]\nkind = file\n", "t.scn:1:", "needs 'path'");
    expect_error("[scenario]\nduration = 10s\n", "t.scn:", "no [target] section");
    expect_error("[target]\nkind = file\npath = /x\n[workload]\nblock = 1000\n", "t.scn:5:",
                 "not a multiple of 512");
    expect_error("[target]\nkind = file\npath = /x\n[workload]\nblock = 2MiB\n", "t.scn:5:",
                 "out of range");
    expect_error("[target]\nkind = file\npath = /x\n[workload]\ndepth = 0\n", "t.scn:5:",
                 "out of range");
    expect_error("[target]\nkind = file\npath = /x\n[workload]\nworkers = 2\n", "t.scn:5:",
                 "sync engine");
    expect_error("[scenario]\nduration = 0s\n[target]\nkind = file\npath = /x\n", "t.scn:2:",
                 "too short");
    expect_error("[scenario]\nfoo = 1\n", "t.scn:2:", "unknown key 'foo' in [scenario]");
    expect_error("[target]\nkind = file\npath = /x\n[fault s]\naction = scrub\nat = 1s\n",
                 "t.scn:4:", "scrub needs replica = NAME");
}

static void iscsi_targets_take_portals_or_the_lab(void **state)
{
    (void)state;
    struct scenario sc;
    char err[FL_ERRLEN];
    const char *text = "[target]\nkind = iscsi\nportals = iscsi://198.18.1.11/iqn.x:lun/1,"
                       "  iscsi://198.18.1.12:3261/iqn.x:lun/1\nfua = yes\n"
                       "command_timeout = 2500ms\n";
    if (scenario_parse(text, "i.scn", &sc, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(iscsi_cfg(&sc.target)->nportals, 2);
    assert_string_equal(iscsi_cfg(&sc.target)->portals[1], "iscsi://198.18.1.12:3261/iqn.x:lun/1");
    assert_true(iscsi_cfg(&sc.target)->fua);
    assert_int_equal(iscsi_cfg(&sc.target)->command_timeout_s, 3); /* whole seconds, rounded up */
    assert_int_equal(iscsi_cfg(&sc.target)->nop_missed, 3);
    assert_true(iscsi_cfg(&sc.target)->io_timeout_ns == 30000000000ull);
    if (scenario_parse("[scenario]\nlab = iscsi\n[target]\nkind = iscsi\n[lab]\nsize = 64MiB\n",
                       "l.scn", &sc, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_string_equal(sc.lab->name, "iscsi");
    assert_true(sc.lab_opts.size == 64ull << 20);
    assert_int_equal(iscsi_cfg(&sc.target)->nportals, 0);

    expect_error("[target]\nkind = iscsi\n", "t.scn:1:", "needs portals");
    expect_error("[target]\nkind = iscsi\npath = /dev/sda\n", "t.scn:3:", "takes portals");
    expect_error("[target]\nkind = iscsi\nportals = http://x/y/1\n", "t.scn:3:",
                 "not iscsi://");
    expect_error("[target]\nkind = file\npath = /x\nportals = iscsi://a/b/1\n", "t.scn:4:",
                 "only for kind = iscsi");
    expect_error("[target]\nkind = iscsi\nportals = iscsi://a/b/1\ncommand_timeout = 10ms\n",
                 "t.scn:4:", "too short");
    expect_error("[scenario]\nlab = lustre\n", "t.scn:2:", "none|iscsi|gluster|ceph");
    expect_error("[lab]\nwrite_cache = sometimes\n", "t.scn:2:", "yes or no");
}

static void units_read_as_storage_people_write_them(void **state)
{
    (void)state;
    char why[128];
    uint64_t v;
    struct {
        const char *s;
        uint64_t want;
    } sizes[] = {{"512", 512},        {"4k", 4096},          {"4K", 4096},     {"4KiB", 4096},
                 {"4KB", 4096},       {"64MiB", 64ull << 20}, {"1g", 1ull << 30},
                 {"2 TiB", 2ull << 40}, {"0", 0}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        assert_int_equal(parse_size(sizes[i].s, &v, why, sizeof why), 0);
        assert_true(v == sizes[i].want);
    }
    assert_int_equal(parse_size("-4k", &v, why, sizeof why), -1);
    assert_int_equal(parse_size("4 parsecs", &v, why, sizeof why), -1);
    assert_int_equal(parse_size("99999999999T", &v, why, sizeof why), -1);
    struct {
        const char *s;
        uint64_t ns;
    } durs[] = {{"10s", 10000000000ull}, {"10", 10000000000ull}, {"500ms", 500000000ull},
                {"1.5s", 1500000000ull}, {"2m", 120000000000ull}, {"1h", 3600000000000ull},
                {"250us", 250000ull}};
    for (size_t i = 0; i < sizeof durs / sizeof durs[0]; i++) {
        assert_int_equal(parse_duration(durs[i].s, &v, why, sizeof why), 0);
        assert_true(v == durs[i].ns);
    }
    assert_int_equal(parse_duration("soon", &v, why, sizeof why), -1);
    assert_int_equal(parse_duration("5 fortnights", &v, why, sizeof why), -1);
    unsigned p;
    assert_int_equal(parse_percent("50%", &p, why, sizeof why), 0);
    assert_int_equal(p, 50);
    assert_int_equal(parse_percent("100", &p, why, sizeof why), 0);
    assert_int_equal(parse_percent("101%", &p, why, sizeof why), -1);
    bool b;
    assert_int_equal(parse_bool("yes", &b, why, sizeof why), 0);
    assert_true(b);
    assert_int_equal(parse_bool("Off", &b, why, sizeof why), 0);
    assert_false(b);
    assert_int_equal(parse_bool("maybe", &b, why, sizeof why), -1);
    char out[32];
    format_size(64ull << 20, out, sizeof out);
    assert_string_equal(out, "64 MiB");
    format_size(1000, out, sizeof out);
    assert_string_equal(out, "1000 B");
}

static const char with_expect[] = "[scenario]\n"
                                  "bucket = 10ms\n"
                                  "hung_after = 2s\n"
                                  "[target]\nkind = file\npath = /tmp/x.img\n"
                                  "[expect]\n"
                                  "lost_writes = 0\n"
                                  "errors <= 10\n"
                                  "max_stall <= 20s\n"
                                  "recovery < 1500ms\n"
                                  "detected_corrupt >= 1\n"
                                  "iops > 100\n"
                                  "doubtful_writes == 0\n"
                                  "[fault bounce]\n"
                                  "action = command\n"
                                  "command = true\n"
                                  "expect_stall <= 8s\n"
                                  "expect_errors = 0\n";

static void expectations_compare_as_written(void **state)
{
    (void)state;
    struct scenario sc;
    char err[FL_ERRLEN];
    if (scenario_parse(with_expect, "e.scn", &sc, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_true(sc.bucket_ns == 10000000ull);
    assert_true(sc.hung_after_ns == 2000000000ull);
    assert_true(sc.grace_ns == 30000000000ull);   /* default */
    assert_true(sc.warmup_ns == 1000000000ull);   /* default */
    assert_int_equal(sc.nexpects, 9);
    const struct expect_rule *e = sc.expects;
    assert_int_equal(e[0].metric, M_LOST_WRITES);
    assert_int_equal(e[0].op, EXP_EQ);
    assert_int_equal(e[0].fault, -1);
    assert_int_equal(e[0].line, 8);
    assert_int_equal(e[1].op, EXP_LE);
    assert_true(e[1].value == 10);
    assert_int_equal(e[2].metric, M_MAX_STALL);
    assert_true(e[2].value == 20);                 /* seconds */
    assert_int_equal(e[3].op, EXP_LT);
    assert_true(e[3].value > 1.4999 && e[3].value < 1.5001);
    assert_int_equal(e[4].op, EXP_GE);
    assert_int_equal(e[5].op, EXP_GT);
    assert_int_equal(e[6].op, EXP_EQ);             /* "==" is "=" */
    assert_int_equal(e[7].fault, 0);
    assert_int_equal(e[7].metric, F_STALL);
    assert_string_equal(e[7].text, "expect_stall <= 8s");
    assert_int_equal(e[8].metric, F_ERRORS);

    /* What the comparisons mean. */
    assert_true(expect_holds(&e[2], 19.9, true));
    assert_true(expect_holds(&e[2], 20.0, true));
    assert_false(expect_holds(&e[2], 20.001, true));
    assert_false(expect_holds(&e[2], 0, false)); /* unmeasured never holds */
    assert_false(expect_holds(&e[3], 1.5, true));
    assert_true(expect_holds(&e[4], 1, true));
    assert_false(expect_holds(&e[5], 100, true));
    assert_true(expect_holds(&e[0], 0, true));
    assert_false(expect_holds(&e[0], 1, true));
}

static void expectation_mistakes_are_named(void **state)
{
    (void)state;
    const char *head = "[target]\nkind = file\npath = /x\n";
    char text[512];
    snprintf(text, sizeof text, "%s[expect]\nlost_write = 0\n", head);
    expect_error(text, "t.scn:5:", "did you mean 'lost_writes'");
    snprintf(text, sizeof text, "%s[expect]\nmax_stall <= soon\n", head);
    expect_error(text, "t.scn:5:", "max_stall");
    snprintf(text, sizeof text, "%s[expect]\nerrors <= 1.5\n", head);
    expect_error(text, "t.scn:5:", "a count");
    snprintf(text, sizeof text, "%s[expect]\nerrors =< 1\n", head);
    expect_error(text, "t.scn:5:", "errors");
    snprintf(text, sizeof text, "[scenario]\nduration <= 5s\n%s", head);
    expect_error(text, "t.scn:2:", "only [expect] and expect_* keys compare");
    snprintf(text, sizeof text, "%s[fault f]\naction = command\ncommand = true\n"
             "expect_stal <= 1s\n", head);
    expect_error(text, "t.scn:7:", "did you mean 'expect_stall'");
    snprintf(text, sizeof text, "[scenario]\nbucket = 100us\n%s", head);
    expect_error(text, "t.scn:2:", "bucket");
}

/* A [host]'s power commands: bound as written, and power-off refused where
 * a host has no way to power off (file:line and why). */
static void hosts_power_off_by_their_own_commands(void **state)
{
    (void)state;
    const char *head = "[target]\nkind = file\npath = /x\n";
    char text[1024];
    snprintf(text, sizeof text,
             "%s[host gs2]\nssh = root@gs2\npower_off = ipmitool -H bmc-gs2 chassis power off\n"
             "power_on = ipmitool -H bmc-gs2 chassis power on\n"
             "power_status = ipmitool -H bmc-gs2 chassis power status\npower_wait = 5s\n"
             "[host gs3]\npower_off = off gs3\npower_on = on gs3\n"
             "[fault cut]\naction = power-off\nhost = gs2\nat = 1s\n"
             "[fault cut3]\naction = power-off\nhost = gs3\nat = 1s\n", head);
    struct scenario sc;
    char err[FL_ERRLEN];
    if (scenario_parse(text, "t.scn", &sc, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(sc.nhosts, 2);
    assert_string_equal(sc.hosts[0].power.off, "ipmitool -H bmc-gs2 chassis power off");
    assert_string_equal(sc.hosts[0].power.on, "ipmitool -H bmc-gs2 chassis power on");
    assert_string_equal(sc.hosts[0].power.status, "ipmitool -H bmc-gs2 chassis power status");
    assert_true(sc.hosts[0].power.wait_ns == 5000000000ull);
    assert_true(sc.hosts[1].power.wait_ns == 30000000000ull); /* the default */
    assert_string_equal(sc.hosts[1].power.status, "");
    assert_int_equal(sc.faults[0].loses, LOSES_UNFLUSHED); /* a cut, as a lab server's */

    snprintf(text, sizeof text, "%s[host h]\npower_status = st\n", head);
    expect_error(text, "t.scn:5:", "power_status needs power_off and power_on");
    snprintf(text, sizeof text, "%s[host h]\npower_off = off\n", head);
    expect_error(text, "t.scn:5:", "power_off needs power_on");
    snprintf(text, sizeof text, "%s[host h]\nnetns = x\npower_on = on\n", head);
    expect_error(text, "t.scn:6:", "power_on needs power_off");
    snprintf(text, sizeof text, "%s[host h]\npower_off = off\npower_on = on\npower_wait = 1ms\n",
             head);
    expect_error(text, "t.scn:7:", "power_wait");
    snprintf(text, sizeof text, "%s[host h]\nssh = root@h\n[fault cut]\naction = power-off\n"
             "host = h\nat = 1s\n", head);
    expect_error(text, "t.scn:6:", "[host h] has no power_off and power_on");
    snprintf(text, sizeof text, "%s[fault cut]\naction = power-off\nat = 1s\n", head);
    expect_error(text, "t.scn:4:", "and local is neither");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_minimum_scenario_works_exactly_as_written),
        cmocka_unit_test(defaults_fill_what_is_not_said),
        cmocka_unit_test(mistakes_are_named_by_file_and_line),
        cmocka_unit_test(iscsi_targets_take_portals_or_the_lab),
        cmocka_unit_test(units_read_as_storage_people_write_them),
        cmocka_unit_test(expectations_compare_as_written),
        cmocka_unit_test(expectation_mistakes_are_named),
        cmocka_unit_test(hosts_power_off_by_their_own_commands),
    };
    return cmocka_run_group_tests_name("scenario", tests, NULL, NULL);
}
