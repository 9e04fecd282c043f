/*
 * [thrash]: the schedule drawn from the seed keeps its invariants (at most
 * max_faulted hosts under a fault, gaps and holds in their ranges, nothing
 * in the quiet end, weights felt), the same seed draws the same schedule,
 * the schedule text parses back to the very faults the run runs, and
 * every mistake is named as file:line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../harness/scenario/scenario.h"
#include "../../lib/units.h"

#define S 1000000000ull

static const char head[] = "[scenario]\n"
                           "name = t\n"
                           "duration = 30m\n"
                           "lab = gluster\n"
                           "%s"
                           "[target]\n"
                           "kind = files\n"
                           "[thrash]\n"
                           "%s";

static struct scenario *parse(const char *scenario_extra, const char *thrash, char *err,
                              size_t n, char *text, size_t tn)
{
    static struct scenario sc;
    snprintf(text, tn, head, scenario_extra, thrash);
    return scenario_parse(text, "t.scn", &sc, err, n) == 0 ? &sc : NULL;
}

static const char usual[] = "actions = kill:3, power-off, link-down\n"
                            "kill.process = brick\n"
                            "hosts = gs1, gs2, gs3\n"
                            "max_faulted = 1\n"
                            "gap = 10s..60s\n"
                            "hold = 5s..30s\n"
                            "settle = none\n";

static void the_draw_keeps_its_invariants(void **state)
{
    (void)state;
    char err[FL_ERRLEN], text[4096];
    const char *thr[] = {usual,
                         "actions = kill, link-down, partition\npartition.peers = client\n"
                         "hosts = gs1, gs2, gs3\nmax_faulted = 2\ngap = 2s..9s\nhold = 5s..40s\n"
                         "settle = none\n"};
    for (unsigned v = 0; v < 2; v++) {
        for (uint64_t seed = 1; seed <= 20; seed++) {
            char extra[64];
            snprintf(extra, sizeof extra, "seed = %llu\n", (unsigned long long)seed);
            struct scenario *sc = parse(extra, thr[v], err, sizeof err, text, sizeof text);
            if (!sc)
                fail_msg("%s", err);
            const struct thrash_spec *t = &sc->thrash;
            assert_true(t->ndrawn > 10);
            assert_int_equal(sc->first_drawn, 0);
            assert_int_equal(sc->nfaults, t->ndrawn);
            for (unsigned i = 0; i < t->ndrawn; i++) {
                const struct thrash_fault *f = &t->drawn[i];
                const struct fault_spec *sp = &sc->faults[i];
                /* the text parsed back is the draw */
                assert_true(sp->at_ns == f->at_ns);
                assert_string_equal(sp->host, f->host);
                assert_string_equal(sp->ops->action, t->actions[f->action].ops->action);
                assert_true(f->at_ns >= t->start_ns);
                assert_true(f->at_ns + f->span_ns <= sc->duration_ns - t->quiet_end_ns);
                assert_true(f->hold_ns >= t->hold_min && f->hold_ns <= t->hold_max);
                assert_true(f->at_ns % 1000000ull == 0 && f->hold_ns % 1000000ull == 0);
                if (i)
                    assert_true(f->at_ns >= t->drawn[i - 1].at_ns + t->gap_min);
                /* at most max_faulted hosts at once, never one host twice */
                unsigned at_once = 1;
                for (unsigned k = 0; k < i; k++) {
                    const struct thrash_fault *g = &t->drawn[k];
                    if (g->at_ns + g->span_ns <= f->at_ns)
                        continue;
                    at_once++;
                    assert_string_not_equal(g->host, f->host);
                }
                assert_true(at_once <= t->max_faulted);
            }
        }
    }
}

static void weights_are_felt(void **state)
{
    (void)state;
    char err[FL_ERRLEN], text[4096];
    unsigned count[3] = {0, 0, 0};
    for (uint64_t seed = 1; seed <= 30; seed++) {
        char extra[64];
        snprintf(extra, sizeof extra, "seed = %llu\n", (unsigned long long)seed);
        struct scenario *sc = parse(extra, usual, err, sizeof err, text, sizeof text);
        if (!sc)
            fail_msg("%s", err);
        for (unsigned i = 0; i < sc->thrash.ndrawn; i++)
            count[sc->thrash.drawn[i].action]++;
    }
    /* kill:3 against 1 and 1: about 3/5 of the faults */
    unsigned all = count[0] + count[1] + count[2];
    assert_true(count[0] * 100 > all * 50 && count[0] * 100 < all * 70);
    assert_true(count[1] > all / 10 && count[2] > all / 10);
}

