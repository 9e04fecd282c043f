/*
 * suite_report — the reports of a suite (`faultline suite`), told from its
 * suite.json.
 *
 * `faultline suite PATH...` runs many scenarios, each a whole run in
 * DIR/NAME/try-K, and writes DIR/suite.json: the suite's totals and each
 * scenario's outcome against what it expected (docs/suite.schema.json).
 * This module reads that file back and writes the other three files of
 * the suite's directory from it, and from nothing else:
 *
 *   junit.xml    one <testsuite name="faultline suite">, one <testcase
 *                classname="faultline.suite.LABKIND" name="SCENARIO"> per
 *                scenario: a <failure> when not met (why, the rules that
 *                failed), an <error> when it could not run; a flaky one
 *                passes, every attempt listed in its <system-out>
 *   report.txt   the verdict and totals, one table per lab kind, then the
 *                scenarios not met, those that could not run and the
 *                flaky ones with every attempt
 *   report.html  one self-contained page: the totals, the outage matrix
 *                (fault action by lab kind, so that GlusterFS and CephFS
 *                sit side by side), one table per lab kind linked to each
 *                run's own report.html, the reasons, the attempts
 *
 * Each file is written under a temporary name and renamed into place once
 * whole, so a reader sees the old file or the new one, never half of one.
 * The suite runner calls it when its suite.json is written; called again
 * on a suite's directory it renders the three files anew (after a change
 * of the renderers, or of a suite.json by hand).
 */
#ifndef FL_SUITE_REPORT_H
#define FL_SUITE_REPORT_H

#include <stddef.h>
#include <stdio.h>

/* Reads DIR/suite.json and writes DIR/junit.xml, DIR/report.txt and
 * DIR/report.html; prints report.txt to console too when it is not NULL.
 * 0, or -1 with err saying what failed and why (the file, and the field of
 * suite.json by its JSON path). */
int suite_report_write(const char *dir, FILE *console, char *err, size_t errlen);

#endif
