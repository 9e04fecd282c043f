/* report_text — report.txt, and the lines a run prints when it ends (see
 * report.h). */
#include "report.h"
#include "report_paths.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../../lib/json.h"
#include "../../lib/units.h"
#include "report_manifest.h"

static void fmt_time(uint64_t ns, char *out, size_t n)
{
    if (ns == FL_TIME_UNKNOWN)
        snprintf(out, n, "?");
    else
        snprintf(out, n, "%.3f s", report_secs(ns));
}

static void text_io(FILE *f, const char *label, const struct io_stats *s)
{
    fprintf(f, "  %-10s %.1f s: %" PRIu64 " reads, %" PRIu64 " writes, %" PRIu64
               " flushes, %" PRIu64 " errors; %.0f IOPS, %.1f MB/s, slowest %.1f ms\n",
            label, report_secs(s->ns), s->reads, s->writes, s->flushes, s->errors, report_iops(s), report_mbps(s),
            (double)s->lat_max_ns / 1e6);
}

/* Every bad read was on a block a corrupt fault overwrote. */
static bool all_explained(const struct report *r)
{
    if (!r->verdict)
        return false;
    for (int c = 0; c < CLS_COUNT; c++)
        if (class_is_finding((enum fl_class)c) && r->verdict->unexplained[c])
            return false;
    return true;
}

/* "0.214 s", or "-" for what could not be measured. */
static void fmt_maybe(bool known, double s, char *out, size_t n)
{
    if (known)
        snprintf(out, n, "%.3f s", s);
    else
        snprintf(out, n, "-");
}

/* One line of recovery numbers under a fault. */
static void text_recovery(FILE *f, const struct report *r, const struct recovery *x)
{
    if (!x->injected)
        return;
    char imp[32], stall[32], rec[32], fi[32], fc[32];
    fmt_maybe(x->impact, x->impact_s, imp, sizeof imp);
    fmt_maybe(true, x->stall_s, stall, sizeof stall);
    fmt_maybe(x->recovered, x->recovery_s, rec, sizeof rec);
    fmt_maybe(x->io_after_inject, x->first_io_after_inject_s, fi, sizeof fi);
    fmt_maybe(x->io_after_clear, x->first_io_after_clear_s, fc, sizeof fc);
    fprintf(f, "      impact %s, stall %s, recovery %s%s, %" PRIu64 " errors, slowest I/O %.3f s, "
               "first I/O after inject %s, after clear %s\n",
            imp, stall, rec, x->clear_failed ? " (its clear failed: none is claimed)"
                             : x->recovered ? "" : " (not recovered)",
            x->errors, x->max_latency_s, fi, fc);
    if (x->latency_known)
        fprintf(f, "      latency p50 %.3f s, p99 %.3f s, max %.3f s (I/Os completed from the "
                   "inject to the recovery)\n", x->latency_p50_s, x->latency_p99_s,
                x->latency_max_s);
    struct meta_gap g;
    uint64_t mstall = r->meta_streams && strcmp(r->mode, "run") == 0
                          ? meta_longest_gap(r->meta_streams, r->nmeta, x->inject_ns,
                                             x->until_ns, &g)
                          : 0;
    if (mstall)
        fprintf(f, "      metadata stall %.3f s (no metadata operation done from %.3f to "
                   "%.3f s)\n", report_secs(mstall), report_secs(g.from_ns), report_secs(g.to_ns));
    if (x->heal_measured && x->healed)
        fprintf(f, "      %sed %.3f s after the clear (%s)\n", x->heal_word, x->heal_s,
                x->heal_whole);
    else if (x->heal_measured)
        fprintf(f, "      NOT %sed within heal_wait: the %s event (events.jsonl) says what was "
                   "left (whole: %s)\n", x->heal_word, x->heal_word, x->heal_whole);
    size_t shown = 0;
    for (size_t i = 0; r->events && i < r->events->n; i++) {
        const struct event *e = &r->events->list[i];
        if (!report_event_in(e, x->inject_ns, x->until_ns))
            continue;
        if (shown++ < 6)
            fprintf(f, "      %8.3f s  path %-12s %s\n", (double)e->t_ns / 1e9, e->event,
                    e->portal);
    }
    if (shown > 6)
        fprintf(f, "      (and %zu more path events in report.json)\n", shown - 6);
}

