/*
 * crew — the worker threads of one run or verify pass.
 *
 * Worker w of W owns the target's blocks b with b % W == w.  Each worker has
 * its own backend instance (fd, io_uring), state map, findings, verifier and
 * journal (in DIR/worker-W/), so workers share nothing while they run: no
 * locks on the hot path, and the crew scales with cores the way MPI ranks
 * that own disjoint blocks do.  The main thread only starts them, prints
 * progress and, at the end, merges their counts and findings.
 *
 * Every stamp carries its worker as writer id: a block found with another
 * worker's stamp is misdirected.
 *
 * In a run over several clients (MPI ranks) each rank has a crew of its
 * own and rank r owns the blocks b with b % ranks == r: worker i of rank r
 * is worker r + ranks * i of the whole run (its writer id), so that the
 * same rule, b % W == w, holds over every client's workers.  A rank keeps
 * its workers in DIR/client-R/worker-I.  A later verify loads every
 * client's workers into one crew (rank -1) and sweeps them all.
 */
#ifndef FL_CREW_H
#define FL_CREW_H

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "../../checks/findings.h"
#include "../../checks/statemap.h"
#include "../../workloads/backend.h"
#include "../../workloads/engine.h"
#include "../../workloads/journal.h"
#include "../../workloads/meta.h"
#include "../../workloads/verify.h"
#include "events.h"
#include "../scenario/scenario.h"

#define CREW_NOTICED 8 /* blocks found bad passed to on_finding per pass */

struct worker {
    unsigned index;          /* in this crew */
    unsigned global;         /* in the run: its writer id (r + ranks * index) */
    char dir[PATH_MAX + 64]; /* DIR/worker-N, or DIR/client-R/worker-N */
    struct run_meta meta;
    struct backend be;
    bool be_open;
    struct statemap map;
    bool map_ready;
    struct findings findings;
    struct findings reverted; /* reads classed `reverted` (a power loss, a crash) */
    struct verifier ver;
    bool ver_ready;
    struct journal *journal;
    struct engine eng;
    struct io_stats sweep;
    struct load_info info; /* verify: how the state was found */
    struct event_source events; /* the backend's path events go here */
    struct buckets buckets;     /* its completions in time */
    struct io_pulse pulse;      /* its in-flight I/O, for the watchdog */
    struct cross_log cross;     /* its reads of other clients' blocks */
    uint64_t hung_reported;     /* oldest submit time already reported as hung */
    bool thread_done;           /* its thread has returned (under gate_mu) */
    bool left_behind;           /* still waiting on its target when the run ended: its
                                   thread, state and findings are not touched again */
    int rc;
    char err[FL_ERRLEN + 32];
    pthread_t thread;
    /* published about once a second for the progress line */
    _Atomic uint64_t p_reads, p_writes, p_errors, p_findings, p_bytes;
};

