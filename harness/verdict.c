/* verdict — see verdict.h. */
#include "verdict.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Blocks overwritten by the run's corrupt faults on the target itself. */
struct hit {
    uint64_t block;
    uint64_t at_ns; /* when the fault overwrote it */
    bool detected;
};

static size_t corrupted_blocks(const struct verdict_input *in, struct hit *out, size_t cap)
{
    size_t n = 0;
    for (unsigned i = 0; i < in->nfaults; i++) {
        const struct fault *f = &in->faults[i];
        const uint64_t(*ranges)[2];
        bool on_target = false;
        unsigned nranges = fault_overwrote(f, &ranges, &on_target);
        if (!f->applied || f->error[0] || !on_target || !in->block_size)
            continue;
        for (unsigned r = 0; r < nranges; r++) {
            uint64_t first = ranges[r][0] / in->block_size;
            uint64_t last = (ranges[r][0] + ranges[r][1] - 1) / in->block_size;
            for (uint64_t b = first; b <= last && b < in->nblocks && n < cap; b++) {
                bool seen = false;
                for (size_t k = 0; k < n && !seen; k++)
                    seen = out[k].block == b;
                if (!seen)
                    out[n++] = (struct hit){.block = b, .at_ns = f->injected_ns};
            }
        }
    }
    return n;
}

static int add_result(struct verdict *v, size_t *cap, const struct expect_rule *rule, double value,
               bool known, const char *why)
{
    if (v->n == *cap) {
        size_t nc = *cap ? *cap * 2 : 32;
        struct expect_result *r = realloc(v->results, nc * sizeof *r);
        if (!r)
            return -1;
        v->results = r;
        *cap = nc;
    }
    struct expect_result *x = &v->results[v->n++];
    memset(x, 0, sizeof *x);
    x->rule = *rule;
    x->measured = value;
    x->known = known;
    x->pass = expect_holds(rule, value, known);
    snprintf(x->why, sizeof x->why, "%s", known ? "" : why);
    if (!x->pass)
        v->failed++;
    return 0;
}

/* The value of a run metric. */
/* Whether the fault's storage was watched until whole, in the lab's word
 * ("heal", "recover": the metric's name). */
static bool heal_is(const struct recovery *r, const char *word)
{
    return r->heal_measured && r->heal_word && strcmp(r->heal_word, word) == 0;
}

static bool run_value(const struct verdict_input *in, const struct verdict *v, int m,
                      double *out, const char **why)
{
    static const int cls_of[] = {
        [M_LOST_WRITES] = CLS_LOST_WRITE, [M_STALE_READS] = CLS_STALE_READ, [M_TORN] = CLS_TORN,
        [M_MISDIRECTED] = CLS_MISDIRECTED, [M_CORRUPT] = CLS_CORRUPT, [M_ZEROED] = CLS_ZEROED,
        [M_IO_ERRORS] = CLS_IO_ERROR, [M_MISSING_FILES] = CLS_MISSING_FILE,
        [M_UNEXPECTED_FILES] = CLS_UNEXPECTED_FILE, [M_WRONG_SIZES] = CLS_WRONG_SIZE};
    *why = "";
    switch ((enum run_metric)m) {
    case M_LOST_WRITES:
    case M_STALE_READS:
    case M_TORN:
    case M_MISDIRECTED:
    case M_CORRUPT:
    case M_ZEROED:
    case M_IO_ERRORS:
    case M_MISSING_FILES:
    case M_UNEXPECTED_FILES:
    case M_WRONG_SIZES:
        *out = (double)v->unexplained[cls_of[m]];
        return true;
    case M_FINDINGS: {
        uint64_t sum = 0;
        for (int c = 0; c < CLS_COUNT; c++)
            if (class_is_finding((enum fl_class)c))
                sum += v->unexplained[c];
        *out = (double)sum;
        return true;
    }
    case M_DETECTED_CORRUPT:
        *out = (double)v->detected_corrupt;
        return true;
    case M_UNDETECTED_CORRUPT:
        *out = (double)v->undetected_corrupt;
        return true;
    case M_DOUBTFUL_WRITES:
        *out = (double)in->doubtful_writes;
        return true;
    case M_REVERTED:
        *out = (double)in->findings->counts[CLS_REVERTED];
        return true;
    case M_ERRORS:
        *out = (double)(in->io->errors + (in->sweep ? in->sweep->errors : 0));
        return true;
    case M_HUNG:
        *out = (double)in->hung;
        return true;
    case M_LOST_CLIENTS:
        *out = (double)in->lost_clients;
        return true;
    case M_MAX_STALL:
        *out = in->max_stall_s;
        *why = "no time buckets";
        return in->max_stall_s >= 0;
    case M_RECOVERY: {
        double worst = 0;
        for (unsigned i = 0; in->recovery && i < in->nfaults; i++) {
            const struct recovery *r = &in->recovery[i];
            if (!r->injected)
                continue;
            if (!r->recovered) {
                *why = "a fault never recovered (or no baseline to measure against)";
                return false;
            }
            if (r->recovery_s > worst)
                worst = r->recovery_s;
        }
        *out = worst;
        return true;
    }
    case M_HEAL:
    case M_RECOVER: {
        double worst = 0;
        bool any = false;
        for (unsigned i = 0; in->recovery && i < in->nfaults; i++) {
            const struct recovery *r = &in->recovery[i];
            if (!r->injected || !heal_is(r, run_metrics[m].name))
                continue;
            any = true;
            if (!r->healed) {
                *why = m == M_HEAL ? "the volume did not heal within heal_wait after a fault"
                                   : "the cluster did not recover within heal_wait after a fault";
                return false;
            }
            if (r->heal_s > worst)
                worst = r->heal_s;
        }
        *out = worst;
        *why = m == M_HEAL ? "no heal was measured (only the gluster lab's volume heals)"
                           : "no recovery was measured (only the ceph lab's cluster recovers)";
        return any;
    }
    case M_MAX_LATENCY:
        *out = (double)in->io->lat_max_ns / 1e9;
        return true;
    case M_IOPS:
        *out = in->io->ns ? (double)(in->io->reads + in->io->writes) * 1e9 / (double)in->io->ns
                          : 0;
        return true;
    case M_PASS_RATE:
        *why = "a rate over repetitions (repeat = N)";
        return false;
    case M_RUN_COUNT:
        break;
    }
    *why = "unknown metric";
    return false;
}

