/*
 * storage — what faultline knows of the storage systems it tests, written
 * once for the embedded labs and for real clusters.
 *
 * A storage kind is one file and one line in the table of storage.c:
 *
 *   gluster.c  gluster  a GlusterFS volume: its heal (`gluster volume heal
 *                       VOL info summary`), its setup and options (`gluster
 *                       volume info VOL`)
 *   ceph.c     ceph     a Ceph cluster with CephFS: its recovery (`ceph
 *                       status`), its version, filesystem and pools, and
 *                       what its monitors logged (MDS takeovers, an OSD's
 *                       bad copies met on a read or a scrub)
 *   pacemaker.c pacemaker an HA cluster under Pacemaker and Corosync: no
 *                       heal (it keeps no replicas); its versions and
 *                       timeouts, and what its nodes logged (membership,
 *                       fencing, resources started and stopped)
 *
 * A kind only asks the storage's own CLI, through the storage's `cli`:
 * where that runs is not its business.  An embedded lab (lab.h) runs it
 * inside the namespaces of one of its live servers; a real cluster (the
 * scenario's [cluster] section) on its `via` host over ssh (storage.c,
 * with that [host]'s ssh settings and sudo), exactly as an operator on that
 * host would type it.  So the same parsing gives a run on the lab and a
 * run on a real cluster their heal_s or recover_s, their heal or recover
 * events, the manifest's description of the storage, and (ceph) the
 * monitors' events.
 *
 * What only a lab can give is a hook of its own: the monitors' log files
 * (`logs`, where a lab reads every monitor's copy of the cluster log and
 * the monitors' own logs) and the settings it brought the storage up with
 * (`setting`).  On a real cluster the cluster log comes from the cluster
 * itself (`ceph log last`), and what is only in a monitor's own log is
 * not known (storage_ceph's comment says which events those are).
 */
#ifndef FL_STORAGE_H
#define FL_STORAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../faults/env.h"
#include "../../faults/host.h"
#include "../../lib/kvlist.h"

struct storage;

/* Runs the storage's CLI: argv[0] is the program ("gluster", "ceph"),
 * then its arguments.  The exit status, or -1; out holds the output, or
 * why it could not run. */
typedef int (*storage_cli_fn)(const struct storage *st, char *const argv[], char *out,
                              size_t outlen, int timeout_ms);

/* One thing the storage logged, at wall_ns (Unix time, ns): a path-like
 * event of the run (events.h) named `event`, about `where`. */
typedef void (*storage_saw_fn)(void *ctx, uint64_t wall_ns, const char *event, const char *where,
                               const char *detail);

/* One line of a log, from `source` (a monitor: "cs1"). */
typedef void (*storage_line_fn)(void *ctx, const char *source, const char *line);

/* How a kind's replicated storage becomes whole again after a fault, as
 * the heal watch (heal.h) asks it. */
struct storage_heal {
    const char *word;  /* the metric, as the kind says it: "heal" (gluster: heal_s,
                          expect_heal), "recover" (ceph: recover_s, expect_recover) */
    const char *whole; /* what nothing pending means, for people */
    unsigned poll_ms;  /* how often to ask: what a question costs decides */
    /* What is still pending: a count (0: whole) with what in words, or -1
     * with what saying why the question failed (that counts as pending).
     * *missing (when not NULL): what of it keeps the data short of its
     * full redundancy, which a fault's settle wait needs (ceph: placement
     * groups not active+clean, without a health warning that is not about
     * the data; gluster: the same count). */
    long (*pending)(const struct storage *st, long *missing, char *what, size_t n);
};

struct storage_kind {
    const char *name;     /* [cluster] kind */
    const char *what;     /* for people: "a GlusterFS volume" */
    const char *volume;   /* what [cluster] volume names ("the volume"); NULL: no such key */
    bool needs_volume;    /* [cluster] volume is required */
    const char *cli;      /* its CLI program, for messages */
    const struct storage_heal *heal;
    /* For the report's manifest: the storage's setup into about (gluster:
     * the volume's name, type, bricks), its options into options (as the
     * storage names them).  What cannot be learned goes into about as
     * "error". */
    void (*describe)(const struct storage *st, struct kv_list *about, struct kv_list *options);
    /* What the storage logged from from_wall_ns on that the run's timeline
     * needs, each passed to fn (NULL: nothing). */
    void (*happened)(const struct storage *st, uint64_t from_wall_ns, storage_saw_fn fn,
                     void *ctx);
};

/* One storage system: of which kind, how its CLI is reached, and what the
 * one who reaches it knows besides. */
struct storage {
    const struct storage_kind *kind;
    char volume[128];     /* gluster: the volume; ceph: the filesystem ("" whichever) */
    storage_cli_fn cli;
    const void *at;       /* cli's own: the lab, or the via host's ssh_dest */
    char where[192];      /* where the CLI runs, for messages: "on gs1 (ssh root@...)" */
    /* Each line of the storage's log files called `which` (ceph: "cluster.log",
     * every monitor's copy of the cluster log; "log", the monitors' own),
     * where they can be read (a lab).  NULL: they cannot. */
    void (*logs)(const struct storage *st, const char *which, storage_line_fn fn, void *ctx);
    /* A setting the storage was brought up with, by its name ("mds_beacon_grace"):
     * a duration in ns, or a count.  NULL, or false: not known. */
    bool (*setting)(const struct storage *st, const char *name, uint64_t *value);
    /* The address of daemon `name` ("mds.cs1", "mon.cs1", "osd.0"), for
     * where an event happened ("": not known).  NULL: none known. */
    void (*address)(const struct storage *st, const char *name, char *out, size_t n);
    /* A real cluster's hosts whose cluster_logs name its log files
     * (storage_logs_over_ssh); 0: none. */
    const struct host_spec *log_hosts;
    unsigned nlog_hosts;
};

/* The kinds (a lab names the one it runs). */
extern const struct storage_kind storage_gluster, storage_ceph, storage_pacemaker;

/* The kinds, and the one called name (NULL: unknown). */
unsigned storage_kinds_all(const struct storage_kind *const **out);
const struct storage_kind *storage_kind_find(const char *name);

/* "gluster|ceph", for messages. */
const char *storage_kinds(void);

/* A real cluster's storage of kind k (volume: [cluster] volume, or ""),
 * whose CLI runs on host `host` over ssh, as `via` says to reach it (ssh,
 * ssh_identity, ssh_known_hosts, port, ssh_options, sudo).  via must
 * outlive st. */
void storage_over_ssh(struct storage *st, const struct storage_kind *k, const char *volume,
                      const char *host, const struct ssh_dest *via);

/* The cluster's logs on the [host]s among hosts[0..n) that name them
 * (cluster_logs), read over ssh (sudo -n with sudo = yes): the last 4 MiB
 * of each file whose name holds `which` ("pacemaker", "corosync"), line
 * by line with the host's name as the source (storage.logs).  A host that
 * does not answer (powered off, cut off) gives nothing.  hosts must
 * outlive st. */
void storage_logs_over_ssh(struct storage *st, const struct host_spec *hosts, unsigned n);

/* Runs `argv` of the storage's CLI (storage.cli), with err naming the
 * command and what it said when it fails.  0, or -1. */
int storage_cli_ok(const struct storage *st, char *const argv[], char *out, size_t outlen,
                   int timeout_ms, char *err, size_t errlen);

#endif
