/*
 * scenario — what a scenario file means.
 *
 * One table (scenario.c) lists every section, key, type, default and a line
 * of help.  The parser, the defaults, the error messages and `faultline help
 * scenario` are all driven by it, so the reference cannot drift from the
 * code.  Unknown sections and keys are errors, reported as file:line with
 * the closest known key.
 *
 *   [scenario]  name, duration, seed, journal, lab, ...
 *   [target]    kind, path, size, sync; for iscsi: portals, fua, timeouts
 *   [workload]  block, pattern, read, depth, flush, direct, engine, workers;
 *               for files: class, procs, metadata
 *   [lab]       write_cache, size (the embedded lab a scenario brings up)
 *   [expect]    metric OP value: lost_writes = 0, max_stall <= 20s, ... (expect.h)
 *   [fault N]   action, host, at, duration, the action's own keys, expect_* keys
 *   [host N]    netns, interface, switch_port, address (hosts outside the lab)
 */
#ifndef FL_SCENARIO_H
#define FL_SCENARIO_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../checks/expect.h"
#include "../workloads/backend.h"
#include "../faults/fault.h"
#include "../workloads/engine.h"

#define FL_MAX_EXPECTS 128

struct scenario {
    char file[PATH_MAX];
    char name[128];
    char description[256];
    int lab_choice;           /* index into "none|iscsi|gluster" */
    bool allow_destructive;   /* corrupt faults may run */
    char allow_paths[1024];   /* more paths corrupt may write to */
    struct fault_spec faults[FL_MAX_FAULTS]; /* [fault NAME], in file order */
    unsigned nfaults;
    struct host_spec hosts[FL_MAX_HOSTS];    /* [host NAME] */
    unsigned nhosts;
    bool lab_write_cache;     /* [lab] write_cache */
    uint64_t lab_size;        /* [lab] size of the shared LUN or of each brick; 0: default */
    uint64_t lab_ping_timeout_ns, lab_heal_timeout_ns; /* [lab] gluster volume options */
    bool lab_bitrot;
    uint64_t duration_ns;
    uint64_t seed;
    bool seed_given;
    bool journal;
    uint64_t journal_segment; /* 0 = automatic */
    uint64_t findings_limit;

    struct target_cfg target;
    struct workload_cfg workload;
    int pattern_choice; /* index into "random|sequential" */
    int engine_choice;  /* index into "auto|io_uring|sync" */
    char portals_text[FL_MAX_PORTALS * FL_URL_MAX]; /* [target] portals, as written */
    uint64_t command_timeout_ns, tcp_user_timeout_ns, nop_interval_ns, nop_missed;
    uint64_t io_timeout_ns, login_timeout_ns, retry_interval_ns;
    uint64_t block, depth, flush, workers;
    int class_choice;        /* files: index into "large|medium|small|tree|mixed" */
    uint64_t procs, metadata; /* files: streams (= depth), metadata streams */
    bool direct, prefill;

    /* recovery analysis and the watchdog */
    uint64_t bucket_ns, warmup_ns, hung_after_ns, grace_ns;
    uint64_t heal_wait_ns; /* lab = gluster: how long to wait for the volume to heal */
    /* [expect] and the faults' expect_* keys, in file order */
    struct expect_rule expects[FL_MAX_EXPECTS];
    unsigned nexpects;
};

/* Parses and checks a scenario file.  0, or -1 with "file:line: why". */
int scenario_load(const char *path, struct scenario *sc, char *err, size_t errlen);

/* The same from text; `file` is the name used in messages. */
int scenario_parse(const char *text, const char *file, struct scenario *sc, char *err,
                   size_t errlen);

/* Fills [target] portals of an iscsi target from a lab's portal URLs
 * (scenario with lab = iscsi and no portals of its own). */
void scenario_use_portals(struct scenario *sc, char urls[][FL_URL_MAX], unsigned n);

/* Points a files target without path at a lab's mount (lab = gluster). */
void scenario_use_mount(struct scenario *sc, const char *dir);

/* Prints every section and key with type, default and help. */
void scenario_reference(FILE *out);

#endif
