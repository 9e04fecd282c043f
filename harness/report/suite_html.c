/* suite_html — report.html of a suite (see suite.h): the suite on one
 * self-contained page (inline CSS, no script, no network), in the look of
 * a run's report.html and of the summary of repeats (result_html.h):
 *
 *   the verdict, the totals as tiles (met of all, flaky, not met, errors,
 *   the wall time, labs brought up and shared, time in lab up)
 *   the outage matrix (suite_html_matrix.c)
 *   one table per lab kind, one row per scenario: its lab, faults,
 *   verdict, outcome, stall, recovery (heal, recover), findings, reverted,
 *   wall time, and a link to the run's own report.html
 *   the scenarios not met and those that could not run, with why; the
 *   flaky ones with every attempt, each linked to its own report.html
 *
 * A number suite.json gives as null says "unknown" (its title: not
 * measured), never 0.  Every text from suite.json is escaped; every link
 * is relative, into the suite's directory. */
#include "suite_html.h"

#include <string.h>

#include "report_files.h"
#include "result_html.h"

static void tile(FILE *f, const char *cls, const char *big, const char *small)
{
    fprintf(f, "<div class=\"tile %s\"><b>%s</b><span>%s</span></div>\n", cls, big, small);
}

static void tiles(FILE *f, const struct suite *s)
{
    char a[48], b[48], t[160];
    suite_fmt_count(s->met, a, sizeof a);
    suite_fmt_count(s->total, b, sizeof b);
    snprintf(t, sizeof t, "%s / %s", a, b);
    fprintf(f, "<div class=\"tiles\">\n");
    tile(f, "met", t, "met their expected outcome");
    suite_fmt_count(s->flaky, a, sizeof a);
    tile(f, "flaky", a, "flaky (met on a retry)");
    suite_fmt_count(s->not_met, a, sizeof a);
    tile(f, "not-met", a, "not met");
    suite_fmt_count(s->errors, a, sizeof a);
    tile(f, "error", a, "could not run");
    suite_fmt_duration(s->wall, a, sizeof a);
    tile(f, "", a, "wall time");
    suite_fmt_count(s->lab_ups, a, sizeof a);
    suite_fmt_count(s->lab_shared, b, sizeof b);
    snprintf(t, sizeof t, "%s / %s", a, b);
    tile(f, "", t, "labs brought up / scenarios on a lab already up");
    suite_fmt_duration(s->lab_up_s, a, sizeof a);
    suite_fmt_duration(s->lab_down_s, b, sizeof b);
    snprintf(t, sizeof t, "in lab up (%s in lab down)", b);
    tile(f, "", a, t);
    fprintf(f, "</div>\n<p class=\"small\">Started ");
    report_escape(f, s->started_at[0] ? s->started_at : "at an unknown time");
    fprintf(f, "; faultline ");
    report_escape(f, s->faultline[0] ? s->faultline : "(version unknown)");
    if (s->retry_timing.known && s->retry_timing.v > 0)
        fprintf(f, "; a scenario that failed on timing alone was tried again up to %.0f "
                   "time%s", s->retry_timing.v, s->retry_timing.v == 1 ? "" : "s");
    fprintf(f, ".</p>\n");
}

/* The lab a scenario had: how it came to it and its health; its prefix
 * and settings in the title, where they do not widen the table. */
static void lab_cell(FILE *f, const struct suite_scenario *x)
{
    fprintf(f, "<td");
    if (x->lab_prefix || x->lab_settings) {
        fprintf(f, " title=\"");
        if (x->lab_prefix) {
            fprintf(f, "prefix ");
            report_escape(f, x->lab_prefix);
        }
        if (x->lab_settings) {
            fprintf(f, "%s", x->lab_prefix ? "; " : "");
            report_escape(f, x->lab_settings);
        }
        fprintf(f, "\"");
    }
    fprintf(f, ">");
    report_escape(f, x->lab_use);
    if (x->lab_health) {
        fprintf(f, "<br><span class=\"small\">");
        report_escape(f, x->lab_health);
        fprintf(f, "</span>");
    }
    fprintf(f, "</td>");
}