struct crew {
    const struct scenario *sc;
    char dir[PATH_MAX];
    /* Which client this crew is: rank of ranks (0 of 1 alone; rank -1 in a
     * verify over every client), and where its files go: DIR, or
     * DIR/client-R with several clients. */
    int rank;
    unsigned ranks;
    char own_dir[PATH_MAX + 32];
    unsigned n;
    struct worker *w;
    uint64_t t0;
    /* Called once every worker is ready, instead of taking time zero now:
     * the run over several clients agrees on it (rank 0 picks it, each rank
     * waits for it).  Returns time zero (mono_ns), 0 when it could not.
     * May be NULL. */
    uint64_t (*time_zero)(void *ctx);
    void *time_zero_ctx;
    volatile sig_atomic_t *stop_workload, *stop_sweep;
    struct event_log *events; /* may be NULL */
    bool quiet;
    uint64_t progress_since, progress_next; /* a long open's progress lines (mono_ns) */
    /* Called with time zero once every worker is ready (prefilled) and
     * before any workload starts (faults are scheduled here).  May be NULL. */
    void (*on_start)(void *ctx, uint64_t t0);
    void *on_start_ctx;
    /* Called once every worker's workload has ended and before any sweep
     * starts (faults are cleared here).  May be NULL. */
    void (*between)(void *ctx);
    void *between_ctx;
    /* Called from the main thread within a monitoring step (200 ms) of a
     * worker's finding about a block's data, for the first CREW_NOTICED
     * blocks found bad in a pass (evidence.h: a look at the replicas while
     * it is fresh).  t_ns: now, since time zero.  May be NULL. */
    void (*on_finding)(void *ctx, const struct finding *f, uint64_t t_ns);
    void *on_finding_ctx;
    struct finding noticed[CREW_NOTICED]; /* queued by workers under gate_mu */
    unsigned nnoticed, noticed_done;
    pthread_mutex_t gate_mu;
    pthread_cond_t gate_cv;
    unsigned ready, engines_done;
    bool start_open, gate_open;
    /* merged results */
    struct findings findings;
    struct io_stats io, sweep, prefilled;
    struct buckets series;    /* everyone's completions, and the sampled in-flight state */
    uint64_t hung_after_ns;   /* an I/O outstanding this long is reported as hung */
    uint64_t grace_ns;        /* the run ends at its end plus this, answered or not */
    uint64_t hung;            /* I/Os in flight on a worker whose oldest I/O passed hung_after */
    bool abandoned;           /* some worker never came back: its thread is left behind */
    uint64_t workload_end_ns; /* when the workload phase ended (all back, or given up) */
    _Atomic unsigned *active_faults; /* for the progress line; may be NULL */
    /* more for the progress line, after its counts (", fault 3 of 40: kill
     * gs2, 14m20s left"); NULL: nothing */
    void (*fault_progress)(void *ctx, char *out, size_t n);
    void *fault_progress_ctx;
    char desc[PATH_MAX + 64];
    uint64_t capacity;
    size_t bytes_at_rest, bytes_peak, pending_peak;
    uint64_t journal_stalls, checkpoints, replayed, doubtful_writes;
    uint64_t acks_recovered; /* verify: completions acks.bin had and the journals lacked */
    /* Power losses (faults with `loses = unflushed`): the timeline announces
     * each one here just before its inject, every worker takes it; per
     * loss, the blocks whose writes were not durable then. */
    struct power_signal power;
    uint64_t at_risk[POWER_LOSSES_MAX];
    struct findings reverted; /* merged, like findings */
    uint64_t reverted_by_loss[POWER_LOSSES_MAX + 1]; /* reads; [0]: after a crash */
    bool interrupted, state_final;
    bool verifying;    /* a verify pass: the backend opens what the run made */
    /* kind = files: the metadata streams, one thread each (meta.h) */
    struct meta_stream *meta;
    unsigned nmeta, meta_started, meta_done;
    bool meta_left_behind;
    const char *error; /* first worker error, or NULL */
    char names_err[FL_ERRLEN]; /* why the names of a file tree could not be checked */
};

/* How many workers and how much depth each: the sync engine runs one worker
 * per I/O in flight; io_uring runs `workers` (default 1) sharing the depth. */
unsigned crew_size(const struct scenario *sc);

/* The client directory of rank r: DIR/client-R, or DIR itself alone. */
void crew_client_dir(const char *dir, unsigned ranks, unsigned r, char *out, size_t n);

/* Which rank's run a directory holds, from its first worker's state
 * (DIR/worker-0, or DIR/client-0/worker-0): *ranks 1 alone.  0, or -1 with
 * err. */
int crew_run_ranks(const char *dir, unsigned *ranks, char *err, size_t errlen);

/* Saves every worker's cross reads (DIR/.../worker-N/cross.bin).  0, or -1
 * with err. */
int crew_save_cross(struct crew *c, char *err, size_t errlen);

/* Opens the target once per worker and prepares a new run in dir: state
 * maps, verifiers and journals.  c->rank and c->ranks say which client
 * (zero: alone).  0, or -1 with err filled (crew_close() still needed). */
int crew_prepare_run(struct crew *c, const struct scenario *sc, const char *dir,
                     const struct run_meta *base, char *err, size_t errlen);

/* Runs workload and sweep on every worker, saves every worker's state
 * (journal close with a last checkpoint), merges the results. */
void crew_run(struct crew *c);

/* Loads every worker's saved state from dir and opens the target for each.
 * 0, or -1 with err filled. */
int crew_prepare_verify(struct crew *c, const struct scenario *sc, const char *dir, char *err,
                        size_t errlen);

/* Sweeps every worker's written blocks; merges the results. */
void crew_verify(struct crew *c);

/* After crew_verify: whether the sweep showed that the run directory does
 * not describe the target (another run's blocks there, or writes of this
 * run its journal does not know; see verifier.from_run_dir).  Then the
 * verify must refuse instead of reporting findings: -1 with err saying
 * why, else 0. */
int crew_verify_refusal(const struct crew *c, char *err, size_t errlen);

/* Closes backends and frees all but the merged findings. */
/* Whether block b (of the whole target) was ever written in this run;
 * ctx is the crew.  For the verdict's corruption accounting. */
bool crew_block_written(void *ctx, uint64_t b);

void crew_close(struct crew *c);

/* A run that could not start: what its first open made (a file target)
 * is removed, so that a refusal leaves the disk as it was.  Before
 * crew_close(). */
void crew_discard(struct crew *c);

/* Frees the merged findings. */
void crew_free(struct crew *c);

#endif
