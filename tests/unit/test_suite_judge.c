/*
 * The outcome a suite expects and its judgement: expect_verdict and
 * expect_failing read from a scenario (RULE?, FAULT:METRIC), and attempts
 * read from report.json judged against them: met only when every failed
 * rule is listed and every listed rule without '?' failed; a bare fault
 * metric names it on any fault, FAULT:METRIC on one; timing only when
 * nothing but timing rules failed and nothing was found.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../../harness/run/suite_parts.h"
#include "../../lib/errbuf.h"
#include "../../lib/jread.h"

static const char head[] = "[target]\nkind = file\npath = /tmp/x.img\nsize = 1MiB\n"
                           "[fault kill-a]\naction = command\ncommand = true\nat = 1s\n"
                           "expect_stall <= 1s\n[expect]\nmax_stall <= 2s\n";

static void expect_failing_reads_rules_and_optional_ones(void **state)
{
    (void)state;
    static struct scenario sc;
    char text[1024], err[FL_ERRLEN];
    snprintf(text, sizeof text, "[scenario]\nduration = 2s\nexpect_verdict = fail\n"
             "expect_failing = lost_writes, stale_reads? ,kill-a:stall,max_stall?\n%s", head);
    if (scenario_parse(text, "t.scn", &sc, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(sc.expect_verdict, EXPECT_VERDICT_FAIL);
    assert_int_equal(sc.nexpect_failing, 4);
    const char *rules[] = {"lost_writes", "stale_reads", "kill-a:stall", "max_stall"};
    const bool optional[] = {false, true, false, true};
    for (int i = 0; i < 4; i++) {
        assert_string_equal(sc.expect_failing[i].rule, rules[i]);
        assert_int_equal(sc.expect_failing[i].optional, optional[i]);
    }
    snprintf(text, sizeof text, "[scenario]\nduration = 2s\n%s", head);
    if (scenario_parse(text, "t.scn", &sc, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(sc.expect_verdict, EXPECT_VERDICT_PASS);
    assert_int_equal(sc.nexpect_failing, 0);
}

static void expect_error(const char *keys, const char *want)
{
    static struct scenario sc;
    char text[1024], err[FL_ERRLEN];
    snprintf(text, sizeof text, "[scenario]\nduration = 2s\n%s%s", keys, head);
    assert_int_equal(scenario_parse(text, "t.scn", &sc, err, sizeof err), -1);
    if (!strstr(err, want))
        fail_msg("'%s' does not say '%s'", err, want);
}

static void outcome_mistakes_are_named(void **state)
{
    (void)state;
    expect_error("expect_failing = corrupt\n", "t.scn:3: expect_failing: corrupt must fail, but "
                 "the scenario is expected to pass: with expect_verdict = pass only rules it may "
                 "fail on (corrupt?)");
    expect_error("expect_verdict = fail\n", "t.scn:3: expect_verdict = fail needs expect_failing");
    expect_error("expect_verdict = never\n", "t.scn:3:");
    const char *fail = "expect_verdict = fail\nexpect_failing = ";
    char keys[256];
    snprintf(keys, sizeof keys, "%scorupt\n", fail);
    expect_error(keys, "t.scn:4: expect_failing: 'corupt' is not a rule's metric; did you mean "
                       "'corrupt'?");
    snprintf(keys, sizeof keys, "%srecovery\n", fail); /* no rule on it: cannot fail */
    expect_error(keys, "'recovery' can never fail");
    snprintf(keys, sizeof keys, "%skill-b:stall\n", fail);
    expect_error(keys, "there is no [fault kill-b]");
    snprintf(keys, sizeof keys, "%skill-a:max_stall\n", fail);
    expect_error(keys, "max_stall is not a fault's metric");
    snprintf(keys, sizeof keys, "%skill-a:recovery\n", fail);
    expect_error(keys, "[fault kill-a] has no expect_recovery");
    snprintf(keys, sizeof keys, "%scorrupt, , zeroed\n", fail);
    expect_error(keys, "an empty rule");
}

