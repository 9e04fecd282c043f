/* report — see report.h: every file of a run's report, each from its renderer. */
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../../lib/json.h"
#include "../../lib/units.h"
#include "result_html.h"
#include "result_render.h"

int report_write_refusal(const char *dir, const struct scenario *sc, const char *why, char *err,
                         size_t errlen)
{
    char tmp[PATH_MAX + 64];
    FILE *f = report_open_tmp(dir, "report.json", tmp, sizeof tmp, err, errlen);
    if (!f)
        return -1;
    struct json j;
    json_init(&j, f, true);
    json_obj_begin(&j);
    json_key(&j, "verdict");
    json_str(&j, "error");
    json_key(&j, "mode");
    json_str(&j, "run");
    json_key(&j, "started"); /* false: the workload never ran; nothing was measured */
    json_bool(&j, false);
    json_key(&j, "error");
    json_str(&j, why);
    json_key(&j, "exit_status");
    json_i64(&j, 2);
    json_key(&j, "scenario");
    json_str(&j, sc->name);
    json_key(&j, "scenario_file");
    json_str(&j, sc->file);
    json_obj_end(&j);
    fputc('\n', f);
    if (report_install(f, tmp, dir, "report.json", err, errlen) != 0 ||
        !(f = report_open_tmp(dir, "report.txt", tmp, sizeof tmp, err, errlen)))
        return -1;
    fprintf(f, "run %s: ERROR\n  could not start: %s\n  nothing ran and nothing was measured; "
               "the scenario is %s\n", sc->name, why, sc->file);
    if (report_install(f, tmp, dir, "report.txt", err, errlen) != 0 ||
        !(f = report_open_tmp(dir, "junit.xml", tmp, sizeof tmp, err, errlen)))
        return -1;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"faultline\" "
               "tests=\"1\" failures=\"0\" errors=\"1\" time=\"0\">\n  <testsuite name=\"");
    report_escape(f, sc->name);
    fprintf(f, "\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0\">\n"
               "    <testcase classname=\"faultline.");
    report_escape(f, sc->name);
    fprintf(f, "\" name=\"run\" time=\"0\">\n      <error message=\"could not start: ");
    report_escape(f, why);
    fprintf(f, "\" type=\"error\"/>\n    </testcase>\n  </testsuite>\n</testsuites>\n");
    return report_install(f, tmp, dir, "junit.xml", err, errlen);
}

int report_write(const struct report *r, struct result *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    if (report_write_json(r, err, errlen) != 0 || report_write_events(r, err, errlen) != 0)
        return -1;
    /* The rest is told from what report.json says, read back. */
    if (result_read(r->dir, res, err, errlen) != 0 ||
        result_write_text(res, r->dir, err, errlen) != 0 ||
        result_write_junit(res, r->dir, err, errlen) != 0)
        return -1;
    return result_write_html(res, r->dir, err, errlen); /* a verify's page too */
}
