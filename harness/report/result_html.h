/*
 * result_html — report.html from the record: the run on one page, for
 * people, drawn from a struct result (result.h) and the files the run wrote
 * next to its report.json (timeline.csv, resources.csv: result_series.h).
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
 *   the hosts' resources over time (resources.csv)
 *   one row per fault with its recovery numbers, one per client
 *   findings by class, then the first of them in detail
 *   the manifest
 * A verify's page (`faultline verify` writes every report again, this one
 * too, in place of the run's):
 *   the verdict, what the verify read and from which run, its findings,
 *   the integrity rules; no plot, since a verify measures nothing over
 *   time
 *
 * The verdict is the record's word, the one report.json and report.txt
 * give, whatever it is.
 */
#ifndef FL_RESULT_HTML_H
#define FL_RESULT_HTML_H

#include <stddef.h>
#include <stdio.h>

struct result;

/* Writes DIR/report.html (through a temporary name) from res and DIR's
 * timeline.csv, resources.csv and report.json.  0, or -1 with err. */
int result_write_html(const struct result *res, const char *dir, char *err, size_t errlen);

/* What every page of ours shares (the summary of repeats' too): the start
 * of the page, up to and with <body>, its title naming the run and its
 * verdict; and the verdict as a badge, the word in capitals in the colour
 * of pass, fail, error or interrupted, a neutral grey for any other word. */
void result_html_head(FILE *f, const char *name, const char *verdict);
void result_html_verdict(FILE *f, const char *verdict);

#endif