static void the_same_seed_draws_the_same_schedule(void **state)
{
    (void)state;
    char err[FL_ERRLEN], text[4096];
    struct scenario *sc = parse("seed = 7\n", usual, err, sizeof err, text, sizeof text);
    if (!sc)
        fail_msg("%s", err);
    unsigned nfaults = sc->nfaults;
    char *a = thrash_schedule_text(text, &sc->thrash, false, NULL);
    sc = parse("seed = 7\n", usual, err, sizeof err, text, sizeof text);
    char *b = thrash_schedule_text(text, &sc->thrash, false, NULL);
    sc = parse("seed = 8\n", usual, err, sizeof err, text, sizeof text);
    char *c = thrash_schedule_text(text, &sc->thrash, false, NULL);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(c);
    assert_string_equal(a, b);
    assert_string_not_equal(a, c);
    /* the [thrash] section stays, as comments, and the faults follow */
    assert_non_null(strstr(a, "#| [thrash]\n#| actions = kill:3"));
    assert_non_null(strstr(a, "[fault thrash-001]\naction = "));
    /* the schedule is a scenario of its own: the same faults again */
    static struct scenario again;
    if (scenario_parse(a, "schedule.scn", &again, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(again.thrash.line, 0);
    assert_int_equal(again.nfaults, nfaults);
    free(a);
    free(b);
    free(c);
}

static void a_seed_is_drawn_and_written_when_none_is_given(void **state)
{
    (void)state;
    char err[FL_ERRLEN], text[4096];
    struct scenario *sc = parse("", usual, err, sizeof err, text, sizeof text);
    if (!sc)
        fail_msg("%s", err);
    assert_true(sc->seed_given);
    assert_true(sc->thrash.seed_drawn);
    assert_true(sc->workload.seed == sc->seed);
    char *a = thrash_schedule_text(text, &sc->thrash, true, NULL);
    char want[64];
    snprintf(want, sizeof want, "[scenario]\nseed = %llu ", (unsigned long long)sc->seed);
    assert_non_null(strstr(a, want));
    static struct scenario again;
    if (scenario_parse(a, "schedule.scn", &again, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_true(again.seed == sc->seed);
    free(a);
}

static void settle_and_the_outcome_go_into_the_schedule(void **state)
{
    (void)state;
    char err[FL_ERRLEN], text[4096];
    const char *thr = "actions = kill\nkill.process = brick\nhosts = gs1\ngap = 60s\n"
                      "hold = 5s\nsettle = whole\nsettle_timeout = 90s\n";
    struct scenario *sc = parse("seed = 3\n", thr, err, sizeof err, text, sizeof text);
    if (!sc)
        fail_msg("%s", err);
    for (unsigned i = 0; i < sc->nfaults; i++) {
        assert_int_equal(sc->faults[i].settle, SETTLE_WHOLE);
        assert_true(sc->faults[i].settle_timeout_ns == 90 * S);
    }
    struct thrash_outcome o[FL_MAX_FAULTS];
    for (unsigned i = 0; i < sc->thrash.ndrawn; i++)
        o[i] = (struct thrash_outcome){.reached = i < 2, .settle_s = i ? 12.5 : 0};
    char *a = thrash_schedule_text(text, &sc->thrash, false, o);
    assert_non_null(strstr(a, "[fault thrash-002]"));
    assert_null(strstr(a, "[fault thrash-003]"));
    assert_non_null(strstr(a, "# its settle wait took 12.500 s"));
    assert_non_null(strstr(a, "more were drawn but not reached"));
    static struct scenario again;
    if (scenario_parse(a, "schedule.scn", &again, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(again.nfaults, 2);
    free(a);
}

static void expect_error(const char *thrash, const char *where, const char *what)
{
    char err[FL_ERRLEN], text[4096];
    if (parse("seed = 1\n", thrash, err, sizeof err, text, sizeof text))
        fail_msg("parsed: %s", thrash);
    if (!strstr(err, where) || !strstr(err, what))
        fail_msg("expected '%s' ... '%s' in:\n%s", where, what, err);
}

static void mistakes_are_named_by_file_and_line(void **state)
{
    (void)state;
    /* [thrash] is at line 8, its first key at 9 */
    expect_error("hosts = gs1\n", "t.scn:8:", "[thrash] needs actions");
    expect_error("actions = kill, jump\nhosts = gs1\n", "t.scn:8:", "'jump' is not one of");
    expect_error("actions = kill:0\nhosts = gs1\n", "t.scn:8:", "a weight is 1..1000");
    expect_error("actions = kill\n", "t.scn:8:", "needs hosts");
    expect_error("actions = kill\nhosts = gs1\nkill.prcess = brick\n", "t.scn:11:",
                 "takes no key 'prcess'");
    expect_error("actions = kill\nhosts = gs1\nkill.restart_after = 5s\n", "t.scn:11:",
                 "[thrash] draws restart_after itself");
    expect_error("actions = kill\nhosts = gs1\npause.duration = 5s\n", "t.scn:11:",
                 "pause is not among actions");
    expect_error("actions = kill\nhosts = gs1\ngap = 9s..2s\n", "t.scn:8:",
                 "gap: '9s..2s': its end is before its start");
    expect_error("actions = kill\nhosts = gs1\nstart = 1790s\n", "t.scn:8:", "no fault fits");
    expect_error("actions = kill\nhosts = gs9\nkill.process = brick\n", "t.scn:8:",
                 "which does not hold: [fault thrash-001] host 'gs9'");
    expect_error("actions = kill\nhosts = gs1\nkill.process = brick\nmax_faulted = 0\n",
                 "t.scn:12:", "max_faulted");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_draw_keeps_its_invariants),
        cmocka_unit_test(weights_are_felt),
        cmocka_unit_test(the_same_seed_draws_the_same_schedule),
        cmocka_unit_test(a_seed_is_drawn_and_written_when_none_is_given),
        cmocka_unit_test(settle_and_the_outcome_go_into_the_schedule),
        cmocka_unit_test(mistakes_are_named_by_file_and_line),
    };
    return cmocka_run_group_tests_name("thrash", tests, NULL, NULL);
}
