/*
 * report_html — report.html: the run on one page, for people.
 *
 * Self-contained: inline CSS and SVG, no script, no font, no network, so it
 * opens the same from a CI artifact, a mail attachment or a file share.
 *
 * A run's page:
 *   the verdict, what ran, every expectation with its measured value
 *   throughput (IOPS per bucket; on iSCSI the area below it in the colour of
 *   the path that carried the I/O) and latency (p50, p99 and the slowest
 *   I/O per bucket, log scale) over time, each fault's window shaded and
 *   labelled, failed I/Os marked red; each plot's legend under it
 *   one row per fault with its recovery numbers
 *   findings by class, then the first of them in detail
 * A verify's page (`faultline verify` writes every report again, this one
 * too, in place of the run's):
 *   the verdict, what the verify read and from which run, its findings,
 *   the integrity rules; no plot, since a verify measures nothing over
 *   time (see verify_note)
 *
 * The verdict is report_verdict()'s word, the one report.json and
 * report.txt give, whatever it is (report_html_verdict).
 */
#include <ctype.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report.h"
#include "report_paths.h"
#include "report_manifest.h"
#include "report_svg.h"

#define MAX_POINTS 960
#define FINDINGS_SHOWN 200

/* The curves' colours: set on each curve and on its key alike (svg_legend). */
#define IOPS_HUE "#1565c0"
#define BASE_HUE "#2e7d32"
#define ERR_HUE "#c62828"
static const char *const client_hue[] = {"#ef6c00", "#2e7d32", "#ad1457", "#00838f",
                                         "#6d4c41", "#5e35b1", "#9e9d24", "#546e7a"};
#define CLIENT_HUE(k) client_hue[(k) % (sizeof client_hue / sizeof client_hue[0])]

/* The series squeezed to at most MAX_POINTS points: IOPS averaged, latency
 * and errors as the worst of the merged buckets, the latency percentiles
 * of their I/Os together (0: none), the path that carried most of their
 * I/O (-1: no path counted). */
struct points {
    size_t n;
    double t[MAX_POINTS], iops[MAX_POINTS], lat_ms[MAX_POINTS];
    double p50_ms[MAX_POINTS], p99_ms[MAX_POINTS];
    int path[MAX_POINTS];
    uint64_t errors[MAX_POINTS];
    double span_s;
    struct lathist h; /* scratch */
};

static void squeeze(const struct buckets *s, uint64_t end_ns, struct points *p)
{
    memset(p, 0, sizeof *p);
    size_t used = s->used;
    size_t whole = (size_t)((end_ns + s->width_ns - 1) / s->width_ns);
    if (whole && whole < used)
        used = whole; /* the drain after the end is not the workload */
    if (!used)
        return;
    size_t per = (used + MAX_POINTS - 1) / MAX_POINTS;
    double w = (double)s->width_ns / 1e9;
    for (size_t i = 0; i < used; i += per) {
        size_t k = p->n++;
        double sum = 0;
        size_t m = 0;
        for (size_t j = i; j < i + per && j < used; j++, m++) {
            sum += bucket_iops(s, j);
            double lat = (double)s->b[j].lat_max_ns / 1e6;
            if (lat > p->lat_ms[k])
                p->lat_ms[k] = lat;
            p->errors[k] += s->b[j].errors;
        }
        p->iops[k] = m ? sum / (double)m : 0;
        p->t[k] = ((double)i + (double)m / 2) * w;
        uint64_t p50 = 0, p99 = 0;
        buckets_latency(s, i, i + m - 1, &p->h);
        if (lathist_percentile(&p->h, 50, &p50) && lathist_percentile(&p->h, 99, &p99)) {
            p->p50_ms[k] = (double)p50 / 1e6;
            p->p99_ms[k] = (double)p99 / 1e6;
        }
        p->path[k] = report_path_carrier(s, i, i + m - 1);
    }
    p->span_s = (double)used * w;
}

/* A run over several clients: one throughput line per client, coloured,
 * over the combined one. */
static void client_lines(FILE *f, const struct report *r, const struct frame *fr)
{
    struct points *q = r->nclients > 1 ? malloc(sizeof *q) : NULL;
    for (unsigned k = 0; q && k < r->nclients; k++) {
        const struct report_client *c = &r->clients[k];
        if (!c->series || !c->series->used)
            continue;
        squeeze(c->series, r->end_ns, q);
        fprintf(f, "<polyline class=\"client\" stroke=\"%s\" points=\"", CLIENT_HUE(k));
        for (size_t i = 0; i < q->n; i++)
            fprintf(f, "%.1f,%.1f ", svg_x(fr, q->t[i]), svg_y(fr, q->iops[i]));
        fprintf(f, "\"><title>client %u</title></polyline>\n", c->rank);
    }
    free(q);
}

