/*
 * fault — outages on a timeline, always undone.
 *
 * A fault family is one file filling a `struct fault_ops` (inject, clear,
 * describe); the timeline never knows which one runs:
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
 *   command.c    command        any command at inject, its undo at clear
 *
 * Before inject() changes anything it writes an undo record (undo.h) that
 * says how to put things back; clear() puts them back and marks the record
 * done.  `faultline cleanup` replays what a killed run left undone.
 */
#ifndef FL_FAULT_H
#define FL_FAULT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define FL_MAX_FAULTS 64
#define FL_MAX_HOSTS 16

enum fault_dir { DIR_BOTH, DIR_IN, DIR_OUT };
enum corrupt_mode { CORRUPT_RANDOM, CORRUPT_ZERO, CORRUPT_BITFLIP };

/* A [fault NAME] section, as the scenario says it. */
struct fault_spec {
    char name[64];
    int line; /* of the section header, for messages */
    int action_choice;
    char host[32];
    uint64_t at_ns;
    uint64_t duration_ns; /* 0: until the end of the run */
    /* port-flap */
    uint64_t count, period_ns;
    /* partition, loss, bandwidth */
    char peers[512];
    int direction_choice; /* enum fault_dir */
    unsigned percent;
    uint64_t port;
    uint64_t rate_bps, burst;
    /* overrides for hosts outside the lab */
    char interface[16];
    char switch_port[16];
    char switch_name[16];
    /* kill, pause, restart */
    char process[64];
    char pidfile[256];
    uint64_t pid;
    uint64_t restart_after_ns;
    /* corrupt */
    char path[1024];
    char replica[16]; /* a gluster lab server: corrupt its brick copy */
    uint64_t offset, length, blocks;
    int mode_choice; /* enum corrupt_mode */
    uint64_t seed;
    bool seed_given;
    /* command */
    char command[1024];
    char undo[1024];
    /* which keys the section set (bit per key of the table), for checks */
    uint64_t set;
};

/* A [host NAME] section: a machine outside the lab, reachable locally
 * through a network namespace. */
struct host_spec {
    char name[32];
    int line;
    char netns[64];
    char interface[16];
    char port[16];
    char address[64];
};

/* Where a fault acts, resolved from the lab, `local` or a [host] section. */
struct fault_host {
    char name[32];
    char netns[64];  /* "" = our own */
    char ifname[16]; /* its interface, inside netns */
    char port[16];   /* its switch port, in our namespace; "" unknown */
    char addr[64];
    bool lab;        /* a lab host: its service can be restarted */
    pid_t pid;       /* its service (lab) */
    uint64_t start;
};

struct undo_log;
struct lab;

/* What faults may know of the run (filled by the timeline). */
struct fault_env {
    const char *dir;        /* the run directory */
    struct undo_log *undo;
    const struct lab *lab;  /* NULL without a lab */
    const char *target_path; /* the scenario's own target (file, device or lab LUN) */
    uint32_t block_size;
    uint64_t target_bytes;
    bool allow_destructive;
    const char *allow_paths; /* comma-separated */
    char tag[16];           /* short run tag for names (nft tables): "fl" + 6 hex */
    struct fault_host hosts[FL_MAX_HOSTS]; /* every host the scenario knows */
    unsigned nhosts;
    char bridge[16];        /* the lab's switch, "" without a lab */
};

#define FL_MAX_UNDO 8

/* One fault of a run: its spec, where it acts and what happened. */
struct fault {
    unsigned index; /* in the scenario, for names */
    struct fault_spec spec;
    const struct fault_ops *ops;
    struct fault_env *env;
    struct fault_host host;
    char peers[FL_MAX_HOSTS][64]; /* partition/loss peers' addresses */
    unsigned npeers;
    /* what happened, ns since the run started */
    bool active;
    uint64_t scheduled_ns, injected_ns, cleared_ns; /* 0: not (yet) */
    uint64_t apply_ns;   /* how long inject itself took */
    unsigned steps_done; /* port-flap bounces */
    char detail[1024];   /* what exactly was done, for the report */
    char error[1100];    /* why inject or clear failed */
    /* undo: what puts it back, known before inject (written ahead by the
     * timeline), and the open records */
    char undo_kind[FL_MAX_UNDO][16];
    char undo_args[FL_MAX_UNDO][1200]; /* a command (1024) and its namespace */
    unsigned nplanned;
    int undo_seq[FL_MAX_UNDO];
    unsigned nundo;
    bool undo_failed; /* a record stays open for `faultline cleanup` */
    /* family state */
    char table[48];      /* nft table name */
    void *sk;            /* a netlink socket kept open for a fast inject */
    int ifindex[FL_MAX_UNDO]; /* links it switches, looked up at prepare */
    char saved_ports[FL_MAX_HOSTS][16]; /* switch-down: ports that were up */
    unsigned nsaved;
    uint64_t ranges[64][2]; /* corrupt: byte offset and length of each range */
    unsigned nranges;
    char path[PATH_MAX];    /* corrupt: the file or device; with replica, inside the volume */
    char *files;            /* corrupt with replica: the file of each range, NUL-separated
                               (freed with the timeline) */
    pid_t pids[16];
    uint64_t starts[16];
    unsigned npids;
};

struct fault_ops {
    const char *action;
    /* Checks and resolves what the fault needs, before the run starts.
     * NULL when nothing beyond the generic checks is needed. */
    int (*prepare)(struct fault *f, char *err, size_t errlen);
    /* Records undo, then applies.  0, or -1 with err. */
    int (*inject)(struct fault *f, char *err, size_t errlen);
    /* Puts things back and marks the undo records done; NULL: replaying the
     * undo records is the clear (fault_undo_all).  0, or -1 with err. */
    int (*clear)(struct fault *f, char *err, size_t errlen);
    /* One line for people: "port fl-isw-a (switch port of ctrl-a) down". */
    void (*describe)(const struct fault *f, char *out, size_t n);
};

/* "link-down|port-down|..." in the order of enum fault_action. */
extern const char *const fault_actions;

/* The ops of an action (index into fault_actions), or NULL. */
const struct fault_ops *fault_ops_of(int action_choice);
const char *fault_action_name(int action_choice);

/* Plans an undo record (prepare time): kind and args as undo.h reads them. */
int fault_plan_undo(struct fault *f, const char *kind, const char *args);

/* Writes the planned undo records that are not on disk yet (synced).  The
 * timeline calls it shortly before inject; a family that learns its undo
 * only at inject plans it then and calls it itself. */
int fault_write_undo(struct fault *f, char *err, size_t errlen);

/* Applies every open undo record of f, newest first, marking each done.
 * The generic clear. */
int fault_undo_all(struct fault *f, char *err, size_t errlen);

/* A host by name among env->hosts, or NULL. */
const struct fault_host *fault_find_host(const struct fault_env *env, const char *name);

#endif
