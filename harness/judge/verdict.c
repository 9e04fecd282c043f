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

/* A metric's value as measured; known is false when it could not be
 * measured, and why says so. */
struct measured {
    double v;
    bool known;
    const char *why;
};

static void put(struct measured *out, double v, bool known, const char *why)
{
    *out = (struct measured){v, known, known ? "" : why};
}

/* Whether the fault's storage was watched until whole, in the lab's word
 * ("heal", "recover": the metric's name). */
static bool heal_is(const struct recovery *r, const char *word)
{
    return r->heal_measured && r->heal_word && strcmp(r->heal_word, word) == 0;
}

/* The longest recovery_s of any injected fault; unknown when one never
 * recovered. */
static void worst_recovery(const struct verdict_input *in, struct measured *out)
{
    double worst = 0;
    for (unsigned i = 0; in->recovery && i < in->nfaults; i++) {
        const struct recovery *r = &in->recovery[i];
        if (!r->injected)
            continue;
        if (!r->recovered) {
            put(out, 0, false, "a fault never recovered (or no baseline to measure against)");
            return;
        }
        if (r->recovery_s > worst)
            worst = r->recovery_s;
    }
    put(out, worst, true, "");
}

/* The longest heal_s of the faults whose lab heals in that word (heal:
 * gluster, recover: ceph); unknown when none was measured or one never
 * got whole. */
static void worst_heal(const struct verdict_input *in, int m, struct measured *out)
{
    bool gluster = m == M_HEAL;
    double worst = 0;
    bool any = false;
    for (unsigned i = 0; in->recovery && i < in->nfaults; i++) {
        const struct recovery *r = &in->recovery[i];
        if (!r->injected || !heal_is(r, metric_table[m].name))
            continue;
        any = true;
        if (!r->healed) {
            put(out, 0, false, gluster ? "the volume did not heal within heal_wait after a fault"
                                       : "the cluster did not recover within heal_wait after a "
                                         "fault");
            return;
        }
        if (r->heal_s > worst)
            worst = r->heal_s;
    }
    put(out, worst, any, gluster ? "no heal was measured (only the gluster lab's volume heals)"
                                 : "no recovery was measured (only the ceph lab's cluster "
                                   "recovers)");
}

/* Every metric of the run (metric.h's M_*), as this run measured it.  A
 * new run metric is measured here. */
static void measure_run(const struct verdict_input *in, const struct verdict *v,
                        struct measured out[M_RUN_COUNT])
{
    static const struct {
        int metric;
        enum fl_class cls;
    } integrity[] = {
        {M_LOST_WRITES, CLS_LOST_WRITE},   {M_STALE_READS, CLS_STALE_READ},
        {M_TORN, CLS_TORN},                {M_MISDIRECTED, CLS_MISDIRECTED},
        {M_CORRUPT, CLS_CORRUPT},          {M_ZEROED, CLS_ZEROED},
        {M_IO_ERRORS, CLS_IO_ERROR},       {M_MISSING_FILES, CLS_MISSING_FILE},
        {M_UNEXPECTED_FILES, CLS_UNEXPECTED_FILE}, {M_WRONG_SIZES, CLS_WRONG_SIZE}};
    for (int m = 0; m < M_RUN_COUNT; m++)
        put(&out[m], 0, false, "unknown metric");
    for (size_t i = 0; i < sizeof integrity / sizeof integrity[0]; i++)
        put(&out[integrity[i].metric], (double)v->unexplained[integrity[i].cls], true, "");
    uint64_t sum = 0;
    for (int c = 0; c < CLS_COUNT; c++)
        if (class_is_finding((enum fl_class)c))
            sum += v->unexplained[c];
    put(&out[M_FINDINGS], (double)sum, true, "");
    put(&out[M_DETECTED_CORRUPT], (double)v->detected_corrupt, true, "");
    put(&out[M_UNDETECTED_CORRUPT], (double)v->undetected_corrupt, true, "");
    put(&out[M_DOUBTFUL_WRITES], (double)in->doubtful_writes, true, "");
    put(&out[M_REVERTED], (double)in->findings->counts[CLS_REVERTED], true, "");
    put(&out[M_ERRORS], (double)(in->io->errors + (in->sweep ? in->sweep->errors : 0)), true, "");
    put(&out[M_HUNG], (double)in->hung, true, "");
    put(&out[M_LOST_CLIENTS], (double)in->lost_clients, true, "");
    put(&out[M_MAX_STALL], in->max_stall_s, in->max_stall_s >= 0, "no time buckets");
    worst_recovery(in, &out[M_RECOVERY]);
    worst_heal(in, M_HEAL, &out[M_HEAL]);
    worst_heal(in, M_RECOVER, &out[M_RECOVER]);
    put(&out[M_MAX_LATENCY], (double)in->io->lat_max_ns / 1e9, true, "");
    put(&out[M_IOPS],
        in->io->ns ? (double)(in->io->reads + in->io->writes) * 1e9 / (double)in->io->ns : 0,
        true, "");
    put(&out[M_PASS_RATE], 0, false, "a rate over repetitions (repeat = N)");
}

/* Every metric of one fault (metric.h's F_*), from its recovery numbers.
 * A new fault metric is measured here. */
