/*
 * suite_report: a suite's junit.xml, report.txt and report.html are told
 * from its suite.json alone (harness/report/suite_report.h).
 *
 * Each test writes a hand-made suite.json into a directory of its own
 * (under $TMPDIR or /tmp), renders, and reads the three files back:
 * junit.xml well-formed for `xmllint --noout` with its testsuite's counts
 * those of its testcases, report.html well-formed for `xmllint --html`
 * with its tables closed; a pass, a must-fail scenario not met and one
 * that failed as expected, a flaky one with two attempts, numbers not
 * measured ("unknown", never 0), an interrupted suite, names and reasons
 * full of < > & " ' (escaped everywhere, percent-encoded in links); a
 * suite.json missing, not JSON, of another mode or with a field of the
 * wrong type is refused with the file and the field in err, and nothing
 * written.  tests/fixtures/suite/suite.json (the schema's fixture,
 * tests/schema.sh) renders too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../harness/report/suite_report.h"

/* ---------------------------------------------------------------- files */

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("cannot read %s", path);
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    char buf[8192];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0)
        fwrite(buf, 1, got, m);
    fclose(f);
    fclose(m);
    return text;
}

static char *read_in(const char *dir, const char *name)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return slurp(path);
}

static bool exists_in(const char *dir, const char *name)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

static void fresh_dir(char *dir, size_t n)
{
    snprintf(dir, n, "%s/suite-report-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    assert_non_null(mkdtemp(dir));
}

static void write_in(const char *dir, const char *name, const char *text)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static void remove_dir(const char *dir)
{
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static size_t count(const char *text, const char *what)
{
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, what)) != NULL; p += strlen(what))
        n++;
    return n;
}

#define HAS(text, what)                                                                       \
    do {                                                                                      \
        if (!strstr((text), (what)))                                                          \
            fail_msg("%s: no '%s' in:\n%s", #text, (what), (text));                            \
    } while (0)
#define LACKS(text, what)                                                                     \
    do {                                                                                      \
        if (strstr((text), (what)))                                                           \
            fail_msg("%s: '%s' should not be in:\n%s", #text, (what), (text));                 \
    } while (0)

/* xmllint's verdict on a file (--html: as HTML); its complaints printed. */
static void xmllint_accepts(const char *dir, const char *name, bool html)
{
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "xmllint %s--noout '%s/%s'", html ? "--html " : "", dir, name);
    if (system("command -v xmllint > /dev/null") != 0)
        fail_msg("xmllint is missing (make deps installs libxml2-utils)");
    if (system(cmd) != 0)
        fail_msg("%s: xmllint finds it malformed (above)", name);
}

/* ------------------------------------------------------- suite.json made */

/* One scenario, its fields given; the rest realistic.  NUM: a number or
 * "null". */
struct sc {
    const char *name, *lab, *use, *faults, *expect, *expect_failing, *outcome, *why;
    const char *verdict, *exit, *failing, *stall, *recovery, *heal, *recover, *findings;
    const char *wall, *report, *attempts, *description;
};

static void scenario_json(FILE *m, const struct sc *x)
{
    fprintf(m, "{\"name\": \"%s\", \"file\": \"scenarios/%s.scn\", \"description\": %s, "
               "\"dir\": \"%s\", \"lab\": %s, \"lab_prefix\": %s, \"lab_settings\": null, "
               "\"lab_use\": \"%s\", \"lab_health\": %s, \"faults\": [%s], "
               "\"expect_verdict\": \"%s\", \"expect_failing\": [%s], \"outcome\": \"%s\", "
               "\"met\": %s, \"why\": %s, \"verdict\": %s, \"exit\": %s, \"failing\": [%s], "
               "\"stall_s\": %s, \"recovery_s\": %s, \"heal_s\": %s, \"recover_s\": %s, "
               "\"findings\": %s, \"reverted\": 0, \"wall_s\": %s, \"report_html\": %s, "
               "\"attempts\": [%s]}",
            x->name, x->name, x->description ? x->description : "null", x->name,
            x->lab ? x->lab : "null", x->lab ? "\"fl\"" : "null", x->use,
            x->lab ? "\"healthy\"" : "null", x->faults, x->expect ? x->expect : "pass",
            x->expect_failing ? x->expect_failing : "", x->outcome,
            strcmp(x->outcome, "met") == 0 || strcmp(x->outcome, "flaky") == 0 ? "true"
                                                                                 : "false",
            x->why ? x->why : "null", x->verdict, x->exit, x->failing ? x->failing : "",
            x->stall, x->recovery, x->heal ? x->heal : "null", x->recover ? x->recover : "null",
            x->findings ? x->findings : "0", x->wall, x->report, x->attempts);
}

/* A whole suite.json around the scenarios. */
static char *suite_json(const char *verdict, const char *interrupted_by, unsigned total,
                        unsigned ran, const unsigned counts[4], const struct sc *x, size_t n)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    fprintf(m, "{\"mode\": \"suite\", \"faultline\": \"v1.0-test\", "
               "\"started_at\": \"2025-01-14T09:12:03Z\", \"wall_s\": 312.5, "
               "\"verdict\": \"%s\", \"interrupted_by\": %s, \"retry_timing\": 1, "
               "\"total\": %u, \"ran\": %u, \"met\": %u, \"not_met\": %u, \"flaky\": %u, "
               "\"errors\": %u, \"lab_ups\": 2, \"lab_shared\": 1, \"lab_up_s\": 95.5, "
               "\"lab_down_s\": 7.25, \"scenarios\": [",
            verdict, interrupted_by, total, ran, counts[0], counts[1], counts[2], counts[3]);
    for (size_t i = 0; i < n; i++) {
        fprintf(m, "%s\n", i ? "," : "");
        scenario_json(m, &x[i]);
    }
    fprintf(m, "]}\n");
    fclose(m);
    return text;
}

