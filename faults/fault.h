/*
 * fault — outages on a timeline, always undone.
 *
 * A fault family is one file that fills a `struct fault_ops` and one line
 * in the table of fault.c.  Everything special to the family lives there:
 * the keys its [fault NAME] section takes (a key table, values in the
 * section's params), the checks of that section, how long it lasts
 * (instant, until cleared, or in steps), its own state (behind f->state),
 * inject, clear, the words for the report, and which bytes it overwrote.
 * The scenario parser, the timeline, the verdict and the reports use only
 * this table and never know which family runs:
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
 *   power.c      power-off      a lab host's power cut, and back on (loses = unflushed)
 *   command.c    command        any command at inject, its undo at clear
 *
 * Before inject() changes anything the timeline writes the undo records the
 * family planned (undo.h), which say how to put things back; clear() puts
 * them back and marks the records done.  `faultline cleanup` replays what a
 * killed run left undone.
 *
 * Faults reach nothing above them: what they may know of the run and its
 * lab comes in struct fault_env, filled by the timeline, including the
 * lab's callbacks for "which process is this host's service" and "where is
 * this replica's copy".
 *
 * How a fault reaches its host is struct fault_via: applied here
 * (fault_via_local, fault.c), or by `faultline agent` on an ssh host
 * (fault_via_ssh, remote.h), which runs this same family code there.
 */
#ifndef FL_FAULT_H
#define FL_FAULT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../lib/keys.h"
#include "../lib/proc.h"

#define FL_MAX_FAULTS 64
#define FL_MAX_HOSTS 16
#define FL_MAX_UNDO 16 /* a switch-down of a lab with client hosts has up to 13 ports */
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
    /* the family's own keys, laid out as its key table says (FAULT_PARAMS) */
    _Alignas(max_align_t) unsigned char params[FAULT_PARAMS_MAX];
};

/* `loses = nothing|unflushed`: a fault that cuts the power (the user's own
 * `command = ipmitool ... power off`, or power-off) says that writes not yet
 * durable at its inject may be gone, so reads of older data are `reverted`,
 * not lost writes (checks/statemap.h). */
enum fault_loses { LOSES_NOTHING, LOSES_UNFLUSHED };

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

/* How to reach a host over OpenSSH, where `faultline agent` runs its
 * faults (remote.h).  dest[0] == 0: the host is not reached over ssh. */
struct ssh_dest {
    char dest[128];        /* [USER@]ADDRESS */
    uint64_t port;         /* 0: ssh's own default */
    char identity[256];    /* ssh -i; "" none */
    char known_hosts[256]; /* UserKnownHostsFile; "" ssh's default */
    char options[512];     /* more ssh options, as words */
    bool sudo;             /* start the agent through sudo -n */
    char agent_dir[256];   /* where the agent lives on the host; "" the default */
    uint64_t lease_ns;     /* a fault outlives its planned clear by at most this */
};

/* A [host NAME] section: a machine outside the lab, reachable locally
 * through a network namespace, or over ssh. */
struct host_spec {
    char name[32];
    int line;
    char netns[64];
    char interface[16];
    char port[16];
    char address[64];
    char switch_host[32]; /* the [host] of the Linux switch that holds its port */
    char restart[512];    /* starts its service again (restart, restart_after) */
    char ssh[160];        /* [USER@]ADDRESS[:PORT] as written */
    struct ssh_dest via;  /* ssh, parsed, and the other ssh_* keys */
};

/* Where a fault acts, resolved from the lab, `local` or a [host] section. */
struct fault_host {
    char name[32];
    char netns[64];  /* "" = our own */
    char ifname[16]; /* its interface, inside netns */
    char port[16];   /* its switch port (in port_netns); "" unknown */
    char port_netns[64]; /* the namespace of the switch that holds `port`: "" ours (a
                            rank of a lab's client host reaches the lab's switch by name) */
    char addr[64];
    bool lab;        /* a host of the lab: the lab knows its processes */
    char switch_host[32]; /* the host that holds `port` ("" ours, or the lab's switch) */
    char restart[512];    /* a command that starts its service again; "" none */
    struct ssh_dest ssh;  /* reached over ssh (ssh.dest[0]), or not */
};

/* A process the lab runs on a host, as fault_lab.process() names it. */
struct lab_process {
    char name[64];   /* for people: "tgtd", "brick" */
    char comm[32];   /* match processes of this name in the host's namespace; "" */
    pid_t pid;       /* or exactly this one (the host's service), 0 for none */
    uint64_t start;
    bool restartable; /* the lab can start it again (restart, restart_after) */
};

