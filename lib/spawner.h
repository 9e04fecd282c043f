/*
 * spawner — every child process of ours is forked by one thread whose
 * descriptor table holds none of the target's files.
 *
 * Why: fork() gives the child a copy of every open descriptor, and the
 * child's exec (close-on-exec) or exit closes them.  Closing a file of a
 * FUSE filesystem (GlusterFS, ceph-fuse, MooseFS) sends its server a FLUSH
 * first and waits for the answer uninterruptibly; NFS and Lustre do the
 * same over the network.  While the workers hold files of a target that
 * stopped answering (a dead server under the client), each child we start
 * (a lab's power-on, a CLI question, ssh) then sits in the D state inside
 * its exec, and the thread that waits for it with it.  A suite's run hung
 * an hour that way in CI, after one GlusterFS request was never answered.
 *
 * How: spawner_start() makes a thread that unshares its descriptor table
 * (unshare(CLONE_FILES)) and empties it.  spawner_fork() hands it the fork:
 * it copies in descriptors 0, 1 and 2 and the ones the caller names, at
 * the same numbers and with the same close-on-exec flag (pidfd_getfd from
 * the process's own table), forks, and closes its copies again.  The child
 * runs child(ctx) in a copy of the whole process (ctx included, as after
 * fork()) and must end in exec or _exit; it owns nothing else.  A child
 * that needs another file opens it by its path.
 *
 * Where there is no spawner thread (not started, or the caller is itself a
 * child that forks again) or the kernel has no pidfd_getfd, spawner_fork()
 * forks in the calling thread as fork() would, every descriptor copied.
 * Nothing else of ours calls fork() (tests/shape.sh checks it).
 */
#ifndef FL_SPAWNER_H
#define FL_SPAWNER_H

#include <stddef.h>
#include <sys/types.h>

/* Starts the spawner thread: at the start of main(), before any file of a
 * target is open.  0, or -1 with err (then children fork as fork() does). */
int spawner_start(char *err, size_t errlen);

/* Forks a child that gets only descriptors 0, 1, 2 and keep[0..nkeep).
 * pidns >= 0 (one of keep): the child is made in that PID namespace.  The
 * child's PID, or -1 with errno. */
pid_t spawner_fork(const int *keep, unsigned nkeep, int pidns, void (*child)(void *ctx),
                   void *ctx);

/* Makes the calling thread's next children in PID namespace pidns (an
 * open /proc/PID/ns/pid): the descriptor to go back with, or -1 with
 * errno.  spawner_pidns_leave(back) returns to our own namespace (it
 * cannot fail: this thread lives there; it aborts if it does).  setns()
 * of a PID namespace changes where the thread's next children go
 * (pid_for_children), not the thread itself, so the thread goes back to
 * making children in its own at once; the child's PID, as fork() or
 * clone() returns it, is the one our own namespace sees. */
int spawner_pidns_enter(int pidns);
void spawner_pidns_leave(int back);

#endif