#define ATTEMPT_PASS(dir)                                                                     \
    "{\"try\": 1, \"dir\": \"" dir "\", \"verdict\": \"pass\", \"exit\": 0, \"failing\": [], " \
    "\"timing_only\": false, \"stall_s\": 0.5, \"recovery_s\": 0.7, \"heal_s\": null, "        \
    "\"recover_s\": null, \"findings\": 0, \"wall_s\": 20.0}"

static const struct sc kill_iscsi = {
    "iscsi-controller-kill", "\"iscsi\"", "up",
    "{\"name\": \"kill-a\", \"action\": \"kill\", \"host\": \"ctrl-a\"}", NULL, NULL, "met",
    NULL, "\"pass\"", "0", NULL, "0.004", "0.021", NULL, NULL, NULL, "17.1",
    "\"iscsi-controller-kill/try-1/report.html\"", ATTEMPT_PASS("iscsi-controller-kill/try-1"),
    "\"controller A killed at 4 s\""};
static const struct sc brick_gluster = {
    "gluster-brick-kill", "\"gluster\"", "up",
    "{\"name\": \"brick-gs1\", \"action\": \"kill\", \"host\": \"gs1\"}", NULL, NULL, "met",
    NULL, "\"pass\"", "0", NULL, "0.874", "1.402", "12.31", NULL, NULL, "41.3",
    "\"gluster-brick-kill/try-1/report.html\"", ATTEMPT_PASS("gluster-brick-kill/try-1"), NULL};
static const struct sc smoke = {
    "smoke", NULL, "none", "", NULL, NULL, "met", NULL, "\"pass\"", "0", NULL, "null", "null",
    NULL, NULL, NULL, "11.2", "\"smoke/try-1/report.html\"", ATTEMPT_PASS("smoke/try-1"),
    NULL};

