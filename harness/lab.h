/*
 * lab — the embedded lab: a storage cluster on one machine.
 *
 * iscsi: a dual-controller array.  A Linux bridge is the switch; the hosts
 * ctrl-a and ctrl-b are network namespaces attached to it by veth pairs,
 * whose bridge-side ends are the switch ports; the client is our own
 * namespace, on the bridge through a veth pair too (so its cable can be
 * pulled).  Each controller runs its own tgtd (own control port, portal on
 * its own address), started with only the network namespace entered; both
 * export the same backing file as LUN 1 with one serial number: shared
 * storage behind two controllers.  Write cache off unless asked for.
 *
 * Names (prefix P, "fl" unless FAULTLINE_LAB_PREFIX or --prefix says
 * otherwise; at most 8 characters, starting with "fl"):
 *   switch      P-isw               switch ports  P-isw-c, P-isw-a, P-isw-b
 *   client      P-icli              198.18.X.1/24, in our namespace
 *   ctrl-a      namespace P-iscsi-ctrl-a, eth0 198.18.X.11/24, tgtd
 *   ctrl-b      namespace P-iscsi-ctrl-b, eth0 198.18.X.12/24, tgtd
 * X is picked per prefix so that labs of different prefixes never share a
 * subnet.  Addresses come from 198.18.0.0/15 and never leave the machine.
 *
 * gluster: a replica-3 GlusterFS volume on three servers (lab_gluster.c).
 * The hosts gs1, gs2, gs3 are network namespaces on the bridge, each with a
 * mount and UTS namespace of its own: glusterd with a private
 * /var/lib/glusterd, /var/log/glusterfs and /run, and an xfs brick on a loop
 * image mounted only inside that server.  The client mounts the volume with
 * FUSE in our namespace, with the other two servers as backup volfile
 * servers.
 *   switch      P-gsw               switch ports  P-gsw-c, P-gsw-1..3
 *   client      P-gcli              198.18.X.1/24, the FUSE mount
 *   gs1..gs3    namespace P-gluster-gsN, eth0 198.18.X.1N/24, glusterd
 *   volume      P-vol, bricks ADDR:LAB_DATA_DIR/P-gluster/gsN/brick/data
 *   mount       LAB_DATA_DIR/P-gluster/mnt
 *
 * Everything the lab creates is written to its state file
 * (/run/faultline/labs/P-iscsi.state) *before* it is created, so `lab down`
 * removes all of it, also after a crash.  Up twice is harmless; down twice
 * too.
 */
#ifndef FL_LAB_H
#define FL_LAB_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "../workloads/backend.h"

#define LAB_STATE_DIR "/run/faultline/labs"
#define LAB_DATA_DIR "/var/tmp/faultline-labs"
#define LAB_MAX_HOSTS 4

struct lab_host {
    char name[16];  /* "client", "ctrl-a", ... (scenario host names) */
    char netns[64]; /* "" for our own namespace */
    char ifname[16];
    char port[16]; /* its switch port (bridge side) */
    char addr[24]; /* 198.18.X.N */
    pid_t pid;     /* its service (tgtd, glusterd; the client's FUSE process), 0 for none */
    uint64_t start;
    unsigned ctlport;
    char log[192];
    char home[160];  /* gluster: the server's files (glusterd state, logs, brick image) */
    char brick[192]; /* gluster: where its brick is mounted, inside its mount namespace */
};

struct lab {
    char kind[16];
    char prefix[9]; /* at most 8 characters, see lab_prefix() */
    unsigned subnet; /* X of 198.18.X.0/24 */
    char bridge[16];
    struct lab_host hosts[LAB_MAX_HOSTS];
    unsigned nhosts;
    char dir[128]; /* backing file and logs: LAB_DATA_DIR/P-kind */
    char lun[160];
    uint64_t size;
    bool write_cache;
    char iqn[128];
    char serial[32];
    char portals[2][FL_URL_MAX];
    unsigned nportals;
    /* gluster */
    char volume[32];
    char mount[160];
    unsigned ping_timeout_s, heal_timeout_s;
    bool bitrot; /* bit-rot detection (signer and scrubber) enabled on the volume */
};

