/*
 * result_junit — junit.xml from the record: the run as a test suite a CI
 * system can read (see result_render.h).
 *
 * One testcase per expectation (the integrity rules included) and one per
 * fault; a rule that did not hold is a <failure> whose message carries the
 * measured value, a fault that did not happen as written (not injected,
 * never answered, its clear failed) is an <error>.  A run that could not
 * go on at all, or was interrupted, adds a testcase "run" with an <error>.
 */
#include "result_render.h"

#include <inttypes.h>
#include <limits.h>
#include <string.h>

static bool names(const struct result_expect *x, const struct result_fault *f)
{
    return x->fault && strcmp(x->fault, f->name) == 0;
}

/* The expectations that name fault f, failed ones counted in *failed. */
static void fault_rules(const struct result *res, const struct result_fault *f, size_t *n,
                        size_t *failed)
{
    *n = *failed = 0;
    for (size_t k = 0; k < res->nexpect; k++)
        if (names(&res->expect[k], f)) {
            (*n)++;
            *failed += !res->expect[k].pass;
        }
}

/* One expectation as a testcase: its measured value, or its failure. */
static void junit_expectation(FILE *f, const struct result *res, const char *cls,
                              const struct result_expect *x)
{
    char name[160], value[64], line[300];
    if (x->fault)
        snprintf(name, sizeof name, "[fault %s] %s", x->fault, x->text);
    else
        snprintf(name, sizeof name, "%s", x->text);
    result_expect_value(x, value, sizeof value);
    fprintf(f, "    <testcase classname=\"");
    report_escape(f, cls);
    fprintf(f, ".expect\" name=\"");
    report_escape(f, name);
    fprintf(f, "\" time=\"0\"");
    if (x->pass) {
        fprintf(f, ">\n      <system-out>measured ");
        report_escape(f, value);
        fprintf(f, "</system-out>\n    </testcase>\n");
        return;
    }
    result_expect_describe(x, line, sizeof line);
    fprintf(f, ">\n      <failure message=\"measured ");
    report_escape(f, value);
    fprintf(f, ", expected ");
    report_escape(f, x->text);
    fprintf(f, "\" type=\"%s\">", x->line ? "expectation" : "integrity");
    report_escape(f, line);
    if (x->line)
        fprintf(f, " (%s:%d)", res->scenario_file, x->line);
    fprintf(f, "</failure>\n    </testcase>\n");
}

/* What fault x did, and what it cost, as its testcase's output. */
static void junit_fault_out(FILE *f, const struct result *res, const struct result_fault *x)
{
    fprintf(f, "      <system-out>");
    char what[1400];
    if (!x->applied)
        snprintf(what, sizeof what, "planned: %s; not injected", x->detail);
    else if (x->cleared_at.known && x->cleared_at.s > x->injected_at.s)
        snprintf(what, sizeof what, "%s; injected at %.3f s, cleared at %.3f s%s", x->detail,
                 x->injected_at.s, x->cleared_at.s, x->clear_failed ? " (its clear failed)" : "");
    else
        snprintf(what, sizeof what, "%s; injected at %.3f s", x->detail, x->injected_at.s);
    report_escape(f, what);
    if (res->outage && x->analysed) {
        fprintf(f, "; stall %.3f s, %" PRIu64 " errors, slowest I/O %.3f s", x->stall.s,
                x->errors, x->max_latency_s);
        if (x->clear_failed)
            fprintf(f, ", no recovery claimed (its clear failed)");
        else if (x->recovery.known)
            fprintf(f, ", recovered after %.3f s", x->recovery.s);
        else
            fprintf(f, ", not recovered");
    }
    fprintf(f, "</system-out>\n    </testcase>\n");
}

/* Fault x as a testcase: an error when it did not happen as written, a
 * failure when an expectation of it failed. */