/* Renders dir's suite.json: 0 expected, the console's text returned. */
static char *render(const char *dir)
{
    char err[1024] = "", *console = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&console, &len);
    if (suite_report_write(dir, m, err, sizeof err) != 0)
        fail_msg("suite_report_write: %s", err);
    fclose(m);
    assert_true(exists_in(dir, "junit.xml"));
    assert_true(exists_in(dir, "report.txt"));
    assert_true(exists_in(dir, "report.html"));
    /* whole files only: no temporary one left behind */
    assert_false(exists_in(dir, ".junit.xml.tmp"));
    assert_false(exists_in(dir, ".report.txt.tmp"));
    assert_false(exists_in(dir, ".report.html.tmp"));
    xmllint_accepts(dir, "junit.xml", false);
    xmllint_accepts(dir, "report.html", true);
    return console;
}

/* The testsuite's counts as its opening tag says them, and as its
 * testcases add up. */
static void junit_counts(const char *junit, unsigned tests, unsigned failures, unsigned errors)
{
    char want[200];
    snprintf(want, sizeof want, "<testsuite name=\"faultline suite\" tests=\"%u\" failures=\"%u\" "
                                "errors=\"%u\"", tests, failures, errors);
    HAS(junit, want);
    assert_int_equal(count(junit, "<testsuite "), 1);
    assert_int_equal(count(junit, "<testcase "), tests);
    assert_int_equal(count(junit, "<failure "), failures);
    assert_int_equal(count(junit, "<error "), errors);
}

