/*
 * result_render — the files and lines that tell a result, each rendered
 * from the record alone (result.h), never from the live run:
 *
 *   report.txt   result_write_text (result_text.c): the verdict first,
 *                every expectation, one line per fault with its recovery
 *                numbers, what ran, the manifest, findings by class
 *   junit.xml    result_write_junit (result_junit.c): one testcase per
 *                expectation and per fault
 *   stdout       result_summary (result_summary.c): the lines a run
 *                prints when it ends
 *
 * So each can be rendered again, and tested, from a report.json alone
 * (tests/unit/test_result_render.c renders tests/fixtures/ and compares).
 */
#ifndef FL_RESULT_RENDER_H
#define FL_RESULT_RENDER_H

#include <stddef.h>
#include <stdio.h>

#include "report_files.h"
#include "result.h"

/* DIR/report.txt and DIR/junit.xml.  0, or -1 with err. */
int result_write_text(const struct result *res, const char *dir, char *err, size_t errlen);
int result_write_junit(const struct result *res, const char *dir, char *err, size_t errlen);

/* The lines a run prints when it ends (its report is in dir). */
void result_summary(const struct result *res, const char *dir, FILE *out);

/* The manifest's lines of report.txt ("manifest" of report.json; nothing
 * when NULL). */
void result_text_manifest(FILE *f, const struct jv *manifest);

#endif
