/*
 * fault — the contract of a fault family: outages on a timeline, always
 * undone.
 *
 * A fault family is one file under families/ that fills a `struct
 * fault_ops` and one line in the table of families (table.c).  Everything
 * special to the family lives there: the keys its [fault NAME] section
 * takes (a key table, values in the section's params), the checks of that
 * section, how long it lasts (instant, until cleared, or in steps), its own
 * state (behind f->state), inject, clear, the words for the report, and
 * which bytes it overwrote.  The scenario parser, the timeline, the verdict
 * and the reports use only the table and never know which family runs:
 *
 *   link.c       link-down      a host's interface down, then up (netlink, in its namespace)
 *   port.c       port-down,     the switch port facing a host down / bounced
 *                port-flap
 *   switch.c     switch-down    every port of the switch down (a switch restart)
 *   partition.c  partition      drop traffic between a host and its peers (nftables)
 *   loss.c       loss           drop a share of packets (nftables numgen random)
 *   bandwidth.c  bandwidth      cap a link's rate (tc tbf through libnl)
 *   process.c    kill, pause,   SIGKILL / SIGSTOP..SIGCONT / kill and start again
 *                restart
 *   corrupt.c    corrupt        overwrite byte ranges or blocks of a file or device
 *   scrub.c      scrub          have a lab's replica checked against the others now
 *   power.c      power-off      a lab host's power cut, and back on (loses = unflushed);
 *                               a [host]'s by its power_off / power_on commands
 *   disk.c       disk-fail,     a server's disk: every I/O fails / bad sectors / slow / full
 *                disk-errors,   (the lab's disk layer, lib/diskctl.h; on a [host], a SCSI
 *                disk-slow,     disk offline or a device-mapper table: disk_host.c)
 *                disk-full
 *   command.c    command        any command at inject, its undo at clear
 *   switchover.c switchover     a planned move of an HA cluster's resources (crm_resource)
 *
 * (links.c and nftfault.c there are what some families share: a link set
 * down and up again; a table of nftables rules.)
 *
 * Before inject() changes anything the timeline writes the undo records the
 * family planned (undo.h), which say how to put things back; clear() puts
 * them back and marks the records done.  `faultline cleanup` replays what a
 * killed run left undone.
 *
 * This header is what a family is written against: its spec (struct
 * fault_spec), how it lasts, the parser's rules, the ops, and the helpers
 * of fault.c it may call.  The rest lives in headers of its own:
 *
 *   host.h     where a fault acts: a [host] section, its ssh, the resolved host
 *   env.h      what a fault may know of the run and its lab (the lab's callbacks)
 *   runtime.h  one fault of a run (struct fault) and how it reaches its host
 *              (struct fault_via: applied here, dispatch.c, or over ssh, ssh/)
 *   table.h    the table of families, for the parser
 *
 * Faults reach nothing above them (tests/layers.sh).
 */
#ifndef FL_FAULT_H
#define FL_FAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../lib/keys.h"

#define FAULT_PARAMS_MAX 3072 /* room for the largest family's own keys */
#define AT_MOST_A_DAY 86400000000000ull

enum fault_dir { DIR_BOTH, DIR_IN, DIR_OUT };

/* A [fault NAME] section, as the scenario says it. */
struct fault_spec {
    char name[64];
    int line;                     /* of the section header, for messages */
    int at_line;                  /* of its `at` (the header's when not given) */
    const struct fault_ops *ops;  /* its action's family */
    char host[32];
    uint64_t at_ns;
    uint64_t duration_ns;         /* 0: until the end of the run */
    char interface[16];           /* where to reach a host outside the lab */
    char switch_port[16];
    int loses;                    /* enum fault_loses: what the storage may lose at inject */
    /* settle = whole: before its inject, the run waits until the storage
     * is whole (no fault in effect, and the lab, [cluster] or
     * settle_command says so), and every fault not yet begun moves later
     * by that wait (harness/live/timeline.h) */
    int settle;                   /* enum fault_settle */
    char settle_command[256];     /* "": the storage's own word (its heal or recovery) */
    uint64_t settle_timeout_ns;   /* given up after this long without progress */
    /* the family's own keys, laid out as its key table says (FAULT_PARAMS) */
    _Alignas(max_align_t) unsigned char params[FAULT_PARAMS_MAX];
};

/* `loses = nothing|unflushed`: a fault that cuts the power (the user's own
 * `command = ipmitool ... power off`, or power-off) says that writes not yet
 * durable at its inject may be gone, so reads of older data are `reverted`,
 * not lost writes (checks/statemap.h). */
enum fault_loses { LOSES_NOTHING, LOSES_UNFLUSHED };

/* `settle = none|whole`. */
enum fault_settle { SETTLE_NONE, SETTLE_WHOLE };

/* The family's params of a spec, as its own struct. */
#define FAULT_PARAMS(spec, type) ((type *)(void *)(spec)->params)

/* For a family's key table: a field of its params struct, or a common one. */
#define FAULT_PARAM(type, field)                                                               \
    offsetof(struct fault_spec, params) + offsetof(type, field), sizeof(((type *)0)->field)
#define FAULT_PARAM_GIVEN(type, field)                                                         \
    (offsetof(struct fault_spec, params) + offsetof(type, field) + 1)
#define FAULT_COMMON(field) KEY_FIELD(struct fault_spec, field)

/* Keys several families take, written once. */
#define FAULT_KEY_DURATION                                                                     \
    {"duration", KEY_DURATION, NULL, NULL, FAULT_COMMON(duration_ns), 1000000, AT_MOST_A_DAY,  \
     "how long (default: until the end of the workload, and cleared then)", 0}
