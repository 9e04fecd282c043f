/* scenario_outcome — [scenario] expect_verdict and expect_failing: the
 * outcome `faultline suite` expects of a scenario, read into
 * sc->expect_failing and checked against the rest of the scenario (see
 * scenario.h).  A rule that names no metric, a fault that is not there, or
 * a rule that nothing in the scenario could ever fail is a mistake here,
 * not a surprise after an hour of a suite. */
#include "scenario.h"

#include <ctype.h>
#include <string.h>

#include "../../lib/ini.h"
#include "../../lib/keys.h"
#include "scenario_parts.h"

/* Where the mistakes of expect_failing point. */
struct outcome_ctx {
    const struct scenario *sc;
    const char *file;
    int line;
    struct errlist *errs;
};

/* "; did you mean 'corrupt'?" for a name that is no metric. */
static void metric_hint(const char *name, char *out, size_t n)
{
    const char *best = NULL;
    size_t bestd = 3;
    for (int i = 0; i < METRIC_COUNT; i++) {
        size_t d = key_distance(name, metric_table[i].name);
        if (d < bestd) {
            bestd = d;
            best = metric_table[i].name;
        }
    }
    if (best)
        snprintf(out, n, "; did you mean '%s'?", best);
    else
        snprintf(out, n, " (see `faultline help metrics`)");
}

/* Whether a rule of the scenario is on metric `m` of scope `scope` (fault:
 * any fault when -1), for one run (not a statistic over repetitions). */
static bool has_rule(const struct scenario *sc, int m, bool of_fault, int fault)
{
    for (unsigned i = 0; m >= 0 && i < sc->nexpects; i++) {
        const struct expect_rule *x = &sc->expects[i];
        if (x->metric == m && x->stat == DS_NONE && (x->fault >= 0) == of_fault &&
            (fault < 0 || x->fault == fault))
            return true;
    }
    return false;
}

/* A fault's metric of rule "FAULT:METRIC".  0, or -1 (noted). */
static int check_fault_rule(const struct outcome_ctx *c, const char *rule, const char *colon)
{
    char fault[96], why[512];
    snprintf(fault, sizeof fault, "%.*s", (int)(colon - rule), rule);
    const char *metric = colon + 1;
    int fi = -1;
    for (unsigned i = 0; i < c->sc->nfaults && fi < 0; i++)
        if (strcmp(c->sc->faults[i].name, fault) == 0)
            fi = (int)i;
    char base[64];
    enum dist_stat stat = expect_split_stat(metric, base, sizeof base);
    int m = metric_find(SCOPE_FAULT, metric);
    if (m < 0 && stat != DS_NONE)
        m = metric_find(SCOPE_FAULT, base);
    if (fi < 0)
        snprintf(why, sizeof why, "'%s': there is no [fault %s] in this scenario", rule, fault);
    else if (m < 0)
        snprintf(why, sizeof why, "'%s': %s is not a fault's metric (those of expect_*: stall, "
                 "recovery, impact, errors, max_latency, first_io_after_inject, "
                 "first_io_after_clear, heal, recover)", rule, metric);
    else if (metric_find(SCOPE_FAULT, metric) >= 0 && !has_rule(c->sc, m, true, fi))
        snprintf(why, sizeof why, "'%s' can never fail: [fault %s] has no expect_%s", rule,
                 fault, metric);
    else
        return 0;
    char msg[700];
    snprintf(msg, sizeof msg, "%s:%d: expect_failing: %s", c->file, c->line, why);
    scenario_note(c->errs, msg);
    return -1;
}

/* A rule without a colon: a run's metric or integrity rule, or a fault
 * metric of any fault (a statistic over repetitions, or the repeat
 * summary's "integrity", is a rule of a repeat's summary).  0, or -1. */
