/*
 * run_parts — what the files of the run verbs share (not for the rest of
 * faultline: run.h is their interface).
 *
 *   run.c          `faultline run`: one run's steps, on one client or several
 *   run_lab.c      the run's lab and storage: up, healing, evidence, what it logged
 *   run_verify.c   `faultline verify` and `faultline check`
 *   run_shared.c   SIGINT and SIGTERM (the workload, then the sweep, cut
 *                  short), progress lines
 *   run_schedule.c a [thrash] run's schedule.scn
 */
#ifndef FL_RUN_PARTS_H
#define FL_RUN_PARTS_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>

#include "run.h"
#include "../../checks/recovery.h"
#include "../../lib/ranks.h"
#include "../../workloads/journal.h"
#include "../clients/clients.h"
#include "../lab/lab.h"
#include "../live/crew.h"
#include "../live/events.h"
#include "../live/evidence.h"
#include "../live/heal.h"
#include "../live/resources.h"
#include "../live/timeline.h"
#include "../scenario/scenario.h"

/* First SIGINT/SIGTERM: end the workload early, still flush, sweep and
 * report.  Second: also cut the sweep short.  (During `verify` the first
 * one ends the pass.) */
extern volatile sig_atomic_t run_stop_workload, run_stop_sweep;
extern volatile sig_atomic_t run_stop_signal; /* the first one: the exit status is 128 + it */

/* One `faultline run`: what its steps share. */
struct run {
    const struct run_opts *o;
    struct scenario sc;
    char dir[PATH_MAX];
    char own_dir[PATH_MAX + 32]; /* DIR, or DIR/client-R with several clients */
    struct run_meta base;
    struct event_log events;
    bool events_open;
    struct lab lab;
    bool have_lab, lab_created;
    struct storage storage; /* what the run knows of its storage: the lab's, or [cluster]'s */
    bool have_storage;
    struct lab_place place; /* where the lab's target is, when it gives the target its place */
    bool placed;
    struct crew crew;
    struct timeline *tl; /* rank 0 (or alone) only */
    struct resources *res; /* rank 0 (or alone) only; NULL when it cannot sample */
    struct heal_watch heal;
    bool watching, abandoned;
    struct evidence evidence; /* a look at the replicas at early findings */
    const char *replicas[LAB_MAX_HOSTS];
    /* a run over several clients: the MPI job, and the exchange with rank 0 */
    struct ranks mpi;
    struct clients cl;
    bool multi; /* more than one rank */
    bool clean_exit; /* every rank took part to the end: MPI_Finalize */
};

/* The signal that cut the run short, or 0: the workload ended early, or
 * a second signal cut the sweep (one during the sweep lets it finish). */
int run_cut_short_by(bool workload_cut);

/* The signal that cut the run short, or 0 when none came: a run whose
 * workers were left behind, or whose faults could not start, ended early
 * on its own (it says so in its own words). */
int run_signal_that_cut(bool workload_cut);

void run_install_signals(void);

/* The embedded lab, if the scenario asks for it; the target takes the
 * place the lab has for it.  A run over several clients uses the lab that
 * is up (`faultline run` brings it up before it starts mpirun).  Then the
 * storage the run is against (run_storage). */
int run_lab_up(struct run *r, char *err, size_t errlen);

/* What a corrupt fault may write to when it names no path: the file that
 * holds the lab's target, or the target itself. */
const char *run_target_path(const struct run *r);

/* Storage that heals (a replicated volume, a cluster that recovers), a
 * lab's or a [cluster]'s: watched from the start. */
void run_heal_start(struct run *r);

/* After the workload: wait for the heal (recovery), then each fault's. */
void run_heal_finish(struct run *r, struct recovery *recov, uint64_t end_ns);

/* On a lab that keeps replicas, alone on it: the replicas looked at, at
 * the first findings (evidence.h). */
void run_watch_replicas(struct run *r);

void run_lab_happenings(struct run *r);

/* A scenario with [thrash]: DIR/schedule.scn, the scenario with every
 * fault it drew explicit (thrash.h); before the workload as drawn, after
 * it (r->tl's faults done) without the faults its settle waits did not
 * reach, each with what its wait took. */
void run_write_schedule(const struct run *r);

/* Whether this process is rank 0 of the run (or runs alone). */
bool run_is_rank0(const struct run *r);

/* A progress line on stderr ("faultline: ..."), from rank 0 unless quiet. */
void run_say(const struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
