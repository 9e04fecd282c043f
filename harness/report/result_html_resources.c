/*
 * result_html_resources — the hosts' resources in report.html: CPU per host,
 * each disk's throughput and queue depth, each host's network, over the
 * same time axis as the throughput plot (result_svg.h), with the fault
 * windows shaded, so that a stall can be laid next to what the hosts were
 * doing then.  The numbers are resources.csv's, read back (result_series.h).
 *
 * One colour per host (CPU, network: the same host the same colour in every
 * plot) or device (disk); a second measure of the same thing is the same
 * colour dashed: iowait under busy, read under written, sent under
 * received.  A line is drawn at the middle of the interval its rate
 * covers; a queue depth at its sample.  Each plot's legend names every
 * line (result_svg.h: under the plot, in the lines' colours).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "result_html_parts.h"

#define MAX_LINES 16
#define MAX_POINTS 960

static const char *const hue[] = {"#1565c0", "#ef6c00", "#2e7d32", "#ad1457", "#00838f",
                                  "#6d4c41", "#5e35b1", "#9e9d24", "#546e7a", "#c62828"};
#define HUES (sizeof hue / sizeof hue[0])

struct line {
    const struct result_res_series *s;
    const char *colour;
    bool dashed;
    char label[160]; /* "": no key of its own (the dashed twin of a line) */
};

struct plot {
    const char *title, *unit, *axis;
    double floor_max; /* the y axis goes at least this high */
    bool gauge;       /* values at the sample (else rates over the interval before it) */
    bool bytes;       /* bytes per second: shown in B/s, kB/s or MB/s by the largest */
    struct line lines[MAX_LINES];
    unsigned n, left_out;
};

static void add_line(struct plot *p, const struct result_res_series *s, const char *colour,
                     bool dashed, const char *label)
{
    if (!s)
        return;
    if (p->n == MAX_LINES) {
        p->left_out += label && *label;
        return;
    }
    struct line *l = &p->lines[p->n++];
    l->s = s;
    l->colour = colour;
    l->dashed = dashed;
    snprintf(l->label, sizeof l->label, "%s", label ? label : "");
}

/* The sampling period: report.json's, else the samples' first spacing. */
static double period_of(const struct result_resources *res)
{
    if (res->period_s > 0)
        return res->period_s;
    return res->nsamples > 1 ? res->t_s[1] - res->t_s[0] : 0;
}

/* The samples of one series, averaged down to at most MAX_POINTS. */
static size_t squeeze(const struct result_resources *res, const struct result_res_series *s, bool gauge,
                      double span_s, double *t, double *v)
{
    size_t n = res->nsamples, per = (n + MAX_POINTS - 1) / MAX_POINTS, k = 0;
    double half = gauge ? 0 : period_of(res) / 2;
    for (size_t i = 0; per && i < n; i += per) {
        double st = 0, sv = 0;
        unsigned m = 0;
        for (size_t j = i; j < i + per && j < n; j++) {
            if (isnan(s->values[j]))
                continue;
            /* a rate covers the interval before its sample (the last one
             * may be shorter than the period) */
            double dt = j ? res->t_s[j] - res->t_s[j - 1] : 2 * half;
            st += res->t_s[j] - (gauge ? 0 : (dt < 2 * half ? dt / 2 : half));
            sv += s->values[j];
            m++;
        }
        if (!m) { /* not measured then: the line breaks */
            if (k && !isnan(v[k - 1]))
                t[k] = 0, v[k++] = NAN;
            continue;
        }
        if (st / m > span_s + 1e-9)
            continue;
        t[k] = st / m;
        v[k++] = sv / m;
    }
    return k;
}

/* Every labelled line's key, and how many lines did not fit in the plot. */
static void legend(FILE *f, const struct plot *p)
{
    svg_legend_begin(f);
    for (unsigned k = 0; k < p->n; k++)
        if (p->lines[k].label[0])
            svg_legend(f, p->lines[k].colour, KEY_LINE, p->lines[k].label);
    if (p->left_out)
        fprintf(f, "<span class=\"key\">+%u more in resources.csv</span>", p->left_out);
    svg_legend_end(f);
}

