/* suite_judge — an attempt of a suite's scenario judged from its
 * report.json (a run's, or a repeat's summary) against the outcome the
 * scenario expects: its failed rules, whether it missed only timing rules
 * (and may be tried again), whether it met the expectation.  See suite.h.
 * Nothing here runs anything: the record in, the judgement out. */
#include <stdlib.h>
#include <string.h>

#include "../../checks/expect.h"
#include "suite_parts.h"

/* The metrics of rules that measure time, not data: a miss of only these,
 * with nothing found, may be the machine's moment rather than the
 * storage's behaviour, and is worth another attempt. */
static const char *const timing_metrics[] = {
    "stall", "max_stall", "recovery", "impact", "max_latency", "first_io_after_inject",
    "first_io_after_clear", "heal", "recover"};

/* "max_stall" of "max_stall", "stall" of "kill-a:stall". */
static const char *metric_part(const char *rule)
{
    const char *c = strrchr(rule, ':');
    return c ? c + 1 : rule;
}

static bool is_timing(const char *rule)
{
    char base[64];
    const char *m = metric_part(rule);
    expect_split_stat(m, base, sizeof base); /* stall_p95: a statistic of stall */
    for (size_t i = 0; i < sizeof timing_metrics / sizeof timing_metrics[0]; i++)
        if (strcmp(m, timing_metrics[i]) == 0 || strcmp(base, timing_metrics[i]) == 0)
            return true;
    return false;
}

/* Whether listed rule f names failed rule `failed`: by its metric when it
 * names no fault, whole when it does. */
static bool names(const struct expect_failing *f, const char *failed)
{
    return strchr(f->rule, ':') ? strcmp(f->rule, failed) == 0
                                : strcmp(f->rule, metric_part(failed)) == 0;
}

static void add_failing(struct suite_attempt *a, const char *rule)
{
    for (size_t i = 0; i < a->nfailing; i++)
        if (strcmp(a->failing[i], rule) == 0)
            return; /* two rules on one metric fail as one */
    char **more = realloc(a->failing, (a->nfailing + 1) * sizeof *more);
    char *copy = strdup(rule);
    if (!more || !copy) {
        free(copy);
        if (more)
            a->failing = more;
        snprintf(a->error, sizeof a->error, "out of memory for its failed rules");
        return;
    }
    a->failing = more;
    a->failing[a->nfailing++] = copy;
}

/* The largest known value of `key` over the faults (null when none). */
static struct suite_num largest(const struct result *res, const char *key)
{
    struct suite_num out = {0};
    for (size_t i = 0; i < res->nfaults; i++) {
        const struct result_fault *f = &res->faults[i];
        const struct result_value *v = result_value_of(f->values, f->nvalues, key);
        if (v && v->known && (!out.known || v->v > out.v))
            out = (struct suite_num){true, v->v};
    }
    return out;
}

void suite_judge_attempt(const struct result *res, struct suite_attempt *a)
{
    snprintf(a->verdict, sizeof a->verdict, "%s", res->verdict ? res->verdict : "");
    for (size_t i = 0; i < res->nexpect; i++) {
        const struct result_expect *x = &res->expect[i];
        if (x->pass)
            continue;
        char rule[160];
        if (x->fault)
            snprintf(rule, sizeof rule, "%s:%s", x->fault, x->metric);
        else
            snprintf(rule, sizeof rule, "%s", x->metric);
        add_failing(a, rule);
    }
    a->stall = largest(res, "stall_s");
    a->recovery = largest(res, "recovery_s");
    a->heal = largest(res, "heal_s");
    a->recover = largest(res, "recover_s");
    const struct result_value *v = result_value_of(res->measured, res->nmeasured, "findings");
    a->findings = v && v->known ? (uint64_t)v->v : result_bad(res);
    v = result_value_of(res->measured, res->nmeasured, "reverted");
    a->reverted = v && v->known ? (uint64_t)v->v : 0;
    bool missed = false;
    for (size_t i = 0; i < res->nmissed; i++)
        missed |= res->missed[i].counts;
    /* Only a plain fail on time: no finding, every fault as written. */
    a->timing_only = strcmp(a->verdict, "fail") == 0 && a->exit == 1 && a->nfailing &&
                     !a->findings && !missed && !res->error;
    for (size_t i = 0; a->timing_only && i < a->nfailing; i++)
        a->timing_only = is_timing(a->failing[i]);
}

