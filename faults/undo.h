/*
 * undo — how to put every fault back, on disk before the fault happens.
 *
 * DIR/undo.log holds one line per record, synced before the fault it undoes
 * is applied, and one when it has been undone:
 *
 *   U <seq> <kind> <args...>
 *   D <seq>
 *
 * The kinds are the few primitives every fault family clears with, so that a
 * fault's clear() and `faultline cleanup` after a killed run do exactly the
 * same thing:
 *
 *   link-up NETNS IFNAME       set a link up (NETNS "-" for our own)
 *   nft-delete NETNS TABLE     delete an nftables table (family inet)
 *   qdisc-delete NETNS IFNAME  delete the root qdisc of a link
 *   sigcont PID START          SIGCONT, if PID still is the process started at START
 *   command NETNS COMMAND...   run COMMAND with /bin/sh -c in NETNS
 *
 * and the kinds a transport adds for what it started (undo_register):
 *
 *   agent TAG DEST             have the agent on ssh host DEST replay run TAG there
 *                              (the ssh transport's, ssh/record.c)
 *
 * and the disk faults' (families/disk_host.c, registered the same way):
 *
 *   scsi-running DEV           /sys/block/DEV/device/state = running
 *   dm-table NAME TABLE        dmsetup load NAME --table TABLE, dmsetup resume NAME
 *   disk-clear keep|replace SOCK  the lab's disk layer at SOCK told `clear [replace]`
 *
 * A transport registers its kinds itself, so that undo knows none of them
 * by name and calls nothing above it.
 * Every primitive succeeds when there is nothing (left) to undo, so replaying
 * twice is harmless.  Active run directories are also listed under
 * /run/faultline/runs, so `faultline cleanup` finds them from anywhere.
 *
 * A live run is not to be undone from under it: its faults are its own to
 * clear, at their time.  So the process that opens an undo log is known two
 * ways (undo_writer reads both):
 *   - its registration names its PID and start time (lib/proc.h), so that a
 *     PID the kernel has given to another process since is not taken for it
 *     (an older build's registration, without them, names the PID in its
 *     file name: the process with it is the run if it began before the
 *     registration was written);
 *   - it holds a shared flock on DIR/undo.log for as long as the log is open.
 *     The kernel drops the lock when the process dies, however it dies, so
 *     the lock tells a live writer also where there is no registration: an
 *     agent's log (unlisted), a registry lost with /run, a run directory
 *     given by hand.  And it ends exactly when the log is closed, not when
 *     the process ends.
 */
#ifndef FL_UNDO_H
#define FL_UNDO_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../lib/proc.h"

#define UNDO_REGISTRY "/run/faultline/runs"

struct undo_log {
    int fd;
    int next;
    pthread_mutex_t mu; /* every fault's thread appends */
    char registry[320]; /* our entry under UNDO_REGISTRY */
};

/* Creates DIR/undo.log, locks it (shared flock, held until undo_close) and
 * registers the run with our PID and start time.  0, or -1 with err.  A
 * log that cannot be locked (a filesystem without flock) is no error: it
 * says so on stderr, and the registration alone tells the run is live. */
int undo_open(struct undo_log *u, const char *dir, char *err, size_t errlen);

/* The same without the registry: an agent's log, which only the agent
 * replays (its records name its host's own namespace as "-", which would
 * mean another one to a cleanup run elsewhere). */
int undo_open_unlisted(struct undo_log *u, const char *dir, char *err, size_t errlen);

/* Closes; unregisters the run when nothing is left open (`clean`). */
void undo_close(struct undo_log *u, int clean);

/* Appends and syncs a record; *seq names it.  0, or -1 with err. */
int undo_record(struct undo_log *u, const char *kind, const char *args, int *seq, char *err,
                size_t errlen);

/* Marks seq undone. */
int undo_done(struct undo_log *u, int seq, char *err, size_t errlen);

/* A kind of record a transport adds to the primitives: how undo_apply
 * replays it and how undo_check checks it.  Both get the record's args
 * split at the first word (first, "-" read as ""), as the primitives do. */
struct undo_kind {
    const char *kind;
    bool in_netns; /* its first word is a namespace ("-": ours); one that is
                      gone took the record's work along: nothing to replay */
    int (*apply)(const char *first, const char *rest, char *err, size_t errlen);
    /* Whether a record is well formed, performing nothing.  0, or -1 with
     * err.  NULL: every record of the kind is. */
    int (*check)(const char *first, const char *rest, char *err, size_t errlen);
};
#define UNDO_MAX_KINDS 8

/* Adds k (which stays valid while the program runs) to the kinds
 * undo_apply and undo_check know; a transport does so before main() runs
 * (a constructor), so that every program that can meet its records
 * replays them.  0, or -1 when its kind is known already or there is no
 * room. */
int undo_register(const struct undo_kind *k);

/* Performs one primitive (or a registered kind).  0, or -1 with err. */
int undo_apply(const char *kind, const char *args, char *err, size_t errlen);

/* Undoes whatever DIR/undo.log left open, newest first, marking each done.
 * *undone counts what was applied.  0; -1 with err when a record could not
 * be undone (the rest is still tried); -2 with err when the log itself is
 * not used: unreadable, a symbolic link, or not a regular file owned by
 * root or us that only its owner can write (its commands would run as
 * us). */
int undo_replay(const char *dir, unsigned *undone, char *err, size_t errlen);

/* The same with another primitive in place of undo_apply (the fuzz target
 * replays with undo_check, which performs nothing). */
typedef int (*undo_apply_fn)(const char *kind, const char *args, char *err, size_t errlen);
int undo_replay_with(const char *dir, undo_apply_fn apply, unsigned *undone, char *err,
                     size_t errlen);

/* Checks a record as undo_apply reads it (a known kind, and what a
 * registered kind checks: an agent record's host) without performing it.
 * 0, or -1 with err. */
int undo_check(const char *kind, const char *args, char *err, size_t errlen);

/* Calls fn for every run registered under UNDO_REGISTRY, with the entry's
 * own path (to remove it) and the run directory it names.  Returns how
 * many entries were refused (said on stderr): a link, or a file another
 * user owns or may write, or every entry of a registry that is not root's
 * alone. */
int undo_each_registered(void (*fn)(const char *entry, const char *dir, void *ctx),
                          void *ctx);

/* Removes the registry entries that name dir. */
void undo_unregister(const char *dir);

/* Who still writes a run directory's undo log. */
struct undo_writer {
    bool live;            /* a process that has the log open is alive */
    pid_t pid;            /* that process; 0 when the lock's holder is not known */
    enum proc_state state; /* PROC_RUNNING or PROC_STOPPED when live */
    const char *found_by; /* "registration" or "lock" */
};

/* Whether the process that writes DIR/undo.log is still alive: a
 * registration of DIR whose PID still is the process started at its start
 * time (a zombie is dead: it undoes nothing any more), or else a lock on
 * the log that another process holds.  A log that does not exist has no
 * writer. */
void undo_writer(const char *dir, struct undo_writer *w);

#endif
