/* result_text — report.txt, and the lines a run prints when it ends, from
 * the record alone (see result_render.h). */
#include "result_render.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "../../lib/jread.h"
#include "../../lib/units.h"

/* "0.214 s", or "?" for a time never recorded. */
static void fmt_time(struct result_time t, char *out, size_t n)
{
    if (!t.known)
        snprintf(out, n, "?");
    else
        snprintf(out, n, "%.3f s", t.s);
}

/* "0.214 s", or "-" for what could not be measured. */
static void fmt_maybe(bool known, double s, char *out, size_t n)
{
    if (known)
        snprintf(out, n, "%.3f s", s);
    else
        snprintf(out, n, "-");
}

static bool is_run(const struct result *res)
{
    return strcmp(res->mode, "run") == 0;
}

static void text_io(FILE *f, const char *label, const struct result_io *s)
{
    fprintf(f, "  %-10s %.1f s: %" PRIu64 " reads, %" PRIu64 " writes, %" PRIu64
               " flushes, %" PRIu64 " errors; %.0f IOPS, %.1f MB/s, slowest %.1f ms\n",
            label, result_secs(s), s->reads, s->writes, s->flushes, s->errors, result_iops(s),
            result_mbps(s), s->max_latency_s * 1e3);
}

/* Every bad read was on a block a corrupt fault overwrote. */
static bool all_explained(const struct result *res)
{
    if (!res->judged)
        return false;
    for (int c = 0; c < RESULT_CLASSES; c++)
        if (res->class_is_finding[c] && res->counts[c] > res->explained[c])
            return false;
    return true;
}

/* Up to six path events of a fault's span, and how many more there were. */
static void text_fault_events(FILE *f, const struct result_fault *x)
{
    size_t shown = 0;
    for (size_t i = 0; i < x->nevents; i++) {
        const struct result_event *e = &x->events[i];
        if (shown++ < 6)
            fprintf(f, "      %8.3f s  path %-12s %s\n", e->t, e->event, e->portal);
    }
    if (shown > 6)
        fprintf(f, "      (and %zu more path events in report.json)\n", shown - 6);
}

/* An HA cluster's fault: the stall split by what the cluster did. */
static void text_failover(FILE *f, const struct result_fault *x)
{
    if (!x->failover)
        return;
    char d[32], fe[32], st[32], re[32];
    fmt_maybe(x->fo_detection.known, x->fo_detection.s, d, sizeof d);
    fmt_maybe(x->fo_fencing.known, x->fo_fencing.s, fe, sizeof fe);
    fmt_maybe(x->fo_start.known, x->fo_start.s, st, sizeof st);
    fmt_maybe(x->fo_reconnect.known, x->fo_reconnect.s, re, sizeof re);
    fprintf(f, "      failover: detection %s (to %s), fencing %s%s, resource start %s, "
               "reconnect %s\n", d,
            strcmp(x->failover_noticed_by, "rsc-failed") == 0 ? "a failed monitor"
                                                              : "a membership without it",
            fe, x->fo_fencing.known ? "" : " (no fence)", st, re);
}

