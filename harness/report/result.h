/*
 * result — a run's result as one plain record, read back from the
 * report.json the run wrote.
 *
 * report.json is the result's one serialisation: the run writes it
 * (report_json.c), and everything that tells the result again reads it
 * through result_read: report.txt, junit.xml and the lines a run prints
 * when it ends (result_render.h), report.html (result_html.h), the summary
 * of repeats (summary.h), `faultline compare`, and the tests from fixtures.
 * So every file says exactly what report.json says, and a renderer needs
 * nothing of the live run: no header of checks/, faults/, workloads/ or
 * the lab is included here (tests/layers.sh checks the renderers).
 *
 * The record owns all it holds (result_free).  Numbers are as written in
 * report.json; a value that report.json gives as null has its `known` flag
 * false.  A field an older report.json lacks reads as zero, empty or
 * unknown.
 */
#ifndef FL_RESULT_H
#define FL_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct jv; /* ../../lib/jread.h */

/* The read classes, in report.json's order ("counts"). */
#define RESULT_CLASSES 13

/* A time in seconds since time zero that may be unknown (null). */
struct result_time {
    bool known;
    double s;
};

/* One I/O phase: the workload, the sweep, a prefill, a verify pass. */
struct result_io {
    bool present;
    uint64_t reads, writes, flushes, bytes_read, bytes_written, errors;
    uint64_t ns;          /* how long it ran ("ns"; older reports: seconds) */
    double iops;          /* "iops" as written (compare sets it side by side: worked
                             out again from ns it could differ in the last digit) */
    double max_latency_s;
};

/* A number of report.json by its key, or null (known false). */
struct result_value {
    char *key;
    bool known;
    double v;
};

/* One rule of the verdict, as "expectations" lists it. */
struct result_expect {
    char *text;           /* "stall_s <= 5s", "lost_writes = 0" */
    char *metric;
    char *fault;          /* the fault it names, or NULL: the whole run */
    char *op;
    char *why;            /* unknown: why ("" otherwise) */
    double value, measured;
    bool seconds;         /* unit "s"; else "count" */
    bool known, pass;
    int line;             /* 0: an integrity rule nobody wrote */
};

/* One path event (a backend with several paths). */
struct result_event {
    double t;
    unsigned worker;
    char *event, *portal, *detail;
};

/* One fault: what was asked, what happened, its recovery numbers. */
struct result_fault {
    char *name, *action, *host, *detail, *error;
    double at;
    struct result_time injected_at, cleared_at;
    bool applied;         /* it was injected */
    char *applied_by;     /* through the agent on this host, or NULL */
    char *cleared_by;     /* controller, lease, close, unconfirmed; or NULL */
    bool happened, clear_failed, indeterminate;
    char *not_happened_why;
    /* recovery (a run's faults; analysed false otherwise) */
    bool analysed;        /* it was injected and its span measured */
    struct result_time impact, stall, recovery, first_io_after_inject, first_io_after_clear;
    uint64_t errors;
    double max_latency_s;
    bool latency_known;
    double latency_p50_s, latency_p99_s, latency_max_s;
    struct result_time metadata_stall, metadata_stall_from, metadata_stall_to;
    /* heal (gluster) or recover (ceph): the lab's word on the storage */
    bool heal_measured, healed;
    char *heal_word, *heal_whole;
    double heal_s;
    struct result_event *events; /* its path events */
    size_t nevents;
    struct result_value *values; /* every number (or null) of the fault's object */
    size_t nvalues;
    /* an HA cluster's fault: its stall split by what the cluster did
     * (report.json's "failover"; report_failover.h) */
    bool failover;
    char *failover_noticed_by; /* member-lost or rsc-failed */
    struct result_time fo_detection, fo_fencing, fo_start, fo_reconnect;
    /* settle = whole and [thrash] */
    bool drawn, not_reached;
    struct result_time settle; /* its wait for the storage (null: none) */
    double moved_s;            /* the settle waits before it */
};

/* A distribution over an action's faults (report.json's "actions"). */
struct result_dist {
    bool known;
    double n, min, p50, p95, max, mean;
};

/* One fault action: its faults' count and distributions. */
struct result_action {
    char *action;
    uint64_t count, began;
    struct result_dist stall, recovery, heal;
    const char *heal_key; /* "heal_s" or "recover_s" (static) */
};

/* A fault that did not happen as written. */
struct result_miss {
    char *fault, *action, *why;
    bool counts;          /* false: its time had not come when the run was interrupted */
};

/* A host the faults used, and its agent over ssh. */
struct result_host {
    char *name, *transport, *ssh;
    bool agent;           /* over ssh: the numbers below were measured */
    double rtt_ms, clock_offset_ms;
    bool agent_copied;
};

/* One finding: a read or I/O that found what it should not have. */
struct result_finding {
    char *cls;            /* class name: "lost-write", "corrupt", ... */
    bool has_block;       /* false: a name (file tree) finding */
    uint64_t block, offset;
    char *path, *op, *phase, *detail;
    uint64_t expected_gen, found_gen;
    bool found_known;
    struct result_time written_at, read_at, last_read_at;
    uint64_t repeats;
    bool has_owner;       /* a run over several clients */
    int owner, client;    /* client -1: found by a later verify */
};

/* A power loss and what it cost. */
struct result_power {
    char *fault;
    struct result_time at;
    uint64_t at_risk, reverted;
};

