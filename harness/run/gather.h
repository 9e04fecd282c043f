/*
 * gather — rank 0's one view of a run over several clients: every client's
 * result (its own included) added up for the combined verdict, and each
 * client's own lines for the report (its I/O, its findings, its stall and
 * recovery per fault from its own completions, its clock).  And the cross
 * reads a later verify judges again.
 */
#ifndef FL_GATHER_H
#define FL_GATHER_H

#include <limits.h>

#include "../../checks/findings.h"
#include "../clients/clients.h"
#include "../live/crew.h"
#include "../live/events.h"
#include "../report/report.h"
#include "../scenario/scenario.h"
#include "../live/timeline.h"

struct combined {
    struct findings findings;       /* every client's, and the judged cross reads */
    struct io_stats io, sweep, prefilled;
    struct buckets series;          /* every client's completions */
    uint64_t meta_ops[MOP_COUNT], meta_errors;
    struct report_client *clients;  /* one per client, for the report */
    struct recovery *recov;         /* per client, per fault */
    char (*dirs)[PATH_MAX + 32];
    struct report_cross cross;
};

/* Adds every reported client's result (cl->c[k].res, rank 0's own too)
 * into all; their path events go to `events` as theirs.  crew and tl are
 * rank 0's (where the workload ended, the faults).  0, or -1 (memory). */
int gather_combine(struct combined *all, struct clients *cl, const struct crew *crew,
                   const struct scenario *sc, const struct timeline *tl,
                   struct event_log *events, const char *dir);

/* Sorts the findings by when they were read. */
void gather_sort(struct combined *all);

void gather_free(struct combined *all);

/* A verify of a run over several clients: every client's kept cross reads
 * (in the crew's workers) judged again against their owners' journals, with
 * DIR/clocks; findings into the crew's.  *out filled; NULL when memory is
 * short. */
struct report_cross *gather_verify_cross(struct crew *crew, const char *dir, unsigned ranks,
                                         struct report_cross *out);

#endif
