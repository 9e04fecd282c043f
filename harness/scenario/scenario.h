/*
 * scenario — what a scenario file means.
 *
 * Key tables list every section, key, type, default and a line of help:
 * the general keys in scenario_keys.c, and every kind's own keys in the kind's
 * file — a target kind's [target] and [workload] keys (backend.h), a lab
 * kind's [lab] keys (lab.h), a fault family's [fault] keys (fault.h).  The
 * parser, the defaults, the error messages and `faultline help scenario`
 * are all driven by them, so the reference cannot drift from the code.
 * Unknown sections and keys are errors, reported as file:line with the
 * closest known key; a kind's key given for another kind is an error that
 * names its kind.
 *
 *   [scenario]  name, duration, seed, journal, lab, ...; expect_verdict and
 *               expect_failing: the outcome `faultline suite` expects
 *   [target]    kind, path, size, sync; the kind's own (iscsi: portals, ...)
 *   [workload]  block, pattern, read, depth, flush, direct, engine, workers,
 *               prefill; the kind's own (files: class, procs, metadata)
 *   [lab]       size; the lab kind's own (the embedded lab a scenario brings up)
 *   [expect]    metric OP value: lost_writes = 0, max_stall <= 20s, ... (expect.h)
 *   [fault N]   action, host, at, the action's own keys, expect_* keys
 *   [host N]    netns, interface, switch_port, address; ssh, ssh_identity, ...,
 *               lease, restart, switch (hosts outside the lab, also over ssh)
 *   [cluster]   kind, volume, via (the real storage the scenario runs against)
 *   [thrash]    actions, hosts, max_faulted, gap, hold, settle: faults drawn from the
 *               seed, parsed as the [fault] sections they become (thrash.h)
 */
#ifndef FL_SCENARIO_H
#define FL_SCENARIO_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../../checks/expect.h"
#include "../../faults/runtime.h"
#include "../../faults/table.h"
#include "../../workloads/backend.h"
#include "../../workloads/engine.h"
#include "../lab/lab.h"
#include "../storage/storage.h"
#include "thrash.h"

#define FL_MAX_EXPECTS 128

/* [cluster]: the real storage a scenario runs against, known as a lab
 * knows its own (storage.h): heal_s or recover_s of each fault, the heal
 * or recover event, the manifest's description and options, and (ceph)
 * the monitors' events, asked of the storage's own CLI on its `via` host. */
struct cluster_spec {
    int line;                        /* of the section; 0: no [cluster] */
    char kind_name[16];              /* kind, as written */
    const struct storage_kind *kind; /* of kind_name */
    char volume[128];                /* gluster: the volume; ceph: the filesystem ("" any) */
    char via[32];                    /* a [host NAME] with ssh */
};

/* The expected outcome of a scenario, for `faultline suite` (suite.h): a
 * run's own verdict and exit status never depend on it. */
enum { EXPECT_VERDICT_PASS, EXPECT_VERDICT_FAIL }; /* [scenario] expect_verdict */
#define SCENARIO_MAX_FAILING 32

/* One rule of [scenario] expect_failing. */
struct expect_failing {
    char rule[96];  /* a run rule's metric ("lost_writes", "max_stall"), a fault metric of any
                       fault ("stall"), or of one ("kill-a:stall") */
    bool optional;  /* written "RULE?": it may fail, and need not */
};

struct scenario {
    char file[PATH_MAX];
    char name[128];
    char description[256];
    char lab_name[16];             /* [scenario] lab as written ("none") */
    const struct lab_kind *lab;    /* the embedded lab it brings up; NULL: none */
    struct lab_opts lab_opts;      /* [lab] */
    bool allow_destructive;        /* corrupt faults may run */
    char allow_paths[1024];        /* more paths corrupt may write to */
    struct fault_spec faults[FL_MAX_FAULTS]; /* [fault NAME], in file order */
    unsigned nfaults;
    struct host_spec hosts[FL_MAX_HOSTS];    /* [host NAME] */
    unsigned nhosts;
    struct cluster_spec cluster;             /* [cluster] */
    struct thrash_spec thrash;               /* [thrash] (line 0: none) */
    unsigned first_drawn;                    /* faults[first_drawn..] were drawn by it */
    uint64_t duration_ns;
    uint64_t seed;
    bool seed_given;
    uint64_t repeat;      /* runs of the scenario (repeat.h); 1: one run */
    bool journal;
    uint64_t journal_segment; /* 0 = automatic */
    uint64_t findings_limit;
    uint64_t memory_limit; /* bytes the state maps may use; 0 = default (checks/memlimit.h) */

    struct target_cfg target;
    const struct backend_ops *backend; /* of target.kind */
    struct workload_cfg workload;
    int pattern_choice; /* index into "random|sequential" */
    int engine_choice;  /* index into "auto|io_uring|sync" */
    uint64_t block, depth, flush, workers;
    bool direct, prefill;

    /* recovery analysis and the watchdog */
    uint64_t bucket_ns, warmup_ns, hung_after_ns, grace_ns;
    uint64_t heal_wait_ns; /* a lab that heals: how long to wait for it after the workload */
    /* [expect] and the faults' expect_* keys, in file order */
    struct expect_rule expects[FL_MAX_EXPECTS];
    unsigned nexpects;

    /* the expected outcome (suite.h): expect_verdict, expect_failing */
    int expect_verdict;            /* EXPECT_VERDICT_PASS or _FAIL */
    char expect_failing_text[512]; /* as written */
    struct expect_failing expect_failing[SCENARIO_MAX_FAILING];
    unsigned nexpect_failing;
};

/* At most this many mistakes are listed (then how many more there are). */
#define SCENARIO_MAX_ERRORS 20

/* Parses and checks a scenario file.  0, or -1 with every mistake found,
 * "file:line: why" one per line (up to SCENARIO_MAX_ERRORS). */
int scenario_load(const char *path, struct scenario *sc, char *err, size_t errlen);

/* The same from text; `file` is the name used in messages. */
int scenario_parse(const char *text, const char *file, struct scenario *sc, char *err,
                   size_t errlen);

/* Whether the target takes its place from the scenario's lab (a target
 * that names none, of the kind the lab serves). */
bool scenario_lab_places(const struct scenario *sc);

/* Gives the target the place the lab has for it (the lab's portals or
 * mount; of client host `client`, 0: ours) where the scenario named none.
 * 0, or -1 with err. */
int scenario_use_lab(struct scenario *sc, const struct lab *lab, unsigned client, char *err,
                     size_t errlen);

/* The [host] that [cluster] via names (NULL: no [cluster]). */
const struct host_spec *scenario_cluster_via(const struct scenario *sc);

/* Prints every section and key with type, default and help. */
void scenario_reference(FILE *out);

/* The same in a format: "text" (scenario_reference), "markdown" (the
 * document docs/scenario.md) or "man" (man/faultline-scenario.5).  0, or
 * -1 for an unknown format (nothing printed). */
int scenario_reference_as(FILE *out, const char *format);

/* `faultline help metrics`: every metric of metric.h's table as the rows
 * of README's tables (markdown), the run's and then the faults'. */
void scenario_metrics_markdown(FILE *out);

#endif
