/*
 * shrink — `faultline shrink DIR`: a failed run made as small as it can
 * be while it still fails the same way.
 *
 *   faultline shrink DIR [--budget 2h] [--tries N] [--out SDIR]
 *
 * DIR is a run whose verdict is fail (a thrash or not).  Its scenario is
 * DIR/schedule.scn when the run drew one ([thrash]: every fault explicit),
 * else DIR/scenario.scn.  Shrink tries smaller scenarios, each as a whole
 * `faultline run` on a fresh lab (the run brings its own up and down), up
 * to N times (a failure may need several runs to show), and keeps each one
 * that fails the same way:
 *   1. faults dropped: halves first, then quarters, ... down to one at a
 *      time (a simplified delta debugging), again from halves after each
 *      success; each such candidate also cut to 20 s past the end of its
 *      last fault (the time the dropped faults took goes with them);
 *   2. each fault's hold halved (duration, restart_after, power_on_after;
 *      not under 1 s) while it still fails;
 *   3. the workload shortened to 20 s past the last fault's end.
 * "The same way": the verdict is fail, every rule that failed (integrity
 * rules and expectations, by metric) failed in DIR's run too, and when
 * DIR's run had findings, at least one of the candidate's is of a class
 * DIR's had.  A run that fails otherwise (another rule, only new classes)
 * shows another problem and does not count.
 *
 * It writes into SDIR (default DIR/shrink): cand-NNN.scn and its runs
 * (cand-NNN/try-K), shrink.log (every candidate: what it changed, each
 * try's verdict, failing rules and finding classes, kept or not), and
 * minimal.scn, the smallest scenario that failed so far (written again at
 * each success, so that a shrink cut short leaves it).  It stops starting
 * runs when the next one would end past the budget, and on SIGINT or
 * SIGTERM (the run under way ends early and reports).  Exit status 0: a
 * smaller scenario failed the same way; 1: none did (minimal.scn is DIR's
 * own); 2: it could not run.
 */
#ifndef FL_SHRINK_H
#define FL_SHRINK_H

#include <stdint.h>

struct shrink_opts {
    const char *dir;   /* the failed run */
    const char *out;   /* SDIR, or NULL: DIR/shrink */
    uint64_t budget_ns;
    unsigned tries;
};

int cmd_shrink(const struct shrink_opts *o);

#endif
