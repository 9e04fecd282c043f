/*
 * conclude — from what a crew measured to the verdict and the reports,
 * the same for `run` (alone or rank 0 of several clients) and `verify`.
 *
 *   conclude_report    the report fields a crew gives
 *   conclude_recovery  each fault's recovery numbers from one series of
 *                      completions (the run's, or one client's)
 *   conclude_analyse   the outage of the run: baseline, per fault, the
 *                      longest stall, timeline.csv
 *   conclude_finish    verdict, every report, the summary line; the crew
 *                      is released; the exit status
 */
#ifndef FL_CONCLUDE_H
#define FL_CONCLUDE_H

#include <stdint.h>

#include "../../checks/buckets.h"
#include "../../checks/recovery.h"
#include "../live/crew.h"
#include "../live/events.h"
#include "../report/report.h"
#include "../scenario/scenario.h"
#include "../live/timeline.h"

/* The report fields both verbs fill from the crew the same way. */
struct report conclude_report(const char *mode, const char *dir, const struct scenario *sc,
                              const struct run_meta *meta, struct crew *crew);

/* Where the workload ended, for the analysis: past the duration only the
 * drain (nothing new is issued), unless workers were left behind. */
uint64_t conclude_end(const struct crew *crew, const struct scenario *sc);

/* Each fault's recovery numbers from the completions of `series` (recov:
 * one per fault) and the baseline they are measured against; the longest
 * stall (seconds, < 0 unknown).  end: where the workload ended. */
double conclude_recovery(const struct buckets *series, const struct scenario *sc,
                         const struct timeline *tl, uint64_t end, struct baseline *base,
                         struct recovery *recov);

/* The outage measured from the time buckets of `series`: baseline, each
 * fault's recovery numbers, the longest stall; DIR/timeline.csv. */
void conclude_analyse(struct report *rep, const struct crew *crew, const struct buckets *series,
                      const struct timeline *tl, struct recovery *recov);

/* Writes the reports, prints the summary, releases the crew; the exit status. */
int conclude_finish(struct report *rep, struct crew *crew, struct event_log *events);

#endif
