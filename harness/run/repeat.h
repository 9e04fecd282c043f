/*
 * repeat — one scenario run N times, and what the runs say together.
 *
 *   faultline run FILE --repeat N --out DIR     (or [scenario] repeat = N)
 *
 * One outage says what happened once; a failover that recovers in 4 s
 * nine times and in 9 s the tenth needs all ten to be told.  The lab
 * comes up once, before the first repetition, and its health (every
 * namespace, port, server process; the kind's own check) is checked
 * again before each next one: a lab found broken is rebuilt by the
 * repetition that needs it, and the summary says so.  Each repetition is
 * a whole `faultline run` of its own (a child process, in DIR/rep-K:
 * its own report, journal and state; `faultline verify DIR/rep-N` of the
 * last one re-reads the target), which keeps one repetition's leftovers (a worker parked on a
 * dead target) out of the next.
 *
 * Then the summary (summary.h) in DIR: report.json with "mode": "repeat",
 * report.txt and report.html — per fault metric and a few of the whole
 * run, the distribution over the repetitions; the verdicts, passed K of
 * N; and the expectations over repetitions (expect.h: recovery_p95,
 * expect_stall_p95, pass_rate).
 *
 * SIGINT/SIGTERM end the repetition under way early (it still reports)
 * and no further one starts; the summary covers those that ran.
 */
#ifndef FL_REPEAT_H
#define FL_REPEAT_H

#include "run_opts.h"
#include "runchild.h" /* REPEAT_ENV */
#include "../scenario/scenario.h"


/* How many times o runs sc: --repeat, else [scenario] repeat; 1 inside a
 * repetition.  Refuses (2, with err) rules over repetitions in a single
 * run, and repeats of ranks started by hand.  -1 with err, or the count. */
int repeat_count(const struct run_opts *o, const struct scenario *sc, char *err, size_t errlen);

/* Runs sc n times (n >= 2) and writes the summary.  Exit status: 0 pass,
 * 1 fail, 2 could not run. */
int cmd_repeat(const struct run_opts *o, const struct scenario *sc, unsigned n);

#endif
