/*
 * report_junit — junit.xml: the run as a test suite a CI system can read.
 *
 * One testcase per expectation (the integrity rules included) and one per
 * fault; a rule that did not hold is a <failure> whose message carries the
 * measured value, a fault that did not happen as written (not injected,
 * never answered, its clear failed) is an <error>.  A run that could not
 * go on at all, or was interrupted, adds a testcase "run" with an <error>.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "report.h"

/* The expectations that name fault i, failed ones counted in *failed. */
static void fault_rules(const struct report *r, unsigned i, size_t *n, size_t *failed)
{
    *n = *failed = 0;
    for (size_t k = 0; r->verdict && k < r->verdict->n; k++)
        if (r->verdict->results[k].rule.fault == (int)i) {
            (*n)++;
            *failed += !r->verdict->results[k].pass;
        }
}

/* One expectation as a testcase: its measured value, or its failure. */
static void junit_expectation(FILE *f, const struct report *r, const char *cls,
                              const struct expect_result *x)
{
    char name[160], value[64], line[300];
    if (x->rule.fault >= 0 && (unsigned)x->rule.fault < r->nfaults)
        snprintf(name, sizeof name, "[fault %s] %s", r->faults[x->rule.fault].spec.name,
                 x->rule.text);
    else
        snprintf(name, sizeof name, "%s", x->rule.text);
    verdict_value(x, value, sizeof value);
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
    verdict_describe(x, line, sizeof line);
    fprintf(f, ">\n      <failure message=\"measured ");
    report_escape(f, value);
    fprintf(f, ", expected ");
    report_escape(f, x->rule.text);
    fprintf(f, "\" type=\"%s\">", x->rule.line ? "expectation" : "integrity");
    report_escape(f, line);
    if (x->rule.line)
        fprintf(f, " (%s:%d)", r->sc->file, x->rule.line);
    fprintf(f, "</failure>\n    </testcase>\n");
}

/* What fault i did, and what it cost, as its testcase's output. */
static void junit_fault_out(FILE *f, const struct fault *x, const struct recovery *rc)
{
    fprintf(f, "      <system-out>");
    char what[1400];
    if (!x->applied)
        snprintf(what, sizeof what, "planned: %s; not injected", x->detail);
    else if (x->cleared_ns > x->injected_ns)
        snprintf(what, sizeof what, "%s; injected at %.3f s, cleared at %.3f s%s", x->detail,
                 (double)x->injected_ns / 1e9, (double)x->cleared_ns / 1e9,
                 x->clear_failed ? " (its clear failed)" : "");
    else
        snprintf(what, sizeof what, "%s; injected at %.3f s", x->detail,
                 (double)x->injected_ns / 1e9);
    report_escape(f, what);
    if (rc && rc->injected) {
        fprintf(f, "; stall %.3f s, %" PRIu64 " errors, slowest I/O %.3f s", rc->stall_s,
                rc->errors, rc->max_latency_s);
        if (rc->clear_failed)
            fprintf(f, ", no recovery claimed (its clear failed)");
        else if (rc->recovered)
            fprintf(f, ", recovered after %.3f s", rc->recovery_s);
        else
            fprintf(f, ", not recovered");
    }
    fprintf(f, "</system-out>\n    </testcase>\n");
}

/* Fault i as a testcase: an error when it did not happen as written, a
 * failure when an expectation of it failed. */
static void junit_fault(FILE *f, const struct report *r, const char *cls, unsigned i)
{
    const struct fault *x = &r->faults[i];
    const struct recovery *rc = r->recovery ? &r->recovery[i] : NULL;
    size_t n, bad;
    fault_rules(r, i, &n, &bad);
    fprintf(f, "    <testcase classname=\"");
    report_escape(f, cls);
    fprintf(f, ".fault\" name=\"");
    report_escape(f, x->spec.name);
    fprintf(f, " (%s on %s)\" time=\"%.3f\">\n", x->ops->action, x->spec.host,
            rc && rc->recovered ? rc->recovery_s : 0.0);
    const struct fault_miss *miss = report_missed(r, i);
    if (miss) { /* it did not happen as written: nothing was tested of it */
        fprintf(f, "      <error message=\"not as written: ");
        report_escape(f, miss->why);
        fprintf(f, "\" type=\"fault\"/>\n");
    } else if (bad) {
        fprintf(f, "      <failure message=\"%zu of %zu expectations of this fault failed\" "
                   "type=\"expectation\">", bad, n);
        for (size_t k = 0; k < r->verdict->n; k++) {
            const struct expect_result *e = &r->verdict->results[k];
            char line[300];
            if (e->rule.fault != (int)i || e->pass)
                continue;
            verdict_describe(e, line, sizeof line);
            report_escape(f, line);
            fputs("; ", f);
        }
        fprintf(f, "</failure>\n");
    }
    junit_fault_out(f, x, rc);
}

