/*
 * engine — the timed read/write workload on one target.
 *
 * Follow one block from generation to verdict:
 *   1. plan: the pattern picks a block and read or write (a read may go to
 *      one of the worker's last writes instead: reread); a write gets the
 *      block's next generation (statemap_plan) and its intent goes into the
 *      journal batch.  Ops are planned a batch ahead.
 *   2. commit: the batch is sealed; the journal thread syncs it while the
 *      previous batch is being issued.  No write is issued before its intent
 *      is durable.
 *   3. issue: block_fill() stamps every sector, the backend queues the I/O.
 *      A block with I/O in flight is never issued again until it completes,
 *      so reads and writes of one block never overlap.
 *   4. complete: a write is acknowledged (statemap_write_done); a read is
 *      classified at once (verify_read); every `flush` writes a flush is
 *      issued, and when it completes the writes it covers become durable.
 *      A cross read (a block of another client, cross.h) is only
 *      described (cross_scan) and logged: its owner's history judges it
 *      at the end.
 *   5. end: at `duration` nothing new is issued, in-flight I/O drains, a final
 *      flush makes everything durable; the caller then sweeps every written
 *      block once (sweep_run).
 */
#ifndef FL_ENGINE_H
#define FL_ENGINE_H

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "../checks/block.h"
#include "../checks/buckets.h"
#include "../checks/statemap.h"
#include "backend.h"
#include "crosslog.h"
#include "journal.h"
#include "verify.h"

enum pattern { PATTERN_RANDOM, PATTERN_SEQUENTIAL };

struct workload_cfg {
    uint32_t block_size;
    enum pattern pattern;
    unsigned read_pct;    /* 0..100 */
    unsigned depth;       /* reads and writes in flight, all workers together */
    unsigned flush_every; /* each worker's writes between flushes; 0 = at the end */
    uint64_t duration_ns;
    uint64_t seed;        /* op sequence; the same seed gives the same ops */
    bool prefill;         /* write every block once before the timed phase */
    unsigned cross_pct;   /* share of reads that go to blocks other clients own */
    unsigned reread_pct;  /* share of reads that go to one of the worker's last
                             ENGINE_REREAD_RECENT writes (read after write) */
};

/* How far back a reread reaches: the worker's last this many writes. */
#define ENGINE_REREAD_RECENT 8

/* Power losses (faults with `loses = unflushed`), announced by the fault
 * thread: `begun` goes up by one just before it cuts the power, `ended`
 * once the cut is done (its inject returned).  Each worker takes the
 * begin and the end of the k-th loss (tag k, from 1) before it handles any
 * completion or issues anything after it has seen the count rise
 * (statemap_power_loss): a flush that completes afterwards covers nothing
 * from before, and what completes in between is at risk too.  A
 * completion the storage sent before the begin but the worker handles
 * after it counts as at risk: the model errs towards allowing a revert,
 * by at most the time a completion waits to be handled, never towards a
 * false finding. */
struct power_signal {
    atomic_uint begun, ended;
};

/* Called about once a second while the workload runs. */
struct engine_progress {
    uint64_t elapsed_ns, duration_ns;
    uint64_t reads, writes, errors, findings;
    uint64_t bytes;
};
typedef void (*progress_fn)(void *ctx, const struct engine_progress *p);

/* One worker: a thread that owns the target's blocks b with
 * b % workers == worker (numbered b / workers in its state map and journal)
 * and keeps `depth` I/Os on them in flight. */
struct engine {
    /* inputs */
    const struct workload_cfg *cfg;
    unsigned worker, workers;
    unsigned depth;       /* this worker's share of cfg->depth */
    unsigned flush_every; /* copied from cfg */
    struct block_fmt fmt; /* writer_id = worker */
    struct backend *be;
    struct statemap *map;
    struct verifier *ver;
    struct journal *journal; /* NULL: no journal */
    uint64_t t0;             /* mono_ns() at run start */
    volatile sig_atomic_t *stop;
    uint64_t segment_limit;  /* journal bytes before a checkpoint; 0 = default */
    struct buckets *buckets; /* completions in time; may be NULL */
    struct io_pulse *pulse;  /* for the watchdog; may be NULL */
    progress_fn progress;
    void *progress_ctx;
    /* A run over several clients: this worker's client (rank) of `ranks`,
     * the target's blocks, and where its cross reads go (NULL: none). */
    unsigned rank, ranks;
    uint64_t total_blocks;
    struct cross_log *cross;
    const struct power_signal *power; /* NULL: no fault may lose power */
    /* outputs */
    struct io_stats stats;
    struct io_stats prefilled;
    uint64_t journal_stalls; /* times the workload waited for a journal commit */
    uint64_t batch_max;      /* largest planned batch */
    uint64_t checkpoints;
    uint64_t doubtful_writes; /* completed only after a reissue: either generation allowed */
    unsigned power_begun, power_ended; /* power losses taken */
    uint64_t at_risk[POWER_LOSSES_MAX]; /* per loss: blocks with writes not durable */
    bool interrupted;        /* ended early by *stop */
    char err[512];
};

/* Runs the workload for cfg->duration_ns.  0 when it ran (findings may
 * exist), -1 when it could not go on (err says why). */
int engine_run(struct engine *e);

/* Writes every block of the worker once, in order, and flushes: afterwards
 * each block holds a known durable generation, so that even a read-only
 * workload verifies real data.  Its writes carry time 0 (e->t0 may be
 * UINT64_MAX: times before the workload are 0).  Counted in e->prefilled. */
int engine_prefill(struct engine *e);

#endif
