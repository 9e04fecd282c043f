/*
 * suite_parts — what the files of `faultline suite` share (suite.h is the
 * verb's interface):
 *
 *   suite.c        the verb: scenarios collected and linted, each run and
 *                  judged in turn, progress, the totals
 *   suite_lab.c    the lab shared between consecutive scenarios
 *   suite_try.c    one attempt: a child `faultline run`, signals passed on
 *   suite_judge.c  an attempt's report.json judged against the expected
 *                  outcome: failed rules, timing only, met
 *   suite_json.c   DIR/suite.json
 */
#ifndef FL_SUITE_PARTS_H
#define FL_SUITE_PARTS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../lab/lab.h"
#include "../report/result.h"
#include "../scenario/scenario.h"
#include "suite.h"

/* A number of a report that may not have been measured (null). */
struct suite_num {
    bool known;
    double v;
};

/* One attempt of a scenario: a whole `faultline run`. */
struct suite_attempt {
    unsigned k;                /* 1.. */
    char dir[PATH_MAX];        /* relative to the suite's DIR: "NAME/try-K" */
    char verdict[16];          /* its report's; "": no report */
    int exit;                  /* its exit status; -1: ended by a signal */
    char **failing;            /* its failed rules: "max_stall", "kill-a:stall" */
    size_t nfailing;
    bool timing_only;          /* failed on timing rules alone: may be retried */
    struct suite_num stall, recovery, heal, recover; /* the largest of its faults' */
    uint64_t findings, reverted;
    char error[512];           /* why it could not run or be judged ("" none) */
    double wall_s;
};

/* A fault of the scenario, as written. */
struct suite_fault {
    char name[64], action[32], host[32];
};

/* One scenario of the suite, as it ran. */
struct suite_entry {
    char file[PATH_MAX];       /* as given (a folder's: FOLDER/NAME.scn) */
    char name[128];
    char dir[160];             /* relative to DIR: NAME, or NAME-2 for the second of a name */
    char description[256];     /* "": none */
    char lab[16];              /* the lab kind the suite gave it; "": none */
    char lab_prefix[9];
    char lab_settings[1024];
    char lab_use[8];           /* "up", "shared", "rebuilt", "none" */
    char lab_health[1200];     /* "": null */
    struct suite_fault faults[FL_MAX_FAULTS];
    unsigned nfaults;
    bool expect_fail;
    struct expect_failing failing[SCENARIO_MAX_FAILING];
    unsigned nfailing;
    const char *outcome;       /* "met", "not-met", "flaky", "error" */
    bool met;
    char why[1024];            /* "": null */
    struct suite_attempt *tries;
    unsigned ntries;
    double wall_s;             /* every attempt's, lab work left out */
};

/* The lab the suite holds up, and what it cost. */
struct suite_lab {
    struct lab *lab;           /* NULL: none up */
    bool ours;                 /* brought up by the suite: taken down at the end */
    unsigned ups, shared;
    double up_s, down_s;
};

struct suite {
    const struct suite_opts *o;
    char dir[PATH_MAX];
    char **files;              /* every scenario file, in order */
    unsigned total;
    struct suite_entry *e;     /* those that ran (ran of them) */
    unsigned ran;
    char started_at[32];
    uint64_t t0;               /* mono_ns at the start */
    struct suite_lab lab;
};

/* --- suite_lab.c --- */

/* Makes the lab ready that sc needs, filling e's lab fields (lab_use:
 * up, shared, rebuilt or none).  0, or -1 with err (e then counts as an
 * error: it cannot run). */
int suite_lab_ready(struct suite *s, const struct scenario *sc, struct suite_entry *e,
                    char *err, size_t errlen);

/* Takes down the lab the suite brought up (unless keep). */
void suite_lab_release(struct suite *s, bool keep);

/* Lets go of the lab the suite holds now, taking it down when the suite
 * brought it up (why: for the progress line); the next scenario that
 * needs one brings it up anew. */
void suite_lab_drop(struct suite *s, const char *why);

/* --- suite_try.c --- */

/* SIGINT and SIGTERM caught from now on (the first one is kept and passed
 * on to the attempt under way); restored by suite_signals_restore. */
void suite_signals_catch(void);
void suite_signals_restore(void);

/* The signal that asked the suite to stop; 0: none. */
int suite_stop_asked(void);

/* Attempt a->k of entry e: a child `faultline run` into DIR/e->dir/try-K,
 * waited for; its report.json read back and judged (suite_judge.c).
 * false when it could not be started (err). */
bool suite_try(struct suite *s, const struct suite_entry *e, struct suite_attempt *a,
               char *err, size_t errlen);

/* --- suite_judge.c --- */

/* The attempt's numbers, failed rules and timing-only-ness from its
 * report (a run's, or a repeat's summary). */
void suite_judge_attempt(const struct result *res, struct suite_attempt *a);

/* Whether the attempt met e's expected outcome; why not (or "") in why. */
bool suite_judge_met(const struct suite_entry *e, const struct suite_attempt *a, char *why,
                     size_t n);

void suite_attempt_free(struct suite_attempt *a);

/* --- suite_json.c --- */

/* Writes DIR/suite.json as the suite stands (interrupted by `signal`, 0:
 * not).  0, or -1 with err. */
int suite_json_write(const struct suite *s, int signal, char *err, size_t errlen);

/* The suite's verdict: "pass", "fail", "interrupted" or "error". */
const char *suite_verdict(const struct suite *s, int signal);

#endif