/* One line of recovery numbers under a fault. */
static void text_recovery(FILE *f, const struct result_fault *x)
{
    if (!x->analysed)
        return;
    char imp[32], stall[32], rec[32], fi[32], fc[32];
    fmt_maybe(x->impact.known, x->impact.s, imp, sizeof imp);
    fmt_maybe(true, x->stall.s, stall, sizeof stall);
    fmt_maybe(x->recovery.known, x->recovery.s, rec, sizeof rec);
    fmt_maybe(x->first_io_after_inject.known, x->first_io_after_inject.s, fi, sizeof fi);
    fmt_maybe(x->first_io_after_clear.known, x->first_io_after_clear.s, fc, sizeof fc);
    fprintf(f, "      impact %s, stall %s, recovery %s%s, %" PRIu64 " errors, slowest I/O %.3f s, "
               "first I/O after inject %s, after clear %s\n",
            imp, stall, rec, x->clear_failed ? " (its clear failed: none is claimed)"
                             : x->recovery.known ? "" : " (not recovered)",
            x->errors, x->max_latency_s, fi, fc);
    if (x->latency_known)
        fprintf(f, "      latency p50 %.3f s, p99 %.3f s, max %.3f s (I/Os completed from the "
                   "inject to the recovery)\n", x->latency_p50_s, x->latency_p99_s,
                x->latency_max_s);
    if (x->metadata_stall.known && x->metadata_stall.s > 0)
        fprintf(f, "      metadata stall %.3f s (no metadata operation done from %.3f to "
                   "%.3f s)\n", x->metadata_stall.s, x->metadata_stall_from.s,
                x->metadata_stall_to.s);
    if (x->heal_measured && x->healed)
        fprintf(f, "      %sed %.3f s after the clear (%s)\n", x->heal_word, x->heal_s,
                x->heal_whole);
    else if (x->heal_measured)
        fprintf(f, "      NOT %sed within heal_wait: the %s event (events.jsonl) says what was "
                   "left (whole: %s)\n", x->heal_word, x->heal_word, x->heal_whole);
    text_failover(f, x);
    text_fault_events(f, x);
}

/* One fault: its name and action, when it was injected and cleared, what
 * it did (said as planned when it did not happen), and its numbers. */
static void text_fault(FILE *f, const struct result *res, const struct result_fault *x)
{
    char when[96];
    if (!x->applied)
        snprintf(when, sizeof when, "NOT INJECTED");
    else if (x->cleared_at.known && x->cleared_at.s != x->injected_at.s)
        snprintf(when, sizeof when, "%.3f s .. %.3f s", x->injected_at.s, x->cleared_at.s);
    else
        snprintf(when, sizeof when, "%.3f s", x->injected_at.s);
    char by[160] = "";
    if (x->applied_by && x->applied)
        snprintf(by, sizeof by, "; through the agent on %s, cleared by %s", x->applied_by,
                 x->cleared_by ? x->cleared_by : "-");
    else if (x->applied_by)
        snprintf(by, sizeof by, "; through the agent on %s", x->applied_by);
    fprintf(f, "    %-16s %-11s at %7.3f s: %s; %s%s%s\n", x->name, x->action, x->at, when,
            x->applied ? "" : "planned: ", x->detail[0] ? x->detail : x->host, by);
    if (x->settle.known)
        fprintf(f, "      settle: waited %.3f s for the storage to be whole; moved %.3f s "
                   "later by the waits before it\n", x->settle.s, x->moved_s);
    if (x->not_reached && x->drawn)
        fprintf(f, "      not reached: drawn by [thrash], moved past the end by %.3f s of settle "
                   "waits (left out of schedule.scn)\n", x->moved_s);
    else if (!x->happened && x->not_happened_why)
        fprintf(f, "      NOT AS WRITTEN: %s\n", x->not_happened_why);
    if (res->outage)
        text_recovery(f, x);
}

/* "p50 3.2 s, p95 5.1 s, max 6.0 s of 12" or "-". */
static void say_dist(char *out, size_t n, const struct result_dist *d)
{
    if (!d->known)
        snprintf(out, n, "-");
    else
        snprintf(out, n, "p50 %.3f s, p95 %.3f s, max %.3f s (%.0f)", d->p50, d->p95, d->max,
                 d->n);
}

/* Per action, where one has several faults (a thrash): the distribution
 * of their numbers, as a repeat summary gives them over runs. */
static void text_actions(FILE *f, const struct result *res)
{
    bool several = false;
    for (size_t i = 0; i < res->nactions; i++)
        several |= res->actions[i].count > 1;
    if (!several)
        return;
    fprintf(f, "  per action:\n");
    for (size_t i = 0; i < res->nactions; i++) {
        const struct result_action *a = &res->actions[i];
        char st[96], rc[96], he[96];
        say_dist(st, sizeof st, &a->stall);
        say_dist(rc, sizeof rc, &a->recovery);
        say_dist(he, sizeof he, &a->heal);
        fprintf(f, "    %-11s %3" PRIu64 " fault%s (%" PRIu64 " began): stall %s; recovery %s", a->action,
                a->count, a->count == 1 ? "" : "s", a->began, st, rc);
        if (a->heal.known) /* only the storage that heals or recovers has it */
            fprintf(f, "; %.*s %s", (int)strcspn(a->heal_key, "_"), a->heal_key, he);
        fprintf(f, "\n");
    }
}