/* Where one replica's copy of the volume lives (corrupt replica = NAME),
 * and how its server is asked about it.  A replica keeps either files
 * (copy: gluster's brick) or objects in a store of its own (store: ceph's
 * OSD, whose bluestore "block" file holds each block of a file at an
 * offset that only the store knows; it is found by its bytes, which are
 * unique in a run: every block names itself). */
struct lab_replica {
    char mount[PATH_MAX]; /* the volume as the client sees it */
    char copy[PATH_MAX];  /* the replica's own directory of the volume, seen at `at`; "" */
    char store[PATH_MAX]; /* or the file its objects' bytes are in, seen at `at`; "" */
    uint32_t align;       /* store: a file's byte sits at a store offset equal to its
                             own modulo this (the store's allocation unit) */
    struct proc_place at; /* the namespaces in which copy or store is mounted */
    /* Commands for /bin/sh -c at `at` ("" none): after its bytes were
     * changed, have the server read them from disk again, not from a cache
     * of its own (reread); check its copy against the others' (scrub). */
    char reread[512];
    char scrub[512];
};

/* What the run's lab lends to faults: callbacks by the lab's own names. */
struct fault_lab {
    void *ctx;
    /* Whether the lab runs `process` ("": the host's service) on lab host
     * `host`; the PID is the one running now.  0: yes (*p filled), 1: the
     * lab knows no such process there, -1 with err. */
    int (*process)(void *ctx, const char *host, const char *process, struct lab_process *p,
                   char *err, size_t errlen);
    /* Starts that process again, configured as before.  0, or -1 with err. */
    int (*restart)(void *ctx, const char *host, const char *process, char *err, size_t errlen);
    /* The copy of replica `name` (NULL: the lab keeps no replicas).  0, or
     * -1 with err ("not a server of ..."). */
    int (*replica)(void *ctx, const char *name, struct lab_replica *r, char *err,
                   size_t errlen);
    /* Cuts the power of lab host `host` (on = false: everything it runs
     * dies at once, and what its disks or caches held but had not made
     * durable is gone) or brings it back (on = true: its service started
     * as after a power-up).  what: one line for the report.  NULL: the lab
     * cannot.  0, or -1 with err. */
    int (*power)(void *ctx, const char *host, bool on, char *what, size_t whatlen, char *err,
                 size_t errlen);
};

struct undo_log;
struct remote;
struct fault;

/* How a fault reaches what it acts on: applied here by its family
 * (fault_via_local), or sent to `faultline agent` on an ssh host, which
 * applies it with the same family code there (remote.h).  The timeline
 * uses only this table and never knows which one runs. */
struct fault_via {
    const char *transport; /* "local" or "ssh", for the report */
    /* Before the run: the family's prepare, here or on the host. */
    int (*prepare)(struct fault *f, char *err, size_t errlen);
    /* Shortly before its time: what must be done ahead — the undo records
     * to disk, or "apply at `at`, cleared by `clear_at`" to the agent (both
     * mono_ns here; clear_at 0: an instant fault).  0, or -1 with err
     * (then it is not applied). */
    int (*arm)(struct fault *f, uint64_t at, uint64_t clear_at, char *err, size_t errlen);
    /* At its time: applies it (or hears that the agent did); *when: the
     * mono_ns it took effect.  0, or -1 with err. */
    int (*inject)(struct fault *f, uint64_t *when, char *err, size_t errlen);
    /* Clears it (or has the agent do so); *when as for inject. */
    int (*clear)(struct fault *f, uint64_t *when, char *err, size_t errlen);
    /* One line for people. */
    void (*describe)(const struct fault *f, char *out, size_t n);
};
extern const struct fault_via fault_via_local;

/* What faults may know of the run (filled by the timeline). */
struct fault_env {
    const char *dir;          /* the run directory */
    struct undo_log *undo;
    const struct fault_lab *lab; /* NULL without a lab */
    const char *replica_labs; /* lab kinds that keep replicas, for messages */
    const char *target_path;  /* the scenario's own target (file, device or lab LUN) */
    uint32_t block_size;
    uint64_t target_bytes;
    bool allow_destructive;
    const char *allow_paths;  /* comma-separated */
    char tag[16];             /* short run tag for names (nft tables): "fl" + 6 hex */
    struct fault_host hosts[FL_MAX_HOSTS]; /* every host the scenario knows */
    unsigned nhosts;
    char bridge[16];          /* the lab's switch, "" without a lab */
    char switch_netns[64];    /* the namespace it is in: "" ours */
};

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
};