static int check_rule(const struct outcome_ctx *c, const char *rule)
{
    const char *colon = strchr(rule, ':');
    if (colon)
        return check_fault_rule(c, rule, colon);
    char base[64], why[512], hint[128];
    enum dist_stat stat = expect_split_stat(rule, base, sizeof base);
    int run = metric_find(SCOPE_RUN, rule), fault = metric_find(SCOPE_FAULT, rule);
    bool over_repeats = strcmp(rule, "integrity") == 0 || run == M_PASS_RATE ||
                        (run < 0 && fault < 0 && stat != DS_NONE &&
                         (metric_find(SCOPE_RUN, base) >= 0 || metric_find(SCOPE_FAULT, base) >= 0));
    if (over_repeats || (run >= 0 && metric_table[run].integrity))
        return 0; /* always a rule: integrity rules hold by default */
    if (run < 0 && fault < 0) {
        metric_hint(rule, hint, sizeof hint);
        snprintf(why, sizeof why, "'%s' is not a rule's metric%s", rule, hint);
    } else if (!has_rule(c->sc, run, false, -1) && !has_rule(c->sc, fault, true, -1)) {
        snprintf(why, sizeof why, "'%s' can never fail: no rule of this scenario is on it (%s)",
                 rule, run >= 0 ? "[expect] has none" : "no fault has expect_ of it");
    } else {
        return 0;
    }
    char msg[700];
    snprintf(msg, sizeof msg, "%s:%d: expect_failing: %s", c->file, c->line, why);
    scenario_note(c->errs, msg);
    return -1;
}

/* expect_failing split at its commas into sc->expect_failing.  0, or -1. */
static int split_rules(struct scenario *sc, const struct outcome_ctx *c)
{
    char msg[700];
    const char *p = sc->expect_failing_text;
    while (*p) {
        size_t len = strcspn(p, ",");
        const char *next = p[len] ? p + len + 1 : p + len;
        while (len && isspace((unsigned char)*p))
            p++, len--;
        while (len && isspace((unsigned char)p[len - 1]))
            len--;
        bool optional = len && p[len - 1] == '?';
        size_t rl = len - optional;
        if (!rl || rl >= sizeof sc->expect_failing[0].rule || memchr(p, ' ', rl) || memchr(p, '\t', rl) ||
            sc->nexpect_failing == SCENARIO_MAX_FAILING) {
            snprintf(msg, sizeof msg, "%s:%d: expect_failing: %s", c->file, c->line,
                     sc->nexpect_failing == SCENARIO_MAX_FAILING ? "at most 32 rules"
                     : !rl ? "an empty rule (RULE, RULE?, ... separated by commas)"
                           : "a rule is one word: RULE, FAULT:METRIC or RULE?");
            scenario_note(c->errs, msg);
            return -1;
        }
        struct expect_failing *f = &sc->expect_failing[sc->nexpect_failing++];
        snprintf(f->rule, sizeof f->rule, "%.*s", (int)rl, p);
        f->optional = optional;
        p = next;
    }
    return 0;
}

void scenario_check_outcome(struct scenario *sc, const struct ini *ini, struct errlist *errs)
{
    struct outcome_ctx c = {.sc = sc, .file = ini->file, .errs = errs,
                            .line = scenario_line_of(ini, "scenario", "expect_failing")};
    char msg[700];
    bool given = sc->expect_failing_text[0] != '\0';
    if (sc->expect_verdict == EXPECT_VERDICT_FAIL && !given) {
        snprintf(msg, sizeof msg, "%s:%d: expect_verdict = fail needs expect_failing = the rules "
                 "that must fail (RULE? for one that may fail but need not)", c.file,
                 scenario_line_of(ini, "scenario", "expect_verdict"));
        scenario_note(errs, msg);
        return;
    }
    if (!given || split_rules(sc, &c) != 0)
        return;
    /* A scenario expected to pass may name rules it may still fail on
     * (RULE?): what the storage is known to do at times, said in the
     * scenario rather than forgiven by whoever reads the verdict. */
    for (unsigned i = 0; sc->expect_verdict == EXPECT_VERDICT_PASS && i < sc->nexpect_failing; i++)
        if (!sc->expect_failing[i].optional) {
            snprintf(msg, sizeof msg, "%s:%d: expect_failing: %s must fail, but the scenario is "
                     "expected to pass: with expect_verdict = pass only rules it may fail on "
                     "(%s?)", c.file, c.line, sc->expect_failing[i].rule,
                     sc->expect_failing[i].rule);
            scenario_note(errs, msg);
            return;
        }
    for (unsigned i = 0; i < sc->nexpect_failing; i++)
        check_rule(&c, sc->expect_failing[i].rule);
}
