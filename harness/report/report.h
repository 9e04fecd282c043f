/*
 * report — what a run (or a later `verify`) found, for people and machines.
 *
 *   report.json   the result: verdict, expectations, faults[] with recovery
 *                 numbers and path events, counts, findings, io
 *                 (report_json.c, from the run)
 *   report.txt    the verdict first, every expectation, one line per fault
 *                 with its recovery numbers, what ran, findings by class
 *   junit.xml     one testcase per expectation and per fault
 *                 (both from report.json read back: result_render.h)
 *   report.html   one self-contained page: throughput and latency plots with
 *                 the fault windows, expectations, findings (result_html.h,
 *                 from report.json, timeline.csv and resources.csv)
 *   events.jsonl  one JSON object per line: run start/end and every finding
 *
 * Each is written to a temporary name and renamed, so a reader never sees
 * half a report.
 */
#ifndef FL_REPORT_H
#define FL_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "../../checks/buckets.h"
#include "../../checks/findings.h"
#include "../../checks/recovery.h"
#include "../../faults/runtime.h"
#include "../../faults/ssh/remote.h"
#include "../../workloads/backend.h"
#include "../../workloads/journal.h"
#include "../../workloads/meta.h"
#include "../live/events.h"
#include "../scenario/scenario.h"
#include "../judge/verdict.h"
#include "report_files.h"
#include "result.h"

struct manifest; /* ../manifest.h */
struct resources; /* the hosts' resources over time (../resources.h) */

/* One client of a run over several (MPI ranks), as rank 0 saw it. */
struct lab;

struct report_client {
    unsigned rank;
    const char *host;
    bool lost;
    const char *why;               /* lost: why */
    const char *heard;             /* lost: the last progress heard from it */
    const struct io_stats *io, *sweep; /* NULL when it never reported */
    uint64_t findings;             /* bad reads and I/Os it found */
    const struct buckets *series;  /* its completions in time, or NULL */
    const struct recovery *recovery; /* per fault, from its own completions (or NULL) */
    struct baseline baseline;
    double max_stall_s;            /* < 0: unknown */
    int64_t offset_ns, offset_end_ns;   /* its clock minus rank 0's, at start and end */
    uint64_t uncertainty_ns, uncertainty_end_ns;
    bool end_measured;
    uint64_t error_ns;             /* how far its timeline may be off rank 0's */
    const char *dir;               /* where it kept its state (DIR/client-R) */
};

/* The reads one client made of another's blocks (cross_reads). */
struct report_cross {
    const char *rule;              /* "acknowledged" or "close-to-open" */
    unsigned pct;
    uint64_t reads, judged, ok, bad, unjudged;
};

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
    bool interrupted;             /* a signal cut the workload or the sweep short */
    int interrupt_signal;         /* ... which one (the exit status is 128 + it) */
    const char *error;            /* non-NULL: the run could not go on */
    const char *crc_impl;
    unsigned workers;
    size_t map_bytes_at_rest, map_bytes_peak;
    size_t pending_peak;
    uint64_t journal_stalls, checkpoints;
    uint64_t doubtful_writes;     /* reissued writes: either generation allowed */
    /* Power losses (faults with loses = unflushed, fault.power_loss) and
     * what they cost: reads that found an older allowed generation. */
    const struct findings *reverted;  /* listed like findings; NULL: none kept */
    const uint64_t *at_risk;          /* [loss - 1]: blocks not durable at the loss */
    const uint64_t *reverted_by_loss; /* [loss]: reverted reads; [0] after a crash of the run */
    const struct meta_stream *meta_streams; /* files: metadata streams (run), or NULL */
    unsigned nmeta;
    const struct event_log *events; /* path and lab events, may be NULL */
    const struct fault *faults;   /* the run's faults and what happened to them */
    unsigned nfaults;
    const struct fault_host *hosts; /* every host the faults could name (timeline env) */
    unsigned nhosts;
    const struct remote_info *agents; /* the ssh hosts' agents: round trip, clock offset */
    unsigned nagents;
    unsigned injections;          /* inject steps, and their delays (ms) */
    double inject_p50_ms, inject_p99_ms, inject_max_ms;
    struct family_timing {        /* the same per family (action) */
        const char *action;
        unsigned injections;
        double p50_ms, p99_ms, max_ms;
    } family_timing[FL_MAX_FAULTS];
    unsigned nfamily_timing;
    bool state_final;             /* verify: the run had ended cleanly */
    uint64_t replayed;            /* verify: journal records replayed */
    uint64_t acks_recovered;      /* verify: completions taken from acks.bin (after a crash) */
    /* the outage, measured (run only; NULL/0 otherwise) */
    const struct buckets *series; /* completions in time */
    const struct recovery *recovery; /* one per fault */
    struct baseline baseline;
    double max_stall_s;           /* < 0: unknown */
    uint64_t hung;                /* I/Os the watchdog reported */
    bool abandoned;               /* workers never came back from a silent target */
    uint64_t t0_wall_ns;          /* time zero (the workload start) on the wall clock */
    uint64_t end_ns;              /* where the workload ended, ns since time zero */
    const struct verdict *verdict; /* the rules and how they fared */
    /* a run over several clients (MPI ranks): each of them; NULL/0 alone */
    const struct report_client *clients;
    unsigned nclients, lost_clients;
    const struct report_cross *cross; /* NULL: no cross reads */
    /* the metadata streams' counts, every client's (used when meta_streams is NULL) */
    const uint64_t *meta_ops;
    uint64_t meta_errors;
    /* the backend's paths (iSCSI portals), in the series' path order; 0: none */
    const char (*path_names)[FL_URL_MAX];
    unsigned npaths;
    const struct lab *lab;        /* the run's lab, or NULL */
    const struct manifest *manifest; /* on what it ran (../manifest.h), or NULL */
    const struct resources *resources; /* sampled over the workload (run only), or NULL */
};

