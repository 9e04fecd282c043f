/*
 * verify — turns completed reads into classes and findings, and sweeps a
 * target once over every block that was written.
 *
 * The running workload calls verify_read() for each read it completes
 * ("online" verification); at the end of a run, and in `faultline verify`,
 * sweep_run() reads every written block once through the same function.
 */
#ifndef FL_VERIFY_H
#define FL_VERIFY_H

#include <signal.h>
#include <stdbool.h>

#include "../checks/classify.h"
#include "../checks/findings.h"
#include "../checks/statemap.h"
#include "backend.h"

/* Verifies the blocks of one worker: global block b is entry b / workers
 * of its state map (see run_meta in journal.h). */
struct verifier {
    struct statemap *map;
    struct classifier cls;
    struct findings *findings;
    struct findings *reverted; /* reads classed `reverted`, listed like findings; may be NULL */
    uint64_t reverted_by_loss[POWER_LOSSES_MAX + 1]; /* [0]: after a crash of the run */
    uint32_t block_size;
    unsigned worker, workers;
    /* A verify from a run directory (set by its caller): reads that say the
     * directory does not describe the target are counted here instead of
     * becoming findings, and the caller refuses when there are any:
     *   other_*   the block holds an intact write of another run where
     *             this run's data must be (the target was written by
     *             another run since);
     *   beyond_*  it holds a generation of this run newer than the journal
     *             knows (journal or checkpoint cut short, or older). */
    bool from_run_dir;
    uint64_t other_reads, other_run, other_block, other_offset;
    uint64_t beyond_reads, beyond_block, beyond_offset;
    gen_t beyond_found, beyond_newest;
    /* Told of each finding about a block's data as it is made (NULL:
     * nobody), from the worker's thread, so it must only queue it: a look
     * at the target while the finding is fresh (harness/evidence.h). */
    void (*noticed)(void *ctx, const struct finding *f);
    void *noticed_ctx;
};

int verifier_init(struct verifier *v, struct statemap *map, struct findings *f,
                  const struct block_fmt *fmt, unsigned worker, unsigned workers);
void verifier_free(struct verifier *v);

/* Classifies a completed read (successful or failed) of io->block, counts it
 * and records a finding when it is one.  online: see statemap_expect(). */
void verify_read(struct verifier *v, const struct io *io, bool online, const char *phase);

/* Records a failed write or flush as an io-error finding. */
void verify_failed_io(struct verifier *v, const struct io *io, const char *phase);

/* Reads every written block of the worker once, depth at a time, and
 * verifies it.  Stops early when *stop becomes non-zero.  Times are ns since t0.
 * 0, or -1 with err filled when the backend broke. */
int sweep_run(struct verifier *v, struct backend *be, unsigned depth, bool online,
              const char *phase, uint64_t t0, volatile sig_atomic_t *stop, struct io_stats *st,
              struct io_pulse *pulse, char *err, size_t errlen);

#endif
