/*
 * client_result — what one client (MPI rank) of a run over several tells
 * rank 0 at the end, and keeps in its own directory first.
 *
 * Every rank writes its result to DIR/client-R/result.bin (and its findings
 * to DIR/client-R/findings.jsonl) before anything is sent, so that no
 * abort of the job can destroy them; the same bytes then go to rank 0:
 * counts, the workload's and the sweep's I/O, its completions in time
 * (buckets), its findings, its path events, its metadata streams' counts
 * and its cross reads, which rank 0 hands to their owners to judge.
 */
#ifndef FL_CLIENT_RESULT_H
#define FL_CLIENT_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../checks/buckets.h"
#include "../../checks/cross.h"
#include "../../checks/findings.h"
#include "../../workloads/backend.h"
#include "../../workloads/meta.h"
#include "../live/crew.h"
#include "../live/events.h"

struct client_result {
    unsigned rank;
    char host[64];
    char error[512];          /* "" when its workload and sweep ran */
    struct io_stats io, sweep, prefilled;
    uint64_t hung;
    bool abandoned, interrupted;
    uint64_t workload_end_ns;
    uint64_t journal_stalls, checkpoints, doubtful_writes;
    uint64_t bytes_at_rest, bytes_peak, pending_peak;
    uint64_t meta_ops[MOP_COUNT], meta_errors;
    unsigned nmeta;
    struct findings findings; /* counts, and the list */
    struct buckets series;    /* its completions, in its time (aligned to rank 0's) */
    struct event *events;     /* its path events */
    size_t nevents;
    struct cross_read *cross; /* its cross reads */
    size_t ncross;
    uint64_t cross_unrecorded;
};

/* Takes what a finished crew measured (its findings are copied). */
int client_result_of(struct client_result *r, unsigned rank, const struct crew *c,
                     const struct event_log *events);

/* The result as bytes (*buf malloc'd), and back.  0, or -1 with err. */
int client_result_encode(const struct client_result *r, void **buf, size_t *len);
int client_result_decode(struct client_result *r, const void *buf, size_t len, char *err,
                         size_t errlen);

/* DIR/client-R/result.bin (synced) and findings.jsonl.  0, or -1 with err. */
int client_result_save(const struct client_result *r, const void *buf, size_t len,
                       const char *dir, char *err, size_t errlen);

void client_result_free(struct client_result *r);

#endif