static void text_faults(FILE *f, const struct report *r)
{
    if (!r->nfaults)
        return;
    unsigned happened = r->nfaults - (unsigned)(r->verdict ? r->verdict->nmissed : 0);
    fprintf(f, "\n  faults: %u of %u happened as written", happened, r->nfaults);
    if (r->injections)
        fprintf(f, " (%u inject step%s, %.3f ms after their time at p50, %.3f ms at p99)",
                r->injections, r->injections == 1 ? "" : "s", r->inject_p50_ms,
                r->inject_p99_ms);
    if (r->baseline.known)
        fprintf(f, "; baseline %.0f IOPS (median of %.1f..%.1f s):\n", r->baseline.iops,
                report_secs(r->baseline.from_ns), report_secs(r->baseline.to_ns));
    else if (r->recovery)
        fprintf(f, "; no baseline (no healthy time between warmup and the first fault):\n");
    else
        fprintf(f, ":\n");
    for (unsigned i = 0; i < r->nhosts; i++) {
        const struct fault_host *h = &r->hosts[i];
        const struct remote_info *a = report_agent_of_host(r, h->name);
        if (a && report_host_used(r, h->name))
            fprintf(f, "    host %-11s over ssh %s: round trip %.3f ms, clock offset %+.3f ms, "
                    "agent %s\n", h->name, a->dest, (double)a->rtt_ns / 1e6,
                    (double)a->offset_ns / 1e6, a->copied ? "copied over" : "up to date");
    }
    for (unsigned i = 0; i < r->nfaults; i++) {
        const struct fault *x = &r->faults[i];
        char when[96];
        const struct fault_miss *miss = report_missed(r, i);
        if (!x->applied)
            snprintf(when, sizeof when, "NOT INJECTED");
        else if (x->cleared_ns && x->cleared_ns != x->injected_ns)
            snprintf(when, sizeof when, "%.3f s .. %.3f s", (double)x->injected_ns / 1e9,
                     (double)x->cleared_ns / 1e9);
        else
            snprintf(when, sizeof when, "%.3f s", (double)x->injected_ns / 1e9);
        char by[160] = "";
        if (x->remote && x->applied)
            snprintf(by, sizeof by, "; through the agent on %s, cleared by %s", x->via_host,
                     x->cleared_by[0] ? x->cleared_by : "-");
        else if (x->remote)
            snprintf(by, sizeof by, "; through the agent on %s", x->via_host);
        /* What the fault does, said as planned when it did not happen. */
        fprintf(f, "    %-16s %-11s at %7.3f s: %s; %s%s%s\n", x->spec.name, x->ops->action,
                (double)x->spec.at_ns / 1e9, when, x->applied ? "" : "planned: ",
                x->detail[0] ? x->detail : x->spec.host, by);
        if (miss)
            fprintf(f, "      NOT AS WRITTEN: %s\n", miss->why);
        if (r->recovery)
            text_recovery(f, r, &r->recovery[i]);
    }
}

static void text_expectations(FILE *f, const struct report *r)
{
    if (!r->verdict)
        return;
    fprintf(f, "  expectations %zu of %zu hold\n", r->verdict->n - r->verdict->failed,
            r->verdict->n);
    for (size_t i = 0; i < r->verdict->n; i++) {
        const struct expect_result *x = &r->verdict->results[i];
        char line[256], where[96] = "";
        verdict_describe(x, line, sizeof line);
        if (x->rule.fault >= 0 && (unsigned)x->rule.fault < r->nfaults)
            snprintf(where, sizeof where, "[fault %s] ", r->faults[x->rule.fault].spec.name);
        fprintf(f, "    %s %s%s\n", x->pass ? "pass" : "FAIL", where, line);
    }
    if (r->verdict->corrupted_blocks)
        fprintf(f, "  corruption %" PRIu64 " blocks overwritten by corrupt faults: %" PRIu64
                   " detected, %" PRIu64 " not\n",
                r->verdict->corrupted_blocks, r->verdict->detected_corrupt,
                r->verdict->undetected_corrupt);
}