/* One client of a run over several. */
struct result_client {
    unsigned rank;
    char *host, *why, *last_heard, *dir;
    bool lost;
    struct result_io io, sweep;
    uint64_t findings;
    double clock_offset_ms, clock_uncertainty_ms;
    bool end_measured;
    double clock_offset_end_ms, clock_uncertainty_end_ms;
    struct result_client_fault {
        char *name;
        struct result_time stall, recovery;
        uint64_t errors;
    } *faults;
    size_t nfaults;
};

struct result {
    char *verdict;        /* "pass", "fail", "interrupted", "error"; "": none written */
    char *mode;           /* "run" or "verify" */
    char *error;          /* the run could not go on: why; NULL otherwise */
    char *scenario, *scenario_file;
    char *run_id, *started_at;
    uint64_t seed;
    bool interrupted;
    char *interrupted_by; /* "SIGINT", "SIGTERM" */
    int exit_status;
    unsigned workers;
    bool judged;          /* the verdict's rules ran ("corruption" is written) */
    struct result_miss *missed;
    size_t nmissed;
    struct result_expect *expect;
    size_t nexpect, failed;
    struct result_value *measured; /* "measured": every run metric, by name */
    size_t nmeasured;
    /* the outage (a run) */
    bool outage;          /* a run: the fields below were written */
    double bucket_s;      /* 0: no timeline */
    bool baseline_known;
    double baseline_iops, baseline_from, baseline_to;
    struct result_time max_stall;
    uint64_t hung;
    bool abandoned;
    double hung_after_s;
    /* corruption faults: what they overwrote, and the reads on it */
    uint64_t corrupted_blocks, detected_corrupt, undetected_corrupt;
    uint64_t explained[RESULT_CLASSES];
    /* the target */
    char *target_path, *target_description;
    uint64_t capacity, block_size, blocks;
    /* the workload, as the scenario set it */
    char *pattern;
    unsigned read_pct, depth, flush_every;
    /* reads by class, and the findings */
    char *class_name[RESULT_CLASSES];
    uint64_t counts[RESULT_CLASSES];
    bool class_is_finding[RESULT_CLASSES];
    struct result_finding *findings;
    size_t nfindings;
    uint64_t findings_unlisted;
    struct result_io io, sweep, prefill;
    /* the state map and journal */
    uint64_t bytes_at_rest, pending_peak;
    bool state_final;     /* verify: the run had ended cleanly */
    uint64_t replayed;    /* verify: journal records replayed */
    uint64_t acks_recovered; /* verify: completions taken from acks.bin */
    /* faults */
    struct result_host *hosts;
    size_t nhosts;
    struct result_fault *faults;
    size_t nfaults;
    struct result_action *actions; /* per action (older reports: none) */
    size_t nactions;
    unsigned injections;
    double inject_p50_ms, inject_p99_ms;
    uint64_t doubtful_writes;
    struct result_power *power;
    size_t npower;
    uint64_t reverted_after_crash; /* reads that found a write the run's crash lost */
    /* metadata streams (a file tree) */
    bool metadata;
    unsigned meta_streams;
    uint64_t meta_ops[8];
    char *meta_op_name[8];
    size_t nmeta_ops;
    uint64_t meta_errors;
    struct result_time meta_max_stall, meta_stall_from, meta_stall_to;
    uint64_t names_checked, names_reverted, sizes_short, rebuilt;
    /* a run over several clients */
    struct result_client *clients;
    size_t nclients;
    uint64_t lost_clients;
    bool cross;
    char *cross_rule;
    unsigned cross_pct;
    uint64_t cross_reads, cross_judged, cross_ok, cross_bad, cross_unjudged;
    /* every path event of the run */
    struct result_event *events;
    size_t nevents;
    struct jv *manifest;  /* "manifest" as written, or NULL */
};

/* Reads DIR/report.json into res.  0, or -1 with err (the file, and what
 * is wrong in it).  result_free(res) either way. */
int result_read(const char *dir, struct result *res, char *err, size_t errlen);

/* The same from a parsed report.json (the tree is not kept). */
int result_from_json(const struct jv *doc, struct result *res, char *err, size_t errlen);

void result_free(struct result *res);

/* The measured value of an expectation as said: "0", "1.234 s",
 * "unknown". */
void result_expect_value(const struct result_expect *x, char *out, size_t n);

/* An expectation in one line: "stall_s <= 5s: measured 1.234 s". */
void result_expect_describe(const struct result_expect *x, char *out, size_t n);

/* The value of key in vals[0..n), or NULL when there is no such key. */
const struct result_value *result_value_of(const struct result_value *vals, size_t n,
                                           const char *key);

/* The fault of that name, or NULL. */
const struct result_fault *result_fault_named(const struct result *res, const char *name);

/* An I/O phase's seconds, I/Os per second and MB/s (0 when it did not run). */
double result_secs(const struct result_io *s);
double result_iops(const struct result_io *s);
double result_mbps(const struct result_io *s);

/* Bad reads and I/Os: the counts of the classes that are findings. */
uint64_t result_bad(const struct result *res);

/* Why a result that did not fail is not a pass either, in one line (the
 * run's error, the interruption, the faults that did not happen as
 * written); "" otherwise. */
void result_why_not_pass(const struct result *res, char *out, size_t n);

#endif
