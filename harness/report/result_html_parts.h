/*
 * result_html_parts — what the files of report.html from the record
 * (result_html*.c) share: the page's plots (result_html_plots.c), its
 * resource plots (result_html_resources.c), its manifest table
 * (result_html_manifest.c), its look and its verdict badge
 * (result_html_page.c).
 */
#ifndef FL_RESULT_HTML_PARTS_H
#define FL_RESULT_HTML_PARTS_H

#include <stdio.h>

#include "result.h"
#include "result_series.h"
#include "result_svg.h"

/* The throughput and latency plots, then the resources; nothing without a
 * timeline. */
void result_html_plots(FILE *f, const struct result *res, const struct result_series *s);

/* The resource plots on the time axis of the throughput plot (span_s
 * seconds); nothing without samples. */
void result_html_resources(FILE *f, const struct result *res, const struct result_resources *rs,
                           double span_s);

/* The "Manifest" table; nothing without one. */
void result_html_manifest(FILE *f, const struct result *res);

/* The start of the page, up to and with <body> (the title names the run and
 * its verdict). */
void result_html_head(FILE *f, const char *name, const char *verdict);

/* The verdict as a badge: the word in capitals, in the colour of pass,
 * fail, error or interrupted, in a neutral grey for any other word. */
void result_html_verdict(FILE *f, const char *verdict);

/* DIR/.NAME.tmp, and its rename to DIR/NAME. */
FILE *result_html_open(const char *dir, const char *name, char *tmp, size_t n, char *err,
                       size_t errlen);
int result_html_install(FILE *f, const char *tmp, const char *dir, const char *name, char *err,
                        size_t errlen);

#endif