/* One fault of a run: its spec, where it acts and what happened. */
struct fault {
    unsigned index; /* in the scenario, for names */
    struct fault_spec spec;
    const struct fault_ops *ops;
    struct fault_env *env;
    struct fault_host host;
    struct fault_schedule schedule;
    /* what happened, ns since the run started */
    bool active;
    bool applied;        /* its change was made (even if its clear failed later) */
    uint64_t scheduled_ns, injected_ns, cleared_ns; /* 0: not (yet) */
    uint64_t apply_ns;   /* how long inject itself took */
    unsigned steps_done; /* a stepped fault's steps so far */
    char detail[1024];   /* what exactly was done, for the report */
    char error[1100];    /* why inject or clear failed */
    bool clear_failed;   /* its clear failed: the outage was not undone as written */
    /* undo: what puts it back, known before inject (written ahead by the
     * timeline), and the open records */
    char undo_kind[FL_MAX_UNDO][16];
    char undo_args[FL_MAX_UNDO][1200]; /* a command (1024) and its namespace */
    unsigned nplanned;
    int undo_seq[FL_MAX_UNDO];
    unsigned nundo;
    bool undo_failed; /* a record stays open for `faultline cleanup` */
    void *state;      /* the family's own, made by its prepare() */
    const struct fault_via *via; /* local, or through an agent */
    /* through an agent (remote.h): the connection, and what it said */
    struct remote *remote;   /* NULL: applied here */
    char via_host[32];       /* the host whose agent applies it (its own, or its switch) */
    char cleared_by[16];     /* "controller", "lease", "close" (agent); "" not cleared */
    bool indeterminate;      /* the agent did not answer in time: it may or may not be in effect */
    unsigned power_loss;     /* loses = unflushed: which power loss of the run (from 1); 0 none */
    bool answer_late;        /* its inject's answer came after the timeline moved on */
};

struct fault_ops {
    const char *action;
    const struct key_def *keys; /* its section's keys besides action, host and at */
    unsigned nkeys;
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
};

/* The families, in the order of the reference. */
unsigned fault_families(const struct fault_ops *const **out);

/* The family of an action, or NULL. */
const struct fault_ops *fault_ops_find(const char *action);

/* "link-down|port-down|...": every action, for messages. */
const char *fault_actions(void);

/* " duration interface ": the keys an action takes, for messages. */
void fault_keys_text(const struct fault_ops *ops, char *out, size_t n);

/* Allocates f->state of `size` zeroed bytes.  The state, or NULL with err. */
void *fault_state(struct fault *f, size_t size, char *err, size_t errlen);

/* Frees f->state (through the family's release). */
void fault_release(struct fault *f);

/* The schedule of a spec (the family's, or lasting for its duration). */
void fault_schedule_of(const struct fault_spec *s, struct fault_schedule *out);

/* Plans an undo record (prepare time): kind and args as undo.h reads them. */
int fault_plan_undo(struct fault *f, const char *kind, const char *args);

/* Writes the planned undo records that are not on disk yet (synced).  The
 * timeline calls it shortly before inject; a family that learns its undo
 * only at inject plans it then and calls it itself. */
int fault_write_undo(struct fault *f, char *err, size_t errlen);

/* Applies every open undo record of f, newest first, marking each done.
 * The generic clear. */
int fault_undo_all(struct fault *f, char *err, size_t errlen);

/* The byte ranges f overwrote (fault_ops.overwrote), as its agent said for
 * a fault on an ssh host; 0 for none. */
unsigned fault_overwrote(const struct fault *f, const uint64_t (**ranges)[2], bool *on_target);

/* Whether the fault acts on its host's switch (fault_ops.on_switch). */
bool fault_on_switch(const struct fault_spec *s);

/* A spec as text, for the agent: "k.KEY" = value for every key of its
 * family (key_format), into a message being written. */
struct jl_out;
struct jl_obj;
void fault_spec_put(const struct fault_spec *s, struct jl_out *o);

/* The spec back from such a message: name, action and the "k.KEY" values,
 * each checked against the family's key table (unknown keys are refused),
 * then the family's own check.  0, or -1 with err. */
int fault_spec_get(const struct jl_obj *m, const struct fault_rules *rules,
                   struct fault_spec *s, char *err, size_t errlen);

/* on_switch for families that always act on the switch (port, switch). */
bool fault_acts_on_switch(const struct fault_spec *s);

/* A host by name among env->hosts, or NULL. */
const struct fault_host *fault_find_host(const struct fault_env *env, const char *name);

/* Namespace argument of an undo record: the host's, or "-" for ours. */
const char *fault_netns_arg(const struct fault_host *h);

/* The same for a namespace by name ("" ours). */
const char *fault_netns_word(const char *netns);

#endif