/* "pass", "fail", "interrupted" or "error" (verdict.h says when). */
const char *report_verdict(const struct report *r);

/* Exit status for the verdict: 0 pass, 1 fail, 2 error, 128 + the signal
 * when interrupted (130 SIGINT, 143 SIGTERM). */
int report_exit_code(const struct report *r);

/* "SIGINT", "SIGTERM". */
const char *report_signal_name(int sig);

/* Whether fault i did not happen as written (verdict.h), and why; NULL
 * when it did. */
const struct fault_miss *report_missed(const struct report *r, unsigned fault);

/* Writes report.json and events.jsonl from the run, then reads report.json
 * back into res (result.h) and writes report.txt, junit.xml (from res) and
 * report.html.  0, or -1 with err; result_free(res) either way. */
int report_write(const struct report *r, struct result *res, char *err, size_t errlen);

/* A run that could not start (nothing ran): report.txt, report.json
 * ("started": false) and junit.xml in dir say why, so that its directory
 * is never a half-made run.  0, or -1 with err. */
int report_write_refusal(const char *dir, const struct scenario *sc, const char *why, char *err,
                         size_t errlen);

/* Where a finding is: the file or device (for a file tree the file the
 * block lives in, or the name found wrong) and the byte offset in it. */
void report_where(const struct report *r, const struct finding *f, char *path, size_t n,
                  uint64_t *offset);

/* report.json, and the findings and the end of a run in events.jsonl
 * (report_json.c).  0, or -1 with err. */
int report_write_json(const struct report *r, char *err, size_t errlen);
int report_write_events(const struct report *r, char *err, size_t errlen);

/* Numbers in the reports' units (report_common.c): nanoseconds as seconds,
 * an io_stats' I/Os per second and MB/s, a wall-clock time in ISO 8601 UTC,
 * and the metadata streams' operations and errors. */
double report_secs(uint64_t ns);
double report_iops(const struct io_stats *s);
double report_mbps(const struct io_stats *s);
void report_iso_time(uint64_t wall_ns, char *out, size_t n);
void report_meta_totals(const struct report *r, uint64_t *ops, uint64_t *errors);

/* The agent that said hello for host `name` (NULL: none), and whether a
 * fault of the run was aimed at that host. */
const struct remote_info *report_agent_of_host(const struct report *r, const char *name);
bool report_host_used(const struct report *r, const char *name);

struct json;

/* An io_stats as a JSON object (reads, writes, ..., iops). */
void report_json_io(struct json *j, const struct io_stats *s);

/* "key": v (6 decimals), or null when it is not known. */
void report_json_maybe(struct json *j, const char *key, bool known, double v);

/* report_clients.c: a run over several clients (MPI ranks) — `clients`
 * and `cross_reads` in report.json; nothing
 * for a run of one client. */
void report_json_clients(struct json *j, const struct report *r);

/* The events of the run that happened in [from_ns, to_ns] and name a portal
 * (path events), for a fault's window. */
bool report_event_in(const struct event *e, uint64_t from_ns, uint64_t to_ns);

#endif
