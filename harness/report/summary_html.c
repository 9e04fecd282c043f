/*
 * summary_html — report.html of a repeat (summary.h): how the outage
 * behaved over many tries, for people.
 *
 *   the verdict and passed K of N; the rules over the repetitions
 *   per fault, one strip per metric: every repetition's value as a dot
 *   (red: that repetition failed), p50 as a bar and p95 as a dashed bar,
 *   so that a 9 s outlier among 4 s failovers is seen at once
 *   one row per repetition, linked to its own report.html
 *   the manifest of the first repetition
 */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../lib/jread.h"
#include "summary.h"
#include "report_files.h"
#include "result_html.h"
#include "result_svg.h"

#define ROW_H 34.0
#define STRIP_L 230.0 /* the metric's name left of it */
#define STRIP_R 250.0 /* its numbers right of it */

static bool rep_failed(const struct summary *s, unsigned k)
{
    const char *v = s->runs[k].report ? s->runs[k].report->verdict : NULL;
    return !v || strcmp(v, "pass") != 0;
}

static void fmt_value(char *out, size_t n, double v, bool seconds)
{
    if (seconds && v < 1)
        snprintf(out, n, "%.0f ms", v * 1e3);
    else if (seconds)
        snprintf(out, n, "%.2f s", v);
    else
        svg_fmt_count(v, out, n);
}

/* One metric: a strip over the range of its values, a little wider, so
 * that ten failovers between 3.9 s and 4.1 s are told apart, and an
 * outlier stands out; the ends are labelled. */
static void strip(FILE *f, const struct summary *s, const struct summary_metric *m, double y)
{
    double x0 = STRIP_L, x1 = PLOT_W - STRIP_R, spread = m->d.max - m->d.min;
    double bot = m->d.min - spread * 0.08, top = m->d.max + spread * 0.08;
    if (spread <= 0) { /* all the same: centred */
        bot = m->d.min > 0 ? m->d.min * 0.5 : m->d.min - 1;
        top = m->d.max > 0 ? m->d.max * 1.5 : m->d.max + 1;
    }
    if (bot < 0 && m->d.min >= 0)
        bot = 0;
    double mid = y + ROW_H / 2;
#define SX(v) (x0 + (x1 - x0) * (((v) - bot) / (top - bot)))
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"axis\" text-anchor=\"end\">", x0 - 10,
            mid + 4);
    report_escape(f, m->key);
    if (m->missing) /* repetitions that did not measure it */
        fprintf(f, " (%zu of %zu)", m->d.n, m->d.n + m->missing);
    fprintf(f, "</text>\n<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>\n",
            x0, x1, mid, mid);
    char a[32], b[32], c[32], d[32];
    fmt_value(a, sizeof a, bot, m->seconds);
    fmt_value(b, sizeof b, top, m->seconds);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\" text-anchor=\"middle\">%s</text>"
               "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\" text-anchor=\"middle\">%s</text>\n",
            x0, y + ROW_H - 1, a, x1, y + ROW_H - 1, b);
    fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" class=\"p50\"><title>p50"
               "</title></line>\n", SX(m->d.p50), SX(m->d.p50), mid - 11, mid + 11);
    fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" class=\"p95\"><title>p95"
               "</title></line>\n", SX(m->d.p95), SX(m->d.p95), mid - 11, mid + 11);
    for (unsigned k = 0; k < s->asked; k++) {
        if (!m->known[k])
            continue;
        char v[32];
        fmt_value(v, sizeof v, m->value[k], m->seconds);
        /* repetitions side by side in a small vertical jitter, so equal
         * values stay countable */
        double jy = mid + ((double)(k % 5) - 2) * 2.5;
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" class=\"%s\"><title>rep-%u: %s"
                   "</title></circle>\n",
                SX(m->value[k]), jy, rep_failed(s, k) ? "dot bad" : "dot", k + 1, v);
    }
    fmt_value(a, sizeof a, m->d.p50, m->seconds);
    fmt_value(b, sizeof b, m->d.p95, m->seconds);
    fmt_value(c, sizeof c, m->d.max, m->seconds);
    fmt_value(d, sizeof d, m->d.sd, m->seconds);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\"><title>sd %s; measured in %zu "
               "repetitions, not in %u</title>p50 %s &#183; p95 %s &#183; max %s</text>\n",
            x1 + 12, mid + 4, d, m->d.n, m->missing, a, b, c);