static void text_faults(FILE *f, const struct result *res)
{
    if (!res->nfaults)
        return;
    fprintf(f, "\n  faults: %zu of %zu happened as written", res->nfaults - res->nmissed,
            res->nfaults);
    if (res->injections)
        fprintf(f, " (%u inject step%s, %.3f ms after their time at p50, %.3f ms at p99)",
                res->injections, res->injections == 1 ? "" : "s", res->inject_p50_ms,
                res->inject_p99_ms);
    if (res->baseline_known)
        fprintf(f, "; baseline %.0f IOPS (median of %.1f..%.1f s):\n", res->baseline_iops,
                res->baseline_from, res->baseline_to);
    else if (res->outage)
        fprintf(f, "; no baseline (no healthy time between warmup and the first fault):\n");
    else
        fprintf(f, ":\n");
    for (size_t i = 0; i < res->nhosts; i++) {
        const struct result_host *h = &res->hosts[i];
        if (h->agent)
            fprintf(f, "    host %-11s over ssh %s: round trip %.3f ms, clock offset %+.3f ms, "
                    "agent %s\n", h->name, h->ssh ? h->ssh : "", h->rtt_ms, h->clock_offset_ms,
                    h->agent_copied ? "copied over" : "up to date");
    }
    for (size_t i = 0; i < res->nfaults; i++)
        text_fault(f, res, &res->faults[i]);
    text_actions(f, res);
}

static void text_expectations(FILE *f, const struct result *res)
{
    if (!res->judged)
        return;
    fprintf(f, "  expectations %zu of %zu hold\n", res->nexpect - res->failed, res->nexpect);
    for (size_t i = 0; i < res->nexpect; i++) {
        const struct result_expect *x = &res->expect[i];
        char line[256], where[96] = "";
        result_expect_describe(x, line, sizeof line);
        if (x->fault)
            snprintf(where, sizeof where, "[fault %s] ", x->fault);
        fprintf(f, "    %s %s%s\n", x->pass ? "pass" : "FAIL", where, line);
    }
    if (res->corrupted_blocks)
        fprintf(f, "  corruption %" PRIu64 " blocks overwritten by corrupt faults: %" PRIu64
                   " detected, %" PRIu64 " not\n",
                res->corrupted_blocks, res->detected_corrupt, res->undetected_corrupt);
}

/* One client of a run over several: its I/O, clock and per-fault numbers. */
static void text_client(FILE *f, const struct result_client *c)
{
    if (c->lost) {
        fprintf(f, "    client %u (%s): LOST: %s\n", c->rank, c->host[0] ? c->host : "?",
                c->why);
        if (c->last_heard[0] && !c->io.present)
            fprintf(f, "      last heard: %s\n", c->last_heard);
        fprintf(f, "      its state is in %s: `faultline verify` re-reads its share\n", c->dir);
        return;
    }
    const struct result_io *s = &c->io;
    fprintf(f, "    client %u (%s): %" PRIu64 " reads, %" PRIu64 " writes, %" PRIu64 " errors, "
               "%.0f IOPS; %" PRIu64 " findings; clock %+.3f ms +- %.3f ms",
            c->rank, c->host, s->reads, s->writes, s->errors, result_iops(s), c->findings,
            c->clock_offset_ms, c->clock_uncertainty_ms);
    if (c->end_measured)
        fprintf(f, " (at the end %+.3f ms +- %.3f ms)", c->clock_offset_end_ms,
                c->clock_uncertainty_end_ms);
    fputc('\n', f);
    for (size_t i = 0; i < c->nfaults; i++) {
        const struct result_client_fault *x = &c->faults[i];
        if (!x->stall.known)
            continue; /* not injected */
        char rec[32];
        if (x->recovery.known)
            snprintf(rec, sizeof rec, "%.3f s", x->recovery.s);
        else
            snprintf(rec, sizeof rec, "not recovered");
        fprintf(f, "      %-16s stall %.3f s, recovery %s, %" PRIu64 " errors\n", x->name,
                x->stall.s, rec, x->errors);
    }
}

