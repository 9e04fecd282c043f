/*
 * report_paths — who carried the I/O: a backend with several paths to its
 * target (iSCSI: one portal per controller) tells which path each I/O
 * completed over, and the series counts them per bucket (buckets.h).
 *
 *   report.json   `paths`: the paths' names, index i is timeline.csv's
 *                 path_i_ios column (empty without paths)
 *   report.html   under the throughput curve, each point's area in the
 *                 colour of the path that carried most of its I/O, with a
 *                 legend naming each path
 *
 * A path's name is the lab host that serves its portal, then the portal
 * ("ctrl-a 198.18.0.2:3260"); without a lab host, the portal alone.
 */
#ifndef FL_REPORT_PATHS_H
#define FL_REPORT_PATHS_H

#include <stddef.h>
#include <stdio.h>

#include "report.h"
#include "report_svg.h"

void report_path_name(const struct report *r, unsigned i, char *out, size_t n);

void report_json_paths(struct json *j, const struct report *r);

/* The path that carried most successful reads and writes in buckets
 * [first, last] of s; -1 when none counted. */
int report_path_carrier(const struct buckets *s, size_t first, size_t last);

/* The coloured areas in the throughput plot: n points at times t (s),
 * heights iops, carried by path[i] (-1: none).  Nothing without paths. */
void report_html_paths(FILE *f, const struct report *r, const struct frame *fr, size_t n,
                       const double *t, const double *iops, const int *path);

/* Their keys in the plot's legend (svg_legend), one per path; nothing
 * without paths. */
void report_html_path_keys(FILE *f, const struct report *r);

#endif
