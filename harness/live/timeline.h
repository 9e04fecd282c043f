/*
 * timeline — the faults of a run, applied on schedule and always cleared.
 *
 * Follow one fault from scenario line to undo record:
 *   prepare   [fault NAME] -> struct fault: its host resolved (a lab host,
 *             `local`, or a [host NAME]), the family's prepare() checks it and
 *             plans its undo records, so mistakes stop the run before it starts
 *   schedule  from the family's table (fault_ops.schedule): inject at `at`;
 *             a lasting fault is cleared at `at + duration` (no duration: at
 *             the end of the workload), a stepped one (port-flap) goes
 *             through its inject/clear pairs, an instant one has no clear
 *   inject    20 ms ahead the undo records are written and synced to
 *             DIR/undo.log (on an ssh host: 1.5 s ahead, "apply at T" goes
 *             to its agent, which writes its own); at the exact time the
 *             family's inject() runs (one netlink or nft call), in the
 *             fault's own thread, which sleeps to 200 µs before and spins
 *             the rest: a slow step of one fault never delays another
 *   clear     the family's clear() (usually: replay its undo records) and a
 *             done mark for each record
 *   finish    at the end of the workload (also after SIGINT/SIGTERM) every
 *             fault still active is cleared before the sweep reads anything
 *   settle    a fault with settle = whole first waits until no other fault
 *             is in effect and the storage is whole (settle.h), up to its
 *             settle_timeout without progress (then it is not injected); the
 *             wait moves it and every fault not yet begun later by as much
 *             (a fault that has begun keeps its own times: its clear is not
 *             held up by a wait that needs it cleared).  A fault moved past
 *             the end of the workload, or held back by a wait still under
 *             way when it ended, is not reached.
 *
 * Times are ns since the workload started; `at` counts from there too.
 */
#ifndef FL_TIMELINE_H
#define FL_TIMELINE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../faults/runtime.h"
#include "../../faults/ssh/remote.h"
#include "../../faults/undo.h"
#include "events.h"
#include "heal.h"
#include "../lab/lab.h"
#include "../scenario/scenario.h"

struct step {
    uint64_t t; /* ns since the workload started */
    unsigned fault;
    bool inject;
};

struct timeline {
    struct fault *faults;
    unsigned n;
    struct fault_env env;
    struct undo_log undo;
    bool undo_open;
    struct event_log *events;
    struct lab lab;             /* the run's lab, for the faults' callbacks */
    struct fault_lab fault_lab; /* what faults see of it */
    struct step *steps;
    unsigned nsteps;
    uint64_t t0;          /* mono_ns() at the workload start */
    uint64_t end_ns;      /* the workload's duration: no fault starts after it */
    uint64_t *delays; /* ns from each inject step's time to its change being made */
    unsigned *delay_fault; /* ... and whose step it was */
    unsigned ndelays;
    _Atomic unsigned active; /* faults in effect now, for the progress line */
    _Atomic unsigned injected; /* faults begun so far (the progress line) */
    _Atomic int current;       /* the latest fault begun (-1 none) */
    _Atomic uint64_t shift_ns; /* settle waits so far: faults not yet begun move by it */
    _Atomic uint64_t last_clear; /* mono_ns() of the latest clear: a settle asks after it */
    _Atomic bool settling;     /* a settle wait is under way (the progress line) */
    _Atomic bool settle_cut;   /* a settle wait was still under way when the workload ended */
    pthread_mutex_t begin_mu;  /* one fault begins at a time (its settle wait included) */
    struct heal_watch *heal;   /* the storage's heal or recovery, for settle (NULL none) */
    struct power_signal *power; /* where a fault that loses power says so (the crew's) */
    pthread_mutex_t power_mu;   /* one power cut at a time, begin to end */
    pthread_t *threads; /* one per fault (its own schedule), and the agents' heartbeat */
    struct fault_thread *thread_args;
    unsigned nthreads;
    bool running;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool stop;
    bool quiet;
    /* agents of ssh hosts, by index in env.hosts, and their undo records */
    struct remote *remotes[FL_MAX_HOSTS];
    int agent_seq[FL_MAX_HOSTS];
    bool agents_done; /* every agent said bye (or could not) */
    unsigned nremotes;
};

/* Resolves and checks every fault of sc (nothing is applied yet).
 * lab: the lab the run uses, or NULL.  target_path/target_bytes: the
 * scenario's own target (for corrupt).  0, or -1 with err filled (naming
 * the fault). */
int timeline_prepare(struct timeline *tl, const struct scenario *sc, const struct lab *lab,
                     const char *dir, struct event_log *events, const char *target_path,
                     uint64_t target_bytes, uint64_t run_id, char *err, size_t errlen);

/* The steps of the faults' schedules (their .spec and .schedule), by time;
 * at the same time a clear comes before an inject.  *out is malloc'd.
 * 0, or -1 when memory is short. */
int timeline_plan(const struct fault *faults, unsigned n, struct step **out, unsigned *nout);

/* Starts the schedule; t0 is the workload start.  0, or -1 with err. */
int timeline_start(struct timeline *tl, uint64_t t0, char *err, size_t errlen);

/* Stops the schedule and clears every fault still active. */
void timeline_finish(struct timeline *tl);

void timeline_free(struct timeline *tl);

/* Scheduled-to-applied delays of every inject step: count and percentiles
 * (ms); 0 when nothing was injected. */
unsigned timeline_delays(const struct timeline *tl, double *p50, double *p99, double *max);

/* The same for the faults of one action (family). */
unsigned timeline_delays_of(const struct timeline *tl, const char *action, double *p50,
                            double *p99, double *max);

/* For the progress line of a long run (crew.h fault_progress, ctx the
 * timeline): ", fault 3 of 40 (kill on gs2), settling, 14m20s left". */
void timeline_progress(void *ctx, char *out, size_t n);

/* The agents the run talked to (ssh hosts): round trip, clock offset. */
unsigned timeline_agents(const struct timeline *tl, struct remote_info *out, unsigned max);

#endif