/* Their keys: rank, host, and whether it was lost. */
static void client_keys(FILE *f, const struct report *r)
{
    for (unsigned k = 0; r->nclients > 1 && k < r->nclients; k++) {
        const struct report_client *c = &r->clients[k];
        char text[256];
        snprintf(text, sizeof text, "client %u (%s)%s", c->rank, c->host, c->lost ? " lost" : "");
        svg_legend(f, CLIENT_HUE(k), KEY_LINE, text);
    }
}

/* One row per client: what it did, and its clock. */
static void clients_table(FILE *f, const struct report *r)
{
    if (!r->nclients)
        return;
    fprintf(f, "<h2>Clients</h2>\n<table><tr><th>client</th><th>host</th><th>state</th>"
               "<th>reads</th><th>writes</th><th>errors</th><th>IOPS</th><th>findings</th>"
               "<th>clock offset</th><th>per fault: stall / recovery</th></tr>\n");
    for (unsigned k = 0; k < r->nclients; k++) {
        const struct report_client *c = &r->clients[k];
        const struct io_stats *s = c->io;
        double secs = s && s->ns ? (double)s->ns / 1e9 : 0;
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
                s ? s->reads : 0, s ? s->writes : 0, s ? s->errors : 0,
                secs > 0 ? (double)(s->reads + s->writes) / secs : 0, c->findings,
                (double)c->offset_ns / 1e6, (double)c->uncertainty_ns / 1e6);
        for (unsigned i = 0; c->recovery && i < r->nfaults; i++) {
            const struct recovery *x = &c->recovery[i];
            if (!x->injected)
                continue;
            report_escape(f, r->faults[i].spec.name);
            if (x->recovered)
                fprintf(f, " %.3f s / %.3f s<br>", x->stall_s, x->recovery_s);
            else
                fprintf(f, " %.3f s / not recovered<br>", x->stall_s);
        }
        fprintf(f, "</td></tr>\n");
    }
    fprintf(f, "</table>\n");
}

/* Several clients' reads of each other's blocks (the run's, or the
 * verify's judgement of them); nothing without. */
static void cross_reads(FILE *f, const struct report *r)
{
    if (r->cross)
        fprintf(f, "<p>Cross reads: %u%% of reads went to blocks other clients own, judged by "
                   "the rule <code>%s</code> against their owner's history: %" PRIu64 " reads, "
                   "%" PRIu64 " judged, %" PRIu64 " ok, <span class=\"%s\">%" PRIu64 " findings"
                   "</span>, %" PRIu64 " not judged.</p>\n",
                r->cross->pct, r->cross->rule, r->cross->reads, r->cross->judged, r->cross->ok,
                r->cross->bad ? "badn" : "", r->cross->bad, r->cross->unjudged);
}

/* The baseline as two lines across the plot: itself dashed, 90% of it
 * (where recovery is counted from) dotted. */
static void baseline_lines(FILE *f, const struct report *r, const struct frame *fr)
{
    double y = svg_y(fr, r->baseline.iops), y90 = svg_y(fr, r->baseline.iops * 0.9);
    fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
               "stroke-dasharray=\"6 4\"/>\n", PAD_L, PLOT_W - PAD_R, y, y, BASE_HUE);
    fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
               "stroke-dasharray=\"2 4\"/>\n", PAD_L, PLOT_W - PAD_R, y90, y90, BASE_HUE);
}

/* The throughput plot's keys.  The baseline is named here, not written on
 * its line: that is where the curve runs in healthy times. */
static void iops_keys(FILE *f, const struct report *r, const struct points *p)
{
    svg_legend_begin(f);
    svg_legend(f, IOPS_HUE, KEY_LINE, r->nclients > 1 ? "IOPS, all clients" : "IOPS");
    if (r->baseline.known) {
        char text[64];
        snprintf(text, sizeof text, "baseline %.0f IOPS", r->baseline.iops);
        svg_legend(f, BASE_HUE, KEY_DASHED, text);
        svg_legend(f, BASE_HUE, KEY_DOTTED, "90% of it");
    }
    if (r->nclients <= 1)
        report_html_path_keys(f, r);
    client_keys(f, r);
    bool errors = false;
    for (size_t i = 0; i < p->n && !errors; i++)
        errors = p->errors[i] != 0;
    if (errors)
        svg_legend(f, ERR_HUE, KEY_LINE, "failed I/Os (marks on the time axis)");
    svg_legend_end(f);
}