#undef SX
}

/* The metrics of one fault (fault >= 0) or of the run, as strips. */
static void strips(FILE *f, const struct summary *s, int fault)
{
    unsigned rows = 0;
    for (size_t i = 0; i < s->nm; i++)
        rows += s->m[i].fault == fault && s->m[i].d.n;
    if (!rows)
        return;
    fprintf(f, "<h3>");
    if (fault >= 0) {
        fprintf(f, "fault ");
        report_escape(f, s->sc->faults[fault].name);
        fprintf(f, " <span class=\"small\">(%s)</span>", s->sc->faults[fault].ops->action);
    } else {
        fprintf(f, "the whole run");
    }
    fprintf(f, "</h3>\n<svg viewBox=\"0 0 %.0f %.0f\" width=\"100%%\" role=\"img\" "
               "xmlns=\"http://www.w3.org/2000/svg\"><title>distributions</title>\n",
            PLOT_W, ROW_H * rows + 8);
    double y = 4;
    for (size_t i = 0; i < s->nm; i++) {
        if (s->m[i].fault != fault || !s->m[i].d.n)
            continue;
        strip(f, s, &s->m[i], y);
        y += ROW_H;
    }
    svg_end(f);
}

/* The same distributions in numbers, folded away. */
static void numbers_table(FILE *f, const struct summary *s)
{
    fprintf(f, "<details><summary>the numbers</summary>\n<table><tr><th>fault</th><th>metric"
               "</th><th>n</th><th>min</th><th>p50</th><th>p95</th><th>max</th><th>mean</th>"
               "<th>sd</th></tr>\n");
    for (size_t i = 0; i < s->nm; i++) {
        const struct summary_metric *m = &s->m[i];
        if (!m->d.n)
            continue;
        fprintf(f, "<tr><td>");
        report_escape(f, m->fault >= 0 ? s->sc->faults[m->fault].name : "(run)");
        fprintf(f, "</td><td>%s</td><td class=\"n\">%zu</td>", m->key, m->d.n);
        const double v[] = {m->d.min, m->d.p50, m->d.p95, m->d.max, m->d.mean, m->d.sd};
        for (size_t k = 0; k < 6; k++)
            fprintf(f, m->seconds ? "<td class=\"n\">%.3f s</td>" : "<td class=\"n\">%.1f</td>",
                    v[k]);
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</table></details>\n");
}

static void rules_table(FILE *f, const struct summary *s)
{
    fprintf(f, "<h2>Expectations over the repetitions</h2>\n<table><tr><th></th><th>rule</th>"
               "<th>fault</th><th>measured</th><th>why</th></tr>\n");
    for (size_t i = 0; i < s->nrule; i++) {
        const struct summary_rule *r = &s->rule[i];
        char m[48] = "unknown";
        if (r->known && strcmp(r->unit, "s") == 0)
            snprintf(m, sizeof m, "%.3f s", r->measured);
        else if (r->known && strcmp(r->unit, "%") == 0)
            snprintf(m, sizeof m, "%.0f%%", r->measured);
        else if (r->known)
            snprintf(m, sizeof m, "%g", r->measured);
        fprintf(f, "<tr%s><td><span class=\"badge %s\">%s</span></td><td><code>",
                r->pass ? "" : " class=\"bad\"", r->pass ? "pass" : "fail",
                r->pass ? "PASS" : "FAIL");
        report_escape(f, r->text);
        fprintf(f, "</code>%s</td><td>", r->line ? "" : " <span class=\"small\">(implicit)</span>");
        if (r->fault >= 0)
            report_escape(f, s->sc->faults[r->fault].name);
        fprintf(f, "</td><td class=\"n\">%s</td><td>", m);
        report_escape(f, r->why);
        fprintf(f, "</td></tr>\n");
    }
    fprintf(f, "</table>\n");
}

static void runs_table(FILE *f, const struct summary *s)
{
    fprintf(f, "<h2>Repetitions</h2>\n<table><tr><th>repetition</th><th>verdict</th><th>exit"
               "</th><th>lab before it</th><th>failed rules</th></tr>\n");
    for (unsigned k = 0; k < s->asked; k++) {
        const struct rep_outcome *x = &s->runs[k];
        if (!x->ran)
            continue;
        const char *v = x->report ? x->report->verdict : NULL;
        fprintf(f, "<tr%s><td><a href=\"%s/report.html\">%s</a></td><td>%s</td>"
                   "<td class=\"n\">%d</td><td>",
                rep_failed(s, k) ? " class=\"bad\"" : "", x->dir, x->dir, v ? v : "no report",
                x->exit);
        report_escape(f, x->lab[0] ? x->lab : "-");
        fprintf(f, "</td><td>");
        for (size_t i = 0; x->report && i < x->report->nexpect; i++)
            if (!x->report->expect[i].pass) {
                report_escape(f, x->report->expect[i].text);
                fprintf(f, "<br>");
            }
        fprintf(f, "</td></tr>\n");
    }
    fprintf(f, "</table>\n");
}

/* The manifest as path = value rows, whatever its shape. */
static void manifest_rows(FILE *f, const struct jv *v, char *path, size_t used, size_t cap)
{
    if (v->type == JV_OBJ || v->type == JV_ARR) {
        for (size_t i = 0; i < v->n; i++) {
            size_t n = used;
            if (v->type == JV_OBJ)
                n += (size_t)snprintf(path + used, cap - used, "%s%s", used ? "." : "",
                                      v->key[i]);
            else
                n += (size_t)snprintf(path + used, cap - used, "[%zu]", i);
            manifest_rows(f, &v->item[i], path, n < cap ? n : cap - 1, cap);
            path[used] = '\0';
        }
        return;
    }
    fprintf(f, "<tr><td>");
    report_escape(f, path);
    fprintf(f, "</td><td>");
    if (v->type == JV_STR)
        report_escape(f, v->str);
    else if (v->type == JV_NUM && v->str)
        report_escape(f, v->str);
    else if (v->type == JV_NUM)
        fprintf(f, "%.15g", v->num);
    else if (v->type == JV_BOOL)
        fprintf(f, "%s", v->b ? "yes" : "no");
    else
        fprintf(f, "-");
    fprintf(f, "</td></tr>\n");
}

static const char extra_css[] =
    "<style>svg .dot{fill:#2e7d32;fill-opacity:0.75}svg .dot.bad{fill:#c62828}"
    "svg .p50{stroke:#1565c0;stroke-width:3}svg .p95{stroke:#6a1b9a;stroke-width:2;"
    "stroke-dasharray:3 2}h3{font-size:15px;margin:18px 0 2px}</style>\n";

int summary_write_html(const struct summary *s, const char *dir, char *err, size_t errlen)
{
    char tmp[PATH_MAX + 64];
    FILE *f = report_open_tmp(dir, "report.html", tmp, sizeof tmp, err, errlen);
    if (!f)
        return -1;
    result_html_head(f, s->sc->name, s->verdict);
    fputs(extra_css, f);
    fprintf(f, "<h1>");
    result_html_verdict(f, s->verdict);
    report_escape(f, s->sc->name);
    fprintf(f, "</h1>\n<p>%u of %u repetitions passed%s.", s->passed, s->asked,
            s->interrupted ? " (interrupted)" : "");
    if (s->sc->description[0]) {
        fprintf(f, " ");
        report_escape(f, s->sc->description);
    }
    fprintf(f, "</p>\n");
    rules_table(f, s);
    fprintf(f, "<h2>Distributions over the repetitions</h2>\n<p class=\"small\">One dot per "
               "repetition (red: that repetition failed; hover for its value), the solid bar "
               "at p50, the dashed bar at p95.</p>\n");
    for (unsigned i = 0; i < s->sc->nfaults; i++)
        strips(f, s, (int)i);
    strips(f, s, -1);
    numbers_table(f, s);
    runs_table(f, s);
    for (unsigned k = 0; k < s->asked; k++) {
        const struct jv *man = s->runs[k].report ? s->runs[k].report->manifest : NULL;
        if (!man)
            continue;
        char path[256] = "";
        fprintf(f, "<h2>Manifest (rep-%u)</h2>\n<table class=\"meta\">\n", k + 1);
        manifest_rows(f, man, path, 0, sizeof path);
        fprintf(f, "</table>\n");
        break;
    }
    fprintf(f, "<p class=\"small\">faultline; every repetition's own report is in its "
               "directory, the numbers of this page in report.json.</p>\n</body></html>\n");
    return report_install(f, tmp, dir, "report.html", err, errlen);
}
