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
#include "result_html.h"
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


#endif
