/* report_failover — a fault's stall split by what an HA cluster did
 * (report_failover.c), from the path events its nodes' logs gave
 * (storage/pacemaker.c): how long the cluster took to notice, to fence,
 * to start the resources elsewhere (or again), and the client to come
 * back to them.
 *
 * With I the fault's inject:
 *   L  the first member-lost (a membership without the node) or
 *      rsc-failed (a monitor that found a resource dead) in [I, until]
 *   F  the first fence-done at or after L (none: the cluster fenced no
 *      one, fencing unknown)
 *   S  the last rsc-started in [F or L, the end of the stall]; when none
 *      is, the first after
 *   R  the client's first reconnect at or after S; without one, the end
 *      of the stall (the first successful I/O after I)
 *   detection = L - I, fencing = F - L, start = S - (F or L),
 *   reconnect = R - S
 * Each phase is known only when both its ends are (reconnect also needs
 * R >= S).  Without L nothing is split (known false): the fault did not
 * make the cluster act, or it is not a cluster's. */
#ifndef FL_REPORT_FAILOVER_H
#define FL_REPORT_FAILOVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../live/events.h"

struct failover_phase {
    bool known;
    double s;
};

struct failover_split {
    bool known;
    struct failover_phase detection, fencing, start, reconnect;
    char lost_by[32]; /* "member-lost" or "rsc-failed": what L was */
};

void failover_split(const struct event *ev, size_t n, uint64_t inject_ns, uint64_t until_ns,
                    bool stalled, uint64_t stall_to_ns, struct failover_split *out);

#endif
