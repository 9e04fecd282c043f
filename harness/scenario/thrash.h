/*
 * thrash — a [thrash] section: random outages drawn from the run's seed.
 *
 *   [thrash]
 *   actions = kill:3, power-off, link-down   each with a weight (default 1)
 *   kill.process = brick                     an action's own keys, as its
 *                                            [fault] takes them, written once
 *   hosts = gs1, gs2, gs3                    the hosts faults may hit
 *   max_faulted = 1                          hosts under a fault at once
 *   gap = 10s..60s                           from one inject to the next
 *   hold = 5s..30s                           how long each holds
 *   settle = whole                           wait for the storage before each
 *
 * The draw is a schedule of [fault] sections, and the schedule is the
 * scenario: the parser (scenario_parse.c) writes the scenario's own text
 * with the [thrash] section turned into comments and the drawn faults
 * appended (thrash_schedule_text), and parses that.  So a run of a thrash
 * runs exactly the text it writes as DIR/schedule.scn, and `faultline run
 * schedule.scn` replays it.
 *
 * The draw, from the seed alone (a stream of its own, so that the same
 * seed gives the same workload and the same schedule): the first fault at
 * `start`, each next one a drawn gap later.  At each time an action is
 * drawn by weight among those that have a host free (not under a fault,
 * and fewer than max_faulted hosts under one), then a free host at
 * random; with none free the time moves to the next clear.  A hold is
 * drawn for actions that take one (fault_ops.hold_key); a fault that would
 * not end before the last `quiet_end` of the workload ends the draw.  An
 * action given its own `host` (switch-down.host = switch) always hits it;
 * a host that is not among `hosts` stands for all of them (a switch).
 * Times are drawn in whole milliseconds, so the text says them exactly.
 */
#ifndef FL_THRASH_H
#define FL_THRASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../../faults/runtime.h"
#include "../../lib/keys.h"

#define THRASH_MAX_ACTIONS 16
#define THRASH_MAX_KEYS 8 /* an action's own keys */
#define THRASH_MAX_HOSTS 16

/* An ACTION.KEY = VALUE line, as written. */
struct thrash_entry {
    char action[32], key[48], value[256];
    int line;
};

struct thrash_action {
    const struct fault_ops *ops;
    unsigned weight;
    struct thrash_entry keys[THRASH_MAX_KEYS]; /* its own keys */
    unsigned nkeys;
    char host[32]; /* ACTION.host: always this host ("" any of hosts) */
    struct fault_spec proto; /* its keys bound, for the span of a drawn hold */
};

/* One drawn fault. */
struct thrash_fault {
    unsigned action; /* index in actions */
    char host[32];
    uint64_t at_ns, hold_ns, span_ns; /* hold 0: the action takes none */
};

struct thrash_spec {
    int line; /* of [thrash]; 0: none */
    /* as written (the key table below binds them) */
    char actions_text[512], hosts_text[512], gap_text[64], hold_text[64];
    uint64_t max_faulted;
    int settle; /* enum fault_settle */
    char settle_command[256];
    uint64_t settle_timeout_ns;
    uint64_t start_ns, quiet_end_ns;
    struct thrash_entry entries[THRASH_MAX_ACTIONS * THRASH_MAX_KEYS]; /* ACTION.KEY lines */
    unsigned nentries;
    /* read from them */
    struct thrash_action actions[THRASH_MAX_ACTIONS];
    unsigned nactions;
    char hosts[THRASH_MAX_HOSTS][32];
    unsigned nhosts;
    uint64_t gap_min, gap_max, hold_min, hold_max;
    /* the draw */
    uint64_t seed;
    bool seed_drawn; /* the scenario gave none: the schedule text says it */
    struct thrash_fault drawn[FL_MAX_FAULTS];
    unsigned ndrawn;
    bool full; /* the draw stopped at FL_MAX_FAULTS, not at the end */
};

/* The general keys of [thrash] (values in struct thrash_spec). */
struct key_table thrash_keys(void);

/* An ACTION.KEY entry: kept for the action (checked once the actions are
 * known, by thrash_read).  0, or -1 with "FILE:LINE: why". */
int thrash_keep_entry(struct thrash_spec *t, const char *file, int line, const char *key,
                      const char *value, char *err, size_t n);

/* Reads actions, hosts, gap and hold, checks every ACTION.KEY against its
 * action's family, binds each action's prototype.  fault_keys: the common
 * [fault] keys (for their defaults).  Every mistake goes through note().
 * 0, or -1. */
int thrash_read(struct thrash_spec *t, const char *file, struct key_table fault_keys,
                void (*note)(void *ctx, const char *msg), void *ctx);

/* Draws the schedule from seed into t->drawn, for a workload of
 * duration_ns, at most room faults.  0, or -1 with err (nothing fits). */
int thrash_draw(struct thrash_spec *t, uint64_t seed, uint64_t duration_ns, unsigned room,
                char *err, size_t n);

/* What a run made of each drawn fault, for the schedule it writes last:
 * reached false (settle waits moved it past the end) leaves it out;
 * settle_s >= 0 is what its settle wait took. */
struct thrash_outcome {
    bool reached;
    double settle_s;
};

/* The scenario text with the [thrash] section (from its line to the next
 * section) turned into comments and the drawn faults appended, each with
 * settle and its action's keys; with_seed puts `seed = N` under
 * [scenario] (a scenario that gave none).  outcome: NULL, or one per
 * drawn fault.  malloc'd, or NULL when memory is short. */
char *thrash_schedule_text(const char *text, const struct thrash_spec *t, bool with_seed,
                           const struct thrash_outcome *outcome);

#endif
