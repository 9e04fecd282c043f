/*
 * lab — the embedded labs: a storage cluster on one machine.  The header
 * the rest of faultline uses; the kinds fill the contract of lab_kind.h.
 *
 * Every lab is built the same way (the core, one file per job):
 *
 *   lab_names.c    the prefix, the hosts' names and addresses
 *   lab_record.c   the state file (a write-ahead list) and its lock
 *   lab_switch.c   the switch and the cables: a Linux bridge; each server
 *                  a network namespace on it by a veth pair whose
 *                  bridge-side end is the server's switch port; the client
 *                  is our own namespace, on the bridge through a veth pair
 *                  too (so that its cable can be pulled)
 *   lab_server.c   a server as a machine of its own, its power and disk
 *   lab_disk.c     the disk layer: each server's disk image reached
 *                  through faultline-disk, a FUSE file the disk faults
 *                  command ([lab] disk_faults)
 *   lab_ssh.c      an OpenSSH server on every host
 *   lab_clients.c  client hosts c1..cN and the management network
 *   lab_load.c     a lab as its state file says it is
 *   lab_up.c       up, health and down;  lab_undo.c  what down undoes
 *   lab_settings.c a lab's [lab] settings: which differ from those asked
 *                  for, and told for people
 *   lab_revive.c   a lab between two runs that share it: servers a run
 *                  left killed, paused or powered off brought back
 *   lab_faults.c   restart and power for faults;  lab_storage.c  the
 *                  lab's place and storage lent to a run
 *   lab_status.c   `lab status`;  lab_cli.c  `faultline lab`
 *   lab_kinds.c    the table of kinds, which only the verbs and scenarios
 *                  use: the core reaches a kind through lab->kind
 *
 * Addresses come from 198.18.0.0/15 and never leave the machine.  What
 * runs on the servers is the lab kind's business, its own files and one
 * line in the table of lab_kinds.c:
 *
 *   lab_iscsi.c    iscsi    two tgtd controllers ctrl-a and ctrl-b exporting
 *                           one LUN with one serial number (a dual-controller
 *                           array on shared storage)
 *   lab_gluster.c  gluster  servers gs1, gs2, gs3 with a replica-3 GlusterFS
 *                           volume, FUSE-mounted in our namespace
 *   lab_ceph*.c    ceph     servers cs1, cs2, cs3 with a CephFS filesystem (a
 *                           monitor and an OSD each, an active and a standby
 *                           MDS), mounted with ceph-fuse in our namespace
 *
 * Names (prefix P, "fl" unless FAULTLINE_LAB_PREFIX or --prefix says
 * otherwise; at most 8 characters, starting with "fl"): the switch, its
 * ports, the namespaces and the lab directory LAB_DATA_DIR/P-KIND follow
 * from the prefix and the kind (see each kind's file), and the /24 of
 * 198.18.0.0/15 is picked per prefix so that labs never share a subnet.
 *
 * Everything a lab creates is written to its state file
 * (LAB_STATE_DIR/P-KIND.state) *before* it is created, so `lab down`
 * removes all of it, also after a crash.  Up twice is harmless; down twice
 * too.
 */
#ifndef FL_LAB_H
#define FL_LAB_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "../../faults/env.h"
#include "../../lib/json.h"
#include "../../lib/keys.h"
#include "../../lib/kvlist.h"
#include "../../lib/proc.h"
#include "../storage/storage.h"

/* Where labs keep their state and their files: directories only root can
 * write, checked at every level before each use (root_only_dir), because
 * faultline runs what is in them as root (the agents' copies, the ssh
 * keys and configs, the daemons' configs).  A lab's own directory is made
 * fresh by `lab up`, never reused. */
#define LAB_STATE_DIR "/run/faultline/labs"
#define LAB_DATA_DIR "/var/lib/faultline/labs"
/* The labs' home before it moved out of /var/tmp, where any user could
 * make it first: a lab found up there is refused, and only taken down. */
#define LAB_OLD_DATA_DIR "/var/tmp/faultline-labs"
#define LAB_MAX_HOSTS 8
#define LAB_MAX_CLIENTS 8 /* [lab] clients: client hosts c1..cN */
#define LAB_OPTS_MAX 512  /* room for the largest kind's own [lab] keys */
#define LAB_PRIV_MAX 4096 /* room for the largest kind's own names */
#define LAB_SWITCH_HOST "switch" /* the switch, as an ssh host (lab_ssh.c) */
#define LAB_SWITCH_SSH_PORT 2222 /* its sshd, on the client's address */