/* The verdict and why, the expectations, the findings in one line, the faults. */
static void text_verdict(FILE *f, const struct report *r)
{
    const char *v = report_verdict(r);
    fprintf(f, "%s %s: %s\n", strcmp(r->mode, "run") == 0 ? "run" : "verify of", r->sc->name,
            report_verdict_caps(v));
    if (r->error)
        fprintf(f, "  error      %s\n", r->error);
    if (r->interrupted)
        fprintf(f, "  interrupted by %s: the %s was cut short; nothing is said of what did not "
                   "run\n", report_signal_name(r->interrupt_signal),
                strcmp(r->mode, "run") == 0 ? "run" : "verify pass");
    for (size_t i = 0; r->verdict && i < r->verdict->nmissed; i++) {
        const struct fault_miss *m = &r->verdict->missed[i];
        fprintf(f, "  %-16s [fault %s] %s%s\n", i ? "" : "not as written", 
                r->faults[m->fault].spec.name, m->why,
                m->counts ? "" : " (the interruption's doing)");
    }
    text_expectations(f, r);
    uint64_t bad = findings_bad(r->findings);
    uint64_t distinct = r->findings->n + r->findings->unlisted;
    if (!bad)
        fprintf(f, "  findings   0 (no acknowledged data was lost or corrupted)\n");
    else
        fprintf(f, "  findings   %" PRIu64 " (%" PRIu64 " bad reads or I/Os%s)\n", distinct, bad,
                all_explained(r) ? ", all on blocks the corrupt faults overwrote" : "");
    if (r->hung)
        fprintf(f, "  hung       %" PRIu64 " I/Os outstanding longer than hung_after (%.1f s)%s\n",
                r->hung, report_secs(r->sc->hung_after_ns),
                r->abandoned ? "; the workers waiting on them were left behind" : "");
    if (r->recovery && r->max_stall_s >= 0)
        fprintf(f, "  max stall  %.3f s without a successful I/O\n", r->max_stall_s);
    text_faults(f, r);
    report_text_clients(f, r);
}

/* What ran: the scenario, the target, the run, the workload and its I/O. */
static void text_what_ran(FILE *f, const struct report *r)
{
    char when[64], size[64], bs[64];
    report_iso_time(r->meta->start_wall_ns, when, sizeof when);
    format_size(r->capacity, size, sizeof size);
    format_size(r->meta->block_size, bs, sizeof bs);
    fprintf(f, "  scenario   %s\n", r->sc->file);
    fprintf(f, "  target     %s, %s = %" PRIu64 " blocks of %s\n",
            r->target_desc ? r->target_desc : r->sc->target.path, size, r->meta->nblocks, bs);
    fprintf(f, "  run        id %016" PRIx64 ", seed %" PRIu64 ", started %s%s\n",
            r->meta->run_id, r->seed, when, r->interrupted ? ", INTERRUPTED" : "");
    if (strcmp(r->mode, "run") == 0) {
        const struct workload_cfg *w = &r->sc->workload;
        fprintf(f, "  workload   %s, %u%% reads, depth %u on %u worker%s, flush every %u writes "
                   "per worker%s\n",
                w->pattern == PATTERN_RANDOM ? "random" : "sequential", w->read_pct, w->depth,
                r->workers, r->workers == 1 ? "" : "s", w->flush_every,
                w->flush_every ? "" : " (only at the end)");
        if (r->prefill)
            text_io(f, "prefill", r->prefill);
        text_io(f, "io", r->io);
        if (r->sweep)
            text_io(f, "sweep", r->sweep);
        if (r->series)
            fprintf(f, "  timeline   timeline.csv, %.0f ms buckets; plots in report.html\n",
                    (double)r->series->width_ns / 1e6);
    } else {
        fprintf(f, "  state      %s; %" PRIu64 " journal records replayed\n",
                r->state_final ? "the run ended cleanly" : "the run did not end cleanly "
                                                           "(crash or kill): pending writes "
                                                           "may or may not be on the media",
                r->replayed);
        text_io(f, "verify", r->io);
    }
}