/* "a, b, c" of the rules of list that `pick` keeps, after `head`. */
static void join(char *out, size_t n, const char *head, char **rules, size_t nrules,
                 const bool *pick)
{
    size_t used = (size_t)snprintf(out, n, "%s", head);
    for (size_t i = 0, k = 0; i < nrules && used < n; i++)
        if (pick[i])
            used += (size_t)snprintf(out + used, n - used, "%s%s", k++ ? ", " : "", rules[i]);
}

/* A must-fail scenario's attempt that failed: every failed rule listed,
 * every listed rule without '?' failed. */
static bool met_failing(const struct suite_entry *e, const struct suite_attempt *a, char *why,
                        size_t n)
{
    bool *unlisted = calloc(a->nfailing + 1, sizeof *unlisted);
    if (!unlisted) {
        snprintf(why, n, "out of memory while judging it");
        return false;
    }
    bool any_unlisted = false;
    for (size_t i = 0; i < a->nfailing; i++) {
        unlisted[i] = true;
        for (unsigned j = 0; j < e->nfailing && unlisted[i]; j++)
            unlisted[i] = !names(&e->failing[j], a->failing[i]);
        any_unlisted |= unlisted[i];
    }
    char missing[512] = "";
    size_t used = 0;
    for (unsigned j = 0; j < e->nfailing; j++) {
        bool failed = false;
        for (size_t i = 0; i < a->nfailing && !failed; i++)
            failed = names(&e->failing[j], a->failing[i]);
        if (!failed && !e->failing[j].optional && used < sizeof missing)
            used += (size_t)snprintf(missing + used, sizeof missing - used, "%s%s",
                                     used ? ", " : "", e->failing[j].rule);
    }
    if (any_unlisted) {
        char list[600];
        join(list, sizeof list, "failed on ", a->failing, a->nfailing, unlisted);
        snprintf(why, n, "%s, which it must not%s%s%s", list, missing[0] ? "; did not fail on " : "",
                 missing, missing[0] ? ", which it must" : "");
    } else if (missing[0]) {
        snprintf(why, n, "did not fail on %s, which it must", missing);
    }
    free(unlisted);
    return !any_unlisted && !missing[0];
}

bool suite_judge_met(const struct suite_entry *e, const struct suite_attempt *a, char *why,
                     size_t n)
{
    why[0] = '\0';
    if (a->error[0]) {
        snprintf(why, n, "%s", a->error);
        return false;
    }
    if (strcmp(a->verdict, "interrupted") == 0) {
        snprintf(why, n, "interrupted before it ended (exit %d)", a->exit);
        return false;
    }
    if (strcmp(a->verdict, "pass") != 0 && strcmp(a->verdict, "fail") != 0) {
        snprintf(why, n, "its verdict is %s (exit %d)", a->verdict[0] ? a->verdict : "missing",
                 a->exit);
        return false;
    }
    bool passed = strcmp(a->verdict, "pass") == 0;
    /* expected to pass, with rules it may fail on (all RULE?): a fail on
     * those alone is met */
    if (!e->expect_fail && !passed && e->nfailing && a->nfailing)
        return met_failing(e, a, why, n);
    if (!e->expect_fail) {
        if (!passed) {
            bool *all = calloc(a->nfailing + 1, sizeof *all);
            for (size_t i = 0; all && i < a->nfailing; i++)
                all[i] = true;
            if (all && a->nfailing)
                join(why, n, "failed on ", a->failing, a->nfailing, all);
            else
                snprintf(why, n, "failed (exit %d), and it must pass", a->exit);
            free(all);
        }
        return passed;
    }
    if (passed) {
        snprintf(why, n, "passed, and it must fail (expect_verdict = fail)");
        return false;
    }
    if (!a->nfailing) {
        snprintf(why, n, "failed on no rule (exit %d): it must fail on its expect_failing",
                 a->exit);
        return false;
    }
    return met_failing(e, a, why, n);
}

void suite_attempt_free(struct suite_attempt *a)
{
    for (size_t i = 0; i < a->nfailing; i++)
        free(a->failing[i]);
    free(a->failing);
    a->failing = NULL;
    a->nfailing = 0;
}