static void draw(FILE *f, const struct result *r, const struct result_resources *res, double span_s,
                 const struct plot *p)
{
    if (!p->n)
        return;
    double *t = malloc(MAX_POINTS * sizeof *t), *v = malloc(MAX_POINTS * sizeof *v);
    if (!t || !v) {
        free(t);
        free(v);
        return;
    }
    double ymax = p->floor_max;
    for (unsigned k = 0; k < p->n; k++) {
        size_t m = squeeze(res, p->lines[k].s, p->gauge, span_s, t, v);
        for (size_t i = 0; i < m; i++)
            if (!isnan(v[i]) && v[i] > ymax)
                ymax = v[i];
    }
    /* short tick labels: the axis names the unit */
    double scale = 1;
    const char *axis = p->axis;
    if (p->bytes)
        scale = ymax >= 1e6 ? 1e6 : ymax >= 1e3 ? 1e3 : 1,
        axis = scale == 1e6 ? "MB/s" : scale == 1e3 ? "kB/s" : "bytes/s";
    ymax /= scale;
    double step = svg_nice_step(ymax, 4);
    ymax = ceil(ymax / step) * step;
    struct frame fr = {.span_s = span_s, .ymax = ymax};
    svg_begin(f, p->title);
    svg_fault_windows(f, r->faults, r->nfaults, &fr);
    svg_x_axis(f, &fr);
    svg_y_axis(f, &fr, step, p->unit, axis);
    for (unsigned k = 0; k < p->n; k++) {
        const struct line *l = &p->lines[k];
        size_t m = squeeze(res, l->s, p->gauge, span_s, t, v);
        for (size_t i = 0; i < m;) { /* one polyline per stretch without a gap */
            fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"%s "
                       "points=\"", l->colour, l->dashed ? " stroke-dasharray=\"5 3\"" : "");
            for (; i < m && !isnan(v[i]); i++)
                fprintf(f, "%.1f,%.1f ", svg_x(&fr, t[i]), svg_y(&fr, v[i] / scale));
            i++; /* the gap */
            fprintf(f, "\"><title>");
            report_escape(f, l->s->host);
            fprintf(f, " ");
            report_escape(f, l->s->name);
            fprintf(f, " %s</title></polyline>\n", l->s->metric);
        }
    }
    svg_end(f);
    legend(f, p);
    free(t);
    free(v);
}

/* A host's colour, the same in each plot of the page: its place among the
 * hosts, in the sampler's order (each has one series of CPU busy). */
static const char *host_colour(const struct result_resources *res, const char *host)
{
    unsigned c = 0;
    for (unsigned i = 0; i < res->nseries; i++) {
        const struct result_res_series *s = &res->series[i];
        if (strcmp(s->kind, "cpu") != 0 || strcmp(s->metric, "busy_pct") != 0)
            continue;
        if (strcmp(s->host, host) == 0)
            break;
        c++;
    }
    return hue[c % HUES];
}

/* The CPU of the hosts whose series are named `name`: busy, and iowait
 * dashed. */
static void cpu_lines(struct plot *p, const struct result_resources *res, const char *name)
{
    for (unsigned i = 0; i < res->nseries; i++) {
        const struct result_res_series *s = &res->series[i];
        if (strcmp(s->kind, "cpu") != 0 || strcmp(s->metric, "busy_pct") != 0 ||
            strcmp(s->name, name) != 0)
            continue;
        const char *colour = host_colour(res, s->host);
        add_line(p, s, colour, false, s->host);
        add_line(p, result_res_find(res, s->host, "cpu", s->name, "iowait_pct"), colour, true,
                 NULL);
    }
}

/* Two plots, not one: the machine's 100% is all of its CPUs, a lab host's
 * (its processes, on this machine's kernel) one CPU, so on one axis the
 * same height would mean different things. */
static void cpu_plots(FILE *f, const struct result *r, const struct result_resources *res,
                      double span)
{
    struct plot m = {.title = "CPU of this machine over time, % of all its CPUs", .unit = "%",
                     .axis = "% of all CPUs", .floor_max = 100};
    struct plot s = {.title = "CPU of the processes of each lab host over time, % of one CPU",
                     .unit = "%", .axis = "% of one CPU", .floor_max = 10};
    cpu_lines(&m, res, "machine");
    cpu_lines(&s, res, "processes");
    fprintf(f, "<h3>CPU: busy, iowait dashed</h3>\n");
    if (m.n) {
        fprintf(f, "<p class=\"small\">This machine (the client) as %% of all its %u CPUs: "
                   "100%% is every CPU busy.</p>\n", res->ncpus);
        draw(f, r, res, span, &m);
    }
    if (!s.n)
        return;
    fprintf(f, "<p class=\"small\">Each lab host (a namespace on this machine's kernel): the "
               "CPU its processes used as %% of one CPU, so 200%% is two CPUs' worth%s.</p>\n",
            res->delayacct ? ", and their block I/O wait likewise"
                           : "; their iowait is not counted (kernel.task_delayacct is off)");
    draw(f, r, res, span, &s);
}

