/*
 * launch — `faultline run` of a lab scenario with client hosts ([lab]
 * clients = N > 1): one command still does everything.
 *
 * This process is no rank: it brings the lab up (with client hosts c1..cN,
 * each with an sshd on the management network), starts mpirun with one
 * rank of this same binary in each client host, through the lab's ssh
 * (lab_mpirun), waits for it (bounded: the run's duration, sweep and
 * grace), then takes the lab down unless --keep-lab.  The ranks find the
 * lab that is up, rank 0 (in c1) runs the faults and writes the report.
 * mpirun does not pass the ranks' exit status on (--enable-recovery), so
 * rank 0 leaves it in DIR/exit-status and this process exits with it.
 * SIGINT and SIGTERM go to the ranks themselves (they end the workload
 * early and still report), not to mpirun (which would kill them).
 */
#ifndef FL_LAUNCH_H
#define FL_LAUNCH_H

#include <stdbool.h>

#include "run_opts.h"
#include "../scenario/scenario.h"

/* Whether sc needs this launcher: a lab with client hosts. */
bool launch_needed(const struct scenario *sc);

/* Runs it; the exit status (0 pass, 1 fail, 2 could not run). */
int launch_run(const struct run_opts *o, struct scenario *sc);

/* Rank 0: the exit status for the launcher, DIR/exit-status. */
void launch_save_status(const char *dir, int code);

#endif