/* The state map's size, the metadata streams and the names' check. */
static void text_state_and_metadata(FILE *f, const struct report *r)
{
    fprintf(f, "  state map  %.2f bytes per block at rest, %zu pending at most\n",
            r->meta->nblocks ? (double)r->map_bytes_at_rest / (double)r->meta->nblocks : 0.0,
            r->pending_peak);
    if (r->nmeta) {
        uint64_t ops[MOP_COUNT] = {0}, errors = 0, all = 0;
        report_meta_totals(r, ops, &errors);
        for (int k = 0; k < MOP_COUNT; k++)
            all += ops[k];
        if (strcmp(r->mode, "verify") != 0) { /* a verify runs no operation */
            fprintf(f, "  metadata   %" PRIu64 " operations in %u streams (", all, r->nmeta);
            for (int k = 0; k < MOP_COUNT; k++)
                fprintf(f, "%s%s %" PRIu64, k ? ", " : "", meta_op_name((enum meta_op)k),
                        ops[k]);
            fprintf(f, "), %" PRIu64 " failed\n", errors);
            struct meta_gap g;
            uint64_t longest =
                r->meta_streams ? meta_longest_gap(r->meta_streams, r->nmeta, 0, UINT64_MAX, &g)
                                : 0;
            if (longest)
                fprintf(f, "             longest with no metadata operation done: %.3f s "
                           "(%.3f-%.3f s)\n",
                        report_secs(longest), report_secs(g.from_ns), report_secs(g.to_ns));
        }
        uint64_t checked = 0, reverted = 0, shorter = 0;
        unsigned rebuilt = 0;
        for (unsigned i = 0; r->meta_streams && i < r->nmeta; i++) {
            checked += r->meta_streams[i].names_checked;
            reverted += r->meta_streams[i].names_reverted;
            shorter += r->meta_streams[i].sizes_short;
            rebuilt += r->meta_streams[i].rebuilt;
        }
        if (rebuilt)
            fprintf(f, "  names      %" PRIu64 " checked; %u of %u models rebuilt from their "
                       "journals after a crash: %" PRIu64 " names changed after the last "
                       "durability point found as before (an operation the crash cut off or "
                       "took back), %" PRIu64 " files shorter (allowed)\n",
                    checked, rebuilt, r->nmeta, reverted, shorter);
    }
}

/* Writes a reissue or a power loss allows to come back older. */
static void text_allowed_losses(FILE *f, const struct report *r)
{
    if (r->doubtful_writes)
        fprintf(f, "  doubtful   %" PRIu64 " writes completed only after a reissue on another "
                   "path: either generation allowed until rewritten\n",
                r->doubtful_writes);
    for (unsigned i = 0; i < r->nfaults; i++) {
        const struct fault *x = &r->faults[i];
        if (!x->power_loss)
            continue;
        fprintf(f, "  power      [fault %s] at %.3f s: %" PRIu64 " blocks had writes not yet "
                   "durable; %" PRIu64 " reads found one of them reverted (allowed)\n",
                x->spec.name, (double)x->injected_ns / 1e9,
                r->at_risk ? r->at_risk[x->power_loss - 1] : 0,
                r->reverted_by_loss ? r->reverted_by_loss[x->power_loss] : 0);
    }
    if (r->reverted_by_loss && r->reverted_by_loss[0])
        fprintf(f, "  reverted   %" PRIu64 " reads found a write acknowledged before the run's "
                   "crash but never flushed missing (allowed)\n",
                r->reverted_by_loss[0]);
}

