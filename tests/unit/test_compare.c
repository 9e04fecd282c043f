/*
 * compare's rules: when B is worse than A, when it is worse than a --worse
 * RATIO allows (zeros and unmeasured values included), and how
 * --worse [FAULT.]METRIC[.STAT]:RATIO is read, mistakes named; what the
 * comparison warns of (other scenarios, a verify, a summary next to a run,
 * an interrupted run, a verdict it does not know).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../../harness/compare/compare.h"

static struct cmp_value known(double v)
{
    return (struct cmp_value){true, v};
}

static const struct cmp_value unknown = {false, 0};

static void lower_is_better_worse_when_it_grows(void **state)
{
    (void)state;
    struct cmp_judgement j = cmp_judge(known(2), known(3), CMP_LOWER_IS_BETTER);
    assert_true(j.measured && j.worse);
    assert_true(j.change == 1 && j.ratio == 1.5);
    j = cmp_judge(known(2), known(1), CMP_LOWER_IS_BETTER);
    assert_false(j.worse);
    j = cmp_judge(known(2), known(2), CMP_LOWER_IS_BETTER);
    assert_false(j.worse);
    assert_true(j.change == 0 && j.ratio == 1);
}

static void higher_is_better_worse_when_it_falls(void **state)
{
    (void)state;
    struct cmp_judgement j = cmp_judge(known(100), known(80), CMP_HIGHER_IS_BETTER);
    assert_true(j.worse);
    assert_true(j.ratio == 0.8 && j.change == -20);
    assert_false(cmp_judge(known(100), known(120), CMP_HIGHER_IS_BETTER).worse);
}

static void zero_to_nonzero_is_an_infinite_ratio(void **state)
{
    (void)state;
    struct cmp_judgement j = cmp_judge(known(0), known(3), CMP_LOWER_IS_BETTER);
    assert_true(j.measured && j.worse && isinf(j.ratio));
    j = cmp_judge(known(0), known(3), CMP_HIGHER_IS_BETTER);
    assert_true(isinf(j.ratio));
    assert_false(j.worse);
    j = cmp_judge(known(0), known(0), CMP_LOWER_IS_BETTER);
    assert_true(j.ratio == 1);
    assert_false(j.worse);
}

static void unmeasured_is_never_worse(void **state)
{
    (void)state;
    struct cmp_judgement j = cmp_judge(known(1), unknown, CMP_LOWER_IS_BETTER);
    assert_false(j.measured);
    assert_false(j.worse);
    j = cmp_judge(unknown, known(1), CMP_HIGHER_IS_BETTER);
    assert_false(j.measured || j.worse);
    assert_true(isnan(j.ratio) && isnan(j.change));
}

static void beyond_the_allowed_ratio(void **state)
{
    (void)state;
    /* lower is better: B may be at most A * ratio */
    assert_false(cmp_beyond(8, 10, CMP_LOWER_IS_BETTER, 1.25));
    assert_true(cmp_beyond(8, 10.01, CMP_LOWER_IS_BETTER, 1.25));
    assert_false(cmp_beyond(10, 10, CMP_LOWER_IS_BETTER, 1));
    assert_true(cmp_beyond(10, 10.001, CMP_LOWER_IS_BETTER, 1));
    /* from zero any growth is beyond any ratio */
    assert_true(cmp_beyond(0, 0.001, CMP_LOWER_IS_BETTER, 1000));
    assert_false(cmp_beyond(0, 0, CMP_LOWER_IS_BETTER, 1));
    /* higher is better: B must be at least A / ratio */
    assert_false(cmp_beyond(125, 100, CMP_HIGHER_IS_BETTER, 1.25));
    assert_true(cmp_beyond(125, 99.9, CMP_HIGHER_IS_BETTER, 1.25));
    assert_true(cmp_beyond(100, 0, CMP_HIGHER_IS_BETTER, 1000));
    assert_false(cmp_beyond(0, 0, CMP_HIGHER_IS_BETTER, 1));
}

static void limit_forms(void **state)
{
    (void)state;
    struct cmp_limit l;
    char err[2048] = "";
    assert_int_equal(cmp_parse_limit("stall_s:1.2", &l, err, sizeof err), 0);
    assert_string_equal(l.spec, "stall_s");
    assert_true(l.any_fault && l.stat == NULL && l.ratio == 1.2);
    assert_string_equal(l.metric->name, "stall_s");

    assert_int_equal(cmp_parse_limit("kill.stall_s:1.5", &l, err, sizeof err), 0);
    assert_false(l.any_fault);
    assert_string_equal(l.fault, "kill");
    assert_string_equal(l.metric->name, "stall_s");
    assert_null(l.stat);

    assert_int_equal(cmp_parse_limit("recovery_s.p95:1.1", &l, err, sizeof err), 0);
    assert_true(l.any_fault);
    assert_string_equal(l.stat, "p95");

    /* a fault's name may hold dots; the metric is the last part before STAT */
    assert_int_equal(cmp_parse_limit("ctrl.a.max_latency_s.max:2", &l, err, sizeof err), 0);
    assert_string_equal(l.fault, "ctrl.a");
    assert_string_equal(l.metric->name, "max_latency_s");
    assert_string_equal(l.stat, "max");

    assert_int_equal(cmp_parse_limit("iops:1.01", &l, err, sizeof err), 0);
    assert_false(l.metric->per_fault);
    assert_int_equal(l.metric->better, CMP_HIGHER_IS_BETTER);
    assert_int_equal(cmp_parse_limit("pass_rate:1", &l, err, sizeof err), 0);
    assert_int_equal(cmp_parse_limit("max_stall_s.mean:1", &l, err, sizeof err), 0);
    assert_string_equal(l.stat, "mean");
}