/* Every table, row and section that opens closes. */
static void balanced(const char *html)
{
    const char *const pairs[][2] = {{"<table", "</table>"}, {"<tr", "</tr>"},
                                    {"<h2>", "</h2>"},      {"<div ", "</div>"},
                                    {"<a ", "</a>"},        {"<html", "</html>"}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        assert_int_equal(count(html, pairs[i][0]), count(html, pairs[i][1]));
    LACKS(html, "<script");
    LACKS(html, "http://");
    LACKS(html, "https://");
}

/* ------------------------------------------------------------- the tests */

static void a_suite_that_passed(void **state)
{
    (void)state;
    char dir[256];
    fresh_dir(dir, sizeof dir);
    const struct sc x[] = {kill_iscsi, brick_gluster, smoke};
    const unsigned counts[4] = {3, 0, 0, 0};
    char *json = suite_json("pass", "null", 3, 3, counts, x, 3);
    write_in(dir, "suite.json", json);
    char *console = render(dir), *junit = read_in(dir, "junit.xml"),
         *txt = read_in(dir, "report.txt"), *html = read_in(dir, "report.html");

    junit_counts(junit, 3, 0, 0);
    HAS(junit, "<testcase classname=\"faultline.suite.iscsi\" name=\"iscsi-controller-kill\" "
               "time=\"17.100\">");
    HAS(junit, "<testcase classname=\"faultline.suite.gluster\" name=\"gluster-brick-kill\"");
    HAS(junit, "<testcase classname=\"faultline.suite.none\" name=\"smoke\"");
    HAS(junit, "timestamp=\"2025-01-14T09:12:03\"");

    HAS(txt, "faultline suite: PASS, 3 of 3 met (0 flaky), 0 not met, 0 errors\n");
    HAS(txt, "labs: 2 brought up, 1 scenarios on a lab already up; 1 min 36 s in lab up");
    HAS(txt, "iscsi lab: 1 scenario\n");
    HAS(txt, "gluster lab: 1 scenario\n");
    HAS(txt, "no lab (a [cluster], [host]s or a file): 1 scenario\n");
    HAS(txt, "1.402 s, heal 12.310 s");
    LACKS(txt, "not met:");
    LACKS(txt, "flaky (");
    /* the console shows report.txt */
    assert_string_equal(console, txt);

    balanced(html);
    HAS(html, "<h1><span class=\"verdict v-pass\">PASS</span>faultline suite</h1>");
    HAS(html, "<b>3 / 3</b>");
    HAS(html, "<h2>Outage matrix</h2>");
    /* one column per lab kind, in their order, the scenarios without a lab last */
    const char *i = strstr(html, "<th>iscsi</th>"), *g = strstr(html, "<th>gluster</th>"),
               *n = strstr(html, "<th>cluster/none</th>");
    assert_true(i && g && n && i < g && g < n);
    LACKS(html, "<th>ceph</th>");
    HAS(html, "<th class=\"row\">kill</th>");
    HAS(html, "<th class=\"row\">no fault</th>");
    HAS(html, "<a href=\"iscsi-controller-kill/try-1/report.html\">report</a>");
    HAS(html, "<a href=\"gluster-brick-kill/try-1/report.html\">gluster-brick-kill</a>");
    HAS(html, "title=\"controller A killed at 4 s\"");
    LACKS(html, "<h2>Not met</h2>");
    free(console);
    free(junit);
    free(txt);
    free(html);
    free(json);
    remove_dir(dir);
}

/* A scenario that must fail: met when it fails as listed, not met when it
 * passes. */
static void must_fail_scenarios(void **state)
{
    (void)state;
    char dir[256];
    fresh_dir(dir, sizeof dir);
    struct sc lies = kill_iscsi, rot = brick_gluster;
    lies.name = "iscsi-cache-lies";
    lies.expect = "fail";
    lies.expect_failing = "\"lost_writes\", \"reverted?\"";
    lies.verdict = "\"fail\"";
    lies.exit = "1";
    lies.failing = "\"lost_writes\"";
    lies.findings = "37";
    lies.report = "\"iscsi-cache-lies/try-1/report.html\"";
    lies.attempts = ATTEMPT_PASS("iscsi-cache-lies/try-1");
    rot.name = "gluster-bitrot";
    rot.expect = "fail";
    rot.expect_failing = "\"corrupt\"";
    rot.outcome = "not-met";
    rot.why = "\"passed, and it must fail on corrupt\"";
    rot.report = "\"gluster-bitrot/try-1/report.html\"";
    rot.attempts = ATTEMPT_PASS("gluster-bitrot/try-1");
    const struct sc x[] = {lies, rot};
    const unsigned counts[4] = {1, 1, 0, 0};
    char *json = suite_json("fail", "null", 2, 2, counts, x, 2);
    write_in(dir, "suite.json", json);
    free(render(dir));
    char *junit = read_in(dir, "junit.xml"), *txt = read_in(dir, "report.txt"),
         *html = read_in(dir, "report.html");

    junit_counts(junit, 2, 1, 0);
    HAS(junit, "<failure message=\"passed, and it must fail on corrupt; failing: none\" "
               "type=\"not-met\">expected: fail, failing corrupt; got: pass (exit 0)</failure>");
    HAS(junit, "expected: fail, failing lost_writes, reverted?; got: fail (exit 1), failing "
               "lost_writes");

    HAS(txt, "faultline suite: FAIL, 1 of 2 met");
    HAS(txt, "fail as expected");
    HAS(txt, "NOT MET");
    HAS(txt, "\nnot met:\n  gluster-bitrot: passed, and it must fail on corrupt\n"
             "    expected: fail, failing corrupt; got: pass (exit 0)\n"
             "    gluster-bitrot/try-1/report.txt\n");

    balanced(html);
    HAS(html, "<span class=\"badge met\">fail as expected</span>");
    HAS(html, "<span class=\"badge not-met\">NOT MET</span>");
    HAS(html, "<h2>Not met</h2>");
    HAS(html, "<tr class=\"not-met\">");
    HAS(html, "passed, and it must fail on corrupt");
    free(junit);
    free(txt);
    free(html);
    free(json);
    remove_dir(dir);
}

/* A flaky scenario: passes, and every attempt is told. */
static void a_flaky_scenario_with_two_attempts(void **state)
{
    (void)state;
    char dir[256];
    fresh_dir(dir, sizeof dir);
    struct sc pause = kill_iscsi;
    pause.name = "iscsi-controller-pause";
    pause.faults = "{\"name\": \"freeze-a\", \"action\": \"pause\", \"host\": \"ctrl-a\"}, "
                   "{\"name\": \"fence-a\", \"action\": \"kill\", \"host\": \"ctrl-a\"}";
    pause.outcome = "flaky";
    pause.why = "\"try-1 failed on freeze-a:stall, a timing rule\"";
    pause.report = "\"iscsi-controller-pause/try-2/report.html\"";
    pause.attempts =
        "{\"try\": 1, \"dir\": \"iscsi-controller-pause/try-1\", \"verdict\": \"fail\", "
        "\"exit\": 1, \"failing\": [\"freeze-a:stall\"], \"timing_only\": true, "
        "\"stall_s\": 9.1, \"recovery_s\": 9.4, \"heal_s\": null, \"recover_s\": null, "
        "\"findings\": 0, \"wall_s\": 20.6}, "
        "{\"try\": 2, \"dir\": \"iscsi-controller-pause/try-2\", \"verdict\": \"pass\", "
        "\"exit\": 0, \"failing\": [], \"timing_only\": false, \"stall_s\": 4.12, "
        "\"recovery_s\": 4.3, \"heal_s\": null, \"recover_s\": null, \"findings\": 0, "
        "\"wall_s\": 20.9}";
    const struct sc x[] = {pause};
    const unsigned counts[4] = {1, 0, 1, 0};
    char *json = suite_json("pass", "null", 1, 1, counts, x, 1);
    write_in(dir, "suite.json", json);
    free(render(dir));
    char *junit = read_in(dir, "junit.xml"), *txt = read_in(dir, "report.txt"),
         *html = read_in(dir, "report.html");

    junit_counts(junit, 1, 0, 0); /* flaky passes */
    HAS(junit, "attempt 1, iscsi-controller-pause/try-1: fail (exit 1), failing freeze-a:stall "
               "(timing only); stall 9.100 s, recovery 9.400 s, findings 0, wall 20.6 s\n");
    HAS(junit, "attempt 2, iscsi-controller-pause/try-2: pass (exit 0), failing none; stall "
               "4.120 s, recovery 4.300 s, findings 0, wall 20.9 s\n");

    HAS(txt, "PASS, 1 of 1 met (1 flaky)");
    HAS(txt, "\nflaky (missed on timing, then met on a retry):\n"
             "  iscsi-controller-pause: try-1 failed on freeze-a:stall, a timing rule\n"
             "    try-1 iscsi-controller-pause/try-1: fail (exit 1)");
    HAS(txt, "    try-2 iscsi-controller-pause/try-2: pass (exit 0)");
    HAS(txt, "pause ctrl-a, kill ctrl-a");

    balanced(html);
    HAS(html, "<span class=\"badge flaky\">flaky</span>");
    HAS(html, "<h2>Flaky: met on a retry</h2>");
    HAS(html, "<a href=\"iscsi-controller-pause/try-1/report.html\">"
              "iscsi-controller-pause/try-1</a>");
    HAS(html, "<a href=\"iscsi-controller-pause/try-2/report.html\">"
              "iscsi-controller-pause/try-2</a>");
    HAS(html, "<th class=\"row\">pause +1</th>"); /* two faults: the first's row, +1 */
    HAS(html, "freeze-a:stall <span class=\"small\">(timing only)</span>");
    free(junit);
    free(txt);
    free(html);
    free(json);
    remove_dir(dir);
}

/* Numbers not measured are unknown, never 0; a scenario that could not
 * run is an error. */
static void numbers_not_measured(void **state)
{
    (void)state;
    char dir[256];
    fresh_dir(dir, sizeof dir);
    struct sc mds = brick_gluster;
    mds.name = "cephfs-mds-power";
    mds.lab = "\"ceph\"";
    mds.use = "rebuilt";
    mds.faults = "{\"name\": \"power-cs1\", \"action\": \"power-off\", \"host\": \"cs1\"}";
    mds.outcome = "error";
    mds.why = "\"lab up failed: ceph-mon of cs1 did not start within 120 s\"";
    mds.verdict = "null";
    mds.exit = "2";
    mds.stall = mds.recovery = mds.heal = mds.recover = mds.findings = "null";
    mds.wall = "0";
    mds.report = "null";
    mds.attempts = "";
    const struct sc x[] = {mds};
    const unsigned counts[4] = {0, 0, 0, 1};
    char *json = suite_json("fail", "null", 1, 1, counts, x, 1);
    write_in(dir, "suite.json", json);
    free(render(dir));
    char *junit = read_in(dir, "junit.xml"), *txt = read_in(dir, "report.txt"),
         *html = read_in(dir, "report.html");

    junit_counts(junit, 1, 0, 1);
    HAS(junit, "<error message=\"lab up failed: ceph-mon of cs1 did not start within 120 s\" "
               "type=\"error\"/>");
    HAS(junit, "stall unknown; recovery unknown, recover unknown; findings unknown");

    HAS(txt, "power-off cs1 no report error");
    HAS(txt, "unknown unknown, recover unknown");
    HAS(txt, "\ncould not run:\n  cephfs-mds-power: lab up failed");
    LACKS(txt, "0.000 s");

    balanced(html);
    HAS(html, "<span class=\"unk\" title=\"not measured\">unknown</span>");
    /* stall, recovery, recover and findings of the row; stall, recovery and
     * recover of the matrix' cell */
    assert_true(count(html, "title=\"not measured\">unknown<") >= 7);
    LACKS(html, "0.000&#160;s");
    HAS(html, "<span class=\"badge none\">no report</span>");
    HAS(html, "<h2>Could not run</h2>");
    HAS(html, "<th>ceph</th>");
    free(junit);
    free(txt);
    free(html);
    free(json);
    remove_dir(dir);
}

static void an_interrupted_suite(void **state)
{
    (void)state;
    char dir[256];
    fresh_dir(dir, sizeof dir);
    const struct sc x[] = {kill_iscsi};
    const unsigned counts[4] = {1, 0, 0, 0};
    char *json = suite_json("interrupted", "\"SIGINT\"", 3, 1, counts, x, 1);
    write_in(dir, "suite.json", json);
    free(render(dir));
    char *junit = read_in(dir, "junit.xml"), *txt = read_in(dir, "report.txt"),
         *html = read_in(dir, "report.html");

    /* what did not run is not a pass: one more testcase, an error */
    junit_counts(junit, 2, 0, 1);
    HAS(junit, "<testcase classname=\"faultline.suite\" name=\"suite\" time=\"312.500\">\n"
               "      <error message=\"interrupted by SIGINT: 1 of 3 scenarios ran\" "
               "type=\"interrupted\"/>");
    HAS(junit, "<property name=\"verdict\" value=\"interrupted\"/>");

    HAS(txt, "faultline suite: INTERRUPTED, 1 of 3 met");
    HAS(txt, "\ninterrupted by SIGINT: 1 of 3 scenarios ran\n");

    balanced(html);
    HAS(html, "<span class=\"verdict v-interrupted\">INTERRUPTED</span>");
    HAS(html, "<p class=\"note\">Interrupted by SIGINT: 1 of 3 scenarios ran.</p>");
    free(junit);
    free(txt);
    free(html);
    free(json);
    remove_dir(dir);
}

/* < > & " ' in names, reasons, descriptions and directories: escaped in
 * the XML and the page, percent-encoded in links. */
static void special_characters_are_escaped(void **state)
{
    (void)state;
    char dir[256];
    fresh_dir(dir, sizeof dir);
    struct sc odd = brick_gluster;
    odd.name = "a<b>&\\\"c'd";
    odd.lab = "\"glu<ster\"";
    odd.faults = "{\"name\": \"f<1>\", \"action\": \"kill\", \"host\": \"gs&1\"}";
    odd.outcome = "not-met";
    odd.why = "\"stall 9 s > 5 s & \\\"worse\\\" than 'before' <script>\"";
    odd.verdict = "\"fail\"";
    odd.exit = "1";
    odd.failing = "\"f<1>:stall\"";
    odd.description = "\"<script>alert('x')</script> & more\"";
    odd.report = "\"a<b>&\\\"c'd/try 1#x?y/report.html\"";
    odd.attempts = ATTEMPT_PASS("odd/try-1");
    const struct sc x[] = {odd};
    const unsigned counts[4] = {0, 1, 0, 0};
    char *json = suite_json("fail", "null", 1, 1, counts, x, 1);
    write_in(dir, "suite.json", json);
    free(render(dir)); /* both well-formed: xmllint */
    char *junit = read_in(dir, "junit.xml"), *txt = read_in(dir, "report.txt"),
         *html = read_in(dir, "report.html");

    junit_counts(junit, 1, 1, 0);
    HAS(junit, "classname=\"faultline.suite.glu&lt;ster\" name=\"a&lt;b&gt;&amp;&quot;c&#39;d\"");
    HAS(junit, "<failure message=\"stall 9 s &gt; 5 s &amp; &quot;worse&quot; than &#39;before"
               "&#39; &lt;script&gt;; failing: f&lt;1&gt;:stall\"");
    LACKS(junit, "<script");

    HAS(txt, "a<b>&\"c'd: stall 9 s > 5 s & \"worse\" than 'before' <script>\n");

    balanced(html);
    LACKS(html, "<script");
    LACKS(html, "a<b>");
    HAS(html, "a&lt;b&gt;&amp;&quot;c&#39;d");
    HAS(html, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; more");
    HAS(html, "<th>glu&lt;ster</th>");
    HAS(html, "<b>kill</b> gs&amp;1 <span class=\"small\">(f&lt;1&gt;)</span>");
    /* the link: every byte that is not plainly a path's percent-encoded */
    HAS(html, "<a href=\"a%3Cb%3E%26%22c%27d/try%201%23x%3Fy/report.html\">report</a>");
    free(junit);
    free(txt);
    free(html);
    free(json);
    remove_dir(dir);
}

/* suite_report_write on dir must fail with err naming `file` and saying
 * `why`, and write nothing. */
static void refused(const char *dir, const char *file, const char *why)
{
    char err[1024] = "";
    assert_int_equal(suite_report_write(dir, NULL, err, sizeof err), -1);
    if (!strstr(err, file) || !strstr(err, why))
        fail_msg("err '%s' should name %s and say '%s'", err, file, why);
    assert_false(exists_in(dir, "junit.xml"));
    assert_false(exists_in(dir, "report.txt"));
    assert_false(exists_in(dir, "report.html"));
}

static void a_bad_suite_json_is_refused(void **state)
{
    (void)state;
    char dir[256], file[300];
    fresh_dir(dir, sizeof dir);
    snprintf(file, sizeof file, "%s/suite.json", dir);
    refused(dir, file, "cannot open");
    write_in(dir, "suite.json", "{\"mode\": \"suite\", \"verdict\": \"pass\",");
    refused(dir, file, "not JSON: line 1");
    write_in(dir, "suite.json", "[1, 2]");
    refused(dir, file, "not a suite's report: an object was expected, not an array");
    write_in(dir, "suite.json", "{\"mode\": \"run\", \"verdict\": \"pass\"}");
    refused(dir, file, "not a suite's report: its mode is \"run\", not \"suite\"");
    write_in(dir, "suite.json", "{\"mode\": \"suite\", \"verdict\": \"pass\"}");
    refused(dir, file, "scenarios: is missing");
    write_in(dir, "suite.json", "{\"mode\": \"suite\", \"verdict\": \"maybe\", \"scenarios\": []}");
    refused(dir, file, "verdict: \"maybe\" is none of pass, fail, interrupted, error");

    struct sc bad = kill_iscsi;
    bad.stall = "\"1s\"";
    const unsigned counts[4] = {1, 0, 0, 0};
    char *json = suite_json("pass", "null", 1, 1, counts, &bad, 1);
    write_in(dir, "suite.json", json);
    free(json);
    refused(dir, file, "scenarios[0].stall_s: must be a number or null, not a string");
    bad = kill_iscsi;
    bad.outcome = "great";
    json = suite_json("pass", "null", 1, 1, counts, &bad, 1);
    write_in(dir, "suite.json", json);
    free(json);
    refused(dir, file, "scenarios[0].outcome: \"great\" is none of met, not-met, flaky, error");
    bad = kill_iscsi;
    bad.failing = "\"max_stall\", 3";
    json = suite_json("pass", "null", 1, 1, counts, &bad, 1);
    write_in(dir, "suite.json", json);
    free(json);
    refused(dir, file, "scenarios[0].failing[1]: must be a string, not a number");
    bad = kill_iscsi;
    bad.attempts = "{\"try\": 1, \"dir\": 7}";
    json = suite_json("pass", "null", 1, 1, counts, &bad, 1);
    write_in(dir, "suite.json", json);
    free(json);
    refused(dir, file, "scenarios[0].attempts[0].dir: must be a string or null, not a number");
    remove_dir(dir);
}

/* A file that cannot be put in place fails with its name; the others are
 * written all the same, and no temporary file stays. */
static void a_file_that_cannot_be_written(void **state)
{
    (void)state;
    char dir[256], sub[300];
    fresh_dir(dir, sizeof dir);
    const struct sc x[] = {smoke};
    const unsigned counts[4] = {1, 0, 0, 0};
    char *json = suite_json("pass", "null", 1, 1, counts, x, 1);
    write_in(dir, "suite.json", json);
    free(json);
    /* report.html a directory with something in it: the rename fails */
    snprintf(sub, sizeof sub, "%s/report.html", dir);
    assert_int_equal(mkdir(sub, 0755), 0);
    write_in(sub, "keep", "x");
    char err[1024] = "";
    assert_int_equal(suite_report_write(dir, NULL, err, sizeof err), -1);
    HAS(err, "report.html");
    HAS(err, "cannot rename");
    assert_false(exists_in(dir, ".report.html.tmp"));
    assert_true(exists_in(dir, "junit.xml"));
    assert_true(exists_in(dir, "report.txt"));
    remove_dir(dir);
}

/* The schema's fixture, a realistic suite of fifteen scenarios. */
static void the_fixture_renders(void **state)
{
    (void)state;
    char dir[256], src[2048];
    const char *slash = strrchr(__FILE__, '/');
    snprintf(src, sizeof src, "%.*s/../fixtures/suite/suite.json",
             slash ? (int)(slash - __FILE__) : 1, slash ? __FILE__ : ".");
    fresh_dir(dir, sizeof dir);
    char *json = slurp(src);
    write_in(dir, "suite.json", json);
    free(json);
    free(render(dir));
    char *junit = read_in(dir, "junit.xml"), *txt = read_in(dir, "report.txt"),
         *html = read_in(dir, "report.html");
    junit_counts(junit, 15, 1, 1);
    HAS(txt, "faultline suite: FAIL, 13 of 15 met (1 flaky), 1 not met, 1 error\n");
    balanced(html);
    /* GlusterFS and CephFS side by side, under the same outages */
    const char *i = strstr(html, "<th>iscsi</th>"), *g = strstr(html, "<th>gluster</th>"),
               *c = strstr(html, "<th>ceph</th>"), *n = strstr(html, "<th>cluster/none</th>");
    assert_true(i && g && c && n && i < g && g < c && c < n);
    const char *rows[] = {"kill", "pause +1", "power-off", "switch-down", "partition",
                          "corrupt", "corrupt +1", "no fault"};
    const char *last = html;
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        char th[64];
        snprintf(th, sizeof th, "<th class=\"row\">%s</th>", rows[k]);
        const char *at = strstr(html, th);
        if (!at || at < last)
            fail_msg("the matrix' row %s is missing or out of order", rows[k]);
        last = at;
    }
    free(junit);
    free(txt);
    free(html);
    remove_dir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_suite_that_passed),
        cmocka_unit_test(must_fail_scenarios),
        cmocka_unit_test(a_flaky_scenario_with_two_attempts),
        cmocka_unit_test(numbers_not_measured),
        cmocka_unit_test(an_interrupted_suite),
        cmocka_unit_test(special_characters_are_escaped),
        cmocka_unit_test(a_bad_suite_json_is_refused),
        cmocka_unit_test(a_file_that_cannot_be_written),
        cmocka_unit_test(the_fixture_renders),
    };
    return cmocka_run_group_tests_name("suite_report", tests, NULL, NULL);
}