static void text_clients(FILE *f, const struct result *res)
{
    if (res->nclients) {
        fprintf(f, "\n  clients (%zu MPI ranks, %" PRIu64 " lost; rank 0 ran the faults; each "
                   "line from that client's own completions):\n", res->nclients,
                res->lost_clients);
        for (size_t k = 0; k < res->nclients; k++)
            text_client(f, &res->clients[k]);
    }
    if (res->cross)
        fprintf(f, "  cross reads %u%% of reads went to other clients' blocks, rule %s: %" PRIu64
                   " reads, %" PRIu64 " judged against their owner's history, %" PRIu64 " ok, "
                   "%" PRIu64 " findings, %" PRIu64 " not judged\n",
                res->cross_pct, res->cross_rule, res->cross_reads, res->cross_judged,
                res->cross_ok, res->cross_bad, res->cross_unjudged);
}

/* The verdict and why, the expectations, the findings in one line, the faults. */
static void text_verdict(FILE *f, const struct result *res)
{
    fprintf(f, "%s %s: %s\n", is_run(res) ? "run" : "verify of", res->scenario,
            report_verdict_caps(res->verdict));
    if (res->error)
        fprintf(f, "  error      %s\n", res->error);
    if (res->interrupted)
        fprintf(f, "  interrupted by %s: the %s was cut short; nothing is said of what did not "
                   "run\n", res->interrupted_by, is_run(res) ? "run" : "verify pass");
    for (size_t i = 0; i < res->nmissed; i++) {
        const struct result_miss *m = &res->missed[i];
        fprintf(f, "  %-16s [fault %s] %s%s\n", i ? "" : "not as written", m->fault, m->why,
                m->counts ? "" : " (the interruption's doing)");
    }
    text_expectations(f, res);
    uint64_t bad = result_bad(res);
    uint64_t distinct = res->nfindings + res->findings_unlisted;
    if (!bad)
        fprintf(f, "  findings   0 (no acknowledged data was lost or corrupted)\n");
    else
        fprintf(f, "  findings   %" PRIu64 " (%" PRIu64 " bad reads or I/Os%s)\n", distinct, bad,
                all_explained(res) ? ", all on blocks the corrupt faults overwrote" : "");
    if (res->hung)
        fprintf(f, "  hung       %" PRIu64 " I/Os outstanding longer than hung_after (%.1f s)%s\n",
                res->hung, res->hung_after_s,
                res->abandoned ? "; the workers waiting on them were left behind" : "");
    if (res->outage && res->max_stall.known)
        fprintf(f, "  max stall  %.3f s without a successful I/O\n", res->max_stall.s);
    text_faults(f, res);
    text_clients(f, res);
}

/* What ran: the scenario, the target, the run, the workload and its I/O. */
static void text_what_ran(FILE *f, const struct result *res)
{
    char size[64], bs[64];
    format_size(res->capacity, size, sizeof size);
    format_size(res->block_size, bs, sizeof bs);
    fprintf(f, "  scenario   %s\n", res->scenario_file);
    fprintf(f, "  target     %s, %s = %" PRIu64 " blocks of %s\n",
            res->target_description[0] ? res->target_description : res->target_path, size,
            res->blocks, bs);
    fprintf(f, "  run        id %s, seed %" PRIu64 ", started %s%s\n", res->run_id, res->seed,
            res->started_at, res->interrupted ? ", INTERRUPTED" : "");
    if (is_run(res)) {
        fprintf(f, "  workload   %s, %u%% reads, depth %u on %u worker%s, flush every %u writes "
                   "per worker%s\n",
                res->pattern, res->read_pct, res->depth, res->workers,
                res->workers == 1 ? "" : "s", res->flush_every,
                res->flush_every ? "" : " (only at the end)");
        if (res->prefill.present)
            text_io(f, "prefill", &res->prefill);
        text_io(f, "io", &res->io);
        if (res->sweep.present)
            text_io(f, "sweep", &res->sweep);
        if (res->bucket_s > 0)
            fprintf(f, "  timeline   timeline.csv, %.0f ms buckets; plots in report.html\n",
                    res->bucket_s * 1e3);
    } else {
        fprintf(f, "  state      %s; %" PRIu64 " journal records replayed",
                res->state_final ? "the run ended cleanly" : "the run did not end cleanly "
                                                             "(crash or kill): pending writes "
                                                             "may or may not be on the media",
                res->replayed);
        /* after a crash: the completions the journal had not kept yet */
        if (res->acks_recovered)
            fprintf(f, ", %" PRIu64 " write completions from acks.bin", res->acks_recovered);
        fputc('\n', f);
        text_io(f, "verify", &res->io);
    }
}