/* [lab] control: how faults reach the lab's hosts. */
enum { LAB_CONTROL_DIRECT, LAB_CONTROL_SSH };

/* What a lab is brought up with: [lab] of a scenario, or `lab up` options. */
struct lab_opts {
    char prefix[9];  /* "" = default */
    uint64_t size;   /* [lab] size; 0: the kind's default */
    int control;     /* [lab] control: LAB_CONTROL_DIRECT or _SSH (a run's, not the lab's) */
    uint64_t lease_ns; /* [lab] lease: the agents' lease with control = ssh */
    uint64_t clients;  /* [lab] clients: 1 (we are the client), or hosts c1..cN */
    _Alignas(max_align_t) unsigned char kind[LAB_OPTS_MAX]; /* the kind's own keys */
};

/* The kind's options in a lab_opts, and a field of them for a key table. */
#define LAB_OPTS(o, type) ((type *)(void *)(o)->kind)
#define LAB_OPT(type, field)                                                                   \
    offsetof(struct lab_opts, kind) + offsetof(type, field), sizeof(((type *)0)->field)

struct lab_host {
    char name[16];    /* "client", "ctrl-a", ... (scenario host names) */
    char netns[64];   /* "" for our own namespace */
    char ifname[16];
    char port[16];    /* its switch port (bridge side) */
    char addr[24];    /* 198.18.X.N */
    char service[32]; /* what it runs for the lab, for people ("tgtd"); "" none */
    pid_t pid;        /* that service, 0 for none */
    uint64_t start;
    unsigned ctlport; /* the service's control port, 0 for none */
    char log[192];
    char home[160];   /* the server's own files in the lab directory */
    pid_t sshd;       /* its OpenSSH server (lab_ssh.c), 0 for none */
    uint64_t sshd_start;
    /* A server with namespaces of its own (lab_server_boot): PID 1 of its
     * PID namespace, which holds them all (0: none; as our namespace sees
     * it, like every PID here). */
    pid_t init;
    uint64_t init_start;
    /* a client host c1..cN: its end of the management network */
    char mgmt_if[16], mgmt_port[16], mgmt_addr[24];
};

struct lab_kind;

struct lab {
    const struct lab_kind *kind;
    char prefix[9];
    unsigned subnet; /* X of 198.18.X.0/24 */
    char bridge[16];
    struct lab_host hosts[LAB_MAX_HOSTS]; /* hosts[0] is the client */
    unsigned nhosts;
    /* [lab] clients > 1 (lab_clients.c): client hosts c1..cN, each a
     * namespace on the switch where one rank of the run works, and on a
     * management network that carries ssh and MPI and is never faulted */
    struct lab_host clients[LAB_MAX_CLIENTS];
    unsigned nclients;
    char mgmt_bridge[16];  /* the management switch ("" without client hosts) */
    char mgmt_addr[24];    /* our address on it */
    char switch_netns[64]; /* a name for our namespace, where the switch is: a rank in
                              a client host reaches the switch's ports there ("" none) */
    char dir[128];        /* LAB_DATA_DIR/P-KIND: backing files, logs */
    struct lab_opts opts; /* as brought up (size: the kind's default when not given) */
    pid_t switch_sshd;    /* the switch's OpenSSH server, in our namespace */
    uint64_t switch_sshd_start;
    /* The layers under its servers' disks (lab_disk.h) as the state records
     * them ("disk NAME PID START", the newest of a name winning); none with
     * [lab] disk_faults = no. */
    struct lab_layer {
        char name[16]; /* "gs1", "lun" */
        pid_t pid;
        uint64_t start;
    } disks[LAB_MAX_HOSTS];
    unsigned ndisks;
    _Alignas(max_align_t) unsigned char priv[LAB_PRIV_MAX]; /* the kind's own names */
};

/* The kind's own part of a lab. */
#define LAB_PRIV(lab, type) ((type *)(void *)(lab)->priv)

/* Where a lab's target is, for a scenario whose target names no place. */
struct lab_place {
    char where[2048];  /* for the target kind's place(): portals, a mount */
    char backing[256]; /* a file holding the target's data (corrupt's default), "" */
    char name[128];    /* what the storage is called: the volume, the IQN */
    char desc[2200];   /* for people: "portals A and B", "volume V mounted at M" */
};

/* A lab kind: what it is, for scenarios, messages and `faultline lab
 * --help`; what it does, in four tables by job (lab_kind.h, which the
 * kinds' files fill; opaque here). */
