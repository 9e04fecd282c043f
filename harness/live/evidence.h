/*
 * evidence — what each replica held at the moment of a finding.
 *
 * A read that returns the wrong data from a replicated volume raises one
 * question first: did it come from the client (its caches) or from a
 * replica (a brick not yet healed)?  The answer is on the replicas, and
 * only for a moment: the self-heal rewrites them within seconds.  So on a
 * lab that keeps replicas (gluster), the first EVIDENCE_MAX findings about
 * a block's data are followed at once, from the run's main thread, by a
 * look at every replica's copy of the block's file, inside the server's
 * own mount namespace:
 *
 *   - its size and modification time;
 *   - the stamp of the sector the finding names: which generation of which
 *     block, written when (or zeroes, or not our data);
 *   - every extended attribute, in hex (trusted.afr.VOL-client-N: the
 *     changes that replica holds which replica N still misses; all zero:
 *     nothing pending);
 *
 * and a fresh read of the same sector through the client's mount (an open
 * of its own, so no cached handle).  Everything goes to DIR/evidence.txt,
 * and one "evidence" event per finding sums it up ("gs1 gen 4, gs2 gen 5,
 * gs3 gen 5, client gen 5").
 */
#ifndef FL_EVIDENCE_H
#define FL_EVIDENCE_H

#include <stdint.h>
#include <stdio.h>

#include "../../checks/findings.h"
#include "../../faults/runtime.h"
#include "../../workloads/backend.h"
#include "events.h"

#define EVIDENCE_MAX 8 /* findings looked at per run: the first ones tell most */

struct evidence {
    const struct fault_lab *lab;  /* its replica() callback */
    const char *const *replicas;  /* the replicas' names (gs1..gs3) */
    unsigned nreplicas;
    const struct backend_ops *backend; /* where() a block is */
    const struct target_cfg *target;
    struct event_log *events;
    uint64_t run_id;              /* whose stamps are ours */
    char path[4200];              /* DIR/evidence.txt */
    unsigned taken;
};

/* Looks at every replica for finding f (a block's data; other findings
 * are skipped), appending to e->path and emitting an "evidence" event.
 * t_ns: now, since time zero.  Errors go into the file, never stop the
 * run. */
void evidence_take(struct evidence *e, const struct finding *f, unsigned long long t_ns);

#endif