static void measure_fault(const struct verdict_input *in, int fault,
                          struct measured out[METRIC_COUNT])
{
    const struct recovery *r = in->recovery ? &in->recovery[fault] : NULL;
    if (!r || !r->injected) {
        for (int m = F_FIRST; m < METRIC_COUNT; m++)
            put(&out[m], 0, false, "the fault was not injected");
        return;
    }
    put(&out[F_STALL], r->stall_s, true, "");
    put(&out[F_RECOVERY], r->recovery_s, r->recovered,
        "never recovered before the end of the workload (or no baseline)");
    put(&out[F_IMPACT], r->impact_s, r->impact, "throughput never fell below half the baseline");
    put(&out[F_ERRORS], (double)r->errors, true, "");
    put(&out[F_MAX_LATENCY], r->max_latency_s, true, "");
    put(&out[F_FIRST_IO_AFTER_INJECT], r->first_io_after_inject_s, r->io_after_inject,
        "no I/O completed after the inject");
    put(&out[F_FIRST_IO_AFTER_CLEAR], r->first_io_after_clear_s, r->io_after_clear,
        r->lasting ? "no I/O completed after the clear" : "the fault has no clear");
    put(&out[F_HEAL], r->heal_s, heal_is(r, "heal") && r->healed,
        !heal_is(r, "heal") ? "no heal was measured (only the gluster lab's volume heals)"
                            : "the volume did not heal within heal_wait");
    put(&out[F_RECOVER], r->heal_s, heal_is(r, "recover") && r->healed,
        !heal_is(r, "recover") ? "no recovery was measured (only the ceph lab's cluster recovers)"
                               : "the cluster did not recover within heal_wait");
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
        if (f->unsure[0]) /* its family could not confirm it here */
            snprintf(why, n, "%s: it may or may not have happened", f->unsure);
        else
            snprintf(why, n, "its agent on %s never answered: it may or may not have happened",
                     f->via_host[0] ? f->via_host : f->spec.host);
        return false;
    }
    if (f->not_reached) {
        snprintf(why, n, "not reached: the settle waits before it (%.3f s, and any still under "
                 "way) moved it past the end of the workload%s", (double)f->shift_ns / 1e9,
                 f->drawn ? " (drawn by [thrash]: left out of schedule.scn)" : "");
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
    /* A thrash none of whose drawn faults began tested nothing: its faults
     * not reached count then (a storage never whole holds them all back). */
    bool drawn_began = false;
    for (unsigned i = 0; i < in->nfaults; i++)
        drawn_began |= in->faults[i].drawn && in->faults[i].applied;
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
        /* A fault [thrash] drew that its settle waits moved past the end
         * was never part of the run's schedule (schedule.scn leaves it out),
         * as long as some drawn fault began. */
        m->counts = !cut && !(f->not_reached && f->drawn && drawn_began);
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
        if (x->known || (x->rule.fault < 0 && metric_table[x->rule.metric].integrity))
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
    return unknown_failed || v->abandoned ? OUTCOME_FAIL : OUTCOME_PASS;
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

/* Every rule of the scenario this run can check, then the integrity rules
 * it did not restate. */
static int add_rules(const struct verdict_input *in, struct verdict *v,
                     const struct measured run[M_RUN_COUNT])
{
    size_t cap = 0;
    const struct scenario *sc = in->sc;
    bool stated[M_RUN_COUNT] = {false};
    for (unsigned i = 0; i < sc->nexpects; i++) {
        const struct expect_rule *e = &sc->expects[i];
        if (expect_over_repeats(e))
            continue; /* the summary of the repetitions checks it (repeat.h) */
        struct measured x;
        if (e->fault < 0) {
            stated[e->metric] = true;
            if (!in->run && !metric_table[e->metric].integrity && e->metric != M_FINDINGS)
                continue; /* verify re-reads data; it does not see the outage again */
            x = run[e->metric];
        } else {
            if (!in->run)
                continue;
            struct measured fault[METRIC_COUNT];
            measure_fault(in, e->fault, fault);
            x = fault[e->metric];
        }
        if (add_result(v, &cap, e, x.v, x.known, x.why) != 0)
            return -1;
    }
    bool tree = sc->backend && sc->backend->check_after; /* a kind with names to lose */
    for (int m = 0; m < M_RUN_COUNT; m++) {
        if (!metric_table[m].integrity || stated[m])
            continue;
        if (!tree && (m == M_MISSING_FILES || m == M_UNEXPECTED_FILES || m == M_WRONG_SIZES))
            continue; /* only a file tree has names to lose */
        if (m == M_LOST_CLIENTS && in->clients <= 1)
            continue; /* only a run over several clients can lose one */
        struct expect_rule rule = {.metric = m, .fault = -1, .op = EXP_EQ, .value = 0};
        snprintf(rule.text, sizeof rule.text, "%s = 0", metric_table[m].name);
        if (add_result(v, &cap, &rule, run[m].v, run[m].known, run[m].why) != 0)
            return -1;
    }
    return 0;
}

static int check_rules(const struct verdict_input *in, struct verdict *v,
                       const struct measured run[M_RUN_COUNT])
{
    if (add_rules(in, v, run) != 0)
        return -1;
    v->pass = v->failed == 0;
    v->signal = in->interrupted;
    v->abandoned = in->abandoned;
    if (in->run && find_missed(in, v) != 0)
        return -1;
    v->outcome = outcome_of(v);
    return 0;
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

    /* Every metric, once: the rules look their values up, and report.json's
     * `measured` has every run metric (what the summary of repetitions
     * takes its distributions from). */
    struct measured run[M_RUN_COUNT];
    measure_run(in, v, run);
    for (int m = 0; m < M_RUN_COUNT; m++) {
        v->value[m] = run[m].v;
        v->known[m] = run[m].known;
    }
    return check_rules(in, v, run);
}

void verdict_free(struct verdict *v)
{
    free(v->results);
    free(v->missed);
    v->results = NULL;
    v->missed = NULL;
    v->n = v->nmissed = v->nmissed_counted = 0;
}
