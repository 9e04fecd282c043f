/*
 * report_manifest — the manifest (../manifest.h) in each report: `manifest`
 * in report.json, a "manifest:" block in report.txt, a "Manifest" table in
 * report.html.  Nothing when the report has none (r->manifest NULL).
 */
#ifndef FL_REPORT_MANIFEST_H
#define FL_REPORT_MANIFEST_H

#include <stdio.h>

#include "../../lib/json.h"
#include "report.h"

void report_json_manifest(struct json *j, const struct report *r);

#endif
