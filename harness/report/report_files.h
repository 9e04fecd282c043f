/*
 * report_files — what every writer of a report file shares, the run's
 * (report.h) and the record's (result_render.h) alike.
 */
#ifndef FL_REPORT_FILES_H
#define FL_REPORT_FILES_H

#include <stddef.h>
#include <stdio.h>

/* A temporary file DIR/.NAME.tmp, and its rename to DIR/NAME once whole,
 * so that a reader never sees half a file.  NULL or -1 with err. */
FILE *report_open_tmp(const char *dir, const char *name, char *tmp, size_t n, char *err,
                      size_t errlen);
int report_install(FILE *f, const char *tmp, const char *dir, const char *name, char *err,
                   size_t errlen);

/* Text for XML and HTML: < > & " ' escaped, control characters (but
 * newline and tab) replaced by '?'. */
void report_escape(FILE *f, const char *s);

/* A verdict word for people: "PASS", "FAIL", "INTERRUPTED", "ERROR". */
const char *report_verdict_caps(const char *verdict);

#endif