struct lab_build;
struct lab_serve;
struct lab_faults;
struct lab_report;
struct lab_kind {
    const char *name;        /* `faultline lab up NAME`, [scenario] lab = NAME */
    const char *summary;     /* what it builds, for `faultline lab --help` */
    struct key_table keys;   /* its own [lab] keys (values in lab_opts.kind) */
    const char *serves;      /* the target kind it gives a place to, or NULL */
    const char *serves_what; /* that place for people: "the embedded lab" */
    const struct lab_build *build;   /* bringing it up */
    const struct lab_serve *serve;   /* what it lends a run: place, storage */
    const struct lab_faults *faults; /* what faults reach: processes, power */
    const struct lab_report *report; /* health, status, the manifest */
};

/* The kinds, and the one called name (NULL: unknown). */
unsigned lab_kinds_all(const struct lab_kind *const **out);
const struct lab_kind *lab_kind_find(const char *name);

/* "iscsi, gluster", for messages. */
const char *lab_kinds(void);

/* The kinds that keep replicas ("gluster"), for messages. */
const char *lab_kinds_with_replicas(void);

/* The kind that gives a place to target kind `target` (NULL: none). */
const struct lab_kind *lab_kind_serving(const char *target);

/* The host names of a kind with `clients` ([lab] clients: c1..cN when more
 * than 1), for scenario checks: n names into names[], at most max. */
unsigned lab_kind_hosts(const struct lab_kind *k, unsigned clients, char names[][16],
                        unsigned max);

/* Options with the kind's defaults (prefix and size empty).  0, or -1. */
int lab_opts_init(const struct lab_kind *k, struct lab_opts *o, char *err, size_t errlen);

/* The prefix to use: given, else $FAULTLINE_LAB_PREFIX, else "fl".
 * 0, or -1 with err saying why it is not a valid prefix. */
int lab_prefix(const char *given, char *out, size_t n, char *err, size_t errlen);

/* Brings a lab of kind k up (or finds it up, healthy and with the same
 * options).  *created tells whether this call built it.  On failure
 * whatever was built is removed.  0, or -1 with err filled. */
int lab_up(const struct lab_kind *k, const struct lab_opts *o, struct lab *lab, bool *created,
           char *err, size_t errlen);

/* Removes everything the lab's state file names.  0 also when it was not up. */
int lab_down(const struct lab_kind *k, const char *prefix, char *err, size_t errlen);

/* Is everything the state names still there and running (switch, ports,
 * namespaces, every server and sshd, the kind's own check)?  false with
 * why. */
bool lab_healthy(const struct lab *lab, char *why, size_t n);

/* The [lab] settings in which a lab that is up differs from want, as
 * "size, write_cache" ("" when none): clients, the kind's own keys and,
 * when `size` says so, the size (want's 0: the kind's default). */
void lab_settings_differ(const struct lab *lab, const struct lab_opts *want, bool size,
                         char *out, size_t n);

/* A lab's settings as its [lab] section would set them: "size=64MiB,
 * write_cache=on, flush=honour, ..." (clients only when more than 1). */
void lab_settings_text(const struct lab *lab, char *out, size_t n);

/* What lab_revive found and did. */
enum lab_revival {
    LAB_HEALTHY,  /* healthy as it was */
    LAB_REVIVED,  /* healthy again: servers brought back */
    LAB_BROKEN    /* gone, or not healthy and could not be made so */
};

/* Checks the lab of kind k and prefix that is up, between two runs that
 * share it, and brings back what the first left down: every process of a
 * server left stopped (a pause) is continued, a server left powered off is
 * powered on (lab_power), a service left killed is started again
 * (lab_restart; a kind that can cut power has the server powered off and
 * on when that is not enough: the iscsi lab's controller whose write cache
 * went with a power cut).  Then the storage must be whole (its heal
 * question: nothing pending) and as built (lab_report.as_built: ceph's
 * cs1 MDS active), or the lab is broken and the caller rebuilds it: a run
 * on a lab found up takes it as it is, so only this check keeps one
 * scenario's leftovers out of the next.  out says it for people and
 * reports: "healthy";
 * "WHY; restarted tgtd of ctrl-a, continued 1 process of gs2, powered on
 * gs3"; "gone: WHY" or "broken: WHY". */
enum lab_revival lab_revive(const struct lab_kind *k, const char *prefix, char *out, size_t n);

