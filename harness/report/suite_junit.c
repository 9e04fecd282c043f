/* suite_junit — junit.xml of a suite (see suite.h): the suite as one test
 * suite a CI system reads, one testcase per scenario.
 *
 *   met, or failed as expected   a passing testcase; its <system-out> says
 *                                the verdict, the rules that failed (as
 *                                expected) and the numbers
 *   not met                      a <failure>: why, and the rules that failed
 *   could not run                an <error>
 *   flaky                        passes (it met on a retry), with every
 *                                attempt in its <system-out>: directory,
 *                                verdict, failed rules, numbers
 *
 * The classname is faultline.suite.LABKIND ("none" without a lab), so that
 * a CI's tree groups the scenarios by lab.  A suite that was interrupted,
 * or could run nothing, adds a testcase "suite" with an <error>: what did
 * not run is not a pass. */
#include "suite.h"

#include <string.h>

#include "report_files.h"

/* The numbers of a scenario's last attempt, in a line. */
static void numbers(FILE *f, const struct suite_scenario *x)
{
    char stall[48], rec[200], fi[32], rev[32], wall[48];
    suite_fmt_secs(x->stall, stall, sizeof stall);
    suite_recovery_text(x, rec, sizeof rec);
    suite_fmt_count(x->findings, fi, sizeof fi);
    suite_fmt_count(x->reverted, rev, sizeof rev);
    suite_fmt_duration(x->wall, wall, sizeof wall);
    fprintf(f, "stall %s; recovery %s; findings %s; reverted %s; wall %s\n", stall, rec, fi, rev,
            wall);
}

/* What every testcase's output says: faults, verdict, numbers, where the
 * run's own report is; a flaky one's every attempt. */
static void system_out(FILE *f, const struct suite_scenario *x)
{
    char line[2048];
    fprintf(f, "      <system-out>");
    suite_faults_text(x, line, sizeof line);
    report_escape(f, x->file);
    fprintf(f, ": ");
    report_escape(f, line);
    fprintf(f, "; lab ");
    report_escape(f, x->lab ? x->lab : "none");
    fprintf(f, " (");
    report_escape(f, x->lab_use);
    if (x->lab_health) {
        fprintf(f, ", ");
        report_escape(f, x->lab_health);
    }
    fprintf(f, ")\n");
    suite_expected_text(x, line, sizeof line);
    report_escape(f, line);
    fprintf(f, "\n");
    numbers(f, x);
    if (x->report_html) {
        fprintf(f, "report: ");
        report_escape(f, x->report_html);
        fprintf(f, "\n");
    }
    for (size_t k = 0; x->outcome == SUITE_FLAKY && k < x->nattempts; k++) {
        const struct suite_attempt *a = &x->attempts[k];
        suite_attempt_text(a, x->lab, line, sizeof line);
        fprintf(f, "attempt %u, ", a->try_no);
        report_escape(f, a->dir[0] ? a->dir : "(no directory)");
        fprintf(f, ": ");
        report_escape(f, line);
        fprintf(f, "\n");
    }
    fprintf(f, "</system-out>\n");
}

static void testcase(FILE *f, const struct suite_scenario *x)
{
    char failing[1024];
    fprintf(f, "    <testcase classname=\"faultline.suite.");
    report_escape(f, x->lab ? x->lab : "none");
    fprintf(f, "\" name=\"");
    report_escape(f, x->name);
    fprintf(f, "\" time=\"%.3f\">\n", x->wall.known ? x->wall.v : 0.0);
    if (x->outcome == SUITE_NOT_MET) {
        suite_list_text(&x->failing, failing, sizeof failing);
        fprintf(f, "      <failure message=\"");
        report_escape(f, x->why ? x->why : "not met");
        fprintf(f, "; failing: ");
        report_escape(f, failing);
        fprintf(f, "\" type=\"not-met\">");
        suite_expected_text(x, failing, sizeof failing);
        report_escape(f, failing);
        fprintf(f, "</failure>\n");
    } else if (x->outcome == SUITE_ERROR) {
        fprintf(f, "      <error message=\"");
        report_escape(f, x->why ? x->why : "could not run");
        fprintf(f, "\" type=\"error\"/>\n");
    }
    system_out(f, x);
    fprintf(f, "    </testcase>\n");
}

