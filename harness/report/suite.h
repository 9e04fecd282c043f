/*
 * suite — a suite's suite.json as one plain record, and what its three
 * renderers (report.txt, junit.xml, report.html) share.
 *
 * `faultline suite` (harness/run) runs many scenarios and writes
 * DIR/suite.json: the suite's totals and one entry per scenario with its
 * outcome against what it expected (met, not-met, flaky, error), the last
 * attempt's numbers and every attempt.  suite_read maps that document
 * onto struct suite (suite_read.c); the renderers tell the record and
 * nothing else (suite_text.c, suite_junit.c, suite_html*.c), so a suite's
 * reports can be written again from its suite.json alone
 * (suite_report.h).  The fields are docs/suite.schema.json's.
 *
 * The strings point into the parsed document, which the record keeps
 * (suite_free frees both).  A number suite.json gives as null, or leaves
 * out, is not known (struct suite_num): the reports say "unknown", never
 * 0, since a stall that was not measured is not a stall of 0 s.
 */
#ifndef FL_SUITE_H
#define FL_SUITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct jv; /* ../../lib/jread.h */

/* A number that may not have been measured (null). */
struct suite_num {
    bool known;
    double v;
};

/* An array of strings ("failing", "expect_failing"). */
struct suite_list {
    const char **s;
    size_t n;
};

/* One fault of a scenario, as the scenario wrote it. */
struct suite_fault {
    const char *name, *action, *host; /* never NULL ("" when absent) */
};

/* Whether a scenario came out as it expected (its "outcome"). */
enum suite_outcome {
    SUITE_MET,      /* as expected, at the first attempt */
    SUITE_NOT_MET,  /* not as expected */
    SUITE_FLAKY,    /* missed on timing only, then met on a retry (counts as met) */
    SUITE_ERROR,    /* could not run */
};

/* One attempt (a whole `faultline run` in DIR/NAME/try-K). */
struct suite_attempt {
    unsigned try_no;
    const char *dir;              /* relative to the suite's directory; "" when absent */
    const char *verdict;          /* NULL: none (it wrote no report) */
    struct suite_num exit;
    struct suite_list failing;    /* its failed rules ("max_stall", "kill-gs2:stall") */
    bool timing_only;             /* it failed on timing rules alone */
    struct suite_num stall, recovery, heal, recover, findings, wall;
};

/* One scenario of the suite. */
struct suite_scenario {
    const char *name, *file, *dir;            /* never NULL */
    const char *description;                  /* NULL: none */
    const char *lab;                          /* the lab kind; NULL: none ([host]s, a file) */
    const char *lab_prefix, *lab_settings;    /* NULL: none */
    const char *lab_use;                      /* up, shared, rebuilt, none; never NULL */
    const char *lab_health;                   /* NULL: not looked at */
    struct suite_fault *faults;
    size_t nfaults;
    const char *expect_verdict;               /* "pass" or "fail"; never NULL */
    struct suite_list expect_failing;         /* "lost_writes", "stale_reads?" */
    enum suite_outcome outcome;
    bool met;
    const char *why;                          /* why not met (flaky: what missed); NULL */
    const char *verdict;                      /* the last attempt's; NULL: none */
    struct suite_num exit;
    struct suite_list failing;                /* the last attempt's failed rules */
    struct suite_num stall, recovery, heal, recover, findings, reverted, wall;
    const char *report_html;                  /* relative to the suite's directory; NULL */
    struct suite_attempt *attempts;
    size_t nattempts;
};

struct suite {
    struct jv *doc;               /* the parsed suite.json, which the strings point into */
    const char *faultline;        /* the version; "" when absent */
    const char *started_at;       /* ISO 8601 UTC; "" when absent */
    const char *verdict;          /* pass, fail, interrupted, error */
    const char *interrupted_by;   /* "SIGINT"...; NULL: not interrupted */
    struct suite_num wall, retry_timing;
    struct suite_num total, ran, met, not_met, flaky, errors;
    struct suite_num lab_ups, lab_shared, lab_up_s, lab_down_s;
    struct suite_scenario *sc;
    size_t n;
};