static void junit_fault(FILE *f, const struct result *res, const char *cls,
                        const struct result_fault *x)
{
    size_t n, bad;
    fault_rules(res, x, &n, &bad);
    fprintf(f, "    <testcase classname=\"");
    report_escape(f, cls);
    fprintf(f, ".fault\" name=\"");
    report_escape(f, x->name);
    fprintf(f, " (%s on %s)\" time=\"%.3f\">\n", x->action, x->host,
            res->outage && x->recovery.known ? x->recovery.s : 0.0);
    if (!x->happened) { /* it did not happen as written: nothing was tested of it */
        fprintf(f, "      <error message=\"not as written: ");
        report_escape(f, x->not_happened_why ? x->not_happened_why : "");
        fprintf(f, "\" type=\"fault\"/>\n");
    } else if (bad) {
        fprintf(f, "      <failure message=\"%zu of %zu expectations of this fault failed\" "
                   "type=\"expectation\">", bad, n);
        for (size_t k = 0; k < res->nexpect; k++) {
            const struct result_expect *e = &res->expect[k];
            char line[300];
            if (!names(e, x) || e->pass)
                continue;
            result_expect_describe(e, line, sizeof line);
            report_escape(f, line);
            fputs("; ", f);
        }
        fprintf(f, "</failure>\n");
    }
    junit_fault_out(f, res, x);
}

/* The <testsuites> and <testsuite> elements' opening, with the counts and
 * the run's properties. */
static void junit_head(FILE *f, const struct result *res, size_t tests, size_t failures,
                       size_t errors, double total)
{
    char stamp[32]; /* started_at without its zone letter */
    snprintf(stamp, sizeof stamp, "%.19s", res->started_at);
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f, "<testsuites name=\"faultline\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
               "time=\"%.3f\">\n", tests, failures, errors, total);
    fprintf(f, "  <testsuite name=\"");
    report_escape(f, res->scenario);
    fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"0\" time=\"%.3f\" "
               "timestamp=\"%s\">\n", tests, failures, errors, total, stamp);
    fprintf(f, "    <properties>\n");
    fprintf(f, "      <property name=\"verdict\" value=\"%s\"/>\n", res->verdict);
    fprintf(f, "      <property name=\"mode\" value=\"%s\"/>\n", res->mode);
    fprintf(f, "      <property name=\"run_id\" value=\"%s\"/>\n", res->run_id);
    fprintf(f, "      <property name=\"seed\" value=\"%" PRIu64 "\"/>\n", res->seed);
    fprintf(f, "      <property name=\"scenario_file\" value=\"");
    report_escape(f, res->scenario_file);
    fprintf(f, "\"/>\n    </properties>\n");
}

/* A run that could not go on, or was interrupted, is one more testcase,
 * an error: what did not run is not a pass. */
static void run_error(const struct result *res, char *out, size_t n)
{
    out[0] = '\0';
    if (res->error)
        snprintf(out, n, "%s", res->error);
    else if (res->interrupted)
        snprintf(out, n, "interrupted by %s: the %s was cut short", res->interrupted_by,
                 strcmp(res->mode, "run") == 0 ? "run" : "verify pass");
}

int result_write_junit(const struct result *res, const char *dir, char *err, size_t errlen)
{
    char tmp[PATH_MAX + 64];
    FILE *f = report_open_tmp(dir, "junit.xml", tmp, sizeof tmp, err, errlen);
    if (!f)
        return -1;
    char error[4096];
    run_error(res, error, sizeof error);
    size_t tests = res->nexpect + res->nfaults + (error[0] ? 1 : 0);
    size_t failures = res->failed, errors = error[0] ? 1 : 0;
    for (size_t i = 0; i < res->nfaults; i++) {
        size_t n, bad;
        fault_rules(res, &res->faults[i], &n, &bad);
        if (!res->faults[i].happened)
            errors++;
        else if (bad)
            failures++;
    }
    double total = result_secs(&res->io);
    junit_head(f, res, tests, failures, errors, total);
    char cls[200];
    snprintf(cls, sizeof cls, "faultline.%s", res->scenario);
    if (error[0]) {
        fprintf(f, "    <testcase classname=\"");
        report_escape(f, cls);
        fprintf(f, "\" name=\"run\" time=\"%.3f\">\n      <error message=\"", total);
        report_escape(f, error);
        fprintf(f, "\" type=\"%s\"/>\n    </testcase>\n", res->error ? "error" : "interrupted");
    }
    for (size_t i = 0; i < res->nexpect; i++)
        junit_expectation(f, res, cls, &res->expect[i]);
    for (size_t i = 0; i < res->nfaults; i++)
        junit_fault(f, res, cls, &res->faults[i]);
    fprintf(f, "  </testsuite>\n</testsuites>\n");
    return report_install(f, tmp, dir, "junit.xml", err, errlen);
}
