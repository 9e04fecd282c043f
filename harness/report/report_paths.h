/*
 * report_paths — who carried the I/O: a backend with several paths to its
 * target (iSCSI: one portal per controller) tells which path each I/O
 * completed over, and the series counts them per bucket (buckets.h).
 *
 *   report.json   `paths`: the paths' names, index i is timeline.csv's
 *                 path_i_ios column (empty without paths)
 *   report.html   draws them from there (result_html_plots.c)
 *
 * A path's name is the lab host that serves its portal, then the portal
 * ("ctrl-a 198.18.0.2:3260"); without a lab host, the portal alone.
 */
#ifndef FL_REPORT_PATHS_H
#define FL_REPORT_PATHS_H

#include <stddef.h>
#include <stdio.h>

#include "report.h"

void report_path_name(const struct report *r, unsigned i, char *out, size_t n);

void report_json_paths(struct json *j, const struct report *r);

#endif
