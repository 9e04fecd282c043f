/*
 * lab_kind — the contract a lab kind fills: four tables by job, each a
 * static const struct in the kind's files, named by its struct lab_kind
 * (lab.h) and one line in the table of lab_kinds.c.
 *
 *   lab_build    what it builds and how: names, servers, size
 *   lab_serve    what it lends a run: the target's place, its storage
 *   lab_faults   what faults reach: processes, restarts, power, replicas
 *   lab_report   its health, its part of `lab status`, the manifest
 *
 * Every kind has all four (a member it cannot fill is NULL, as each says).
 * The core helpers a kind uses are in headers of their own: lab_names.h,
 * lab_record.h, lab_server.h; none of them uses the table
 * of kinds.
 */
#ifndef FL_LAB_KIND_H
#define FL_LAB_KIND_H

#include "lab.h"

struct lab_disk_spec; /* lab_disk.h */

/* Bringing the lab up. */
struct lab_build {
    uint64_t default_size;      /* [lab] size when not given */
    const char *client_service; /* what it runs on a client host c1..cN, for people
                                   ("glusterfs (FUSE client)"); NULL: nothing */
    /* Names, addresses and files from prefix and subnet: the switch, every
     * host (hosts[0] the client, see lab_lay_out_client()), lab->dir. */
    void (*lay_out)(struct lab *lab);
    /* Starts the servers once switch, links and namespaces exist, writing
     * a state record (lab_rec) before anything it makes.  0, or -1 with err. */
    int (*start)(struct lab *lab, int fd, char *err, size_t errlen);
    /* Once every host's sshd runs, the switch's too (lab_ssh.c), and the
     * lab is recorded ready (`faultline lab power` answers): what the kind
     * starts last because it reaches the lab that way (the ha lab's
     * pacemaker, whose fence agent is a BMC reached through the switch).
     * A failure still takes the lab down.  NULL: nothing.  0, or -1 with
     * err. */
    int (*ready)(struct lab *lab, int fd, char *err, size_t errlen);
};

/* What the lab lends a run. */
struct lab_serve {
    /* Where client host `client` (0: us; 1..N: cN) finds its target (for
     * a target of kind `serves`). */
    void (*place)(const struct lab *lab, unsigned client, struct lab_place *p);
    /* The storage it runs, as a real cluster of that kind would be known
     * (storage.h: its heal or recovery, its description, what it logged),
     * and how that storage's CLI runs in the lab (inside a live server's
     * namespaces; argv[0] the program).  NULL: a kind without one (iscsi). */
    const struct storage_kind *storage;
    int (*cli)(const struct lab *lab, char *const argv[], char *out, size_t outlen,
               int timeout_ms);
    /* What the lab can give its storage kind that a real cluster's CLI
     * cannot (NULL: nothing): each line of its servers' log files `which`
     * (storage.logs), and a daemon's address by its name ("osd.0"; the
     * lab's host names are known to the core). */
    void (*logs)(const struct lab *lab, const char *which, storage_line_fn fn, void *ctx);
    void (*address)(const struct lab *lab, const char *daemon, char *out, size_t n);
};

/* What faults reach (fault_lab, fault.h). */
struct lab_faults {
    /* What `process` names on a host, by the lab's own names.  0: known
     * (*p filled), 1: unknown, -1 with err. */
    int (*process)(const struct lab *lab, const char *host, const char *process,
                   struct lab_process *p, char *err, size_t errlen);
    /* Starts the service of host h again after it was killed, configured as
     * before; records its new PID.  0, or -1 with err. */
    int (*restart)(struct lab *lab, struct lab_host *h, int fd, char *err, size_t errlen);
    /* power-off of server h (on = false: everything it runs dies at once,
     * and what it held but had not made durable is lost) and power-on (as
     * after a cold start; new PIDs recorded).  what: one line for people.
     * NULL: the kind cannot.  0, or -1 with err. */
    int (*power)(struct lab *lab, struct lab_host *h, bool on, int fd, char *what,
                 size_t whatlen, char *err, size_t errlen);
    /* A replica's copy (NULL: the kind keeps none).  0, or -1 with err. */
    int (*replica)(const struct lab *lab, const char *name, struct lab_replica *r, char *err,
                   size_t errlen);
    /* The disk of host h (lab_disk.h: its layer's name, its image, size and
     * what it is for people), whether or not [lab] disk_faults puts it on
     * the layer.  false: h has none (the client).  NULL: no server of the
     * kind has a disk. */
    bool (*disk)(const struct lab *lab, const struct lab_host *h, struct lab_disk_spec *s);
};

/* What the lab tells about itself. */
struct lab_report {
    /* Whether what the kind runs is healthy, beyond the hosts' services
     * (NULL: nothing more).  false with why. */
    bool (*healthy)(const struct lab *lab, char *why, size_t n);
    /* Whether the storage is as `lab up` left it in what a scenario may
     * rely on, beyond healthy (ceph: cs1's MDS the active one), asked
     * only between two runs that share the lab (lab_revive): a run on a
     * lab found up takes it as it is.  NULL: nothing more.  false with
     * why. */
    bool (*as_built)(const struct lab *lab, char *why, size_t n);
    /* How long its servers take to be healthy again once brought back
     * (the ha lab's node rejoining its cluster, its fence device started
     * again): lab_revive waits up to this long before it calls the lab
     * broken.  0: healthy at once, or never. */
    unsigned rejoin_s;
    /* Its part of `lab status`: into j (--json) or as lines to out. */
    void (*status)(const struct lab *lab, struct json *j, FILE *out);
    /* For the report's manifest, when the lab knows its storage's setup
     * better than its CLI does (ceph: the names and [lab] settings it
     * built it with).  NULL: the storage kind's describe. */
    void (*describe)(const struct lab *lab, struct kv_list *about, struct kv_list *options);
};

#endif