/* Reads DIR/suite.json into s.  0, or -1 with err naming the file and
 * what is wrong in it (by its JSON path: "scenarios[2].outcome");
 * suite_free(s) either way. */
int suite_read(const char *dir, struct suite *s, char *err, size_t errlen);

/* The same from a document already parsed (suite_read's second half; the
 * record takes doc over, and frees it in suite_free).  `file` names it in
 * err. */
int suite_from_json(struct jv *doc, const char *file, struct suite *s, char *err, size_t errlen);

void suite_free(struct suite *s);

/* --- what the renderers share (suite_words.c) */

/* The scenarios of the suite by lab kind: the kinds present, in the order
 * iscsi, gluster, ceph, any other (by name), then none (lab null).
 * kinds[k] is the kind's name, NULL for none.  Returns how many (at most
 * max). */
size_t suite_kinds(const struct suite *s, const char **kinds, size_t max);

/* Whether scenario x is of kind (NULL: none). */
bool suite_of_kind(const struct suite_scenario *x, const char *kind);

/* A kind for people: its name, or "cluster/none" for NULL. */
const char *suite_kind_label(const char *kind);

/* "met", "fail as expected" (met with expect_verdict fail), "NOT MET",
 * "flaky", "error". */
const char *suite_met_word(const struct suite_scenario *x);

/* The outcome's word in suite.json: "met", "not-met", "flaky", "error". */
const char *suite_outcome_name(enum suite_outcome o);

/* The scenario's faults as "kill gs2, power-off gs3" ("no fault" for
 * none). */
void suite_faults_text(const struct suite_scenario *x, char *out, size_t n);

/* A value for people: seconds as "1.234 s", a count as "12", "unknown"
 * when it was not measured. */
void suite_fmt_secs(struct suite_num v, char *out, size_t n);
void suite_fmt_count(struct suite_num v, char *out, size_t n);

/* A long duration (a whole suite's wall time): "12.3 s", "4 min 05 s",
 * "1 h 02 min"; "unknown". */
void suite_fmt_duration(struct suite_num v, char *out, size_t n);

/* A list joined by ", " ("none" when empty). */
void suite_list_text(const struct suite_list *l, char *out, size_t n);

/* recovery, and heal and recover where measured or expected (a gluster
 * lab heals, a ceph lab recovers): "4.200 s", "4.200 s, heal 12.000 s",
 * "unknown, recover unknown". */
void suite_recovery_text(const struct suite_scenario *x, char *out, size_t n);

/* One attempt in a line: "fail (exit 1), failing kill-gs2:stall (timing
 * only); stall 9.100 s, recovery unknown, heal 12.000 s, findings 0, wall
 * 30.2 s" (heal and recover as suite_recovery_text has them, for the
 * scenario's lab kind). */
void suite_attempt_text(const struct suite_attempt *a, const char *lab, char *out, size_t n);

/* What a scenario expected and what it got: "expected: fail, failing
 * lost_writes, stale_reads?; got: fail (exit 1), failing max_stall". */
void suite_expected_text(const struct suite_scenario *x, char *out, size_t n);

/* The files: report.txt, junit.xml, report.html in dir.  0, or -1 with
 * err.  suite_text also prints to any FILE (the console). */
void suite_text(FILE *f, const struct suite *s);
int suite_write_text(const struct suite *s, const char *dir, char *err, size_t errlen);
int suite_write_junit(const struct suite *s, const char *dir, char *err, size_t errlen);
int suite_write_html(const struct suite *s, const char *dir, char *err, size_t errlen);

/* Renders with `render` into DIR/.NAME.tmp, renamed to DIR/NAME once
 * whole; on any failure the temporary file is removed and DIR/NAME is
 * left as it was.  0, or -1 with err. */
int suite_write_file(const struct suite *s, const char *dir, const char *name,
                     void (*render)(FILE *f, const struct suite *s), char *err, size_t errlen);

#endif
