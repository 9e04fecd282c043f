/*
 * settle — whether the storage is whole now, for a fault with
 * `settle = whole` (its wait is the timeline's, timeline.h).
 *
 * Whole means: no other fault is in effect, and then either
 *   - its settle_command, run here with /bin/sh -c, exits 0 (each run
 *     whose output differs from the one before is progress), or
 *   - the storage's own heal or recovery (heal.h: the gluster volume's
 *     heal info, the ceph cluster's placement groups) has said nothing is
 *     missing of the data's redundancy in its last two answers since the
 *     latest clear of any fault (one answer can be older than the clear it
 *     follows); fewer entries missing than ever before in this wait is
 *     progress.  Ceph's health may still warn then (slow heartbeats stay
 *     for minutes after a cut): recover_s waits for HEALTH_OK, a settle
 *     for the data.
 * With neither, a run cannot know: timeline_prepare refuses the scenario.
 */
#ifndef FL_SETTLE_H
#define FL_SETTLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../faults/fault.h"
#include "heal.h"

/* One wait: what its questions said so far. */
struct settle_wait {
    long best;          /* fewest entries missing seen (LONG_MAX: none yet) */
    uint64_t last_hash; /* settle_command: its last output's */
    bool asked;
    char what[300];     /* the last answer, for people */
};

/* Asks once.  active: faults in effect now (other than this one); since:
 * mono_ns() of the latest clear.  1: whole; 0: not yet (*progress: it
 * moved on since the last question); -1: no way to know (w->what says
 * why). */
int settle_ask(const struct fault_spec *spec, struct heal_watch *heal, unsigned active,
               uint64_t since_ns, struct settle_wait *w, bool *progress);

#endif
