/*
 * remote — faults on an ssh host, through `faultline agent` (agent.h).
 *
 * One OpenSSH `ssh` per host, started when the run starts, carries
 * everything: a short sh script finds the host's agent_dir, refuses it
 * (running nothing there) unless it and every directory above it are safe
 * from the host's other users (owned by the ssh user or root, not a link,
 * not writable by group or others but for root's sticky ones like /tmp),
 * checks the agent's copy of faultline there against our build id (a
 * SHA-256, selfid.h) with the host's own sha256sum (a host without one:
 * the copy's own answer, once the checks above have passed), copies our
 * own executable over the same connection when it is missing, broken or
 * another build (a new file, renamed into place), and execs `faultline
 * agent`.  The user's ssh config applies (ProxyJump, ControlMaster);
 * ssh_identity, ssh_known_hosts and ssh_options are handed to ssh as they
 * are.
 *
 * Once the agent says hello, eight time requests measure the round trip
 * and the offset of the agent's monotonic clock (the sample with the
 * shortest round trip wins).  A fault then goes to the agent as "apply at
 * T, cleared by C" in the agent's clock, sent ahead of time, so that the
 * inject does not wait for the network; the agent's own time of the change
 * comes back and is put into our clock.
 *
 * A call the agent does not answer in time (a partition that cuts the
 * session) leaves its fault indeterminate, as Jepsen records it: the agent
 * clears it by itself at its planned clear time plus the host's lease.
 *
 * The controller's own undo log names every agent it started ("agent TAG
 * DEST", a kind of record this transport registers with undo), so
 * `faultline cleanup` reaches the hosts of a killed run too.
 *
 * The controller's side, by job (conn.h is what they share):
 *   remote.c   open (hello, build check), ping, bye, what came late
 *   conn.c     the session: lines in and out, the reader thread, hang-up
 *   spawn.c    ssh and the bootstrap script, the self-copy
 *   clock.c    the round trip and the offset of the agent's clock
 *   via.c      fault_via_ssh: prepare, arm, inject, clear on the host
 *   record.c   the "agent" undo record; cleanup.c: its replay
 *   spec.c     a fault's spec as message words (spec.h)
 *   sshcmd.c   the ssh command line (sshcmd.h)
 * and agent.c is the other end, `faultline agent` (agent.h).
 */
#ifndef FL_REMOTE_H
#define FL_REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../lib/selfid.h"
#include "../runtime.h"

/* Where the agent lives on a host that gives no agent_dir: a directory
 * only the ssh user can write to.  Root's (and, with sudo = yes, the
 * agent's: it runs as root) is under /var/lib; another user's is under its
 * HOME.  Created with mode 700. */
#define REMOTE_ROOT_AGENT_DIR "/var/lib/faultline-agent"
#define REMOTE_USER_AGENT_DIR ".faultline-agent" /* in $HOME */
#define REMOTE_DEFAULT_LEASE_NS 5000000000ull

struct remote;

/* What the connection measured, for the report. */
struct remote_info {
    char host[32];
    char dest[128];
    uint64_t rtt_ns;    /* the shortest round trip of the time requests */
    int64_t offset_ns;  /* the agent's monotonic clock minus ours */
    uint64_t connect_ns; /* from starting ssh to the agent's hello */
    bool copied;        /* our executable was copied to the host */
    char build[SELF_BUILD_ID_LEN + 1]; /* the agent's build id (selfid.h) */
    uint64_t agent_pid; /* its process on the host */
    char nodename[65];  /* the host's uname, as its agent said hello ("" unknown) */
    char kernel[65];
};

/* Starts the agent on host h for run `tag`: ssh, the copy if needed, the
 * hello and the clock.  ssh's own messages go to LOGDIR/ssh-HOST.log.
 * Must be called from a thread that outlives the connection (ssh is told
 * to die with it).  The connection, or NULL with err (what ssh or the host
 * said: no binary can run there, the other architecture, the login). */
struct remote *remote_open(const struct fault_host *h, const char *tag, const char *logdir,
                           char *err, size_t errlen);

void remote_get_info(const struct remote *r, struct remote_info *out);

/* The connection's faults learn our clock's zero (the workload start), so
 * that late answers land in their times. */
void remote_set_t0(struct remote *r, uint64_t t0);

/* Says bye: the agent clears whatever is still in effect and leaves.
 * Waits for late answers (a clear the agent's lease did) at most until
 * `deadline` (mono_ns).  0 when the agent confirmed everything clear, -1
 * with err otherwise.  Then closes the connection. */
int remote_bye(struct remote *r, uint64_t deadline, char *err, size_t errlen);

/* What the agent said of f after the timeline moved on (an answer that
 * came late, a clear its lease did) goes into f.  After remote_bye(). */
void remote_settle(struct fault *f);

/* Frees; kills ssh if it is still there. */
void remote_close(struct remote *r);

/* Tells the agent we live (no answer awaited); every few seconds. */
void remote_ping(struct remote *r);

/* Lets fault f go through r (f->remote, f->via); for the timeline. */
void remote_attach(struct remote *r, struct fault *f);

/* How long after its time the apply of f reached its agent (0: in time). */
uint64_t remote_late_arm(const struct fault *f);

/* What f overwrote on its host, as its agent said (fault_ops.overwrote). */
unsigned remote_overwrote(const struct fault *f, const uint64_t (**ranges)[2], bool *on_target);

/* The latest time an agent of r may still clear something by itself. */
uint64_t remote_last_lease(const struct remote *r);

/* A host's ssh_dest as one undo-log word list, and back (record.c). */
void remote_dest_encode(const struct ssh_dest *d, char *out, size_t n);
int remote_dest_decode(const char *text, struct ssh_dest *d);

/* For `faultline cleanup`: has the agent on `dest` replay what run `tag`
 * left open there; `said` tells what it undid and what it had restored by
 * itself.  0, or -1 with err. */
int remote_cleanup(const struct ssh_dest *dest, const char *tag, char *said, size_t saidlen,
                   char *err, size_t errlen);

extern const struct fault_via fault_via_ssh;

/* The "agent" record of undo.h (record.c), registered with undo before
 * main() runs.  A program links it by this name (the Makefile's
 * KEEP_KINDS): nothing else names it. */
struct undo_kind;
extern const struct undo_kind remote_undo_kind;

#endif