/* The <testsuites> and <testsuite> elements' opening, with the counts and
 * the run's properties. */
static void junit_head(FILE *f, const struct report *r, size_t tests, size_t failures,
                       size_t errors, double total)
{
    char stamp[32];
    time_t t = (time_t)(r->meta->start_wall_ns / 1000000000ull);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);

    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f, "<testsuites name=\"faultline\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
               "time=\"%.3f\">\n", tests, failures, errors, total);
    fprintf(f, "  <testsuite name=\"");
    report_escape(f, r->sc->name);
    fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"0\" time=\"%.3f\" "
               "timestamp=\"%s\">\n", tests, failures, errors, total, stamp);
    fprintf(f, "    <properties>\n");
    fprintf(f, "      <property name=\"verdict\" value=\"%s\"/>\n", report_verdict(r));
    fprintf(f, "      <property name=\"mode\" value=\"%s\"/>\n", r->mode);
    fprintf(f, "      <property name=\"run_id\" value=\"%016" PRIx64 "\"/>\n", r->meta->run_id);
    fprintf(f, "      <property name=\"seed\" value=\"%" PRIu64 "\"/>\n", r->seed);
    fprintf(f, "      <property name=\"scenario_file\" value=\"");
    report_escape(f, r->sc->file);
    fprintf(f, "\"/>\n    </properties>\n");
}

int report_write_junit(const struct report *r, char *err, size_t errlen)
{
    char tmp[PATH_MAX + 64];
    FILE *f = report_open_tmp(r->dir, "junit.xml", tmp, sizeof tmp, err, errlen);
    if (!f)
        return -1;
    /* A run that could not go on, or was interrupted, is one more testcase,
     * an error: what did not run is not a pass. */
    char run_error[4096] = "";
    if (r->error)
        snprintf(run_error, sizeof run_error, "%s", r->error);
    else if (r->interrupted)
        snprintf(run_error, sizeof run_error, "interrupted by %s: the %s was cut short",
                 report_signal_name(r->interrupt_signal),
                 strcmp(r->mode, "run") == 0 ? "run" : "verify pass");
    size_t tests = (r->verdict ? r->verdict->n : 0) + r->nfaults + (run_error[0] ? 1 : 0);
    size_t failures = r->verdict ? r->verdict->failed : 0, errors = run_error[0] ? 1 : 0;
    for (unsigned i = 0; i < r->nfaults; i++) {
        size_t n, bad;
        fault_rules(r, i, &n, &bad);
        if (report_missed(r, i))
            errors++;
        else if (bad)
            failures++;
    }
    double total = (double)(r->io ? r->io->ns : 0) / 1e9;
    junit_head(f, r, tests, failures, errors, total);
    char cls[200];
    snprintf(cls, sizeof cls, "faultline.%s", r->sc->name);
    if (run_error[0]) {
        fprintf(f, "    <testcase classname=\"");
        report_escape(f, cls);
        fprintf(f, "\" name=\"run\" time=\"%.3f\">\n      <error message=\"", total);
        report_escape(f, run_error);
        fprintf(f, "\" type=\"%s\"/>\n    </testcase>\n", r->error ? "error" : "interrupted");
    }
    for (size_t i = 0; r->verdict && i < r->verdict->n; i++)
        junit_expectation(f, r, cls, &r->verdict->results[i]);
    for (unsigned i = 0; i < r->nfaults; i++)
        junit_fault(f, r, cls, i);
    fprintf(f, "  </testsuite>\n</testsuites>\n");
    return report_install(f, tmp, r->dir, "junit.xml", err, errlen);
}