static void limit_mistakes_are_named(void **state)
{
    (void)state;
    struct cmp_limit l;
    char err[2048];
    assert_int_equal(cmp_parse_limit("stall:1.2", &l, err, sizeof err), -1);
    assert_non_null(strstr(err, "unknown metric 'stall'"));
    assert_non_null(strstr(err, "known metrics: stall_s recovery_s"));
    assert_non_null(strstr(err, "iops"));
    assert_int_equal(cmp_parse_limit("kill.p95:2", &l, err, sizeof err), -1);
    assert_non_null(strstr(err, "unknown metric 'kill'"));
    assert_int_equal(cmp_parse_limit("stall_s", &l, err, sizeof err), -1);
    assert_non_null(strstr(err, "expected METRIC:RATIO"));
    assert_int_equal(cmp_parse_limit("stall_s:0.5", &l, err, sizeof err), -1);
    assert_non_null(strstr(err, "must be a number >= 1"));
    assert_int_equal(cmp_parse_limit("stall_s:fast", &l, err, sizeof err), -1);
    assert_int_equal(cmp_parse_limit("stall_s:", &l, err, sizeof err), -1);
    assert_int_equal(cmp_parse_limit(":2", &l, err, sizeof err), -1);
    assert_int_equal(cmp_parse_limit("kill.iops:2", &l, err, sizeof err), -1);
    assert_non_null(strstr(err, "iops is the run's, not a fault's"));
    assert_int_equal(cmp_parse_limit("pass_rate.p95:1", &l, err, sizeof err), -1);
    assert_non_null(strstr(err, "pass_rate is one number"));
}

/* A side as the warnings see it. */
static struct cmp_side side(const char *mode, const char *verdict, const char *scenario)
{
    struct cmp_side s;
    memset(&s, 0, sizeof s);
    s.mode = mode;
    s.verdict = verdict;
    s.scenario = scenario;
    s.summary = strcmp(mode, "repeat") == 0;
    s.repetitions = s.summary ? 10 : 0;
    return s;
}

/* The kinds of the warnings for a and b, space-separated. */
static const char *kinds(struct cmp_side a, struct cmp_side b)
{
    static char out[256];
    struct cmp_warning w[CMP_MAX_WARNINGS];
    size_t n = cmp_warnings(&a, &b, w), used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n; i++)
        used += (size_t)snprintf(out + used, sizeof out - used, "%s%s", i ? " " : "", w[i].kind);
    return out;
}

static void warnings_say_what_should_not_be_compared_unwarned(void **state)
{
    (void)state;
    struct cmp_side run = side("run", "pass", "s"), other = side("run", "fail", "t");
    assert_string_equal(kinds(run, run), "");
    assert_string_equal(kinds(run, side("run", "error", "s")), "");
    assert_string_equal(kinds(run, other), "scenarios-differ");
    assert_string_equal(kinds(run, side("run", "pass", "?")), ""); /* no name: nothing to tell */
    assert_string_equal(kinds(run, side("verify", "pass", "s")), "verify");
    assert_string_equal(kinds(side("verify", "pass", "s"), side("verify", "pass", "s")),
                        "verify verify");
    assert_string_equal(kinds(side("repeat", "pass", "s"), run), "summary-vs-run");
    assert_string_equal(kinds(side("repeat", "pass", "s"), side("repeat", "fail", "s")), "");
    struct cmp_side cut = side("run", "interrupted", "s");
    cut.interrupted = true;
    assert_string_equal(kinds(run, cut), "interrupted");
    assert_true(cmp_side_cut_short(&cut));
    cut.interrupted = false; /* the verdict alone says it too */
    assert_true(cmp_side_cut_short(&cut));
    assert_false(cmp_side_cut_short(&run));
    assert_string_equal(kinds(run, side("run", "weird", "s")), "unknown-verdict");
    assert_string_equal(kinds(run, side("run", "?", "s")), "unknown-verdict");
    assert_string_equal(kinds(side("repeat", "pass", "s"), side("verify", "x", "t")),
                        "scenarios-differ summary-vs-run verify unknown-verdict");
    struct cmp_warning w[CMP_MAX_WARNINGS];
    struct cmp_side weird = side("run", "weird", "s");
    assert_int_equal(cmp_warnings(&run, &weird, w), 1);
    assert_non_null(strstr(w[0].text, "B's verdict 'weird' is not one compare knows"));
    struct cmp_side sum = side("repeat", "pass", "s");
    assert_int_equal(cmp_warnings(&sum, &run, w), 1);
    assert_string_equal(w[0].text, "A is a summary of 10 repetitions, B a single run: each "
                                   "statistic of B (p50, p95, max, mean) is its one value, set "
                                   "against a distribution");
    assert_true(cmp_verdict_known("pass") && cmp_verdict_known("fail") &&
                cmp_verdict_known("error") && cmp_verdict_known("interrupted"));
    assert_false(cmp_verdict_known("weird") || cmp_verdict_known(NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lower_is_better_worse_when_it_grows),
        cmocka_unit_test(higher_is_better_worse_when_it_falls),
        cmocka_unit_test(zero_to_nonzero_is_an_infinite_ratio),
        cmocka_unit_test(unmeasured_is_never_worse),
        cmocka_unit_test(beyond_the_allowed_ratio),
        cmocka_unit_test(limit_forms),
        cmocka_unit_test(limit_mistakes_are_named),
        cmocka_unit_test(warnings_say_what_should_not_be_compared_unwarned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