static void plot_iops(FILE *f, const struct report *r, const struct points *p)
{
    double ymax = r->baseline.known ? r->baseline.iops * 1.25 : 0;
    for (size_t i = 0; i < p->n; i++)
        if (p->iops[i] > ymax)
            ymax = p->iops[i];
    double step = svg_nice_step(ymax, 4);
    ymax = ceil(ymax / step) * step;
    struct frame fr = {.span_s = p->span_s, .ymax = ymax};
    svg_begin(f, "throughput over time");
    svg_fault_windows(f, r->faults, r->nfaults, &fr);
    svg_x_axis(f, &fr);
    svg_y_axis(f, &fr, step, NULL, "IOPS");
    if (r->baseline.known)
        baseline_lines(f, r, &fr);
    if (r->nclients <= 1) /* under the curve; several clients get a line each instead */
        report_html_paths(f, r, &fr, p->n, p->t, p->iops, p->path);
    fprintf(f, "<polyline class=\"iops\" stroke=\"%s\" points=\"", IOPS_HUE);
    for (size_t i = 0; i < p->n; i++)
        fprintf(f, "%.1f,%.1f ", svg_x(&fr, p->t[i]), svg_y(&fr, p->iops[i]));
    fprintf(f, "\"/>\n");
    client_lines(f, r, &fr);
    for (size_t i = 0; i < p->n; i++)
        if (p->errors[i])
            fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" class=\"err\" "
                       "stroke=\"%s\"><title>%" PRIu64 " failed I/Os near %.2f s</title></line>\n",
                    svg_x(&fr, p->t[i]), svg_x(&fr, p->t[i]), PLOT_H - PAD_B, PLOT_H - PAD_B - 10,
                    ERR_HUE, p->errors[i], p->t[i]);
    svg_end(f);
    iops_keys(f, r, p);
}

static void plot_latency(FILE *f, const struct report *r, const struct points *p)
{
    double max = 0, min = 0.01;
    for (size_t i = 0; i < p->n; i++) {
        if (p->lat_ms[i] > max)
            max = p->lat_ms[i];
        if (p->p50_ms[i] > 0 && p->p50_ms[i] < min)
            min = p->p50_ms[i];
    }
    /* down to the fastest p50 (a page-cache hit takes microseconds), not
     * below 1 µs */
    struct frame fr = {.span_s = p->span_s, .log = true,
                       .lmin = floor(log10(min > 0.001 ? min : 0.001)),
                       .lmax = ceil(log10(max > 0.01 ? max : 0.01))};
    if (fr.lmax <= fr.lmin)
        fr.lmax = fr.lmin + 1;
    svg_begin(f, "latency per bucket over time: p50, p99 and max");
    svg_fault_windows(f, r->faults, r->nfaults, &fr);
    svg_x_axis(f, &fr);
    for (int e = (int)fr.lmin; e <= (int)fr.lmax; e++) {
        double v = pow(10, e), y = svg_y(&fr, v);
        char lab[32];
        if (v >= 1000)
            snprintf(lab, sizeof lab, "%g s", v / 1000);
        else if (v >= 1)
            snprintf(lab, sizeof lab, "%g ms", v);
        else
            snprintf(lab, sizeof lab, "%g &#181;s", v * 1000);
        fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>\n",
                PAD_L, PLOT_W - PAD_R, y, y);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\" text-anchor=\"end\">%s</text>\n",
                PAD_L - 6, y + 4, lab);
    }
    /* max, p99, p50 per point: the max is one I/O, the percentiles say
     * whether the rest waited too (lathist.h: within 1.6%) */
    const struct {
        const double *v;
        const char *colour, *name;
    } line[] = {{p->lat_ms, "#6a1b9a", "slowest I/O"}, {p->p99_ms, "#ef6c00", "p99"},
                {p->p50_ms, "#00897b", "p50"}};
    for (size_t l = 0; l < sizeof line / sizeof line[0]; l++) {
        /* broken where nothing completed: a stall is a gap, not a slope */
        for (size_t i = 0; i < p->n; i++) {
            if (!(line[l].v[i] > 0))
                continue;
            if (i + 1 >= p->n || !(line[l].v[i + 1] > 0)) { /* alone: a dot */
                fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"1.8\" fill=\"%s\"><title>%s "
                           "latency</title></circle>\n", svg_x(&fr, p->t[i]),
                        svg_y(&fr, line[l].v[i]), line[l].colour, line[l].name);
                continue;
            }
            fprintf(f, "<polyline class=\"lat\" stroke=\"%s\" points=\"", line[l].colour);
            for (; i < p->n && line[l].v[i] > 0; i++)
                fprintf(f, "%.1f,%.1f ", svg_x(&fr, p->t[i]), svg_y(&fr, line[l].v[i]));
            fprintf(f, "\"><title>%s latency</title></polyline>\n", line[l].name);
        }
    }
    fprintf(f, "<text x=\"12\" y=\"%.1f\" class=\"axis\" transform=\"rotate(-90 12 %.1f)\" "
               "text-anchor=\"middle\">latency</text>\n",
            PLOT_H / 2, PLOT_H / 2);
    svg_end(f);
    svg_legend_begin(f);
    for (size_t l = 0; l < sizeof line / sizeof line[0]; l++)
        svg_legend(f, line[l].colour, KEY_LINE, line[l].name);
    svg_legend_end(f);
}