static void faults_cell(FILE *f, const struct suite_scenario *x)
{
    fprintf(f, "<td>");
    if (!x->nfaults)
        fprintf(f, "<span class=\"small\">no fault</span>");
    for (size_t i = 0; i < x->nfaults; i++) {
        const struct suite_fault *ft = &x->faults[i];
        fprintf(f, "%s<b>", i ? "<br>" : "");
        report_escape(f, ft->action);
        fprintf(f, "</b> ");
        report_escape(f, ft->host);
        fprintf(f, " <span class=\"small\">(");
        report_escape(f, ft->name);
        fprintf(f, ")</span>");
    }
    fprintf(f, "</td>");
}

static void scenario_row(FILE *f, const struct suite_scenario *x)
{
    fprintf(f, "<tr class=\"%s\"><td><b>", suite_html_outcome_class(x));
    report_escape(f, x->name);
    fprintf(f, "</b>");
    if (x->description) {
        fprintf(f, "<br><span class=\"small\">");
        report_escape(f, x->description);
        fprintf(f, "</span>");
    }
    fprintf(f, "</td>");
    lab_cell(f, x);
    faults_cell(f, x);
    fprintf(f, "<td>");
    suite_html_verdict_badge(f, x->verdict);
    fprintf(f, "</td><td>");
    suite_html_met_badge(f, x);
    fprintf(f, "</td>");
    suite_html_td_secs(f, x->stall);
    fprintf(f, "<td class=\"n\">");
    suite_html_recovery(f, x->recovery, x->heal, x->recover, x->lab, "<br>");
    fprintf(f, "</td>");
    suite_html_td_count(f, x->findings);
    suite_html_td_count(f, x->reverted);
    suite_html_td_duration(f, x->wall);
    fprintf(f, "<td>");
    if (x->report_html)
        suite_html_link(f, x->report_html, "report");
    else
        fprintf(f, "<span class=\"unk\" title=\"the run wrote no report\">none</span>");
    fprintf(f, "</td></tr>\n");
}

static void kind_table(FILE *f, const struct suite *s, const char *kind)
{
    fprintf(f, "<h3>");
    report_escape(f, suite_kind_label(kind));
    fprintf(f, "</h3>\n<table><tr><th>scenario</th><th>lab</th><th>fault</th><th>verdict</th>"
               "<th>met</th><th>stall</th><th>recovery / heal / recover</th><th>findings</th>"
               "<th>reverted</th><th>wall time</th><th>its report</th></tr>\n");
    for (size_t i = 0; i < s->n; i++)
        if (suite_of_kind(&s->sc[i], kind))
            scenario_row(f, &s->sc[i]);
    fprintf(f, "</table>\n");
}

/* Each attempt's verdict, linked to its own report.html. */
static void attempt_links(FILE *f, const struct suite_scenario *x)
{
    if (!x->nattempts)
        fprintf(f, "<span class=\"unk\" title=\"no attempt started\">none</span>");
    for (size_t k = 0; k < x->nattempts; k++) {
        const struct suite_attempt *a = &x->attempts[k];
        char href[2048], text[64];
        snprintf(href, sizeof href, "%s/report.html", a->dir);
        snprintf(text, sizeof text, "try-%u", a->try_no);
        fprintf(f, "%s", k ? "<br>" : "");
        suite_html_link(f, a->dir[0] && a->verdict ? href : NULL, text);
        fprintf(f, " ");
        suite_html_verdict_badge(f, a->verdict);
    }
}

/* The scenarios not met (or that could not run): why, what they expected
 * and what they got. */
static void misses(FILE *f, const struct suite *s, enum suite_outcome which, const char *title)
{
    bool any = false;
    for (size_t i = 0; i < s->n; i++) {
        const struct suite_scenario *x = &s->sc[i];
        if (x->outcome != which)
            continue;
        if (!any)
            fprintf(f, "<h2>%s</h2>\n<table><tr><th>scenario</th><th>why</th><th>expected and "
                       "got</th><th>attempts</th></tr>\n", title);
        any = true;
        char line[2048];
        suite_expected_text(x, line, sizeof line);
        fprintf(f, "<tr class=\"%s\"><td>", suite_html_outcome_class(x));
        suite_html_link(f, x->report_html, x->name);
        fprintf(f, "</td><td>");
        report_escape(f, x->why ? x->why : "(no reason given)");
        fprintf(f, "</td><td>");
        report_escape(f, line);
        fprintf(f, "</td><td>");
        attempt_links(f, x);
        fprintf(f, "</td></tr>\n");
    }
    if (any)
        fprintf(f, "</table>\n");
}