static void disk_plots(FILE *f, const struct result *r, const struct result_resources *res,
                       double span)
{
    struct plot bw = {.title = "disk throughput over time", .bytes = true,
                      .floor_max = 1e6};
    struct plot q = {.title = "disk queue depth over time", .axis = "I/Os in flight",
                     .floor_max = 4, .gauge = true};
    unsigned c = 0;
    for (unsigned i = 0; i < res->nseries; i++) {
        const struct result_res_series *s = &res->series[i];
        if (strcmp(s->kind, "disk") != 0 || strcmp(s->metric, "write_bytes_per_s") != 0)
            continue;
        const char *colour = hue[c++ % HUES];
        char label[160];
        snprintf(label, sizeof label, "%s %s (%s)", s->host, s->name, s->role);
        add_line(&bw, s, colour, false, label);
        add_line(&bw, result_res_find(res, s->host, "disk", s->name, "read_bytes_per_s"), colour,
                 true, NULL);
        add_line(&q, result_res_find(res, s->host, "disk", s->name, "in_flight"), colour, false,
                 label);
    }
    if (!bw.n) {
        fprintf(f, "<h3>Disks</h3>\n<p class=\"small\">No disk sampled: %s.</p>\n",
                res->why_no_disk[0] ? res->why_no_disk : "no block device carries the target");
        return;
    }
    fprintf(f, "<h3>Disks: written, read dashed</h3>\n");
    if (res->why_no_disk[0]) {
        fprintf(f, "<p class=\"small\">");
        report_escape(f, res->why_no_disk);
        fprintf(f, ".</p>\n");
    }
    draw(f, r, res, span, &bw);
    fprintf(f, "<h3>Disks: queue depth</h3>\n");
    draw(f, r, res, span, &q);
}

static double total_of(const struct result_resources *res, const struct result_res_series *s)
{
    double sum = 0;
    for (size_t i = 0; s && i < res->nsamples; i++)
        if (!isnan(s->values[i]))
            sum += s->values[i];
    return sum;
}

/* A bridge, or a port of one: in our own namespace that is some lab's
 * switch (another run's, on a shared machine), not this client's cable;
 * report.json names them ("resources.bridged"). */
static bool switch_part(const struct result_resources *res, const char *ifname)
{
    for (size_t i = 0; i < res->nbridged; i++)
        if (strcmp(res->bridged[i], ifname) == 0)
            return true;
    return false;
}

/* Per host its busiest interface (lo aside; the lab client's own cable
 * for the machine, whose namespace also holds every other lab's switch;
 * without a lab, no switch's part): received, sent dashed. */
static void net_plot(FILE *f, const struct result *r, const struct result_resources *res, double span)
{
    struct plot p = {.title = "network per host over time", .bytes = true, .floor_max = 1e3};
    for (unsigned i = 0; i < res->nseries; i++) {
        const struct result_res_series *s = &res->series[i];
        if (strcmp(s->kind, "cpu") != 0 || strcmp(s->metric, "busy_pct") != 0)
            continue; /* one per host, in the sampler's order */
        const struct result_res_series *best =
            strcmp(s->name, "machine") == 0 && res->client_if[0]
                ? result_res_find(res, s->host, "net", res->client_if, "rx_bytes_per_s")
                : NULL;
        double most = best ? INFINITY : 0;
        for (unsigned k = 0; k < res->nseries; k++) {
            const struct result_res_series *x = &res->series[k];
            if (strcmp(x->kind, "net") != 0 || strcmp(x->host, s->host) != 0 ||
                strcmp(x->metric, "rx_bytes_per_s") != 0 || strcmp(x->name, "lo") == 0 ||
                (strcmp(s->name, "machine") == 0 && switch_part(res, x->name)))
                continue;
            double sum = total_of(res, x) +
                         total_of(res, result_res_find(res, x->host, "net", x->name,
                                                      "tx_bytes_per_s"));
            if (sum > most)
                most = sum, best = x;
        }
        if (!best)
            continue;
        const char *colour = host_colour(res, s->host);
        char label[160];
        snprintf(label, sizeof label, "%s %s", best->host, best->name);
        add_line(&p, best, colour, false, label);
        add_line(&p, result_res_find(res, best->host, "net", best->name, "tx_bytes_per_s"),
                 colour, true, NULL);
    }
    if (!p.n)
        return;
    fprintf(f, "<h3>Network: received, sent dashed (each host's busiest interface)</h3>\n");
    draw(f, r, res, span, &p);
}

void result_html_resources(FILE *f, const struct result *r, const struct result_resources *res,
                           double span_s)
{
    if (!res || res->nsamples < 2 || span_s <= 0)
        return;
    fprintf(f, "<h2>Host resources</h2>\n<p class=\"small\">Sampled every %.0f ms over the "
               "workload; every host, device and interface in resources.csv.</p>\n",
            period_of(res) * 1e3);
    cpu_plots(f, r, res, span_s);
    disk_plots(f, r, res, span_s);
    net_plot(f, r, res, span_s);
}