static void td_time(FILE *f, bool known, double s)
{
    if (known)
        fprintf(f, "<td class=\"n\">%.3f s</td>", s);
    else
        fprintf(f, "<td class=\"n\">&ndash;</td>");
}

/* Whether any rule says why it could not be measured: only then has the
 * table a column for it. */
static bool any_why(const struct verdict *v)
{
    for (size_t i = 0; i < v->n; i++)
        if (v->results[i].why[0])
            return true;
    return false;
}

static void expectation_where(FILE *f, const struct report *r, const struct expect_result *x)
{
    if (x->rule.fault >= 0 && (unsigned)x->rule.fault < r->nfaults) {
        fprintf(f, "[fault ");
        report_escape(f, r->faults[x->rule.fault].spec.name);
        fprintf(f, "]");
    } else {
        fprintf(f, "%s", x->rule.line ? "[expect]" : "integrity rule");
    }
    if (x->rule.line)
        fprintf(f, ", line %d", x->rule.line);
}

static void expectations_table(FILE *f, const struct report *r)
{
    if (!r->verdict || !r->verdict->n)
        return;
    bool why = any_why(r->verdict);
    fprintf(f, "<h2>Expectations: %zu of %zu hold</h2>\n<table><tr><th>result</th><th>rule</th>"
               "<th>where</th><th>measured</th>%s</tr>\n",
            r->verdict->n - r->verdict->failed, r->verdict->n, why ? "<th>why</th>" : "");
    for (size_t i = 0; i < r->verdict->n; i++) {
        const struct expect_result *x = &r->verdict->results[i];
        char value[64];
        verdict_value(x, value, sizeof value);
        fprintf(f, "<tr class=\"%s\"><td><span class=\"badge %s\">%s</span></td><td><code>",
                x->pass ? "ok" : "bad", x->pass ? "pass" : "fail", x->pass ? "pass" : "FAIL");
        report_escape(f, x->rule.text);
        fprintf(f, "</code></td><td>");
        expectation_where(f, r, x);
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

/* Whether fault i's window holds a path event: only then has the table a
 * column for them (a file has no paths). */
static bool fault_has_events(const struct report *r, unsigned i)
{
    const struct recovery *rc = r->recovery ? &r->recovery[i] : NULL;
    for (size_t k = 0; rc && rc->injected && r->events && k < r->events->n; k++)
        if (report_event_in(&r->events->list[k], rc->inject_ns, rc->until_ns))
            return true;
    return false;
}

/* What the fault did: its name and action, what it touched, and when it
 * did not happen as written, why (planned, as report.txt says it). */
static void fault_cells(FILE *f, const struct fault *x, const struct fault_miss *miss)
{
    fprintf(f, "<td>");
    report_escape(f, x->spec.name);
    fprintf(f, "<br><span class=\"small\">%s</span></td><td class=\"wrap\">", x->ops->action);
    if (!x->applied)
        fprintf(f, "planned: ");
    report_escape(f, x->detail[0] ? x->detail : x->spec.host);
    if (miss) {
        fprintf(f, "<br><b>NOT AS WRITTEN: ");
        report_escape(f, miss->why);
        fprintf(f, "</b>");
    }
    fprintf(f, "</td>");
    /* when: inject to clear; an instant fault (kill, corrupt) has no clear */
    if (!x->applied)
        fprintf(f, "<td class=\"n\">&ndash;</td>");
    else if (x->cleared_ns > x->injected_ns)
        fprintf(f, "<td class=\"n\">%.3f &ndash; %.3f s</td>", (double)x->injected_ns / 1e9,
                (double)x->cleared_ns / 1e9);
    else
        fprintf(f, "<td class=\"n\">%.3f s</td>", (double)x->injected_ns / 1e9);
}

/* Its recovery numbers (rc NULL or not injected: none). */
static void recovery_cells(FILE *f, const struct recovery *rc)
{
    bool in = rc && rc->injected;
    td_time(f, in && rc->impact, in ? rc->impact_s : 0);
    td_time(f, in, in ? rc->stall_s : 0);
    td_time(f, in && rc->recovered, in ? rc->recovery_s : 0); /* none after a failed clear */
    fprintf(f, "<td class=\"n\">%" PRIu64 "</td>", in ? rc->errors : 0);
    /* the max of the percentiles' I/Os is the slowest I/O (the same
     * buckets); without percentiles the slowest alone */
    if (in && rc->latency_known)
        fprintf(f, "<td class=\"n\">%.3f / %.3f / %.3f s</td>", rc->latency_p50_s,
                rc->latency_p99_s, rc->max_latency_s);
    else if (in && rc->max_latency_s > 0)
        fprintf(f, "<td class=\"n\">&ndash; / &ndash; / %.3f s</td>", rc->max_latency_s);
    else
        fprintf(f, "<td class=\"n\">&ndash;</td>");
    char a[32] = "&ndash;", c[32] = "&ndash;";
    if (in && rc->io_after_inject)
        snprintf(a, sizeof a, "%.3f s", rc->first_io_after_inject_s);
    if (in && rc->io_after_clear)
        snprintf(c, sizeof c, "%.3f s", rc->first_io_after_clear_s);
    fprintf(f, "<td class=\"n\">%s / %s</td>", a, c);
}

/* The path events in the fault's window, the first 8. */
static void events_cell(FILE *f, const struct report *r, const struct recovery *rc)
{
    fprintf(f, "<td class=\"small wrap\">");
    for (size_t k = 0, shown = 0; rc && rc->injected && r->events && k < r->events->n &&
                                  shown < 8; k++) {
        const struct event *e = &r->events->list[k];
        if (!report_event_in(e, rc->inject_ns, rc->until_ns))
            continue;
        fprintf(f, "%.3f s %s ", (double)e->t_ns / 1e9, e->event);
        report_escape(f, e->portal);
        fprintf(f, "<br>");
        shown++;
    }
    fprintf(f, "</td>");
}

static void faults_table(FILE *f, const struct report *r)
{
    if (!r->nfaults)
        return;
    fprintf(f, "<h2>Faults</h2>\n");
    if (r->baseline.known)
        fprintf(f, "<p>Baseline %.0f IOPS: the median of %u buckets between %.1f s and %.1f s.</p>\n",
                r->baseline.iops, r->baseline.buckets, (double)r->baseline.from_ns / 1e9,
                (double)r->baseline.to_ns / 1e9);
    else
        fprintf(f, "<p>No baseline: no healthy time between the warmup and the first fault, so "
                   "impact and recovery could not be measured.</p>\n");
    bool events = false;
    for (unsigned i = 0; i < r->nfaults && !events; i++)
        events = fault_has_events(r, i);
    fprintf(f, "<table><tr><th>fault</th><th>what</th><th>inject &ndash; clear"
               "</th><th>impact</th><th>stall</th><th>recovery</th><th>errors</th><th>latency "
               "p50 / p99 / max</th><th>first I/O after inject / clear</th>%s</tr>\n",
            events ? "<th>path events</th>" : "");
    for (unsigned i = 0; i < r->nfaults; i++) {
        const struct recovery *rc = r->recovery ? &r->recovery[i] : NULL;
        const struct fault_miss *miss = report_missed(r, i);
        fprintf(f, "<tr%s>", miss ? " class=\"bad\"" : "");
        fault_cells(f, &r->faults[i], miss);
        recovery_cells(f, rc);
        if (events)
            events_cell(f, r, rc);
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</table>\n");
}

static void findings_table(FILE *f, const struct report *r)
{
    fprintf(f, "<h2>Findings</h2>\n<table><tr>");
    for (int c = 0; c < CLS_COUNT; c++)
        fprintf(f, "<th>%s</th>", class_name((enum fl_class)c));
    fprintf(f, "</tr><tr>");
    for (int c = 0; c < CLS_COUNT; c++)
        fprintf(f, "<td class=\"n%s\">%" PRIu64 "</td>",
                class_is_finding((enum fl_class)c) && r->findings->counts[c] ? " badn" : "",
                r->findings->counts[c]);
    fprintf(f, "</tr></table>\n");
    if (!r->findings->n) {
        fprintf(f, "<p>No finding: every read returned what the storage contract allows.</p>\n");
        return;
    }
    if (r->verdict && r->verdict->corrupted_blocks)
        fprintf(f, "<p>%" PRIu64 " blocks were overwritten by corrupt faults: %" PRIu64
                   " detected, %" PRIu64 " not.</p>\n",
                r->verdict->corrupted_blocks, r->verdict->detected_corrupt,
                r->verdict->undetected_corrupt);
    fprintf(f, "<table><tr><th>class</th><th>file or device</th><th>block</th><th>byte offset</th>"
               "<th>expected gen</th><th>found gen</th><th>written at</th><th>read at</th>"
               "<th>repeats</th><th>phase</th><th>detail</th></tr>\n");
    for (size_t i = 0; i < r->findings->n && i < FINDINGS_SHOWN; i++) {
        const struct finding *x = &r->findings->list[i];
        char where[PATH_MAX + 800];
        uint64_t offset;
        report_where(r, x, where, sizeof where, &offset);
        fprintf(f, "<tr><td>%s</td><td>", class_name(x->cls));
        report_escape(f, where);
        if (x->block == FL_NO_BLOCK)
            fprintf(f, "</td><td>&ndash;</td><td>&ndash;</td><td>&ndash;</td>");
        else
            fprintf(f, "</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%" PRIu64
                       "</td><td class=\"n\">%u</td>", x->block, offset, x->expected_gen);
        if (x->found_known)
            fprintf(f, "<td class=\"n\">%u</td>", x->found_gen);
        else
            fprintf(f, "<td class=\"n\">&ndash;</td>");
        td_time(f, x->written_ns != FL_TIME_UNKNOWN, (double)x->written_ns / 1e9);
        td_time(f, x->read_ns != FL_TIME_UNKNOWN, (double)x->read_ns / 1e9);
        fprintf(f, "<td class=\"n\">%" PRIu64 "</td><td>%s %s</td><td class=\"small\">", x->repeats,
                x->phase, x->op);
        report_escape(f, x->detail);
        fprintf(f, "</td></tr>\n");
    }
    fprintf(f, "</table>\n");
    if (r->findings->n > FINDINGS_SHOWN || r->findings->unlisted)
        fprintf(f, "<p>%zu more in report.json.</p>\n",
                r->findings->n - (r->findings->n < FINDINGS_SHOWN ? r->findings->n
                                                                  : FINDINGS_SHOWN) +
                    (size_t)r->findings->unlisted);
}

/* The verdict badge's colour is .v-WORD's; a word without a rule of its
 * own keeps .verdict's neutral grey. */
static const char css[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:24px auto;"
    "max-width:1100px;padding:0 16px;color:#1d2327;background:#fff}"
    "h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid "
    "#dde;padding-bottom:4px}"
    ".verdict{display:inline-block;font-weight:700;padding:2px 12px;border-radius:4px;color:#fff;"
    "margin-right:10px;background:#607d8b}.v-pass{background:#2e7d32}.v-fail{background:#c62828}"
    ".v-error{background:#6a1b9a}.v-interrupted{background:#e65100}"
    ".note{border-left:4px solid #90a4ae;background:#f3f5f8;padding:6px 12px}"
    "table{border-collapse:collapse;margin:6px 0;font-size:13px}th,td{border:1px solid #dde;"
    "padding:3px 7px;text-align:left;vertical-align:top}th{background:#f3f5f8}"
    "td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
    "td.wrap{overflow-wrap:anywhere;min-width:8em}"
    ".badn{color:#c62828;font-weight:700}.small{font-size:12px;color:#444}"
    "tr.bad td{background:#fdecea}.badge{font-size:11px;font-weight:700;padding:1px 6px;"
    "border-radius:3px;color:#fff}.badge.pass{background:#2e7d32}.badge.fail{background:#c62828}"
    ".meta td:first-child{color:#555;white-space:nowrap}.meta td{border:none;padding:1px 12px 1px 0}"
    "svg{display:block;margin:4px 0 0;font:12px system-ui,sans-serif}"
    "svg .grid{stroke:#e6e8ec;stroke-width:1}svg .tick{fill:#555;font-size:11px}"
    "svg .axis{fill:#333;font-size:12px}svg .flabel{font-size:12px;font-weight:700}"
    "svg .iops{fill:none;stroke-width:1.6}svg .lat{fill:none;stroke-width:1.3}"
    "svg .path{fill-opacity:0.45;stroke:none}svg .err{stroke-width:2}"
    "svg .client{fill:none;stroke-width:1.1;stroke-opacity:0.85}"
    /* a legend starts under the time axis: PAD_L of PLOT_W */
    ".legend{font-size:12px;color:#333;margin:0 0 14px 7.3%}"
    ".key{display:inline-block;margin:0 16px 2px 0;white-space:nowrap}"
    ".mk{display:inline-block;width:22px;height:0;border-top:2px solid;vertical-align:middle;"
    "margin-right:5px}.mk.dash{border-top-style:dashed}.mk.dot{border-top-style:dotted}"
    ".mk.area{height:10px;border:0;opacity:0.45}"
    "code{background:#f3f5f8;padding:0 4px;border-radius:3px}";

void report_html_verdict(FILE *f, const char *verdict)
{
    if (!verdict || !*verdict)
        verdict = "unknown";
    bool word = true; /* fit for a class name as it is */
    char up[64];
    size_t n = 0;
    for (; verdict[n] && n + 1 < sizeof up; n++) {
        unsigned char c = (unsigned char)verdict[n];
        word = word && (islower(c) || c == '-');
        up[n] = (char)toupper(c);
    }
    up[n] = '\0';
    fprintf(f, "<span class=\"verdict%s%s\">", word ? " v-" : "", word ? verdict : "");
    report_escape(f, up);
    fprintf(f, "</span>");
}

void report_html_head(FILE *f, const char *name, const char *verdict)
{
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
               "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
               "<title>faultline: ");
    report_escape(f, name);
    fprintf(f, " ");
    report_escape(f, verdict);
    fprintf(f, "</title><style>%s</style></head><body>\n", css);
}

/* What ran, on what, when: a run's workload, or a verify's read-back and
 * the run it read back. */
static void meta_table(FILE *f, const struct report *r, bool verify)
{
    char when[64];
    time_t t = (time_t)(r->meta->start_wall_ns / 1000000000ull);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
    const struct workload_cfg *w = &r->sc->workload;
    double secs = (double)r->io->ns / 1e9, iops = secs > 0 ? (double)(r->io->reads +
                                                                    r->io->writes) / secs : 0;
    fprintf(f, "<table class=\"meta\"><tr><td>target</td><td>");
    report_escape(f, r->target_desc ? r->target_desc : r->sc->target.path);
    fprintf(f, ", %" PRIu64 " blocks of %u bytes</td></tr>\n", r->meta->nblocks,
            r->meta->block_size);
    if (verify)
        fprintf(f, "<tr><td>verify</td><td>%" PRIu64 " reads, %" PRIu64 " errors in %.2f s "
                   "(%.0f IOPS)%s</td></tr>\n", r->io->reads, r->io->errors, secs, iops,
                r->interrupted ? ", interrupted" : "");
    fprintf(f, "<tr><td>%s</td><td>%s, %u%% reads, depth %u, %u worker%s", verify ? "the run" :
            "workload", w->pattern == PATTERN_RANDOM ? "random" : "sequential", w->read_pct,
            w->depth, r->workers, r->workers == 1 ? "" : "s");
    if (!verify)
        fprintf(f, "; %" PRIu64 " reads, %" PRIu64 " writes, %" PRIu64 " errors in %.1f s "
                   "(%.0f IOPS)", r->io->reads, r->io->writes, r->io->errors, secs, iops);
    fprintf(f, "</td></tr>\n<tr><td>run</td><td>id %016" PRIx64 ", seed %" PRIu64 ", started %s"
               "%s</td></tr>\n", r->meta->run_id, r->seed, when,
            r->interrupted && !verify ? ", interrupted" : "");
    fprintf(f, "<tr><td>scenario</td><td>");
    report_escape(f, r->sc->file);
    fprintf(f, "</td></tr>\n");
    if (r->hung)
        fprintf(f, "<tr><td>watchdog</td><td class=\"badn\">%" PRIu64 " I/Os outstanding longer "
                   "than %.1f s%s</td></tr>\n", r->hung, (double)r->sc->hung_after_ns / 1e9,
                r->abandoned ? "; workers left behind" : "");
    fprintf(f, "</table>\n");
}

/* What a verify's page is.  It has no plot: a verify measures nothing over
 * time, and the run's plots under the verify's verdict would read as the
 * verify's; the run's expectations and recovery numbers, which go with
 * them, were in the run's report.json, which the verify's replaced too.
 * The run's numbers over time stay in timeline.csv and resources.csv, its
 * events in events.jsonl. */
static void verify_note(FILE *f, const struct report *r)
{
    fprintf(f, "<p class=\"note\">This page is a <b>verify</b>'s: <code>faultline verify</code> "
               "read back what the run wrote (%" PRIu64 " reads) and checked every read against "
               "the run's journal, after the run, which had %s.", r->io->reads,
            r->state_final ? "ended cleanly" : "not ended cleanly: writes not yet durable were "
                                               "allowed either way");
    if (r->replayed)
        fprintf(f, " %" PRIu64 " journal records replayed.", r->replayed);
    if (r->interrupted)
        fprintf(f, " <b>Interrupted</b>: not everything was read back.");
    fprintf(f, " This page, like report.txt, report.json and junit.xml, is now the verify's: "
               "the run's throughput, latency and faults are not on it; its numbers over time "
               "are still in timeline.csv and resources.csv, its events in events.jsonl.</p>\n");
}

/* The run's throughput, latency and resources over time. */
static void plots(FILE *f, const struct report *r)
{
    if (!r->series || !r->series->used)
        return;
    struct points *p = malloc(sizeof *p);
    if (!p)
        return;
    squeeze(r->series, r->end_ns, p);
    fprintf(f, "<h2>Throughput</h2>\n");
    plot_iops(f, r, p);
    fprintf(f, "<h2>Latency (p50, p99 and slowest I/O per %.0f ms)</h2>\n",
            (double)r->series->width_ns / 1e6 *
                (double)((r->series->used + MAX_POINTS - 1) / MAX_POINTS));
    plot_latency(f, r, p);
    report_html_resources(f, r, p->span_s);
    free(p);
}

int report_write_html(const struct report *r, char *err, size_t errlen)
{
    char tmp[PATH_MAX + 64];
    FILE *f = report_open_tmp(r->dir, "report.html", tmp, sizeof tmp, err, errlen);
    if (!f)
        return -1;
    bool verify = strcmp(r->mode, "verify") == 0;
    const char *v = report_verdict(r);
    char name[sizeof r->sc->name + 16];
    snprintf(name, sizeof name, "%s%s", verify ? "verify of " : "", r->sc->name);
    report_html_head(f, name, v);
    fprintf(f, "<h1>");
    report_html_verdict(f, v);
    report_escape(f, name);
    fprintf(f, "</h1>\n");
    if (r->sc->description[0]) {
        fprintf(f, "<p>");
        report_escape(f, r->sc->description);
        fprintf(f, "</p>\n");
    }
    /* why it is not a pass without failing: the run's error, the
     * interruption, the faults that did not happen as written */
    char why[4096];
    report_why_not_pass(r, why, sizeof why);
    if (why[0]) {
        fprintf(f, "<p class=\"badn\">");
        report_escape(f, why);
        fprintf(f, "</p>\n");
    } else if (r->interrupted) {
        fprintf(f, "<p class=\"badn\">Interrupted by %s.</p>\n",
                report_signal_name(r->interrupt_signal));
    }
    if (verify) { /* what it found first: that is what it was run for */
        verify_note(f, r);
        findings_table(f, r);
        cross_reads(f, r);
        expectations_table(f, r);
        fprintf(f, "<h2>What was read</h2>\n");
        meta_table(f, r, verify);
    } else {
        meta_table(f, r, verify);
        expectations_table(f, r);
        plots(f, r);
        faults_table(f, r);
        clients_table(f, r);
        cross_reads(f, r);
        findings_table(f, r);
    }
    report_html_manifest(f, r);
    fprintf(f, "<p class=\"small\">%s</p>\n</body></html>\n",
            verify ? "faultline verify; all of this and more in report.json."
                   : "faultline; the numbers behind the plots are in timeline.csv, everything "
                     "else in report.json.");
    return report_install(f, tmp, r->dir, "report.html", err, errlen);
}
