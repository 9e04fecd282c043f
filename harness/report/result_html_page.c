/*
 * result_html_page — the look of report.html from the record: its style
 * sheet, its head, its verdict badge, and the writing of the file through
 * a temporary name, so that a reader never sees half a page.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "result_html_parts.h"

/* The verdict badge's colour is .v-WORD's; a word without a rule of its
 * own keeps .verdict's neutral grey. */
static const char css[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:24px auto;"
    "max-width:1100px;padding:0 16px;color:#1d2327;background:#fff}"
    "h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid "
    "#dde;padding-bottom:4px}"
    ".verdict{display:inline-block;font-weight:700;padding:2px 12px;border-radius:4px;color:#fff;"
    "margin-right:10px;background:#607d8b}.v-pass{background:#2e7d32}.v-fail{background:#c62828}"
    ".v-error{background:#6a1b9a}.v-interrupted{background:#e65100}"
    ".note{border-left:4px solid #90a4ae;background:#f3f5f8;padding:6px 12px}"
    "table{border-collapse:collapse;margin:6px 0;font-size:13px}th,td{border:1px solid #dde;"
    "padding:3px 7px;text-align:left;vertical-align:top}th{background:#f3f5f8}"
    "td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
    "td.wrap{overflow-wrap:anywhere;min-width:8em}"
    ".badn{color:#c62828;font-weight:700}.small{font-size:12px;color:#444}"
    "tr.bad td{background:#fdecea}.badge{font-size:11px;font-weight:700;padding:1px 6px;"
    "border-radius:3px;color:#fff}.badge.pass{background:#2e7d32}.badge.fail{background:#c62828}"
    ".meta td:first-child{color:#555;white-space:nowrap}.meta td{border:none;padding:1px 12px 1px 0}"
    "svg{display:block;margin:4px 0 0;font:12px system-ui,sans-serif}"
    "svg .grid{stroke:#e6e8ec;stroke-width:1}svg .tick{fill:#555;font-size:11px}"
    "svg .axis{fill:#333;font-size:12px}svg .flabel{font-size:12px;font-weight:700}"
    "svg .iops{fill:none;stroke-width:1.6}svg .lat{fill:none;stroke-width:1.3}"
    "svg .path{fill-opacity:0.45;stroke:none}svg .err{stroke-width:2}"
    "svg .client{fill:none;stroke-width:1.1;stroke-opacity:0.85}"
    /* a legend starts under the time axis: PAD_L of PLOT_W */
    ".legend{font-size:12px;color:#333;margin:0 0 14px 7.3%}"
    ".key{display:inline-block;margin:0 16px 2px 0;white-space:nowrap}"
    ".mk{display:inline-block;width:22px;height:0;border-top:2px solid;vertical-align:middle;"
    "margin-right:5px}.mk.dash{border-top-style:dashed}.mk.dot{border-top-style:dotted}"
    ".mk.area{height:10px;border:0;opacity:0.45}"
    "code{background:#f3f5f8;padding:0 4px;border-radius:3px}";

void result_html_verdict(FILE *f, const char *verdict)
{
    if (!verdict || !*verdict)
        verdict = "unknown";
    bool word = true; /* fit for a class name as it is */
    char up[64];
    size_t n = 0;
    for (; verdict[n] && n + 1 < sizeof up; n++) {
        unsigned char c = (unsigned char)verdict[n];
        word = word && (islower(c) || c == '-');
        up[n] = (char)toupper(c);
    }
    up[n] = '\0';
    fprintf(f, "<span class=\"verdict%s%s\">", word ? " v-" : "", word ? verdict : "");
    report_escape(f, up);
    fprintf(f, "</span>");
}

void result_html_head(FILE *f, const char *name, const char *verdict)
{
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
               "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
               "<title>faultline: ");
    report_escape(f, name);
    fprintf(f, " ");
    report_escape(f, verdict);
    fprintf(f, "</title><style>%s</style></head><body>\n", css);
}


