/*
 * ranks — the processes of one MPI job, for a run spread over many client
 * nodes (mpirun, or srun where the scheduler provides PMI).
 *
 * faultline is one binary that runs alone or as a rank.  It does not link
 * libmpi: only when the launcher's environment says this process is a rank
 * (OMPI_COMM_WORLD_SIZE; PMIX_RANK; PMI_RANK with PMI_SIZE; a Slurm step of
 * several tasks) does ranks_init() load Open MPI's libmpi.so.40 (or
 * $FAULTLINE_LIBMPI) and call MPI_Init_thread.  Run alone, it is rank 0 of 1
 * and nothing is loaded, so the copy that serves as `faultline agent` on a
 * storage server needs no MPI library at all.
 *
 * The weak points of MPI benchmarks that this module avoids:
 *   - no collective call: one dead or hung rank would block everyone in it;
 *     only point-to-point messages, each with a deadline, after which the
 *     call returns ETIMEDOUT (the caller then names that rank lost);
 *   - errors are returned (MPI_ERRORS_RETURN), never MPI_Abort: one failed
 *     rank does not end the others' run;
 *   - clocks are not assumed to agree: ranks_clock_lead() measures a peer's
 *     offset by ping-pong, with its uncertainty.
 *
 * Only the main thread calls in (MPI_THREAD_FUNNELED).  Waiting polls the
 * request every millisecond (spinning for the clock's ping-pong), so no
 * MPI progress thread is needed.
 */
#ifndef FL_RANKS_H
#define FL_RANKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RANKS_ANY (-1) /* ranks_recv: from any rank, or with any tag */

struct ranks {
    int rank, size;  /* 0 of 1 when alone */
    bool mpi;        /* MPI_Init was called (and MPI_Finalize may be due) */
    char launcher[32]; /* "mpirun", "pmix", "pmi", "slurm"; "" alone */
};

/* Whether the environment says this process is a rank of a parallel job. */
bool ranks_launched(const char **how);

/* Joins the job when launched as a rank (loads libmpi, MPI_Init_thread,
 * errors returned); alone, r becomes rank 0 of 1.  0, or -1 with err
 * (libmpi missing, MPI_Init failed). */
int ranks_init(struct ranks *r, int *argc, char ***argv, char *err, size_t errlen);

/* Sends len bytes to rank `to` with `tag`.  deadline: mono_ns() by which it
 * must have left; 0, or -1 with err (ETIMEDOUT in *eno when late).  A send
 * that timed out may still read buf later: the caller must not free it. */
int ranks_send(struct ranks *r, int to, int tag, const void *buf, size_t len, uint64_t deadline,
               int *eno, char *err, size_t errlen);

/* One message received: its bytes (malloc'd: free them), sender and tag. */
struct rmsg {
    void *buf;
    size_t len;
    int src, tag;
};

/* Receives one message with `tag` from `from` (RANKS_ANY for either: any
 * rank, any tag), of any length.  0, or -1 with err (ETIMEDOUT in *eno
 * when nothing came by deadline). */
int ranks_recv(struct ranks *r, int from, int tag, struct rmsg *m, uint64_t deadline, int *eno,
               char *err, size_t errlen);

/* Whether a message with `tag` from `from` is waiting (does not block). */
bool ranks_waiting(struct ranks *r, int from, int tag);

/* The clock of rank `peer` against ours, by `rounds` ping-pongs (the peer
 * runs ranks_clock_follow with as many): *offset_ns = its CLOCK_MONOTONIC
 * minus ours, from the round with the shortest round trip; *uncertainty_ns
 * half that round trip.  0, or -1 with err. */
int ranks_clock_lead(struct ranks *r, int peer, int tag, int rounds, uint64_t deadline,
                     int64_t *offset_ns, uint64_t *uncertainty_ns, char *err, size_t errlen);

/* The other side: answers `rounds` pings of rank `leader` with our clock. */
int ranks_clock_follow(struct ranks *r, int leader, int tag, int rounds, uint64_t deadline,
                       char *err, size_t errlen);

/* Leaves the job: MPI_Finalize when `clean` (every rank is alive and takes
 * part); otherwise nothing (MPI_Finalize could wait for a dead rank), and
 * the process should just exit. */
void ranks_finish(struct ranks *r, bool clean);

#endif