/* Why the suite as a whole is an error testcase ("" when it is not). */
static void suite_error(const struct suite *s, char *out, size_t n)
{
    char ran[32], total[32];
    suite_fmt_count(s->ran, ran, sizeof ran);
    suite_fmt_count(s->total, total, sizeof total);
    out[0] = '\0';
    if (s->interrupted_by || strcmp(s->verdict, "interrupted") == 0)
        snprintf(out, n, "interrupted by %s: %s of %s scenarios ran",
                 s->interrupted_by ? s->interrupted_by : "a signal", ran, total);
    else if (strcmp(s->verdict, "error") == 0)
        snprintf(out, n, "the suite could not run: %s of %s scenarios ran", ran, total);
}

static void property(FILE *f, const char *name, const char *value)
{
    fprintf(f, "      <property name=\"%s\" value=\"", name);
    report_escape(f, value);
    fprintf(f, "\"/>\n");
}

static void properties(FILE *f, const struct suite *s)
{
    char v[48];
    fprintf(f, "    <properties>\n");
    property(f, "verdict", s->verdict);
    property(f, "faultline", s->faultline);
    property(f, "started_at", s->started_at);
    suite_fmt_count(s->retry_timing, v, sizeof v);
    property(f, "retry_timing", v);
    suite_fmt_count(s->lab_ups, v, sizeof v);
    property(f, "lab_ups", v);
    suite_fmt_count(s->lab_shared, v, sizeof v);
    property(f, "lab_shared", v);
    suite_fmt_secs(s->lab_up_s, v, sizeof v);
    property(f, "lab_up", v);
    fprintf(f, "    </properties>\n");
}

static void render(FILE *f, const struct suite *s)
{
    char error[256];
    suite_error(s, error, sizeof error);
    size_t failures = 0, errors = error[0] != '\0';
    for (size_t i = 0; i < s->n; i++) {
        failures += s->sc[i].outcome == SUITE_NOT_MET;
        errors += s->sc[i].outcome == SUITE_ERROR;
    }
    size_t tests = s->n + (error[0] != '\0');
    double time = s->wall.known ? s->wall.v : 0;
    char stamp[32]; /* started_at without its zone letter, as junit has it */
    snprintf(stamp, sizeof stamp, "%.19s", s->started_at);
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f, "<testsuites name=\"faultline suite\" tests=\"%zu\" failures=\"%zu\" "
               "errors=\"%zu\" time=\"%.3f\">\n", tests, failures, errors, time);
    fprintf(f, "  <testsuite name=\"faultline suite\" tests=\"%zu\" failures=\"%zu\" "
               "errors=\"%zu\" skipped=\"0\" time=\"%.3f\"", tests, failures, errors, time);
    if (stamp[0]) {
        fprintf(f, " timestamp=\"");
        report_escape(f, stamp);
        fprintf(f, "\"");
    }
    fprintf(f, ">\n");
    properties(f, s);
    if (error[0]) {
        fprintf(f, "    <testcase classname=\"faultline.suite\" name=\"suite\" time=\"%.3f\">\n"
                   "      <error message=\"", time);
        report_escape(f, error);
        fprintf(f, "\" type=\"%s\"/>\n    </testcase>\n",
                strcmp(s->verdict, "error") == 0 ? "error" : "interrupted");
    }
    for (size_t i = 0; i < s->n; i++)
        testcase(f, &s->sc[i]);
    fprintf(f, "  </testsuite>\n</testsuites>\n");
}

int suite_write_junit(const struct suite *s, const char *dir, char *err, size_t errlen)
{
    return suite_write_file(s, dir, "junit.xml", render, err, errlen);
}
