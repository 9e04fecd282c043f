/*
 * report.html from the record (result_html.h), rendered from the run
 * directory of a real short run with one fault (tests/fixtures/run-faults:
 * its report.json, timeline.csv and resources.csv), and checked for its
 * structure: well-formed for `xmllint --html` (whose HTML 4 parser knows
 * no SVG tag, so only that complaint is let through) with its tables and
 * plots closed, the verdict badge of the record's verdict, one row per
 * expectation and per fault with its name, the throughput, latency and
 * resource plots with the fault's window, the manifest table.  Without
 * timeline.csv and resources.csv the page is the same but for the plots.
 *
 * The fixture is what `faultline run tests/fixtures/run-faults/scenario.scn`
 * wrote (its target path was under /tmp): report.json, timeline.csv and
 * resources.csv of 4 s, one [fault] of action command, 11 expectations.
 * Made again, the checks hold as they are.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../harness/report/result.h"
#include "../../harness/report/result_html.h"

static const char *const fixture_files[] = {"report.json", "timeline.csv", "resources.csv"};

/* The fixture's directory, next to this file's. */
static void fixture_dir(char *out, size_t n)
{
    const char *slash = strrchr(__FILE__, '/');
    snprintf(out, n, "%.*s/../fixtures/run-faults", slash ? (int)(slash - __FILE__) : 1,
             slash ? __FILE__ : ".");
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
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

/* A copy of the fixture in a directory of its own (the page is written
 * there), with the first `keep` files of fixture_files. */
static void copy_fixture(char *dir, size_t n, size_t keep)
{
    snprintf(dir, n, "%s/html-result-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    assert_non_null(mkdtemp(dir));
    char from[4200], to[4200], src[2048];
    fixture_dir(src, sizeof src);
    for (size_t i = 0; i < keep; i++) {
        snprintf(from, sizeof from, "%s/%s", src, fixture_files[i]);
        snprintf(to, sizeof to, "%s/%s", dir, fixture_files[i]);
        char *text = slurp(from);
        FILE *f = fopen(to, "w");
        assert_non_null(f);
        fputs(text, f);
        assert_int_equal(fclose(f), 0);
        free(text);
    }
}

static void remove_dir(const char *dir)
{
    char path[4096];
    const char *names[] = {"report.json", "timeline.csv", "resources.csv", "report.html"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

/* s as HTML text: < > & " ' escaped. */
static void escaped(const char *s, char *out, size_t n)
{
    size_t k = 0;
    for (; *s && k + 7 < n; s++) {
        const char *e = *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : *s == '&' ? "&amp;"
                      : *s == '"' ? "&quot;" : *s == '\'' ? "&#39;" : NULL;
        if (e)
            k += (size_t)snprintf(out + k, n - k, "%s", e);
        else
            out[k++] = *s;
    }
    out[k] = '\0';
}

static size_t count(const char *text, const char *what)
{
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, what)) != NULL; p += strlen(what))
        n++;
    return n;
}

/* The text from `from` up to the end of its first table (a copy). */
static char *section(const char *html, const char *from)
{
    const char *a = strstr(html, from);
    assert_non_null(a);
    const char *b = strstr(a, "</table>");
    assert_non_null(b);
    return strndup(a, (size_t)(b - a));
}

/* xmllint --html finds nothing wrong but SVG's tags, which it does not know. */
static void well_formed(const char *path)
{
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "xmllint --html --noout '%s' 2>&1; echo \"exit $?\"", path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char line[4096];
    bool exited = false;
    while (fgets(line, sizeof line, p)) {
        if (strncmp(line, "exit ", 5) == 0) {
            assert_string_equal(line, "exit 0\n");
            exited = true;
        } else if (strstr(line, "error") || strstr(line, "warning")) {
            char tag[64];
            const char *t = strstr(line, "Tag ");
            if (!(t && sscanf(t, "Tag %63s invalid", tag) == 1)) {
                fprintf(stderr, "xmllint: %s", line);
                fail();
            }
        }
    }
    pclose(p);
    assert_true(exited);
}

/* Every table, row and plot that opens closes. */
static void balanced(const char *html)
{
    const char *const pairs[][2] = {{"<table", "</table>"}, {"<tr", "</tr>"},
                                    {"<svg ", "</svg>"},    {"<h2>", "</h2>"},
                                    {"<div ", "</div>"},    {"<html", "</html>"}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        assert_int_equal(count(html, pairs[i][0]), count(html, pairs[i][1]));
}

static char *render(const char *dir, struct result *res)
{
    char err[512] = "", path[4200];
    if (result_read(dir, res, err, sizeof err) != 0)
        fail_msg("result_read: %s", err);
    if (result_write_html(res, dir, err, sizeof err) != 0)
        fail_msg("result_write_html: %s", err);
    snprintf(path, sizeof path, "%s/report.html", dir);
    well_formed(path);
    return slurp(path);
}

/* What the page says without the plots: verdict, expectations, faults,
 * findings, manifest. */
static void tables(const char *html, const struct result *res)
{
    balanced(html);
    assert_non_null(strstr(html, "<!DOCTYPE html>"));
    char badge[128], up[32] = "";
    for (size_t i = 0; res->verdict[i] && i + 1 < sizeof up; i++)
        up[i] = (char)(res->verdict[i] - 'a' + 'A'), up[i + 1] = '\0';
    snprintf(badge, sizeof badge, "<h1><span class=\"verdict v-%s\">%s</span>%s</h1>",
             res->verdict, up, res->scenario);
    assert_non_null(strstr(html, badge));
    /* one row per expectation, each with its rule */
    assert_true(res->nexpect > 0);
    char head[128];
    snprintf(head, sizeof head, "<h2>Expectations: %zu of %zu hold</h2>",
             res->nexpect - res->failed, res->nexpect);
    char *ex = section(html, head);
    assert_int_equal(count(ex, "<tr class="), res->nexpect);
    assert_int_equal(count(ex, "<span class=\"badge "), res->nexpect);
    for (size_t i = 0; i < res->nexpect; i++) {
        char code[512], text[400];
        escaped(res->expect[i].text, text, sizeof text);
        snprintf(code, sizeof code, "<code>%s</code>", text);
        assert_non_null(strstr(ex, code));
    }
    free(ex);
    /* one row per fault, with its name */
    assert_true(res->nfaults > 0);
    char *fa = section(html, "<h2>Faults</h2>");
    assert_int_equal(count(fa, "<tr"), res->nfaults + 1);
    for (size_t i = 0; i < res->nfaults; i++) {
        char cell[256];
        snprintf(cell, sizeof cell, "<td>%s<br><span class=\"small\">%s</span></td>",
                 res->faults[i].name, res->faults[i].action);
        assert_non_null(strstr(fa, cell));
    }
    assert_non_null(strstr(fa, "<p>Baseline "));
    free(fa);
    char *fi = section(html, "<h2>Findings</h2>");
    assert_int_equal(count(fi, "<th>"), RESULT_CLASSES);
    free(fi);
    /* the manifest table, a row each */
    assert_non_null(res->manifest);
    char *ma = section(html, "<h2>Manifest</h2>");
    const char *const rows[] = {"<tr><td>faultline</td>", "<tr><td>machine</td>",
                                "<tr><td>target</td><td>file: <code>", "<tr><td>versions</td>",
                                "<tr><td>scenario</td><td>sha256 ", "<tr><td>hosts</td>"};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        assert_non_null(strstr(ma, rows[i]));
    free(ma);
}

static void test_run_page(void **state)
{
    (void)state;
    char dir[4096];
    copy_fixture(dir, sizeof dir, 3);
    struct result res;
    char *html = render(dir, &res);
    tables(html, &res);
    /* the plots: throughput, latency, then the resources, each with the
     * fault's window shaded and named */
    const char *const titles[] = {"<title>throughput over time</title>",
                                  "<title>latency per bucket over time: p50, p99 and max</title>",
                                  "<h2>Host resources</h2>", "<title>disk throughput over time",
                                  "<title>disk queue depth over time"};
    for (size_t i = 0; i < sizeof titles / sizeof titles[0]; i++)
        assert_non_null(strstr(html, titles[i]));
    size_t plots = count(html, "<svg ");
    assert_true(plots >= 4);
    char window[256];
    snprintf(window, sizeof window, "<title>%s (%s): ", res.faults[0].name,
             res.faults[0].action);
    assert_int_equal(count(html, window), plots);
    /* a point per bucket of the workload (timeline.csv's rows up to its end) */
    const char *iops = strstr(html, "<polyline class=\"iops\"");
    assert_non_null(iops);
    char *points = strndup(iops, (size_t)(strstr(iops, "/>") - iops));
    assert_int_equal(count(points, ","), 40);
    free(points);
    assert_non_null(strstr(html, "<h2>Latency (p50, p99 and slowest I/O per 100 ms)</h2>"));
    free(html);
    result_free(&res);
    remove_dir(dir);
}

/* Without the CSVs: no plot, the rest as it was. */
static void test_no_series(void **state)
{
    (void)state;
    char dir[4096];
    copy_fixture(dir, sizeof dir, 1);
    struct result res;
    char *html = render(dir, &res);
    tables(html, &res);
    assert_int_equal(count(html, "<svg "), 0);
    assert_null(strstr(html, "<h2>Throughput</h2>"));
    free(html);
    result_free(&res);
    remove_dir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_page),
        cmocka_unit_test(test_no_series),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
