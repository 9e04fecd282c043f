/*
 * crew_parts — what the files of the crew share (not for the rest of
 * faultline: crew.h is the crew's interface).
 *
 *   crew.c          sizes, ranks, the run and the verify as a whole, teardown
 *   crew_prepare.c  backends opened, workers and their state made, memory checked
 *   crew_threads.c  the worker, monitor and metadata threads while the workload runs
 *   crew_merge.c    every worker's findings, buckets and state brought together
 */
#ifndef FL_CREW_PARTS_H
#define FL_CREW_PARTS_H

#include "crew.h"

/* --- crew_prepare.c --- */

/* How many clients the run has (1 alone). */
unsigned crew_ranks_of(const struct crew *c);

/* Worker g of the whole run lives in its client's directory. */
void crew_worker_dir(const char *dir, unsigned ranks, unsigned g, char *out, size_t n);

/* A verify sweeps with the depth every client had, shared by all their
 * workers, at least one I/O each. */
unsigned crew_verify_depth(const struct crew *c, unsigned i);

/* The ranks this crew covers: its own, or every one (a verify). */
unsigned crew_first_rank(const struct crew *c);

unsigned crew_last_rank(const struct crew *c);

/* The target as client r sees it (its subtree of a file tree). */
struct target_cfg *crew_target_of(const struct crew *c, unsigned r);

/* The workload (unless verifying) and the sweeps, with progress lines. */
void crew_run_threads(struct crew *c, bool verify);

void crew_merge(struct crew *c);

/* Writes every worker's last state (final when it ended cleanly) before the
 * findings are resolved against the journals. */
void crew_save_states(struct crew *c);

/* What the target kind checks beyond the blocks once they are swept (the
 * names of a file tree), and the metadata streams' models.  Not after an
 * abandoned run: the storage stopped answering. */
void crew_check_after_sweep(struct crew *c, const char *phase);

#endif