/* The path events of a backend with several paths. */
static void text_path_events(FILE *f, const struct report *r)
{
    size_t npath = 0;
    for (size_t i = 0; r->events && i < r->events->n; i++)
        npath += r->events->list[i].portal[0] != 0;
    if (npath) {
        fprintf(f, "\n  path events:\n");
        for (size_t i = 0; i < r->events->n; i++) {
            const struct event *e = &r->events->list[i];
            if (e->portal[0])
                fprintf(f, "    %8.3f s  w%u  %-15s %s  %s\n", (double)e->t_ns / 1e9, e->worker,
                        e->event, e->portal, e->detail);
        }
    }
}

/* One finding's line (and its detail) under its class. */
static void text_finding(FILE *f, const struct report *r, const struct finding *x)
{
    char wt[32], rt[32], found[16];
    fmt_time(x->written_ns, wt, sizeof wt);
    fmt_time(x->read_ns, rt, sizeof rt);
    if (x->found_known)
        snprintf(found, sizeof found, "%u", x->found_gen);
    else
        snprintf(found, sizeof found, "-");
    char gens[96];
    if (x->cls == CLS_CORRUPT && x->found_known && x->found_gen == x->expected_gen)
        snprintf(gens, sizeof gens, "generation %u as expected, but damaged",
                 x->expected_gen); /* the detail says where */
    else
        snprintf(gens, sizeof gens, "expected gen %u, found %s", x->expected_gen,
                 found);
    char again[64] = "";
    if (x->repeats)
        snprintf(again, sizeof again, " (and %" PRIu64 " more times, last at %.3f s)",
                 x->repeats, (double)x->last_read_ns / 1e9);
    char where[PATH_MAX + 900];
    uint64_t offset;
    report_where(r, x, where, sizeof where, &offset);
    if (r->sc->target.ranks > 1) { /* whose it is, and who read it */
        size_t len = strlen(where);
        if (x->client >= 0 && x->client != x->owner)
            snprintf(where + len, sizeof where - len, " (client %d's, read by "
                     "client %d)", x->owner, x->client);
        else
            snprintf(where + len, sizeof where - len, " (client %d's)", x->owner);
    }
    if (x->block == FL_NO_BLOCK && x->written_ns == FL_TIME_UNKNOWN)
        fprintf(f, "    %s (%s): %s; seen at %s\n", where, x->phase, x->detail, rt);
    else if (x->block == FL_NO_BLOCK)
        fprintf(f, "    %s (%s, after %s at %s): %s; seen at %s\n", where, x->phase,
                x->op, wt, x->detail, rt);
    else
        fprintf(f, "    block %" PRIu64 " at byte %" PRIu64 " of %s (%s %s): %s; "
                   "written at %s, read at %s%s\n      %s\n",
                x->block, offset, where, x->phase, x->op, gens, wt, rt, again,
                x->detail);
}

/* Every listed finding, by class. */
static void text_findings(FILE *f, const struct report *r)
{
    fprintf(f, "\nFindings by class:\n");
    for (int c = 0; c < CLS_COUNT; c++) {
        if (!class_is_finding((enum fl_class)c) || !r->findings->counts[c])
            continue;
        fprintf(f, "\n  %s (%" PRIu64 ")", class_name((enum fl_class)c),
                r->findings->counts[c]);
        if (r->verdict && r->verdict->explained[c])
            fprintf(f, ", %" PRIu64 " of them on blocks a corrupt fault overwrote",
                    r->verdict->explained[c]);
        fprintf(f, "\n");
        for (size_t i = 0; i < r->findings->n; i++) {
            const struct finding *x = &r->findings->list[i];
            if (x->cls != (enum fl_class)c)
                continue;
            text_finding(f, r, x);
        }
    }
    if (r->findings->unlisted)
        fprintf(f, "\n  %" PRIu64 " more findings not listed (findings_limit)\n",
                r->findings->unlisted);
}