struct lab_opts {
    char prefix[9]; /* "" = default */
    uint64_t size;  /* iscsi: the LUN; gluster: each brick (default 512MiB) */
    bool write_cache;
    unsigned ping_timeout_s, heal_timeout_s; /* gluster; 0 = the lab's defaults */
    bool bitrot;                             /* gluster: enable bit-rot detection */
};

/* The known lab kinds, "iscsi, gluster", and whether kind is one. */
const char *lab_kinds(void);
bool lab_kind_known(const char *kind);

/* The prefix to use: given, else $FAULTLINE_LAB_PREFIX, else "fl".
 * 0, or -1 with err saying why it is not a valid prefix. */
int lab_prefix(const char *given, char *out, size_t n, char *err, size_t errlen);

/* Brings lab `kind` up (or finds it up and healthy).  *created tells
 * whether this call built it.  On failure whatever was built is removed.
 * 0, or -1 with err filled. */
int lab_up(const char *kind, const struct lab_opts *o, struct lab *lab, bool *created, char *err,
           size_t errlen);

/* Removes everything the lab's state file names.  0 also when it was not up. */
int lab_down(const char *kind, const char *prefix, char *err, size_t errlen);

/* Reads a lab's state.  0, or -1 when it is not up (err says so). */
int lab_load(const char *kind, const char *prefix, struct lab *lab, char *err, size_t errlen);

/* Starts the service of lab host `host` (tgtd of ctrl-a, ...) again after
 * it was killed, configured as before; the state file learns its new PID.
 * 0, or -1 with err filled. */
int lab_restart_service(const char *kind, const char *prefix, const char *host, char *err,
                        size_t errlen);

/* The host called `name` (client, ctrl-a, ...), or NULL. */
const struct lab_host *lab_host(const struct lab *lab, const char *name);

void lab_status(const struct lab *lab, bool json, FILE *out);

/* `faultline lab up|down|status KIND [--prefix P] [--json]` */
int cmd_lab(int argc, char **argv);

/* gluster: runs `gluster --mode=script ARGS` in the namespaces of a live
 * glusterd of the lab (via: that host, or NULL for any).  Exit status, or
 * -1; out holds the output or why it could not run. */
int lab_gluster_cli(const struct lab *lab, const char *via, const char *const args[], char *out,
                    size_t outlen, int timeout_ms);

/* gluster: entries still to heal over all bricks (a brick that cannot be
 * asked counts as one), or -1 with err. */
long lab_gluster_heal_pending(const struct lab *lab, char *err, size_t errlen);

/* gluster: the brick of host (gs1..) as seen inside that server, and the
 * PID (with start time) of a live process whose mount namespace holds it.
 * 0, or -1 with err. */
int lab_gluster_brick(const struct lab *lab, const char *host, char *brick, size_t n, pid_t *pid,
                      uint64_t *start, char *err, size_t errlen);

/* --- between lab.c and lab_gluster.c --- */

/* Appends a record to the state file and syncs it, before the thing it
 * names is made.  0, or -1 with errno. */
int lab_rec(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* lab_rec() inside a function with fd, err and errlen: returns -1 with err
 * filled when the record cannot be written. */
#define REC(...)                                                                               \
    do {                                                                                       \
        if (lab_rec(fd, __VA_ARGS__) != 0) {                                                   \
            snprintf(err, errlen, "cannot write the lab state: %s", strerror(errno));          \
            return -1;                                                                         \
        }                                                                                      \
    } while (0)
/* hosts[0], the client in our namespace: P-IFNAME, port BRIDGE-c, .1 */
void lab_layout_client(struct lab *lab, const char *ifname);
void lab_gluster_layout(struct lab *lab);
int lab_gluster_start(struct lab *lab, int fd, char *err, size_t errlen);
int lab_gluster_restart(struct lab *lab, struct lab_host *h, int fd, char *err, size_t errlen);
bool lab_gluster_healthy(const struct lab *lab, char *why, size_t n);
void lab_gluster_status(const struct lab *lab, bool json, void *j, FILE *out);

#endif