static void attempt_row(FILE *f, const struct suite_attempt *a, const char *lab)
{
    char list[1024], href[2048];
    suite_list_text(&a->failing, list, sizeof list);
    snprintf(href, sizeof href, "%s/report.html", a->dir);
    fprintf(f, "<tr class=\"%s\"><td class=\"n\">%u</td><td>", a->verdict && strcmp(a->verdict,
            "pass") == 0 ? "" : "not-met", a->try_no);
    suite_html_link(f, a->dir[0] ? href : NULL, a->dir[0] ? a->dir : "(no directory)");
    fprintf(f, "</td><td>");
    suite_html_verdict_badge(f, a->verdict);
    fprintf(f, "</td>");
    suite_html_td_count(f, a->exit);
    fprintf(f, "<td>");
    report_escape(f, list);
    fprintf(f, "%s</td>", a->timing_only ? " <span class=\"small\">(timing only)</span>" : "");
    suite_html_td_secs(f, a->stall);
    fprintf(f, "<td class=\"n\">");
    suite_html_recovery(f, a->recovery, a->heal, a->recover, lab, "<br>");
    fprintf(f, "</td>");
    suite_html_td_count(f, a->findings);
    suite_html_td_duration(f, a->wall);
    fprintf(f, "</tr>\n");
}

static void flaky(FILE *f, const struct suite *s)
{
    bool any = false;
    for (size_t i = 0; i < s->n; i++) {
        const struct suite_scenario *x = &s->sc[i];
        if (x->outcome != SUITE_FLAKY)
            continue;
        if (!any)
            fprintf(f, "<h2>Flaky: met on a retry</h2>\n<p class=\"small\">Each missed only "
                       "timing rules, then met on a later attempt. Every attempt is a whole "
                       "run of its own.</p>\n");
        any = true;
        fprintf(f, "<h3>");
        report_escape(f, x->name);
        fprintf(f, "</h3>\n<p>");
        report_escape(f, x->why ? x->why : "(no reason given)");
        fprintf(f, "</p>\n<table><tr><th>try</th><th>directory</th><th>verdict</th><th>exit</th>"
                   "<th>failing</th><th>stall</th><th>recovery / heal / recover</th>"
                   "<th>findings</th><th>wall time</th></tr>\n");
        for (size_t k = 0; k < x->nattempts; k++)
            attempt_row(f, &x->attempts[k], x->lab);
        fprintf(f, "</table>\n");
    }
}

static void page(FILE *f, const struct suite *s)
{
    result_html_head(f, "suite", s->verdict);
    fputs(suite_html_css, f);
    fprintf(f, "<h1>");
    result_html_verdict(f, s->verdict);
    fprintf(f, "faultline suite</h1>\n");
    if (s->interrupted_by) {
        char ran[32], total[32];
        suite_fmt_count(s->ran, ran, sizeof ran);
        suite_fmt_count(s->total, total, sizeof total);
        fprintf(f, "<p class=\"note\">Interrupted by ");
        report_escape(f, s->interrupted_by);
        fprintf(f, ": %s of %s scenarios ran.</p>\n", ran, total);
    }
    tiles(f, s);
    suite_html_matrix(f, s);
    const char *kinds[64]; /* the lab kinds are a handful (harness/lab/lab_kinds.c) */
    size_t nk = suite_kinds(s, kinds, sizeof kinds / sizeof kinds[0]);
    if (nk)
        fprintf(f, "<h2>Scenarios by lab kind</h2>\n");
    else
        fprintf(f, "<p class=\"note\">No scenario ran.</p>\n");
    for (size_t k = 0; k < nk; k++)
        kind_table(f, s, kinds[k]);
    misses(f, s, SUITE_NOT_MET, "Not met");
    misses(f, s, SUITE_ERROR, "Could not run");
    flaky(f, s);
    fprintf(f, "<p class=\"small\">faultline suite; each scenario's own reports are in its "
               "directory, the numbers of this page in suite.json.</p>\n</body></html>\n");
}

int suite_write_html(const struct suite *s, const char *dir, char *err, size_t errlen)
{
    return suite_write_file(s, dir, "report.html", page, err, errlen);
}
