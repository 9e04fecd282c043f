/*
 * result_html_plots — report.html's throughput and latency over time, from
 * timeline.csv (result_series.h): IOPS per bucket, on a backend with
 * several paths the area below it in the colour of the path that carried
 * most of the I/O, the baseline; p50, p99 and the slowest I/O per bucket on
 * a log scale; each fault's window shaded, failed I/Os marked red.
 *
 * A run over several clients draws each client's own line too, from the
 * timeline.csv the run wrote in its folder (DIR/client-R/), and names each
 * client in the legend.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "result_html_parts.h"

#define MAX_POINTS 960
#define MAX_PATH_HUES 4

/* The curves' colours: set on each curve and on its key alike (svg_legend). */
#define IOPS_HUE "#1565c0"
#define BASE_HUE "#2e7d32"
#define ERR_HUE "#c62828"
static const char *const client_hue[] = {"#ef6c00", "#2e7d32", "#ad1457", "#00838f",
                                         "#6d4c41", "#5e35b1", "#9e9d24", "#546e7a"};
#define CLIENT_HUE(k) client_hue[(k) % (sizeof client_hue / sizeof client_hue[0])]
/* The paths' colours, apart from the curves' (blue IOPS, green baseline). */
static const char *const path_hue[MAX_PATH_HUES] = {"#f9a825", "#8e24aa", "#00acc1", "#6d4c41"};

/* The series squeezed to at most MAX_POINTS points: IOPS averaged, latency
 * and errors as the worst of the merged rows (the percentiles too: the
 * CSV has no histogram to merge), the path that carried most of their I/O
 * (-1: no path counted). */
struct points {
    size_t n, per;
    double t[MAX_POINTS], iops[MAX_POINTS], lat_ms[MAX_POINTS];
    double p50_ms[MAX_POINTS], p99_ms[MAX_POINTS];
    int path[MAX_POINTS];
    uint64_t errors[MAX_POINTS];
    double span_s;
};

static int carrier(const struct result_series *s, size_t first, size_t last)
{
    uint64_t ios[MAX_PATH_HUES] = {0};
    unsigned np = s->npaths < MAX_PATH_HUES ? s->npaths : MAX_PATH_HUES;
    for (size_t i = first; i <= last && i < s->n; i++)
        for (unsigned p = 0; p < np; p++)
            ios[p] += s->path_ios[i * s->npaths + p];
    int best = -1;
    for (unsigned p = 0; p < np; p++)
        if (ios[p] && (best < 0 || ios[p] > ios[best]))
            best = (int)p;
    return best;
}

static void squeeze(const struct result_series *s, double w, struct points *p)
{
    memset(p, 0, sizeof *p);
    size_t used = s->n;
    size_t whole = s->end_known ? (size_t)ceil(s->end_s / w - 1e-6) : 0;
    if (whole && whole < used)
        used = whole; /* the drain after the end is not the workload */
    if (!used)
        return;
    size_t per = (used + MAX_POINTS - 1) / MAX_POINTS;
    p->per = per;
    for (size_t i = 0; i < used; i += per) {
        size_t k = p->n++, m = 0;
        double sum = 0;
        for (size_t j = i; j < i + per && j < used; j++, m++) {
            sum += (double)(s->reads[j] + s->writes[j]) / w;
            if (s->max_latency_ms[j] > p->lat_ms[k])
                p->lat_ms[k] = s->max_latency_ms[j];
            if (s->p50_ms[j] > p->p50_ms[k])
                p->p50_ms[k] = s->p50_ms[j];
            if (s->p99_ms[j] > p->p99_ms[k])
                p->p99_ms[k] = s->p99_ms[j];
            p->errors[k] += s->errors[j];
        }
        p->iops[k] = m ? sum / (double)m : 0;
        p->t[k] = ((double)i + (double)m / 2) * w;
        p->path[k] = carrier(s, i, i + m - 1);
    }
    p->span_s = (double)used * w;
}

static unsigned paths_of(const struct result_series *s)
{
    size_t n = s->npath_names < s->npaths ? s->npath_names : s->npaths;
    return (unsigned)(n < MAX_PATH_HUES ? n : MAX_PATH_HUES);
}

/* Where the area of point i begins and ends: half way to its neighbours. */
static double edge(const struct frame *fr, const double *t, size_t n, size_t i, bool right)
{
    if (right)
        return svg_x(fr, i + 1 < n ? (t[i] + t[i + 1]) / 2 : t[i]);
    return svg_x(fr, i > 0 ? (t[i - 1] + t[i]) / 2 : t[i]);
}

/* The coloured areas under the throughput curve, one polygon per run of
 * points carried by the same path.  Nothing without paths. */