/* An entry that expects to fail on `rules` ("a, b?"). */
static void entry_failing(struct suite_entry *e, const char *const *rules, int n)
{
    memset(e, 0, sizeof *e);
    e->expect_fail = true;
    for (int i = 0; i < n; i++) {
        size_t l = strlen(rules[i]);
        struct expect_failing *f = &e->failing[e->nfailing++];
        f->optional = rules[i][l - 1] == '?';
        snprintf(f->rule, sizeof f->rule, "%.*s", (int)(l - f->optional), rules[i]);
    }
}

/* An attempt judged from a report.json made of `expectations` (the JSON
 * array's items) and the run's measured findings. */
static void attempt_of(struct suite_attempt *a, const char *verdict, int exit,
                       const char *expectations, unsigned findings)
{
    char text[2048], why[256];
    snprintf(text, sizeof text, "{\"verdict\": \"%s\", \"mode\": \"run\", \"expectations\": [%s], "
             "\"measured\": {\"findings\": %u}, \"faults\": [{\"name\": \"kill-a\", \"stall_s\": "
             "2.5, \"recovery_s\": null}]}", verdict, expectations, findings);
    struct jv *doc = NULL;
    if (jv_parse(text, strlen(text), &doc, why, sizeof why) != 0)
        fail_msg("%s", why);
    static struct result res;
    char err[256];
    memset(&res, 0, sizeof res);
    if (result_from_json(doc, &res, err, sizeof err) != 0)
        fail_msg("%s", err);
    memset(a, 0, sizeof *a);
    a->exit = exit;
    suite_judge_attempt(&res, a);
    result_free(&res);
    jv_free(doc);
}

#define RUN_RULE(m) "{\"metric\": \"" m "\", \"fault\": null, \"pass\": false}"
#define FAULT_RULE(f, m) "{\"metric\": \"" m "\", \"fault\": \"" f "\", \"pass\": false}"
#define HELD(m) "{\"metric\": \"" m "\", \"fault\": null, \"pass\": true}"

static void must_fail_is_met_on_its_rules_and_no_other(void **state)
{
    (void)state;
    struct suite_entry e;
    struct suite_attempt a;
    char why[1024];
    const char *const lies[] = {"lost_writes", "zeroed"};
    entry_failing(&e, lies, 2);
    attempt_of(&a, "fail", 1, RUN_RULE("lost_writes") "," RUN_RULE("zeroed") "," HELD("corrupt"), 9);
    assert_true(suite_judge_met(&e, &a, why, sizeof why));
    assert_int_equal(a.nfailing, 2);
    assert_false(a.timing_only);
    suite_attempt_free(&a);
    /* one listed rule held: not met */
    attempt_of(&a, "fail", 1, RUN_RULE("lost_writes"), 3);
    assert_false(suite_judge_met(&e, &a, why, sizeof why));
    assert_string_equal(why, "did not fail on zeroed, which it must");
    suite_attempt_free(&a);
    /* one more rule failed: not met */
    attempt_of(&a, "fail", 1, RUN_RULE("lost_writes") "," RUN_RULE("zeroed") "," RUN_RULE("hung"), 3);
    assert_false(suite_judge_met(&e, &a, why, sizeof why));
    assert_string_equal(why, "failed on hung, which it must not");
    suite_attempt_free(&a);
    /* a pass is never a must-fail scenario met */
    attempt_of(&a, "pass", 0, HELD("lost_writes"), 0);
    assert_false(suite_judge_met(&e, &a, why, sizeof why));
    suite_attempt_free(&a);
}