int report_write_text(const struct report *r, char *err, size_t errlen)
{
    char tmp[PATH_MAX + 64];
    FILE *f = report_open_tmp(r->dir, "report.txt", tmp, sizeof tmp, err, errlen);
    if (!f)
        return -1;
    text_verdict(f, r);
    fprintf(f, "\n");
    text_what_ran(f, r);
    text_state_and_metadata(f, r);
    text_allowed_losses(f, r);
    report_text_manifest(f, r);
    text_path_events(f, r);
    fprintf(f, "\n  reads by class:");
    for (int c = 0; c < CLS_COUNT; c++)
        fprintf(f, " %s %" PRIu64 "%s", class_name((enum fl_class)c), r->findings->counts[c],
                c + 1 < CLS_COUNT ? "," : "\n");

    if (findings_bad(r->findings))
        text_findings(f, r);
    return report_install(f, tmp, r->dir, "report.txt", err, errlen);
}

void report_summary(const struct report *r, FILE *out)
{
    const char *v = report_verdict(r);
    fprintf(out, "%s: %s", r->sc->name, report_verdict_caps(v));
    uint64_t bad = findings_bad(r->findings);
    uint64_t distinct = r->findings->n + r->findings->unlisted;
    char why[4096];
    report_why_not_pass(r, why, sizeof why);
    if (why[0])
        fprintf(out, " (%s)", why);
    else if (r->interrupted) /* a run that found something, then was stopped */
        fprintf(out, " (interrupted by %s)", report_signal_name(r->interrupt_signal));
    fprintf(out, ", %" PRIu64 " finding%s", distinct, distinct == 1 ? "" : "s");
    bool first = true;
    for (int c = 0; c < CLS_COUNT; c++) {
        uint64_t k = 0;
        for (size_t i = 0; i < r->findings->n; i++)
            k += r->findings->list[i].cls == (enum fl_class)c;
        if (!class_is_finding((enum fl_class)c) || !k)
            continue;
        fprintf(out, "%s%s %" PRIu64, first ? " (" : ", ", class_name((enum fl_class)c), k);
        first = false;
    }
    if (!first)
        fputc(')', out);
    if (bad != distinct)
        fprintf(out, " in %" PRIu64 " bad reads or I/Os", bad);
    fprintf(out, "; %.0f IOPS over %.1f s%s\n", report_iops(r->io), report_secs(r->io->ns),
            r->interrupted ? " (cut short)" : "");
    if (r->verdict && r->verdict->n) {
        fprintf(out, "expectations: %zu of %zu hold\n", r->verdict->n - r->verdict->failed,
                r->verdict->n);
        for (size_t i = 0; i < r->verdict->n; i++) {
            char line[256];
            if (r->verdict->results[i].pass)
                continue;
            verdict_describe(&r->verdict->results[i], line, sizeof line);
            fprintf(out, "  FAIL %s\n", line);
        }
    }
    for (unsigned i = 0; r->recovery && i < r->nfaults; i++) {
        const struct recovery *x = &r->recovery[i];
        if (!x->injected)
            continue;
        char rec[48];
        if (x->clear_failed)
            snprintf(rec, sizeof rec, "- (its clear failed)");
        else
            fmt_maybe(x->recovered, x->recovery_s, rec, sizeof rec);
        char heal[48] = "";
        if (x->heal_measured && x->healed)
            snprintf(heal, sizeof heal, ", %sed after %.1f s", x->heal_word, x->heal_s);
        else if (x->heal_measured)
            snprintf(heal, sizeof heal, ", NOT %sed", x->heal_word);
        fprintf(out, "fault %s (%s): stall %.3f s, recovery %s%s, %" PRIu64 " errors\n",
                r->faults[i].spec.name, r->faults[i].ops->action, x->stall_s, rec, heal,
                x->errors);
    }
    if (r->hung)
        fprintf(out, "hung: %" PRIu64 " I/Os outstanding longer than %.1f s\n", r->hung,
                report_secs(r->sc->hung_after_ns));
    fprintf(out, "report: %s/report.txt\n", r->dir);
    if (strcmp(r->mode, "run") == 0)
        fprintf(out, "plots: %s/report.html\n", r->dir);
}