static bool fault_value(const struct verdict_input *in, int fault, int m, double *out,
                        const char **why)
{
    const struct recovery *r = in->recovery ? &in->recovery[fault] : NULL;
    *out = 0;
    if (!r || !r->injected) {
        *why = "the fault was not injected";
        return false;
    }
    switch ((enum fault_metric)m) {
    case F_STALL:
        *out = r->stall_s;
        return true;
    case F_RECOVERY:
        *out = r->recovery_s;
        *why = "never recovered before the end of the workload (or no baseline)";
        return r->recovered;
    case F_IMPACT:
        *out = r->impact_s;
        *why = "throughput never fell below half the baseline";
        return r->impact;
    case F_ERRORS:
        *out = (double)r->errors;
        return true;
    case F_MAX_LATENCY:
        *out = r->max_latency_s;
        return true;
    case F_FIRST_IO_AFTER_INJECT:
        *out = r->first_io_after_inject_s;
        *why = "no I/O completed after the inject";
        return r->io_after_inject;
    case F_FIRST_IO_AFTER_CLEAR:
        *out = r->first_io_after_clear_s;
        *why = r->lasting ? "no I/O completed after the clear" : "the fault has no clear";
        return r->io_after_clear;
    case F_HEAL:
        *out = r->heal_s;
        *why = !heal_is(r, "heal") ? "no heal was measured (only the gluster lab's volume heals)"
                                   : "the volume did not heal within heal_wait";
        return heal_is(r, "heal") && r->healed;
    case F_RECOVER:
        *out = r->heal_s;
        *why = !heal_is(r, "recover")
                   ? "no recovery was measured (only the ceph lab's cluster recovers)"
                   : "the cluster did not recover within heal_wait";
        return heal_is(r, "recover") && r->healed;
    case F_COUNT:
        break;
    }
    *why = "unknown metric";
    return false;
}

static const char *signal_name(int sig)
{
    return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal";
}

