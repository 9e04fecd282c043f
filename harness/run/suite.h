/*
 * suite — many scenarios run one after another, each judged against the
 * outcome it expects, with the labs they need shared between them.
 *
 *   faultline suite PATH... [--out DIR] [--retry-timing N] [--keep-lab] [--quiet]
 *
 * PATH is a scenario file or a folder (its *.scn, sorted by name, not
 * recursive).  Every scenario is linted before any runs: one with a
 * mistake stops the suite before it starts (exit 2, each mistake as
 * FILE:LINE).  Then each runs as a whole `faultline run` of its own (a
 * child process in a process group of its own, as repeat.h's repetitions:
 * SIGINT and SIGTERM reach it through us, end its workload early, and no
 * further scenario or attempt starts) into DIR/NAME/try-K, with a copy of
 * the file in DIR/NAME/scenario.scn.
 *
 * The expected outcome is the scenario's own ([scenario] expect_verdict
 * and expect_failing, scenario.h): a scenario expected to pass is met by
 * the verdict pass; one that must fail is met when it fails on the rules
 * of expect_failing, every one of them not marked `?`, and on no other;
 * one expected to pass may list rules it may fail on (all marked `?`:
 * what the storage is known to do at times), and a fail on those alone is
 * met too.
 * An attempt that missed only timing rules (stall, max_stall, recovery,
 * impact, max_latency, first_io_after_inject, first_io_after_clear, heal,
 * recover) with no finding at all and every fault as written is tried
 * again, up to --retry-timing more times; met on a retry, the scenario is
 * "flaky" (which counts as met).  A finding is never retried away.
 *
 * The labs: the suite brings up a scenario's lab itself ([lab] as the
 * scenario sets it) and exports FAULTLINE_LAB_PREFIX, so that the child
 * run finds it up and leaves it up.  The next scenario that needs the same
 * kind with the same settings (lab_settings_differ, size included) shares
 * it, after lab_revive has brought back what the scenario before left
 * down (a server killed, paused or powered off); a lab that cannot be
 * made healthy, or one with other settings, is taken down and brought up
 * again ("rebuilt"), one of another kind replaces it.  A scenario with
 * [host] sections runs as it is (its own lab, if any, its own to bring up
 * and take down).  A run that ends with I/O still waiting on the lab's
 * mount (a scenario that kills for good what the mount needs) cannot be
 * reaped until that mount is aborted: the suite takes its lab down, and
 * the next scenario brings up another (suite_try.c).  At the end the
 * suite takes down the lab it brought up, unless --keep-lab.
 *
 * DIR/suite.json (the contract with the suite's reports, suite_report.h)
 * is written after every scenario, atomically, so that a suite killed on
 * the way leaves a readable one; at the end suite_report_write makes
 * junit.xml, report.txt and report.html of it.
 *
 * Exit status: 0 every scenario met its expected outcome; 1 one did not,
 * could not run, or the suite was interrupted; 2 the suite could not run
 * at all (bad usage, no scenario, a scenario with a mistake).
 */
#ifndef FL_SUITE_H
#define FL_SUITE_H

#include <stdbool.h>

#define SUITE_MAX_RETRY 20

/* What `faultline suite` was asked on its command line. */
struct suite_opts {
    char **paths;          /* scenario files and folders */
    unsigned npaths;
    const char *out;       /* NULL: runs/<time>-suite */
    unsigned retry_timing; /* 0..SUITE_MAX_RETRY */
    bool keep_lab;         /* the lab up at the end stays up */
    bool quiet;            /* no progress on stderr, no report on stdout */
};

/* Runs the suite; the exit status. */
int cmd_suite(const struct suite_opts *o);

#endif