#define FAULT_KEY_INTERFACE                                                                    \
    {"interface", KEY_TEXT, NULL, NULL, FAULT_COMMON(interface), 0, 0,                        \
     "link-down, bandwidth: the host's interface (lab hosts know theirs)", 0}
#define FAULT_KEY_SWITCH_PORT                                                                  \
    {"switch_port", KEY_TEXT, NULL, NULL, FAULT_COMMON(switch_port), 0, 0,                    \
     "port-down, port-flap, bandwidth: the switch port facing the host (lab hosts know theirs)", \
     0}
#define FAULT_KEY_DIRECTION(type, field)                                                       \
    {"direction", KEY_CHOICE, "both", "both|in|out", FAULT_PARAM(type, field), 0, 0,           \
     "partition, loss, bandwidth: which traffic of the host", 0}

/* How a fault lasts, from its spec (fault_ops.schedule). */
enum fault_shape {
    FAULT_INSTANT, /* done once injected: nothing to clear */
    FAULT_LASTING, /* in effect until cleared */
    FAULT_STEPPED, /* `steps` inject/clear pairs, one every `period_ns` */
};
struct fault_schedule {
    enum fault_shape shape;
    uint64_t clear_after_ns; /* LASTING: cleared this long after inject; 0: at the end */
    uint64_t steps, period_ns; /* STEPPED: each step is down for half the period */
};

/* What the parser tells a family's check about the whole scenario. */
struct fault_rules {
    bool allow_destructive;
    /* What the scenario says of the fault's host (host_known false: not
     * known where the check runs, as on an agent): a lab host, whose lab
     * names its processes and starts them again; or a host that starts its
     * service again with a command of its own ([host] restart = COMMAND). */
    bool host_known, host_in_lab, host_restarts;
    /* A [host] with power_off and power_on: commands that cut its power
     * and bring it back, run here (a BMC's). */
    bool host_powers;
};

struct fault;
struct fault_env;
struct fault_host;

/* What a family does: its part of the table (table.c). */
struct fault_ops {
    const char *action;
    const struct key_def *keys; /* its section's keys besides action, host and at */
    unsigned nkeys;
    /* The key of its own that says how long it holds (duration,
     * restart_after, power_on_after): what a [thrash] section draws its
     * hold into.  NULL: it takes none (instant, or lasting by its steps). */
    const char *hold_key;
    /* Checks the section on its own, at parse time (no system is touched).
     * 0, or -1 with the message that follows "FILE:LINE: ".  NULL: nothing
     * beyond the key types. */
    int (*check)(const struct fault_spec *s, const struct fault_rules *r, char *err,
                 size_t errlen);
    /* How it lasts.  NULL: until its duration ends (or the workload does). */
    void (*schedule)(const struct fault_spec *s, struct fault_schedule *out);
    /* Resolves and checks what it needs on the system, makes f->state and
     * plans its undo records, before the run starts.  NULL: nothing. */
    int (*prepare)(struct fault *f, char *err, size_t errlen);
    /* Applies (its undo is on disk already).  0, or -1 with err. */
    int (*inject)(struct fault *f, char *err, size_t errlen);
    /* Puts things back and marks the undo records done; NULL: replaying the
     * undo records is the clear (fault_undo_all).  0, or -1 with err. */
    int (*clear)(struct fault *f, char *err, size_t errlen);
    /* One line for people: "port fl-isw-a (switch port of ctrl-a) down". */
    void (*describe)(const struct fault *f, char *out, size_t n);
    /* The byte ranges it overwrote, and whether they are of the scenario's
     * own target (reads of those blocks are then its doing).  Count; NULL
     * or 0: it overwrites nothing. */
    unsigned (*overwrote)(const struct fault *f, const uint64_t (**ranges)[2], bool *on_target);
    /* Frees what f->state holds besides itself.  NULL: free(state) does. */
    void (*release)(struct fault *f);
    /* Whether it acts on the host's switch (its port) rather than on the
     * host: over ssh, it then runs where the switch is.  NULL: on the host. */
    bool (*on_switch)(const struct fault_spec *s);
    /* Whether it runs here, on the controller, even on a host reached over
     * ssh: what it runs acts on the host from outside (a BMC's power off,
     * which the host's own agent could not answer after).  f->host is
     * resolved.  NULL: where the host is. */
    bool (*on_controller)(const struct fault *f);
};

/* --- what a family may call (fault.c) --- */

/* Allocates f->state of `size` zeroed bytes.  The state, or NULL with err. */
void *fault_state(struct fault *f, size_t size, char *err, size_t errlen);

/* Plans an undo record (prepare time): kind and args as undo.h reads them. */
int fault_plan_undo(struct fault *f, const char *kind, const char *args);

/* Writes the planned undo records that are not on disk yet (synced).  The
 * timeline calls it shortly before inject; a family that learns its undo
 * only at inject plans it then and calls it itself. */
int fault_write_undo(struct fault *f, char *err, size_t errlen);

/* Applies every open undo record of f, newest first, marking each done.
 * The generic clear. */
int fault_undo_all(struct fault *f, char *err, size_t errlen);

/* Marks every open undo record of f done without applying it: the family's
 * clear did what they say. */
void fault_undo_done(struct fault *f);

/* on_switch for families that always act on the switch (port, switch). */
bool fault_acts_on_switch(const struct fault_spec *s);

/* A host by name among env->hosts, or NULL. */
const struct fault_host *fault_find_host(const struct fault_env *env, const char *name);

/* Namespace argument of an undo record: the host's, or "-" for ours. */
const char *fault_netns_arg(const struct fault_host *h);

/* The same for a namespace by name ("" ours). */
const char *fault_netns_word(const char *netns);

#endif