static void path_areas(FILE *f, const struct result_series *s, const struct frame *fr,
                       const struct points *p)
{
    unsigned np = paths_of(s);
    if (!np)
        return;
    double y0 = svg_y(fr, 0);
    fprintf(f, "<g class=\"paths\">\n");
    for (size_t a = 0; a < p->n;) {
        size_t b = a;
        while (b + 1 < p->n && p->path[b + 1] == p->path[a])
            b++;
        if (p->path[a] >= 0 && (unsigned)p->path[a] < np) {
            fprintf(f, "<polygon class=\"path\" fill=\"%s\" points=\"%.1f,%.1f %.1f,%.1f ",
                    path_hue[p->path[a]], edge(fr, p->t, p->n, a, false), y0,
                    edge(fr, p->t, p->n, a, false), svg_y(fr, p->iops[a]));
            for (size_t i = a; i <= b; i++)
                fprintf(f, "%.1f,%.1f ", svg_x(fr, p->t[i]), svg_y(fr, p->iops[i]));
            fprintf(f, "%.1f,%.1f %.1f,%.1f\"><title>", edge(fr, p->t, p->n, b, true),
                    svg_y(fr, p->iops[b]), edge(fr, p->t, p->n, b, true), y0);
            fprintf(f, "%.2f s to %.2f s: I/O mostly over path %d, ", p->t[a], p->t[b],
                    p->path[a]);
            report_escape(f, s->path_names[p->path[a]]);
            fprintf(f, "</title></polygon>\n");
        }
        a = b + 1;
    }
    fprintf(f, "</g>\n");
}

/* The baseline as two lines across the plot: itself dashed, 90% of it
 * (where recovery is counted from) dotted. */
static void baseline_lines(FILE *f, const struct result *res, const struct frame *fr)
{
    double y = svg_y(fr, res->baseline_iops), y90 = svg_y(fr, res->baseline_iops * 0.9);
    fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
               "stroke-dasharray=\"6 4\"/>\n", PAD_L, PLOT_W - PAD_R, y, y, BASE_HUE);
    fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
               "stroke-dasharray=\"2 4\"/>\n", PAD_L, PLOT_W - PAD_R, y90, y90, BASE_HUE);
}

/* The throughput plot's keys.  The baseline is named here, not written on
 * its line: that is where the curve runs in healthy times. */
static void iops_keys(FILE *f, const struct result *res, const struct result_series *s,
                      const struct points *p)
{
    svg_legend_begin(f);
    svg_legend(f, IOPS_HUE, KEY_LINE, res->nclients > 1 ? "IOPS, all clients" : "IOPS");
    if (res->baseline_known) {
        char text[64];
        snprintf(text, sizeof text, "baseline %.0f IOPS", res->baseline_iops);
        svg_legend(f, BASE_HUE, KEY_DASHED, text);
        svg_legend(f, BASE_HUE, KEY_DOTTED, "90% of it");
    }
    for (unsigned k = 0; res->nclients <= 1 && k < paths_of(s); k++) {
        char text[512];
        snprintf(text, sizeof text, "path %u: %s", k, s->path_names[k]);
        svg_legend(f, path_hue[k], KEY_AREA, text);
    }
    for (size_t k = 0; res->nclients > 1 && k < res->nclients; k++) {
        const struct result_client *c = &res->clients[k];
        char text[256];
        snprintf(text, sizeof text, "client %u (%s)%s", c->rank, c->host ? c->host : "",
                 c->lost ? " lost" : "");
        svg_legend(f, CLIENT_HUE(k), KEY_LINE, text);
    }
    bool errors = false;
    for (size_t i = 0; i < p->n && !errors; i++)
        errors = p->errors[i] != 0;
    if (errors)
        svg_legend(f, ERR_HUE, KEY_LINE, "failed I/Os (marks on the time axis)");
    svg_legend_end(f);
}

/* A run over several clients: one throughput line per client, coloured,
 * over the combined one (from each client's own timeline). */
static void client_lines(FILE *f, const struct result *res, const struct result_series *s,
                         const struct frame *fr)
{
    struct points *q = s->nclients > 1 ? malloc(sizeof *q) : NULL;
    for (size_t k = 0; q && k < s->nclients && k < res->nclients; k++) {
        const struct result_series *c = &s->clients[k];
        if (!c->n || c->bucket_s <= 0)
            continue;
        squeeze(c, c->bucket_s, q);
        fprintf(f, "<polyline class=\"client\" stroke=\"%s\" points=\"", CLIENT_HUE(k));
        for (size_t i = 0; i < q->n; i++)
            fprintf(f, "%.1f,%.1f ", svg_x(fr, q->t[i]), svg_y(fr, q->iops[i]));
        fprintf(f, "\"><title>client %u</title></polyline>\n", res->clients[k].rank);
    }
    free(q);
}