/* The state map's size, the metadata streams and the names' check. */
static void text_state_and_metadata(FILE *f, const struct result *res)
{
    fprintf(f, "  state map  %.2f bytes per block at rest, %" PRIu64 " pending at most\n",
            res->blocks ? (double)res->bytes_at_rest / (double)res->blocks : 0.0,
            res->pending_peak);
    if (!res->metadata)
        return;
    if (strcmp(res->mode, "verify") != 0) { /* a verify runs no operation */
        uint64_t all = 0;
        for (size_t k = 0; k < res->nmeta_ops; k++)
            all += res->meta_ops[k];
        fprintf(f, "  metadata   %" PRIu64 " operations in %u streams (", all, res->meta_streams);
        for (size_t k = 0; k < res->nmeta_ops; k++)
            fprintf(f, "%s%s %" PRIu64, k ? ", " : "", res->meta_op_name[k], res->meta_ops[k]);
        fprintf(f, "), %" PRIu64 " failed\n", res->meta_errors);
        if (res->meta_max_stall.known && res->meta_max_stall.s > 0)
            fprintf(f, "             longest with no metadata operation done: %.3f s "
                       "(%.3f-%.3f s)\n",
                    res->meta_max_stall.s, res->meta_stall_from.s, res->meta_stall_to.s);
    }
    if (res->rebuilt)
        fprintf(f, "  names      %" PRIu64 " checked; %" PRIu64 " of %u models rebuilt from their "
                   "journals after a crash: %" PRIu64 " names changed after the last "
                   "durability point found as before (an operation the crash cut off or "
                   "took back), %" PRIu64 " files shorter (allowed)\n",
                res->names_checked, res->rebuilt, res->meta_streams, res->names_reverted,
                res->sizes_short);
}

/* Writes a reissue or a power loss allows to come back older. */
static void text_allowed_losses(FILE *f, const struct result *res)
{
    if (res->doubtful_writes)
        fprintf(f, "  doubtful   %" PRIu64 " writes completed only after a reissue on another "
                   "path: either generation allowed until rewritten\n",
                res->doubtful_writes);
    for (size_t i = 0; i < res->npower; i++) {
        const struct result_power *p = &res->power[i];
        fprintf(f, "  power      [fault %s] at %.3f s: %" PRIu64 " blocks had writes not yet "
                   "durable; %" PRIu64 " reads found one of them reverted (allowed)\n",
                p->fault, p->at.known ? p->at.s : 0.0, p->at_risk, p->reverted);
    }
    if (res->reverted_after_crash)
        fprintf(f, "  reverted   %" PRIu64 " reads found a write acknowledged before the run's "
                   "crash but never flushed missing (allowed)\n",
                res->reverted_after_crash);
}

/* The path events of a backend with several paths. */
static void text_path_events(FILE *f, const struct result *res)
{
    if (!res->nevents)
        return;
    fprintf(f, "\n  path events:\n");
    for (size_t i = 0; i < res->nevents; i++) {
        const struct result_event *e = &res->events[i];
        fprintf(f, "    %8.3f s  w%u  %-15s %s  %s\n", e->t, e->worker, e->event, e->portal,
                e->detail);
    }
}