bool verdict_fault_happened(const struct fault *f, uint64_t end_ns, int interrupted, char *why,
                            size_t n)
{
    why[0] = '\0';
    if (f->indeterminate) {
        snprintf(why, n, "its agent on %s never answered: it may or may not have happened",
                 f->via_host[0] ? f->via_host : f->spec.host);
        return false;
    }
    if (!f->applied) {
        if (f->error[0])
            snprintf(why, n, "%s", f->error);
        else if (interrupted)
            snprintf(why, n, "not injected: %s ended the workload before its time (at = %.3f s)",
                     signal_name(interrupted), (double)f->spec.at_ns / 1e9);
        else if (f->spec.at_ns >= end_ns)
            snprintf(why, n, "not injected: its time (at = %.3f s) is not before the end of the "
                     "workload (%.3f s)", (double)f->spec.at_ns / 1e9, (double)end_ns / 1e9);
        else
            snprintf(why, n, "not injected (the workload ended before its time)");
        return false;
    }
    if (f->clear_failed) {
        snprintf(why, n, "%s%s", strncmp(f->error, "clear failed", 12) == 0 ? "" : "its clear "
                 "failed: ", f->error[0] ? f->error : "its clear failed");
        return false;
    }
    if (f->error[0]) { /* a later step of a stepped fault */
        snprintf(why, n, "only %u step%s happened: %s", f->steps_done - 1,
                 f->steps_done == 2 ? "" : "s", f->error);
        return false;
    }
    if (f->schedule.shape == FAULT_STEPPED && f->steps_done < f->schedule.steps) {
        if (interrupted)
            snprintf(why, n, "%u of its %llu steps happened before %s ended the workload",
                     f->steps_done, (unsigned long long)f->schedule.steps,
                     signal_name(interrupted));
        else
            snprintf(why, n, "%u of its %llu steps happened before the end of the workload",
                     f->steps_done, (unsigned long long)f->schedule.steps);
        return false;
    }
    if (f->cleared_by[0] && strcmp(f->cleared_by, "unconfirmed") == 0) {
        snprintf(why, n, "its agent on %s never confirmed the clear",
                 f->via_host[0] ? f->via_host : f->spec.host);
        return false;
    }
    return true;
}

/* The faults that did not happen as written; those an interruption
 * explains (their time had not come) do not count. */
static int find_missed(const struct verdict_input *in, struct verdict *v)
{
    for (unsigned i = 0; i < in->nfaults; i++) {
        const struct fault *f = &in->faults[i];
        char why[sizeof v->missed[0].why];
        if (verdict_fault_happened(f, in->end_ns, in->interrupted, why, sizeof why))
            continue;
        struct fault_miss *m = realloc(v->missed, (v->nmissed + 1) * sizeof *m);
        if (!m)
            return -1;
        v->missed = m;
        m = &v->missed[v->nmissed++];
        m->fault = i;
        /* Cut short by the signal: the interruption says it already. */
        bool cut = in->interrupted && !f->error[0] && !f->indeterminate && !f->clear_failed;
        m->counts = !cut;
        v->nmissed_counted += m->counts;
        snprintf(m->why, sizeof m->why, "%s", why);
    }
    return 0;
}

/* The outcome, in the order verdict.h gives. */
static enum verdict_outcome outcome_of(const struct verdict *v)
{
    bool found = false, unknown_failed = false;
    for (size_t i = 0; i < v->n; i++) {
        const struct expect_result *x = &v->results[i];
        if (x->pass)
            continue;
        if (x->known || (x->rule.fault < 0 && run_metrics[x->rule.metric].integrity))
            found = true;
        else
            unknown_failed = true;
    }
    if (found)
        return OUTCOME_FAIL;
    if (v->signal)
        return OUTCOME_INTERRUPTED;
    if (v->nmissed_counted)
        return OUTCOME_NOT_AS_WRITTEN;
    return unknown_failed ? OUTCOME_FAIL : OUTCOME_PASS;
}

const char *verdict_word(const struct verdict *v)
{
    switch (v->outcome) {
    case OUTCOME_PASS:
        return "pass";
    case OUTCOME_FAIL:
        return "fail";
    case OUTCOME_INTERRUPTED:
        return "interrupted";
    case OUTCOME_NOT_AS_WRITTEN:
        break;
    }
    return "error";
}

int verdict_exit_code(const struct verdict *v)
{
    switch (v->outcome) {
    case OUTCOME_PASS:
        return 0;
    case OUTCOME_FAIL:
        return 1;
    case OUTCOME_INTERRUPTED:
        return 128 + v->signal;
    case OUTCOME_NOT_AS_WRITTEN:
        break;
    }
    return 2;
}

