/*
 * env — what a fault may know of its run and the run's lab.  Faults reach
 * nothing above them: the timeline fills a struct fault_env, which holds
 * the lab's callbacks (struct fault_lab) for "which process is this host's
 * service", "start it again", "where is this replica's copy" and "cut this
 * host's power", so that a family asks the lab without knowing which lab
 * runs.
 */
#ifndef FL_ENV_H
#define FL_ENV_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../lib/proc.h"
#include "host.h"

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

/* A lab server's disk, as the disk faults reach it: the FUSE layer of
 * faultline-disk between the server's loop device (or tgtd) and the image
 * file, and the socket it takes commands on (lib/diskctl.h). */
struct lab_disk {
    char control[PATH_MAX]; /* the layer's control socket */
    char what[256];         /* for people: "gs1's brick disk (LAB/gs1/brick.img, 512 MiB)" */
    uint64_t size;          /* bytes */
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
    /* The disk of lab host `host` under the lab's fault layer (disk-fail,
     * disk-errors, disk-slow, disk-full).  NULL: the lab has none.  0, or
     * -1 with err ("ctrl-a has no disk of its own", "[lab] disk_faults =
     * no"). */
    int (*disk)(void *ctx, const char *host, struct lab_disk *d, char *err, size_t errlen);
    /* Runs argv on lab host `host` inside all its namespaces, as a session
     * on it would (a cluster manager's CLI: switchover).  The exit status,
     * or -1; out holds the output, or why it could not run. */
    int (*run)(void *ctx, const char *host, char *const argv[], char *out, size_t outlen,
               int timeout_ms);
};

struct undo_log;

/* What faults may know of the run (filled by the timeline). */
struct fault_env {
    const char *dir;          /* the run directory */
    struct undo_log *undo;
    const struct fault_lab *lab; /* NULL without a lab */
    const char *replica_labs; /* lab kinds that keep replicas, for messages */
    const char *target_path;  /* the scenario's own target (file, device or lab LUN) */
    uint32_t block_size;
    uint64_t target_bytes;
    uint64_t seed;            /* the run's seed (what a fault draws at random follows from it) */
    bool allow_destructive;
    const char *allow_paths;  /* comma-separated */
    char tag[16];             /* short run tag for names (nft tables): "fl" + 6 hex */
    struct fault_host hosts[FL_MAX_HOSTS]; /* every host the scenario knows */
    unsigned nhosts;
    char bridge[16];          /* the lab's switch, "" without a lab */
    char switch_netns[64];    /* the namespace it is in: "" ours */
};

#endif
