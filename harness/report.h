/*
 * report — what a run (or a later `verify`) found, for people and machines.
 *
 *   report.txt    the verdict first, then what ran, then findings by class
 *   report.json   verdict, counts, findings, io, and the run's identity
 *   events.jsonl  one JSON object per line: run start/end and every finding
 *
 * Both reports are written to a temporary name and renamed, so a reader
 * never sees half a report.
 */
#ifndef FL_REPORT_H
#define FL_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "../checks/findings.h"
#include "../faults/fault.h"
#include "../workloads/backend.h"
#include "../workloads/journal.h"
#include "events.h"
#include "scenario.h"

struct report {
    const char *mode; /* "run" or "verify" */
    const char *dir;
    const struct scenario *sc;
    const struct run_meta *meta;
    const char *target_desc;
    uint64_t capacity;
    const struct findings *findings;
    const struct io_stats *io;    /* the workload (run) or the verify pass */
    const struct io_stats *sweep; /* run: the final sweep; NULL for verify */
    const struct io_stats *prefill; /* run with prefill = yes, else NULL */
    uint64_t seed;
    bool interrupted;
    const char *error;            /* non-NULL: the run could not go on */
    const char *crc_impl;
    unsigned workers;
    size_t map_bytes_at_rest, map_bytes_peak;
    size_t pending_peak;
    uint64_t journal_stalls, checkpoints;
    uint64_t doubtful_writes;     /* reissued writes: either generation allowed */
    const struct event_log *events; /* path and lab events, may be NULL */
    const struct fault *faults;   /* the run's faults and what happened to them */
    unsigned nfaults;
    unsigned injections;          /* inject steps, and their delays (ms) */
    double inject_p50_ms, inject_p99_ms, inject_max_ms;
    bool state_final;             /* verify: the run had ended cleanly */
    uint64_t replayed;            /* verify: journal records replayed */
};

/* "pass", "fail" or "error". */
const char *report_verdict(const struct report *r);

/* Exit status for the verdict: 0 pass, 1 fail, 2 error. */
int report_exit_code(const struct report *r);

/* Writes report.txt and report.json (and events.jsonl for a run).
 * 0, or -1 with err filled. */
int report_write(const struct report *r, char *err, size_t errlen);

/* A short summary for the terminal. */
void report_summary(const struct report *r, FILE *out);

#endif
