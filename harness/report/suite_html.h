/*
 * suite_html — what the files of a suite's report.html share (suite.h):
 * its cells (suite_html_cells.c: a number or "unknown", a link, the
 * badges), the outage matrix (suite_html_matrix.c), the page
 * (suite_html.c).
 */
#ifndef FL_SUITE_HTML_H
#define FL_SUITE_HTML_H

#include <stdio.h>

#include "suite.h"

/* The page's own rules, after the look every report.html shares
 * (result_html.h). */
extern const char suite_html_css[];

/* A relative path as an href: every byte but letters, digits and -._~/
 * percent-encoded, so that a scenario's name with '#', '?', a space or
 * quotes still links to its directory, and never leaves it for a scheme. */
void suite_html_href(FILE *f, const char *path);

/* <a href="PATH">TEXT</a> (both escaped); TEXT alone when path is NULL or
 * empty. */
void suite_html_link(FILE *f, const char *path, const char *text);

/* A value: "1.234 s" or "12"; when not measured, "unknown" in grey with
 * a title that says so. */
void suite_html_secs(FILE *f, struct suite_num v);
void suite_html_count(FILE *f, struct suite_num v);

/* The same as a table cell, right-aligned. */
void suite_html_td_secs(FILE *f, struct suite_num v);
void suite_html_td_count(FILE *f, struct suite_num v);
void suite_html_td_duration(FILE *f, struct suite_num v); /* "4 min 05 s" */

/* recovery, then heal and recover where measured or where the lab kind
 * has them (a gluster lab heals, a ceph lab recovers), sep between them
 * ("<br>" in a table, " &#183; " in a line). */
void suite_html_recovery(FILE *f, struct suite_num recovery, struct suite_num heal,
                         struct suite_num recover, const char *lab, const char *sep);

/* A small badge of a run's verdict (grey "no report" for NULL), and of a
 * scenario's outcome in its met word. */
void suite_html_verdict_badge(FILE *f, const char *verdict);
void suite_html_met_badge(FILE *f, const struct suite_scenario *x);

/* The class of a scenario's outcome: "met", "not-met", "flaky", "error". */
const char *suite_html_outcome_class(const struct suite_scenario *x);

/* The outage matrix: one row per fault action, one column per lab kind,
 * each cell the scenarios there. */
void suite_html_matrix(FILE *f, const struct suite *s);

#endif