/* One finding's line (and its detail) under its class. */
static void text_finding(FILE *f, const struct result_finding *x)
{
    char wt[32], rt[32], found[24];
    fmt_time(x->written_at, wt, sizeof wt);
    fmt_time(x->read_at, rt, sizeof rt);
    if (x->found_known)
        snprintf(found, sizeof found, "%" PRIu64, x->found_gen);
    else
        snprintf(found, sizeof found, "-");
    char gens[96];
    if (strcmp(x->cls, "corrupt") == 0 && x->found_known && x->found_gen == x->expected_gen)
        snprintf(gens, sizeof gens, "generation %" PRIu64 " as expected, but damaged",
                 x->expected_gen); /* the detail says where */
    else
        snprintf(gens, sizeof gens, "expected gen %" PRIu64 ", found %s", x->expected_gen, found);
    char again[64] = "";
    if (x->repeats)
        snprintf(again, sizeof again, " (and %" PRIu64 " more times, last at %.3f s)",
                 x->repeats, x->last_read_at.s);
    char where[PATH_MAX + 900];
    snprintf(where, sizeof where, "%s", x->path);
    if (x->has_owner) { /* whose it is, and who read it */
        size_t len = strlen(where);
        if (x->client >= 0 && x->client != x->owner)
            snprintf(where + len, sizeof where - len, " (client %d's, read by client %d)",
                     x->owner, x->client);
        else
            snprintf(where + len, sizeof where - len, " (client %d's)", x->owner);
    }
    if (!x->has_block && !x->written_at.known)
        fprintf(f, "    %s (%s): %s; seen at %s\n", where, x->phase, x->detail, rt);
    else if (!x->has_block)
        fprintf(f, "    %s (%s, after %s at %s): %s; seen at %s\n", where, x->phase, x->op, wt,
                x->detail, rt);
    else
        fprintf(f, "    block %" PRIu64 " at byte %" PRIu64 " of %s (%s %s): %s; "
                   "written at %s, read at %s%s\n      %s\n",
                x->block, x->offset, where, x->phase, x->op, gens, wt, rt, again, x->detail);
}

/* Every listed finding, by class. */
static void text_findings(FILE *f, const struct result *res)
{
    fprintf(f, "\nFindings by class:\n");
    for (int c = 0; c < RESULT_CLASSES; c++) {
        if (!res->class_is_finding[c] || !res->counts[c])
            continue;
        fprintf(f, "\n  %s (%" PRIu64 ")", res->class_name[c], res->counts[c]);
        if (res->judged && res->explained[c])
            fprintf(f, ", %" PRIu64 " of them on blocks a corrupt fault overwrote",
                    res->explained[c]);
        fprintf(f, "\n");
        for (size_t i = 0; i < res->nfindings; i++)
            if (strcmp(res->findings[i].cls, res->class_name[c]) == 0)
                text_finding(f, &res->findings[i]);
    }
    if (res->findings_unlisted)
        fprintf(f, "\n  %" PRIu64 " more findings not listed (findings_limit)\n",
                res->findings_unlisted);
}

int result_write_text(const struct result *res, const char *dir, char *err, size_t errlen)
{
    char tmp[PATH_MAX + 64];
    FILE *f = report_open_tmp(dir, "report.txt", tmp, sizeof tmp, err, errlen);
    if (!f)
        return -1;
    text_verdict(f, res);
    fprintf(f, "\n");
    text_what_ran(f, res);
    text_state_and_metadata(f, res);
    text_allowed_losses(f, res);
    result_text_manifest(f, res->manifest);
    text_path_events(f, res);
    fprintf(f, "\n  reads by class:");
    for (int c = 0; c < RESULT_CLASSES; c++)
        fprintf(f, " %s %" PRIu64 "%s", res->class_name[c], res->counts[c],
                c + 1 < RESULT_CLASSES ? "," : "\n");
    if (result_bad(res))
        text_findings(f, res);
    return report_install(f, tmp, dir, "report.txt", err, errlen);
}
