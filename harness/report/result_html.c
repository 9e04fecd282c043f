/*
 * result_html — report.html from the record (see result_html.h): the
 * tables of the page and the page itself; the plots are
 * result_html_plots.c's and result_html_resources.c's, the manifest
 * result_html_manifest.c's, the look result_html_page.c's.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "result_html.h"
#include "result_html_parts.h"

#define FINDINGS_SHOWN 200

static const char *or_empty(const char *s)
{
    return s ? s : "";
}

static void td_time(FILE *f, bool known, double s)
{
    if (known)
        fprintf(f, "<td class=\"n\">%.3f s</td>", s);
    else
        fprintf(f, "<td class=\"n\">&ndash;</td>");
}

static void td_rtime(FILE *f, struct result_time t)
{
    td_time(f, t.known, t.s);
}

/* The fault that did not happen as written, by name; NULL when it did. */
static const struct result_miss *missed(const struct result *res, const char *fault)
{
    for (size_t i = 0; fault && i < res->nmissed; i++)
        if (res->missed[i].fault && strcmp(res->missed[i].fault, fault) == 0)
            return &res->missed[i];
    return NULL;
}

/* One row per client: what it did, and its clock. */
static void clients_table(FILE *f, const struct result *res)
{
    if (!res->nclients)
        return;
    fprintf(f, "<h2>Clients</h2>\n<table><tr><th>client</th><th>host</th><th>state</th>"
               "<th>reads</th><th>writes</th><th>errors</th><th>IOPS</th><th>findings</th>"
               "<th>clock offset</th><th>per fault: stall / recovery</th></tr>\n");
    for (size_t k = 0; k < res->nclients; k++) {
        const struct result_client *c = &res->clients[k];
        const struct result_io *s = &c->io;
        fprintf(f, "<tr%s><td class=\"n\">%u</td><td>", c->lost ? " class=\"bad\"" : "",
                c->rank);
        report_escape(f, c->host);
        fprintf(f, "</td><td>");
        if (c->lost) {
            fprintf(f, "lost: ");
            report_escape(f, c->why);
        } else {
            fprintf(f, "reported");
        }
        fprintf(f, "</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%" PRIu64
                   "</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%.0f</td>"
                   "<td class=\"n\">%" PRIu64 "</td><td class=\"n\">%+.3f ms &plusmn; %.3f"
                   "</td><td>",
                s->reads, s->writes, s->errors,
                result_iops(s), c->findings,
                c->clock_offset_ms, c->clock_uncertainty_ms);
        for (size_t i = 0; i < c->nfaults; i++) {
            const struct result_client_fault *x = &c->faults[i];
            if (!x->stall.known) /* not injected */
                continue;
            report_escape(f, x->name);
            if (x->recovery.known)
                fprintf(f, " %.3f s / %.3f s<br>", x->stall.s, x->recovery.s);
            else
                fprintf(f, " %.3f s / not recovered<br>", x->stall.s);
        }
        fprintf(f, "</td></tr>\n");
    }
    fprintf(f, "</table>\n");
}

/* Several clients' reads of each other's blocks (the run's, or the
 * verify's judgement of them); nothing without. */
static void cross_reads(FILE *f, const struct result *res)
{
    if (!res->cross)
        return;
    fprintf(f, "<p>Cross reads: %u%% of reads went to blocks other clients own, judged by the "
               "rule <code>", res->cross_pct);
    report_escape(f, res->cross_rule);
    fprintf(f, "</code> against their owner's history: %" PRIu64 " reads, %" PRIu64 " judged, "
               "%" PRIu64 " ok, <span class=\"%s\">%" PRIu64 " findings</span>, %" PRIu64
               " not judged.</p>\n",
            res->cross_reads, res->cross_judged, res->cross_ok, res->cross_bad ? "badn" : "",
            res->cross_bad, res->cross_unjudged);
}

