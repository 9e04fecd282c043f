/*
 * clients — one run over several client nodes (the ranks of an MPI job,
 * lib/ranks.h): they agree on the run and on time zero, run alone in
 * between, and at the end rank 0 gathers what each saw.
 *
 * Rank 0 owns the timeline, the faults and the report; every rank runs the
 * workload on its share (b % ranks == rank) with a crew of its own, in
 * DIR/client-R.  There is no MPI traffic while the workload runs, so a
 * fault on the client network cannot hurt the job.  Every exchange is
 * between rank 0 and one rank, with a deadline; a rank that misses one is
 * named lost, with what was last heard of it, and the run goes on without
 * it (IOR would hang in a barrier, or MPI_Abort everyone):
 *
 *   rank 0                                rank r
 *   HELLO: run dir, run id, seed       ->  prepares its crew in DIR/client-R
 *                                      <-  READY, or FAILED with why
 *   clock ping-pong; GO: time zero     ->  waits for its time zero
 *   ----------- the workload: no traffic between ranks -----------
 *                                      <-  PROGRESS: its workload ended
 *                                      <-  RESULT, after its sweep (saved in
 *                                          DIR/client-R first)
 *   clock ping-pong again
 *   CROSS: the reads of r's blocks     ->  judged against r's journals
 *                                      <-  CROSS: the findings
 *   DONE: the exit status              ->  exits with it
 *
 * Clocks: rank 0 measures each rank's CLOCK_MONOTONIC offset by ping-pong
 * (the round with the shortest round trip; uncertainty half of it) and
 * sends each rank time zero in its own clock, so every rank's times count
 * from the same instant; the second measurement at the end shows the
 * drift.  A rank's timeline is then in rank 0's time to within its
 * uncertainty plus drift (`clients[].clock_*` in report.json), and cross
 * reads are judged with that much slack.
 */
#ifndef FL_CLIENTS_H
#define FL_CLIENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../lib/ranks.h"
#include "client_result.h"
#include "../live/crew.h"

enum client_state {
    CLIENT_PREPARING, /* told where the run is; not ready yet */
    CLIENT_RUNNING,   /* started with the others */
    CLIENT_REPORTED,  /* its result is here */
    CLIENT_LOST,      /* missed a deadline, or failed: `why` */
};

/* What rank 0 knows of one client (itself included, as rank 0). */
struct client {
    unsigned rank;
    char host[64];
    enum client_state state;
    char why[320];   /* lost: why */
    char heard[256]; /* the last progress heard from it */
    int64_t offset_ns[2];       /* its clock minus rank 0's: at start, at end */
    uint64_t uncertainty_ns[2];
    bool end_measured;
    bool started;               /* it was sent time zero */
    struct client_result res;   /* CLIENT_REPORTED (rank 0: filled by the caller) */
    bool have_res;
};

/* What rank 0 tells every rank before anything is prepared. */
struct clients_hello {
    char dir[4096];       /* the run directory (the same path on every node) */
    uint64_t run_id, seed, start_wall_ns;
    char lab_prefix[16];  /* the lab the run uses ("" none) */
};

/* How the cross reads fared. */
struct cross_tally {
    uint64_t reads;    /* issued by every client */
    uint64_t judged;   /* checked against their owner's history */
    uint64_t ok;
    uint64_t bad;      /* findings */
    uint64_t unjudged; /* their owner was lost, its journal unreadable, or not logged */
};

struct clients {
    struct ranks *mpi;
    unsigned n;          /* ranks */
    unsigned rank;
    struct client *c;    /* rank 0: one per rank */
    uint64_t grace_ns;   /* the scenario's: how long to wait for a silent rank */
    uint64_t t0;         /* agreed time zero, mono_ns of this process */
    int64_t my_offset_ns; /* rank r: its offset and uncertainty, as rank 0 measured */
    uint64_t my_uncertainty_ns;
    char progress[320];  /* a PROGRESS message in flight (MPI may read it later) */
    bool ended;          /* rank r: rank 0 said DONE before it started (end_code) */
    int end_code;
    void *result;        /* the RESULT, kept while MPI may still read it */
    bool result_sent;    /* it left: freed with the rest */
    char err[512];
};

/* Both sides: n, rank and grace from mpi; rank 0 gets its table. */
int clients_init(struct clients *cl, struct ranks *mpi, uint64_t grace_ns, char *err,
                 size_t errlen);
void clients_free(struct clients *cl);

/* --- rank 0 --- */

/* Tells every rank where and what the run is.  A rank that cannot be told
 * is lost. */
void clients_hello(struct clients *cl, const struct clients_hello *h);

/* The crew's time_zero hook (ctx: the clients): on rank 0 it waits for
 * every rank's READY (at most `ready_wait` ns), measures the clocks, sends
 * each its time zero and waits for it; on rank r it sends READY and waits
 * for GO.  Time zero (mono_ns), or 0 when there is none (rank r: rank 0
 * never said). */
uint64_t clients_time_zero(void *ctx);

/* Rank 0, after its own sweep: RESULTs until every rank reported or was
 * lost, at most until deadline (mono_ns); each reported rank's clock is
 * measured again.  The results land in cl->c[r].res. */
void clients_gather(struct clients *cl, uint64_t deadline);

/* Rank 0: every cross read (of every reported client, and `own` of rank
 * 0's crew) goes to its owner, which judges it against its journal (rank
 * 0's own blocks: here).  Findings into `out`, counts into *t. */
void clients_cross(struct clients *cl, struct crew *own, const struct cross_read *own_reads,
                   size_t nown, struct findings *out, struct cross_tally *t);

/* Rank 0: the exit status to every rank that is still there.  Whether
 * every rank took part to the end (MPI_Finalize is safe). */
bool clients_done(struct clients *cl, int code);

/* How many clients were lost. */
unsigned clients_lost(const struct clients *cl);

/* --- rank r --- */

/* Waits for HELLO (at most `wait_ns`).  0, or -1 with err. */
int clients_wait_hello(struct clients *cl, struct clients_hello *h, uint64_t wait_ns, char *err,
                       size_t errlen);

/* Tells rank 0 this rank cannot take part, and why. */
void clients_failed(struct clients *cl, const char *why);

/* Tells rank 0 how far it got (fire and forget: never blocks on a faulted
 * network). */
void clients_progress(struct clients *cl, const char *text);

/* Sends the RESULT, then serves rank 0 (clock, cross reads of its blocks,
 * judged with its crew) until DONE or the deadline.  The exit status rank
 * 0 sent, or 2 when it never did; *clean whether MPI_Finalize is safe. */
int clients_report(struct clients *cl, const void *result, size_t len, struct crew *own,
                   bool *clean);

/* Judges cross reads of the blocks `own` holds against its journals
 * (clock_err[rank]: how far each client's timeline may be off rank 0's;
 * a read's span is widened by its reader's and its owner's).  Both sides
 * use it, and a later verify. */
void clients_judge(struct crew *own, const struct cross_read *reads, size_t n,
                   const uint64_t *clock_err, struct findings *out, struct cross_tally *t);

/* DIR/clocks: each client's clock error (and offset, host), for a later
 * verify; and back (1 ms for a client it does not name).  0, or -1. */
int clients_save_clocks(const struct clients *cl, const char *dir, char *err, size_t errlen);
void clients_load_clocks(const char *dir, unsigned n, uint64_t *err_ns);

/* How far a client's timeline may be off rank 0's: its uncertainty and
 * its drift. */
uint64_t clients_error_ns(const struct client *c);

#endif