static void plot_iops(FILE *f, const struct result *res, const struct result_series *s,
                      const struct points *p)
{
    double ymax = res->baseline_known ? res->baseline_iops * 1.25 : 0;
    for (size_t i = 0; i < p->n; i++)
        if (p->iops[i] > ymax)
            ymax = p->iops[i];
    double step = svg_nice_step(ymax, 4);
    ymax = ceil(ymax / step) * step;
    struct frame fr = {.span_s = p->span_s, .ymax = ymax};
    svg_begin(f, "throughput over time");
    svg_fault_windows(f, res->faults, res->nfaults, &fr);
    svg_x_axis(f, &fr);
    svg_y_axis(f, &fr, step, NULL, "IOPS");
    if (res->baseline_known)
        baseline_lines(f, res, &fr);
    if (res->nclients <= 1) /* under the curve */
        path_areas(f, s, &fr, p);
    fprintf(f, "<polyline class=\"iops\" stroke=\"%s\" points=\"", IOPS_HUE);
    for (size_t i = 0; i < p->n; i++)
        fprintf(f, "%.1f,%.1f ", svg_x(&fr, p->t[i]), svg_y(&fr, p->iops[i]));
    fprintf(f, "\"/>\n");
    client_lines(f, res, s, &fr);
    for (size_t i = 0; i < p->n; i++)
        if (p->errors[i])
            fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" class=\"err\" "
                       "stroke=\"%s\"><title>%" PRIu64 " failed I/Os near %.2f s</title></line>\n",
                    svg_x(&fr, p->t[i]), svg_x(&fr, p->t[i]), PLOT_H - PAD_B,
                    PLOT_H - PAD_B - 10, ERR_HUE, p->errors[i], p->t[i]);
    svg_end(f);
    iops_keys(f, res, s, p);
}

/* The log axis of the latency plot: a line and a label per decade. */
static void latency_axis(FILE *f, const struct frame *fr)
{
    for (int e = (int)fr->lmin; e <= (int)fr->lmax; e++) {
        double v = pow(10, e), y = svg_y(fr, v);
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
}

/* One latency line, broken where nothing completed: a stall is a gap, not a
 * slope. */
static void latency_line(FILE *f, const struct frame *fr, const struct points *p,
                         const double *v, const char *colour, const char *name)
{
    for (size_t i = 0; i < p->n; i++) {
        if (!(v[i] > 0))
            continue;
        if (i + 1 >= p->n || !(v[i + 1] > 0)) { /* alone: a dot */
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"1.8\" fill=\"%s\"><title>%s "
                       "latency</title></circle>\n", svg_x(fr, p->t[i]), svg_y(fr, v[i]),
                    colour, name);
            continue;
        }
        fprintf(f, "<polyline class=\"lat\" stroke=\"%s\" points=\"", colour);
        for (; i < p->n && v[i] > 0; i++)
            fprintf(f, "%.1f,%.1f ", svg_x(fr, p->t[i]), svg_y(fr, v[i]));
        fprintf(f, "\"><title>%s latency</title></polyline>\n", name);
    }
}

static void plot_latency(FILE *f, const struct result *res, const struct points *p)
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
    svg_fault_windows(f, res->faults, res->nfaults, &fr);
    svg_x_axis(f, &fr);
    latency_axis(f, &fr);
    /* max, p99, p50 per point: the max is one I/O, the percentiles say
     * whether the rest waited too */
    const struct {
        const double *v;
        const char *colour, *name;
    } line[] = {{p->lat_ms, "#6a1b9a", "slowest I/O"}, {p->p99_ms, "#ef6c00", "p99"},
                {p->p50_ms, "#00897b", "p50"}};
    for (size_t l = 0; l < sizeof line / sizeof line[0]; l++)
        latency_line(f, &fr, p, line[l].v, line[l].colour, line[l].name);
    fprintf(f, "<text x=\"12\" y=\"%.1f\" class=\"axis\" transform=\"rotate(-90 12 %.1f)\" "
               "text-anchor=\"middle\">latency</text>\n",
            PLOT_H / 2, PLOT_H / 2);
    svg_end(f);
    svg_legend_begin(f);
    for (size_t l = 0; l < sizeof line / sizeof line[0]; l++)
        svg_legend(f, line[l].colour, KEY_LINE, line[l].name);
    svg_legend_end(f);
}

void result_html_plots(FILE *f, const struct result *res, const struct result_series *s)
{
    double w = res->bucket_s > 0 ? res->bucket_s : s->bucket_s;
    if (!s->n || !(w > 0))
        return;
    struct points *p = malloc(sizeof *p);
    if (!p)
        return;
    squeeze(s, w, p);
    if (p->n) {
        fprintf(f, "<h2>Throughput</h2>\n");
        plot_iops(f, res, s, p);
        fprintf(f, "<h2>Latency (p50, p99 and slowest I/O per %.0f ms)</h2>\n",
                w * 1e3 * (double)p->per);
        plot_latency(f, res, p);
        result_html_resources(f, res, &s->res, p->span_s);
    }
    free(p);
}