static void optional_rules_and_fault_rules_match_as_written(void **state)
{
    (void)state;
    struct suite_entry e;
    struct suite_attempt a;
    char why[1024];
    const char *const any[] = {"lost_writes?", "stale_reads?", "zeroed?"};
    entry_failing(&e, any, 3);
    attempt_of(&a, "fail", 1, RUN_RULE("stale_reads"), 2);
    assert_true(suite_judge_met(&e, &a, why, sizeof why));
    suite_attempt_free(&a);
    attempt_of(&a, "fail", 1, "", 0); /* failed, but on no rule: never met */
    assert_false(suite_judge_met(&e, &a, why, sizeof why));
    suite_attempt_free(&a);
    /* "stall" names any fault's stall, "kill-a:stall" only kill-a's */
    const char *const bare[] = {"stall"};
    entry_failing(&e, bare, 1);
    attempt_of(&a, "fail", 1, FAULT_RULE("kill-b", "stall"), 0);
    assert_int_equal(a.nfailing, 1);
    assert_string_equal(a.failing[0], "kill-b:stall");
    assert_true(suite_judge_met(&e, &a, why, sizeof why));
    const char *const one[] = {"kill-a:stall"};
    entry_failing(&e, one, 1);
    assert_false(suite_judge_met(&e, &a, why, sizeof why));
    assert_string_equal(why, "failed on kill-b:stall, which it must not; did not fail on "
                             "kill-a:stall, which it must");
    suite_attempt_free(&a);
}

/* Expected to pass, with rules it may fail on (all RULE?): a pass is met,
 * a fail on those alone is met, a fail on any other rule is not. */
static void pass_with_rules_it_may_fail_on(void **state)
{
    (void)state;
    struct suite_entry e;
    struct suite_attempt a;
    char why[1024];
    const char *const known[] = {"hung?", "missing_files?"};
    entry_failing(&e, known, 2);
    e.expect_fail = false;
    attempt_of(&a, "pass", 0, HELD("hung"), 0);
    assert_true(suite_judge_met(&e, &a, why, sizeof why));
    suite_attempt_free(&a);
    attempt_of(&a, "fail", 1, RUN_RULE("hung"), 0);
    assert_true(suite_judge_met(&e, &a, why, sizeof why));
    suite_attempt_free(&a);
    attempt_of(&a, "fail", 1, RUN_RULE("hung") "," RUN_RULE("lost_writes"), 4);
    assert_false(suite_judge_met(&e, &a, why, sizeof why));
    assert_string_equal(why, "failed on lost_writes, which it must not");
    suite_attempt_free(&a);
}

static void only_timing_without_findings_is_retried(void **state)
{
    (void)state;
    struct suite_entry e;
    struct suite_attempt a;
    char why[1024];
    memset(&e, 0, sizeof e);
    attempt_of(&a, "fail", 1, RUN_RULE("max_stall") "," FAULT_RULE("kill-a", "recovery"), 0);
    assert_true(a.timing_only);
    assert_false(suite_judge_met(&e, &a, why, sizeof why));
    assert_string_equal(why, "failed on max_stall, kill-a:recovery");
    assert_true(a.stall.known);
    assert_true(a.stall.v == 2.5);
    assert_false(a.recovery.known);
    suite_attempt_free(&a);
    attempt_of(&a, "fail", 1, RUN_RULE("max_stall"), 1); /* a finding: never */
    assert_false(a.timing_only);
    suite_attempt_free(&a);
    attempt_of(&a, "fail", 1, RUN_RULE("max_stall") "," RUN_RULE("errors"), 0);
    assert_false(a.timing_only);
    suite_attempt_free(&a);
    attempt_of(&a, "fail", 2, RUN_RULE("max_stall"), 0); /* could not run as written */
    assert_false(a.timing_only);
    suite_attempt_free(&a);
    attempt_of(&a, "pass", 0, HELD("max_stall"), 0);
    assert_true(suite_judge_met(&e, &a, why, sizeof why));
    assert_false(a.timing_only);
    suite_attempt_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(expect_failing_reads_rules_and_optional_ones),
        cmocka_unit_test(outcome_mistakes_are_named),
        cmocka_unit_test(must_fail_is_met_on_its_rules_and_no_other),
        cmocka_unit_test(optional_rules_and_fault_rules_match_as_written),
        cmocka_unit_test(pass_with_rules_it_may_fail_on),
        cmocka_unit_test(only_timing_without_findings_is_retried),
    };
    return cmocka_run_group_tests_name("suite_judge", tests, NULL, NULL);
}