/* Reads a lab's state.  0, or -1 when it is not up or its state or home
 * cannot be trusted, or LAB_LOAD_ELSEWHERE when its files are not where
 * this faultline keeps them (brought up by an older one): it can only be
 * taken down (err says so). */
#define LAB_LOAD_ELSEWHERE (-2)
int lab_load(const struct lab_kind *k, const char *prefix, struct lab *lab, char *err,
             size_t errlen);
/* The same from the state file at path (lab_load's reader; the fuzz target
 * feeds it files of its own). */
int lab_load_file(const struct lab_kind *k, const char *prefix, const char *path, struct lab *lab,
                  char *err, size_t errlen);

/* Starts the service of lab host `host` again (lab_faults.restart); the
 * state file learns its new PID.  0, or -1 with err filled. */
int lab_restart(const struct lab *lab, const char *host, char *err, size_t errlen);

/* Cuts (on = false) or restores the power of lab server `host`
 * (lab_faults.power).  0, or -1 with err filled. */
int lab_power(const struct lab *lab, const char *host, bool on, char *what, size_t whatlen,
              char *err, size_t errlen);

/* The host called `name` (client, ctrl-a, ..., c1), or NULL. */
const struct lab_host *lab_host(const struct lab *lab, const char *name);

/* The lab's storage (storage.h), its CLI run inside the lab's servers, the
 * lab's files and settings lent to it.  st keeps a pointer to lab, which
 * must outlive it.  false: the kind runs no storage of a kind (iscsi). */
bool lab_storage(const struct lab *lab, struct storage *st);

/* For the manifest: the lab's storage described (lab_report.describe, or
 * its storage kind's) and, for a kind whose servers have disks, whether
 * they were on the disk layer (about's disk_faults).  false: no storage
 * described (no options to tell). */
bool lab_describe(const struct lab *lab, struct kv_list *about, struct kv_list *options);

/* Where the lab's target is for us (empty when the kind serves none). */
void lab_place_of(const struct lab *lab, struct lab_place *p);

/* ... and for client host `client` (0: us, k: ck). */
void lab_place_for(const struct lab *lab, unsigned client, struct lab_place *p);

/* The callbacks faults use (fault.h), with ctx = lab: processes by the
 * lab's names (looked up in the state as it is now), restarts, replicas. */
void lab_fault_lab(const struct lab *lab, struct fault_lab *out);

void lab_status(const struct lab *lab, bool json, FILE *out);

/* `faultline lab up|down|status KIND [--prefix P] [--json] [--KEY VALUE]`, and the
 * verbs of one host: restart, power. */
int cmd_lab(int argc, char **argv);

/* How to reach lab host `host` (or LAB_SWITCH_HOST) over ssh, and the
 * command that starts its service again (restart may be NULL).  false:
 * the host has no sshd. */
bool lab_ssh_of(const struct lab *lab, const char *host, struct ssh_dest *d, char *restart,
                size_t n);

/* The power commands of lab server `host` as a BMC's are given in a [host]
 * (power_off, power_on, power_status; faults/host.h), for a lab used with
 * [lab] control = ssh: `faultline lab power KIND HOST off|on|status`, run
 * from the controller through the switch's sshd, as a BMC is reached over
 * its own network, never through the host it powers off.  false: the kind
 * cannot cut power, host is not one of its servers, or a command would be
 * too long (said on stderr). */
bool lab_ssh_power(const struct lab *lab, const char *host, struct host_power *p);

/* Whether lab server `host` has power, as the lab sees it now (its state
 * reloaded): 1 on (its switch port up and its service, or its namespaces'
 * init, running), 0 off (port down and nothing of it running), -1 neither
 * or unknown; what says which parts were found so, or why not. */
int lab_power_state(const struct lab *lab, const char *host, char *what, size_t n);

/* The client host that this process runs in (by its network namespace): 1
 * for c1, ...; 0 when none (our own namespace). */
unsigned lab_client_of_self(const struct lab *lab);

/* The command that starts `ranks` processes of argv, one in each client
 * host, through mpirun over the hosts' sshd on the management network.
 * argv ends with NULL; *out is malloc'd (free it and each word).  0, or -1. */
int lab_mpirun(const struct lab *lab, unsigned ranks, char *const argv[], char ***out,
               char *err, size_t errlen);

/* A live process in host h's network namespace, preferring comm `want`
 * (0: none).  Its start time goes to *start. */
pid_t lab_live_in(const struct lab_host *h, const char *want, uint64_t *start);

#endif