int verdict_evaluate(const struct verdict_input *in, struct verdict *v)
{
    memset(v, 0, sizeof *v);
    struct hit hits[64 * 64];
    size_t nhits = in->run ? corrupted_blocks(in, hits, sizeof hits / sizeof hits[0]) : 0;
    for (int c = 0; c < CLS_COUNT; c++)
        v->unexplained[c] = in->findings->counts[c];
    for (size_t i = 0; i < in->findings->n; i++) {
        const struct finding *f = &in->findings->list[i];
        if (f->cls == CLS_IO_ERROR || f->cls >= CLS_MISSING_FILE)
            continue; /* a corrupt fault explains damaged data, not failures or names */
        for (size_t k = 0; k < nhits; k++) {
            uint64_t last = f->repeats ? f->last_read_ns : f->read_ns;
            if (hits[k].block != f->block || last == FL_TIME_UNKNOWN || last < hits[k].at_ns)
                continue;
            uint64_t reads = 1 + f->repeats;
            v->explained[f->cls] += reads;
            v->unexplained[f->cls] -= reads <= v->unexplained[f->cls] ? reads
                                                                        : v->unexplained[f->cls];
            hits[k].detected = true;
            break;
        }
    }
    for (size_t k = 0; k < nhits; k++) {
        v->corrupted_blocks++;
        if (hits[k].detected)
            v->detected_corrupt++;
        else if (!in->written || in->written(in->written_ctx, hits[k].block))
            v->undetected_corrupt++;
    }

    size_t cap = 0;
    const struct scenario *sc = in->sc;
    bool stated[M_RUN_COUNT] = {false};
    for (unsigned i = 0; i < sc->nexpects; i++) {
        const struct expect_rule *e = &sc->expects[i];
        double value = 0;
        const char *why = "";
        bool known;
        if (expect_over_repeats(e))
            continue; /* the summary of the repetitions checks it (repeat.h) */
        if (e->fault < 0) {
            stated[e->metric] = true;
            if (!in->run && !run_metrics[e->metric].integrity && e->metric != M_FINDINGS)
                continue; /* verify re-reads data; it does not see the outage again */
            known = run_value(in, v, e->metric, &value, &why);
        } else {
            if (!in->run)
                continue;
            known = fault_value(in, e->fault, e->metric, &value, &why);
        }
        if (add_result(v, &cap, e, value, known, why) != 0)
            return -1;
    }
    bool tree = sc->backend && sc->backend->check_after; /* a kind with names to lose */
    for (int m = 0; m < M_RUN_COUNT; m++) {
        if (!run_metrics[m].integrity || stated[m])
            continue;
        if (!tree && (m == M_MISSING_FILES || m == M_UNEXPECTED_FILES || m == M_WRONG_SIZES))
            continue; /* only a file tree has names to lose */
        if (m == M_LOST_CLIENTS && in->clients <= 1)
            continue; /* only a run over several clients can lose one */
        struct expect_rule rule = {.metric = m, .fault = -1, .op = EXP_EQ, .value = 0};
        snprintf(rule.text, sizeof rule.text, "%s = 0", run_metrics[m].name);
        double value = 0;
        const char *why = "";
        bool known = run_value(in, v, m, &value, &why);
        if (add_result(v, &cap, &rule, value, known, why) != 0)
            return -1;
    }
    /* Every run metric's value, for report.json's `measured` (what the
     * summary of repetitions takes its distributions from). */
    for (int m = 0; m < M_RUN_COUNT; m++) {
        const char *why = "";
        v->known[m] = run_value(in, v, m, &v->value[m], &why);
    }
    v->pass = v->failed == 0;
    v->signal = in->interrupted;
    if (in->run && find_missed(in, v) != 0)
        return -1;
    v->outcome = outcome_of(v);
    return 0;
}

void verdict_free(struct verdict *v)
{
    free(v->results);
    free(v->missed);
    v->results = NULL;
    v->missed = NULL;
    v->n = v->nmissed = v->nmissed_counted = 0;
}

void verdict_value(const struct expect_result *r, char *out, size_t n)
{
    if (!r->known)
        snprintf(out, n, "unknown");
    else if (expect_metric(&r->rule)->seconds)
        snprintf(out, n, "%.3f s", r->measured);
    else
        snprintf(out, n, "%.0f", r->measured);
}

void verdict_describe(const struct expect_result *r, char *out, size_t n)
{
    char value[64];
    verdict_value(r, value, sizeof value);
    snprintf(out, n, "%s%s: measured %s%s%s", r->rule.text,
             r->rule.line ? "" : " (integrity rule)", value, r->known ? "" : " - ", r->why);
}
