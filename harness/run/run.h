/*
 * run — the verbs that touch a target: `run`, `verify` and `check`.
 *
 *   run     scenario -> run directory: workload, final flush, sweep, reports
 *   verify  run directory -> re-read the target from the saved state, reports
 *   check   scenario -> lint only (nothing is opened or created)
 *
 * Each returns the process exit status: 0 pass, 1 fail, 2 could not run.
 */
#ifndef FL_RUN_H
#define FL_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "run_opts.h"

int cmd_run(const struct run_opts *o);

int cmd_verify(const char *dir, bool quiet);
/* `faultline check FILE [--schedule]`: with --schedule, the schedule a
 * [thrash] draws, as the scenario text a run writes (schedule.scn), on
 * stdout (the check's line then goes to stderr). */
int cmd_check(const char *file, bool schedule);

#endif
