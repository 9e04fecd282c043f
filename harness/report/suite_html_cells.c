/* suite_html_cells — the small pieces of a suite's report.html (see
 * suite_html.h): values that may be unknown, links, badges, the page's
 * own style rules. */
#include "suite_html.h"

#include <string.h>

#include "report_files.h"

/* The outcome's colours: met green, not met red (the run's pass and fail),
 * flaky amber, error purple (the run's error); a matrix cell in a light
 * shade of the same with a bar of it on the left. */
const char suite_html_css[] =
    "<style>body{max-width:1280px}"
    ".tiles{display:flex;flex-wrap:wrap;gap:10px;margin:14px 0 6px}"
    ".tile{border:1px solid #dde;border-radius:6px;padding:6px 14px;min-width:96px;"
    "background:#fafbfc}.tile b{display:block;font-size:22px;line-height:1.3}"
    ".tile span{font-size:12px;color:#444}"
    ".tile.met b{color:#2e7d32}.tile.not-met b{color:#c62828}.tile.flaky b{color:#b26a00}"
    ".tile.error b{color:#6a1b9a}"
    ".badge{white-space:nowrap}.badge.met{background:#2e7d32}.badge.not-met{background:#c62828}"
    ".badge.flaky{background:#b26a00}.badge.error{background:#6a1b9a}"
    ".badge.interrupted{background:#e65100}.badge.none{background:#78909c}"
    ".unk{color:#78909c;font-style:italic}"
    "tr.not-met td{background:#fdecea}tr.flaky td{background:#fff8e1}"
    "tr.error td{background:#f3e5f5}"
    "table.matrix{width:100%;table-layout:fixed}table.matrix th:first-child{width:110px}"
    "table.matrix th.row{white-space:nowrap}table.matrix td{padding:4px}"
    "table.matrix td.empty{background:#fafafa}"
    ".item{border-left:4px solid #78909c;border-radius:2px;padding:3px 7px;margin:0 0 4px;"
    "font-size:12px;line-height:1.4}.item:last-child{margin-bottom:0}"
    ".item a,.item .name{font-weight:700;font-size:13px}"
    ".item.met{border-color:#2e7d32;background:#e8f5e9}"
    ".item.not-met{border-color:#c62828;background:#fdecea}"
    ".item.flaky{border-color:#b26a00;background:#fff8e1}"
    ".item.error{border-color:#6a1b9a;background:#f3e5f5}"
    "h3{font-size:15px;margin:18px 0 4px}"
    "</style>\n";

void suite_html_href(FILE *f, const char *path)
{
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        unsigned char c = *p;
        bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                     strchr("-._~/", c);
        if (plain)
            fputc(c, f);
        else
            fprintf(f, "%%%c%c", hex[c >> 4], hex[c & 15]);
    }
}

void suite_html_link(FILE *f, const char *path, const char *text)
{
    if (!path || !*path) {
        report_escape(f, text);
        return;
    }
    fprintf(f, "<a href=\"");
    suite_html_href(f, path);
    fprintf(f, "\">");
    report_escape(f, text);
    fprintf(f, "</a>");
}

static void unknown(FILE *f)
{
    fprintf(f, "<span class=\"unk\" title=\"not measured\">unknown</span>");
}

void suite_html_secs(FILE *f, struct suite_num v)
{
    if (!v.known)
        unknown(f);
    else
        fprintf(f, "%.3f&#160;s", v.v);
}

void suite_html_count(FILE *f, struct suite_num v)
{
    char t[48];
    if (!v.known) {
        unknown(f);
        return;
    }
    suite_fmt_count(v, t, sizeof t);
    fprintf(f, "%s", t);
}

void suite_html_td_secs(FILE *f, struct suite_num v)
{
    fprintf(f, "<td class=\"n\">");
    suite_html_secs(f, v);
    fprintf(f, "</td>");
}

void suite_html_td_count(FILE *f, struct suite_num v)
{
    fprintf(f, "<td class=\"n\">");
    suite_html_count(f, v);
    fprintf(f, "</td>");
}

void suite_html_td_duration(FILE *f, struct suite_num v)
{
    char t[48];
    fprintf(f, "<td class=\"n\">");
    if (v.known) {
        suite_fmt_duration(v, t, sizeof t);
        fprintf(f, "%s", t);
    } else {
        unknown(f);
    }
    fprintf(f, "</td>");
}

void suite_html_recovery(FILE *f, struct suite_num recovery, struct suite_num heal,
                         struct suite_num recover, const char *lab, const char *sep)
{
    fprintf(f, "recovery ");
    suite_html_secs(f, recovery);
    if (heal.known || (lab && strcmp(lab, "gluster") == 0)) {
        fprintf(f, "%sheal ", sep);
        suite_html_secs(f, heal);
    }
    if (recover.known || (lab && strcmp(lab, "ceph") == 0)) {
        fprintf(f, "%srecover ", sep);
        suite_html_secs(f, recover);
    }
}

void suite_html_verdict_badge(FILE *f, const char *verdict)
{
    static const char *const known[] = {"pass", "fail", "error", "interrupted"};
    const char *cls = "none";
    for (size_t i = 0; verdict && i < sizeof known / sizeof known[0]; i++)
        if (strcmp(verdict, known[i]) == 0)
            cls = known[i];
    fprintf(f, "<span class=\"badge %s\">", cls);
    report_escape(f, verdict ? verdict : "no report");
    fprintf(f, "</span>");
}

const char *suite_html_outcome_class(const struct suite_scenario *x)
{
    return suite_outcome_name(x->outcome);
}

void suite_html_met_badge(FILE *f, const struct suite_scenario *x)
{
    fprintf(f, "<span class=\"badge %s\">%s</span>", suite_html_outcome_class(x),
            suite_met_word(x));
}
