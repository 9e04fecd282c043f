/*
 * proc — processes the labs start and the faults signal.
 *
 * A process is named by its PID *and* its start time (field 22 of
 * /proc/PID/stat), so that a PID the kernel has since given to another
 * process is never signalled: nothing but what we started is ever killed.
 */
#ifndef FL_PROC_H
#define FL_PROC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum proc_state {
    PROC_GONE,    /* no such process (or the PID now belongs to another one) */
    PROC_RUNNING, /* running or sleeping */
    PROC_STOPPED, /* SIGSTOP */
    PROC_ZOMBIE,  /* dead, not yet reaped by its parent */
};

const char *proc_state_name(enum proc_state s);

/* Start time of pid in clock ticks since boot, 0 when it does not exist. */
uint64_t proc_starttime(pid_t pid);

enum proc_state proc_state(pid_t pid, uint64_t start);

/* faultline ignores SIGPIPE (a peer that went away, a killed target's
 * socket, is an error of write(), not our death); a program we start must
 * not inherit that, nor our blocked signals.  Called in every child
 * between fork and exec. */
void proc_child_signals(void);

/* Starts argv[0] (searched in PATH) inside network namespace netns (NULL:
 * ours) only (not its mount namespace), in a session of its own so that a
 * Ctrl-C at our terminal does not reach it, with stdout and stderr appended
 * to log.  0, or -1 with err filled. */
int proc_spawn(const char *netns, char *const argv[], const char *log, pid_t *pid,
               uint64_t *start, char *err, size_t errlen);

/* Where a child runs.  netns: enter this network namespace only; or join:
 * enter the network, mount, UTS *and* PID namespaces of that process (a
 * lab server with private mounts, a hostname and processes of its own),
 * checked against join_start; the child's PID is still the one our
 * namespace sees.  Then setup(ctx), if
 * any, runs in the child before exec (unshare, mounts); it returns 0 or an
 * errno. */
struct proc_place {
    const char *netns;
    pid_t join;
    uint64_t join_start;
    int (*setup)(void *ctx);
    void *ctx;
};

/* proc_spawn() at a place. */
int proc_spawn_at(const struct proc_place *at, char *const argv[], const char *log, pid_t *pid,
                  uint64_t *start, char *err, size_t errlen);

/* Runs fn(ctx) in a child process at a place and waits for it: for work
 * that must happen inside other namespaces without moving this process (a
 * thread of a process with others cannot enter a mount namespace).  fn
 * returns 0, or -1 with err filled; the child's message comes back through
 * a pipe.  0, or -1 with err filled (fn's words, or why the child could not
 * get there). */
int proc_call_at(const struct proc_place *at, int (*fn)(void *ctx, char *err, size_t errlen),
                 void *ctx, char *err, size_t errlen);

/* proc_call_at() without a copy of this process: fn runs in a child that
 * shares our memory and descriptors (clone with CLONE_VM | CLONE_FILES |
 * CLONE_VFORK; the calling thread waits until it ends).  A forked child
 * owns copies of every open descriptor, and closing them when it exits
 * sends a FUSE file a FLUSH each, which waits behind the other threads'
 * I/O on a loaded filesystem: seconds, where this takes a millisecond.
 * fn writes its results into ctx; like a vfork child it must take no lock
 * another thread may hold: no malloc, no stdio streams (snprintf into a
 * buffer is fine), and it closes what it opens.  0, or -1 with err. */
int proc_call_at_shared(const struct proc_place *at,
                        int (*fn)(void *ctx, char *err, size_t errlen), void *ctx, char *err,
                        size_t errlen);

/* Starts the init of a new PID namespace at a place: a child enters `at`
 * (its setup must unshare a mount namespace of its own: the new
 * namespace's /proc is mounted there), unshares a PID namespace and forks
 * its first process, PID 1 there, which mounts /proc for it and execs
 * argv (argv[0] a path: an init that reaps what is left to it and never
 * exits, since every process of a PID namespace dies with its PID 1).
 * *pid and *start: the init as our namespace sees it.  A process joins the
 * namespace with proc_place.join.  0, or -1 with err. */
int proc_start_init(const struct proc_place *at, char *const argv[], pid_t *pid,
                    uint64_t *start, char *err, size_t errlen);

/* proc_run() at a place. */
int proc_run_at(const struct proc_place *at, char *const argv[], char *out, size_t outlen,
                int timeout_ms);

/* A process met by proc_each_in_netns(). */
struct proc_seen {
    pid_t pid;
    uint64_t start;
    char comm[32];
};

/* Calls fn for every process but this one whose network namespace is
 * netns (NULL or "": ours), until fn returns non-zero.  The number of
 * processes fn saw, or -1 when the namespace does not exist. */
int proc_each_in_netns(const char *netns, int (*fn)(void *ctx, const struct proc_seen *p),
                       void *ctx);

/* Sends sig to the process if it is still the one started at `start`.
 * For SIGKILL, waits (at most 10 s) until it is dead, reaping it when it is
 * our child.  0 also when it was gone already; -1 with err filled. */
int proc_kill(pid_t pid, uint64_t start, int sig, char *err, size_t errlen);

/* Runs argv to completion (at most timeout_ms; then it is killed), output
 * (stdout and stderr) into out.  Returns the exit status, or -1 with out
 * saying why it could not run. */
int proc_run(char *const argv[], char *out, size_t outlen, int timeout_ms);

/* proc_run() inside network namespace netns (NULL or "": ours). */
int proc_run_in(const char *netns, char *const argv[], char *out, size_t outlen, int timeout_ms);

/* A command that failed, for messages: "ARGV... WHERE failed (RC): OUTPUT"
 * (where "" or " on gs1 (ssh ...)", output cut at 400 characters). */
void proc_failed_text(char *const argv[], const char *where, int rc, const char *output,
                      char *err, size_t errlen);

#endif