static void expectation_where(FILE *f, const struct result_expect *x)
{
    if (x->fault) {
        fprintf(f, "[fault ");
        report_escape(f, x->fault);
        fprintf(f, "]");
    } else {
        fprintf(f, "%s", x->line ? "[expect]" : "integrity rule");
    }
    if (x->line)
        fprintf(f, ", line %d", x->line);
}

static void expectations_table(FILE *f, const struct result *res)
{
    if (!res->nexpect)
        return;
    /* a column for why only when a rule says why it could not be measured */
    bool why = false;
    for (size_t i = 0; i < res->nexpect && !why; i++)
        why = res->expect[i].why && res->expect[i].why[0];
    fprintf(f, "<h2>Expectations: %zu of %zu hold</h2>\n<table><tr><th>result</th><th>rule</th>"
               "<th>where</th><th>measured</th>%s</tr>\n",
            res->nexpect - res->failed, res->nexpect, why ? "<th>why</th>" : "");
    for (size_t i = 0; i < res->nexpect; i++) {
        const struct result_expect *x = &res->expect[i];
        char value[64];
        result_expect_value(x, value, sizeof value);
        fprintf(f, "<tr class=\"%s\"><td><span class=\"badge %s\">%s</span></td><td><code>",
                x->pass ? "ok" : "bad", x->pass ? "pass" : "fail", x->pass ? "pass" : "FAIL");
        report_escape(f, x->text);
        fprintf(f, "</code></td><td>");
        expectation_where(f, x);
        fprintf(f, "</td><td class=\"n\">%s</td>", value);
        if (why) {
            fprintf(f, "<td>");
            report_escape(f, x->why);
            fprintf(f, "</td>");
        }
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</table>\n");
}

/* What the fault did: its name and action, what it touched, and when it
 * did not happen as written, why (planned, as report.txt says it). */
static void fault_cells(FILE *f, const struct result_fault *x, const struct result_miss *miss)
{
    fprintf(f, "<td>");
    report_escape(f, x->name);
    fprintf(f, "<br><span class=\"small\">");
    report_escape(f, x->action);
    fprintf(f, "</span></td><td class=\"wrap\">");
    if (!x->applied)
        fprintf(f, "planned: ");
    report_escape(f, x->detail && x->detail[0] ? x->detail : x->host);
    if (x->settle.known)
        fprintf(f, "<br><span class=\"small\">settle: waited %.3f s; moved %.3f s</span>",
                x->settle.s, x->moved_s);
    if (x->not_reached && x->drawn) {
        fprintf(f, "<br>not reached: drawn by [thrash], moved past the end (left out of "
                   "schedule.scn)");
    } else if (miss) {
        fprintf(f, "<br><b>NOT AS WRITTEN: ");
        report_escape(f, miss->why);
        fprintf(f, "</b>");
    }
    fprintf(f, "</td>");
    /* when: inject to clear; an instant fault (kill, corrupt) has no clear */
    double in = x->injected_at.known ? x->injected_at.s : 0;
    if (!x->applied)
        fprintf(f, "<td class=\"n\">&ndash;</td>");
    else if (x->cleared_at.known && x->cleared_at.s > in)
        fprintf(f, "<td class=\"n\">%.3f &ndash; %.3f s</td>", in, x->cleared_at.s);
    else
        fprintf(f, "<td class=\"n\">%.3f s</td>", in);
}

/* Its recovery numbers (not analysed: none), and the path events in its
 * window (the first 8) when the table has a column for them. */
static void recovery_cells(FILE *f, const struct result_fault *x, bool events)
{
    bool in = x->analysed;
    td_time(f, in && x->impact.known, x->impact.s);
    td_time(f, in && x->stall.known, x->stall.s);
    td_time(f, in && x->recovery.known, x->recovery.s); /* none after a failed clear */
    fprintf(f, "<td class=\"n\">%" PRIu64 "</td>", in ? x->errors : 0);
    /* the max of the percentiles' I/Os is the slowest I/O (the same
     * buckets); without percentiles the slowest alone */
    if (in && x->latency_known)
        fprintf(f, "<td class=\"n\">%.3f / %.3f / %.3f s</td>", x->latency_p50_s,
                x->latency_p99_s, x->max_latency_s);
    else if (in && x->max_latency_s > 0)
        fprintf(f, "<td class=\"n\">&ndash; / &ndash; / %.3f s</td>", x->max_latency_s);
    else
        fprintf(f, "<td class=\"n\">&ndash;</td>");
    char a[32] = "&ndash;", c[32] = "&ndash;";
    if (in && x->first_io_after_inject.known)
        snprintf(a, sizeof a, "%.3f s", x->first_io_after_inject.s);
    if (in && x->first_io_after_clear.known)
        snprintf(c, sizeof c, "%.3f s", x->first_io_after_clear.s);
    fprintf(f, "<td class=\"n\">%s / %s</td>", a, c);
    if (!events)
        return;
    fprintf(f, "<td class=\"small wrap\">");
    for (size_t k = 0; in && k < x->nevents && k < 8; k++) {
        fprintf(f, "%.3f s ", x->events[k].t);
        report_escape(f, x->events[k].event);
        fprintf(f, " ");
        report_escape(f, x->events[k].portal);
        fprintf(f, "<br>");
    }
    fprintf(f, "</td>");
}

static void td_dist(FILE *f, const struct result_dist *d)
{
    if (!d->known)
        fprintf(f, "<td class=\"n\">&ndash;</td>");
    else
        fprintf(f, "<td class=\"n\">%.3f / %.3f / %.3f s (%.0f)</td>", d->p50, d->p95, d->max,
                d->n);
}

/* Per action, where one has several faults (a thrash): how many, and the
 * distribution of their numbers. */
static void actions_table(FILE *f, const struct result *res)
{
    bool several = false;
    for (size_t i = 0; i < res->nactions; i++)
        several |= res->actions[i].count > 1;
    if (!several)
        return;
    fprintf(f, "<table><tr><th>action</th><th>faults (began)</th><th>stall p50 / p95 / max "
               "(n)</th><th>recovery p50 / p95 / max (n)</th><th>heal or recover p50 / p95 / "
               "max (n)</th></tr>\n");
    for (size_t i = 0; i < res->nactions; i++) {
        const struct result_action *a = &res->actions[i];
        fprintf(f, "<tr><td>");
        report_escape(f, a->action);
        fprintf(f, "</td><td class=\"n\">%" PRIu64 " (%" PRIu64 ")</td>", a->count, a->began);
        td_dist(f, &a->stall);
        td_dist(f, &a->recovery);
        td_dist(f, &a->heal);
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</table>\n");
}

/* More faults than this: their table is folded (a thrash of hours). */
#define FAULTS_SHOWN 20

/* An HA cluster's faults: each stall split by what the cluster did. */
static void failover_table(FILE *f, const struct result *res)
{
    size_t n = 0;
    for (size_t i = 0; i < res->nfaults; i++)
        n += res->faults[i].failover;
    if (!n)
        return;
    fprintf(f, "<p>The cluster's failovers, from what its nodes logged: detection to a "
               "membership without the node (or a monitor that found a resource dead), the "
               "fence, the resources' start, the client's reconnect.</p>\n<table><tr><th>fault"
               "</th><th>noticed by</th><th>detection</th><th>fencing</th><th>resource start"
               "</th><th>reconnect</th></tr>\n");
    for (size_t i = 0; i < res->nfaults; i++) {
        const struct result_fault *x = &res->faults[i];
        if (!x->failover)
            continue;
        fprintf(f, "<tr><td>");
        report_escape(f, x->name);
        fprintf(f, "</td><td>");
        report_escape(f, x->failover_noticed_by);
        fprintf(f, "</td>");
        td_rtime(f, x->fo_detection);
        td_rtime(f, x->fo_fencing);
        td_rtime(f, x->fo_start);
        td_rtime(f, x->fo_reconnect);
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</table>\n");
}

static void faults_table(FILE *f, const struct result *res, const struct result_series *s)
{
    if (!res->nfaults)
        return;
    fprintf(f, "<h2>Faults</h2>\n");
    actions_table(f, res);
    if (res->baseline_known)
        fprintf(f, "<p>Baseline %.0f IOPS: the median of %u buckets between %.1f s and %.1f s.</p>\n",
                res->baseline_iops, s->baseline_buckets, res->baseline_from, res->baseline_to);
    else
        fprintf(f, "<p>No baseline: no healthy time between the warmup and the first fault, so "
                   "impact and recovery could not be measured.</p>\n");
    bool events = false; /* a column for them only when a window holds one */
    for (size_t i = 0; i < res->nfaults && !events; i++)
        events = res->faults[i].analysed && res->faults[i].nevents;
    bool fold = res->nfaults > FAULTS_SHOWN;
    if (fold)
        fprintf(f, "<details><summary>all %zu faults, one row each (%zu did not happen as "
                   "written)</summary>\n", res->nfaults, res->nmissed);
    fprintf(f, "<table><tr><th>fault</th><th>what</th><th>inject &ndash; clear"
               "</th><th>impact</th><th>stall</th><th>recovery</th><th>errors</th><th>latency "
               "p50 / p99 / max</th><th>first I/O after inject / clear</th>%s</tr>\n",
            events ? "<th>path events</th>" : "");
    for (size_t i = 0; i < res->nfaults; i++) {
        const struct result_fault *x = &res->faults[i];
        const struct result_miss *miss = missed(res, x->name);
        fprintf(f, "<tr%s>", miss ? " class=\"bad\"" : "");
        fault_cells(f, x, miss);
        recovery_cells(f, x, events);
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</table>\n%s", fold ? "</details>\n" : "");
    failover_table(f, res);
}

static void finding_row(FILE *f, const struct result_finding *x)
{
    fprintf(f, "<tr><td>");
    report_escape(f, x->cls);
    fprintf(f, "</td><td>");
    report_escape(f, x->path);
    if (!x->has_block)
        fprintf(f, "</td><td>&ndash;</td><td>&ndash;</td><td>&ndash;</td>");
    else
        fprintf(f, "</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%" PRIu64
                   "</td><td class=\"n\">%" PRIu64 "</td>", x->block, x->offset,
                x->expected_gen);
    if (x->found_known)
        fprintf(f, "<td class=\"n\">%" PRIu64 "</td>", x->found_gen);
    else
        fprintf(f, "<td class=\"n\">&ndash;</td>");
    td_rtime(f, x->written_at);
    td_rtime(f, x->read_at);
    fprintf(f, "<td class=\"n\">%" PRIu64 "</td><td>", x->repeats);
    report_escape(f, x->phase);
    fprintf(f, " ");
    report_escape(f, x->op);
    fprintf(f, "</td><td class=\"small\">");
    report_escape(f, x->detail);
    fprintf(f, "</td></tr>\n");
}

static void findings_table(FILE *f, const struct result *res)
{
    fprintf(f, "<h2>Findings</h2>\n<table><tr>");
    for (int c = 0; c < RESULT_CLASSES; c++) {
        fprintf(f, "<th>");
        report_escape(f, res->class_name[c]);
        fprintf(f, "</th>");
    }
    fprintf(f, "</tr><tr>");
    for (int c = 0; c < RESULT_CLASSES; c++)
        fprintf(f, "<td class=\"n%s\">%" PRIu64 "</td>",
                res->class_is_finding[c] && res->counts[c] ? " badn" : "", res->counts[c]);
    fprintf(f, "</tr></table>\n");
    if (!res->nfindings) {
        fprintf(f, "<p>No finding: every read returned what the storage contract allows.</p>\n");
        return;
    }
    if (res->corrupted_blocks)
        fprintf(f, "<p>%" PRIu64 " blocks were overwritten by corrupt faults: %" PRIu64
                   " detected, %" PRIu64 " not.</p>\n",
                res->corrupted_blocks, res->detected_corrupt, res->undetected_corrupt);
    fprintf(f, "<table><tr><th>class</th><th>file or device</th><th>block</th><th>byte offset</th>"
               "<th>expected gen</th><th>found gen</th><th>written at</th><th>read at</th>"
               "<th>repeats</th><th>phase</th><th>detail</th></tr>\n");
    for (size_t i = 0; i < res->nfindings && i < FINDINGS_SHOWN; i++)
        finding_row(f, &res->findings[i]);
    fprintf(f, "</table>\n");
    size_t shown = res->nfindings < FINDINGS_SHOWN ? res->nfindings : FINDINGS_SHOWN;
    if (res->nfindings > FINDINGS_SHOWN || res->findings_unlisted)
        fprintf(f, "<p>%zu more in report.json.</p>\n",
                res->nfindings - shown + (size_t)res->findings_unlisted);
}

/* "2026-12-06T13:00:00Z" as "2026-12-06 13:00:00 UTC". */
static void when_of(const char *iso, char *out, size_t n)
{
    snprintf(out, n, "%s", or_empty(iso));
    size_t len = strlen(out);
    char *t = strchr(out, 'T');
    if (t)
        *t = ' ';
    if (len && out[len - 1] == 'Z' && len + 3 < n)
        strcpy(out + len - 1, " UTC");
}

/* What ran, on what, when: a run's workload, or a verify's read-back and
 * the run it read back. */
static void meta_table(FILE *f, const struct result *res, bool verify)
{
    char when[96];
    when_of(res->started_at, when, sizeof when);
    const struct result_io *io = &res->io;
    double secs = result_secs(io), iops = result_iops(io);
    fprintf(f, "<table class=\"meta\"><tr><td>target</td><td>");
    report_escape(f, res->target_description && res->target_description[0]
                       ? res->target_description : res->target_path);
    fprintf(f, ", %" PRIu64 " blocks of %" PRIu64 " bytes</td></tr>\n", res->blocks,
            res->block_size);
    if (verify)
        fprintf(f, "<tr><td>verify</td><td>%" PRIu64 " reads, %" PRIu64 " errors in %.2f s "
                   "(%.0f IOPS)%s</td></tr>\n", io->reads, io->errors, secs, iops,
                res->interrupted ? ", interrupted" : "");
    fprintf(f, "<tr><td>%s</td><td>", verify ? "the run" : "workload");
    report_escape(f, res->pattern);
    fprintf(f, ", %u%% reads, depth %u, %u worker%s", res->read_pct, res->depth, res->workers,
            res->workers == 1 ? "" : "s");
    if (!verify)
        fprintf(f, "; %" PRIu64 " reads, %" PRIu64 " writes, %" PRIu64 " errors in %.1f s "
                   "(%.0f IOPS)", io->reads, io->writes, io->errors, secs, iops);
    fprintf(f, "</td></tr>\n<tr><td>run</td><td>id ");
    report_escape(f, res->run_id);
    fprintf(f, ", seed %" PRIu64 ", started %s%s</td></tr>\n", res->seed, when,
            res->interrupted && !verify ? ", interrupted" : "");
    fprintf(f, "<tr><td>scenario</td><td>");
    report_escape(f, res->scenario_file);
    fprintf(f, "</td></tr>\n");
    if (res->hung)
        fprintf(f, "<tr><td>watchdog</td><td class=\"badn\">%" PRIu64 " I/Os outstanding longer "
                   "than %.1f s%s</td></tr>\n", res->hung, res->hung_after_s,
                res->abandoned ? "; workers left behind" : "");
    fprintf(f, "</table>\n");
}

/* What a verify's page is.  It has no plot: a verify measures nothing over
 * time, and the run's plots under the verify's verdict would read as the
 * verify's. */
static void verify_note(FILE *f, const struct result *res)
{
    fprintf(f, "<p class=\"note\">This page is a <b>verify</b>'s: <code>faultline verify</code> "
               "read back what the run wrote (%" PRIu64 " reads) and checked every read against "
               "the run's journal, after the run, which had %s.", res->io.reads,
            res->state_final ? "ended cleanly" : "not ended cleanly: writes not yet durable were "
                                                 "allowed either way");
    if (res->replayed)
        fprintf(f, " %" PRIu64 " journal records replayed.", res->replayed);
    if (res->acks_recovered)
        fprintf(f, " %" PRIu64 " write completions the journal had not kept were taken from "
                   "acks.bin.", res->acks_recovered);
    if (res->interrupted)
        fprintf(f, " <b>Interrupted</b>: not everything was read back.");
    fprintf(f, " This page, like report.txt, report.json and junit.xml, is now the verify's: "
               "the run's throughput, latency and faults are not on it; its numbers over time "
               "are still in timeline.csv and resources.csv, its events in events.jsonl.</p>\n");
}

/* The heading: the verdict, the name, the description, and why it is not
 * a pass without failing (the run's error, the interruption, the faults
 * that did not happen as written). */
static void heading(FILE *f, const struct result *res, const struct result_series *s,
                    const char *name)
{
    fprintf(f, "<h1>");
    result_html_verdict(f, res->verdict);
    report_escape(f, name);
    fprintf(f, "</h1>\n");
    if (s->description && s->description[0]) {
        fprintf(f, "<p>");
        report_escape(f, s->description);
        fprintf(f, "</p>\n");
    }
    char why[4096];
    result_why_not_pass(res, why, sizeof why);
    if (why[0]) {
        fprintf(f, "<p class=\"badn\">");
        report_escape(f, why);
        fprintf(f, "</p>\n");
    } else if (res->interrupted) {
        fprintf(f, "<p class=\"badn\">Interrupted by ");
        report_escape(f, res->interrupted_by);
        fprintf(f, ".</p>\n");
    }
}

static void page(FILE *f, const struct result *res, const struct result_series *s)
{
    bool verify = res->mode && strcmp(res->mode, "verify") == 0;
    const char *v = res->verdict ? res->verdict : "unknown";
    char name[1024];
    snprintf(name, sizeof name, "%s%s", verify ? "verify of " : "", or_empty(res->scenario));
    result_html_head(f, name, v);
    heading(f, res, s, name);
    if (verify) { /* what it found first: that is what it was run for */
        verify_note(f, res);
        findings_table(f, res);
        cross_reads(f, res);
        expectations_table(f, res);
        fprintf(f, "<h2>What was read</h2>\n");
        meta_table(f, res, verify);
    } else {
        meta_table(f, res, verify);
        expectations_table(f, res);
        result_html_plots(f, res, s);
        faults_table(f, res, s);
        clients_table(f, res);
        cross_reads(f, res);
        findings_table(f, res);
    }
    result_html_manifest(f, res);
    fprintf(f, "<p class=\"small\">%s</p>\n</body></html>\n",
            verify ? "faultline verify; all of this and more in report.json."
                   : "faultline; the numbers behind the plots are in timeline.csv, everything "
                     "else in report.json.");
}

int result_write_html(const struct result *res, const char *dir, char *err, size_t errlen)
{
    struct result_series s;
    size_t nranks = res->nclients > 1 ? res->nclients : 0; /* one client: the run's own line */
    unsigned *ranks = nranks ? calloc(nranks, sizeof *ranks) : NULL;
    if (nranks && !ranks) {
        snprintf(err, errlen, "%s/report.html: out of memory for %zu clients", dir, nranks);
        return -1;
    }
    for (size_t k = 0; k < nranks; k++)
        ranks[k] = res->clients[k].rank;
    int rc = result_series_read(dir, &s, err, errlen);
    if (rc == 0)
        rc = result_series_clients(dir, ranks, nranks, &s, err, errlen);
    free(ranks);
    if (rc != 0) {
        result_series_free(&s);
        return -1;
    }
    char tmp[PATH_MAX + 64];
    FILE *f = report_open_tmp(dir, "report.html", tmp, sizeof tmp, err, errlen);
    if (!f) {
        result_series_free(&s);
        return -1;
    }
    page(f, res, &s);
    result_series_free(&s);
    return report_install(f, tmp, dir, "report.html", err, errlen);
}
