/*
 * report_actions — what the faults of each action did together: report.json's
 * "actions", one object per fault action in the order of its first fault,
 * with how many faults it had and began, and the distribution (dist.h: n,
 * min, p50, p95, max, mean) of their stall_s, recovery_s and heal_s or
 * recover_s, as a repeat summary gives a metric's over runs.  A thrash of
 * hundreds of faults is read by these; a fault [thrash] drew but did not
 * reach is left out.
 */
#ifndef FL_REPORT_ACTIONS_H
#define FL_REPORT_ACTIONS_H

#include "report.h"

void report_json_actions(struct json *j, const struct report *r);

#endif
