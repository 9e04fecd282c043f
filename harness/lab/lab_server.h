/* lab_server — a lab server as a machine of its own, and its power and
 * disk (lab_server.c; lab_live_in is in lab.h): what the kinds that run
 * servers share, and what `lab down` kills a server's processes with. */
#ifndef FL_LAB_SERVER_H
#define FL_LAB_SERVER_H

#include "lab.h"

/* SIGKILL to every process in network namespace `netns` at once (all are
 * signalled before any is waited for, as a power cut stops them), by PID
 * and start time; then waits until each is gone.  0 also when the
 * namespace is gone; -1 with err. */
int lab_kill_all_in(const char *netns, char *err, size_t errlen);

/* A server's power cut, in three steps the kinds that can cut one share
 * (lab_faults.power):
 *   lab_freeze_all_in   SIGSTOP to every process of the server's network
 *                       namespace (nothing it does reaches the disk now);
 *                       how many were stopped
 *   lab_xfs_power_cut   the XFS that `path` (a directory of it) is on shut
 *                       down as a power cut leaves it: XFS_IOC_GOINGDOWN
 *                       without log flush (what `xfs_io -x -c shutdown`
 *                       does): what was only in memory or in the log not
 *                       yet written is gone.  Refused for anything but an
 *                       XFS (the same ioctl shuts down ext4).  0, or -1
 *   lab_kill_all_in     (above)
 * and for power-on, lab_image_let_go: waits (up to 20 s) until no loop
 * device holds image `img` any more (its filesystem went with the mount
 * namespace of the server's last process, a moment after it: mounting it
 * again before would meet the old filesystem, with the same UUID).  0, or
 * -1 with err. */
unsigned lab_freeze_all_in(const char *netns);
int lab_xfs_power_cut(const char *path, char *err, size_t errlen);
int lab_image_let_go(const char *img, char *err, size_t errlen);

/* SIGCONT to every stopped process of network namespace `netns` (a pause
 * a run left behind, lab_revive); how many were stopped. */
unsigned lab_thaw_all_in(const char *netns);

/* A server as a machine of its own: in host h's network namespace, a
 * mount namespace in which nothing mounted reaches ours or the other way,
 * a UTS namespace whose hostname is the host's name, and a PID namespace
 * whose PID 1 is `faultline lab init` (lab_init_main).  setup(ctx) runs
 * first in the mount namespace (the server's private mounts); then /run/sshd
 * is made (sshd's privilege separation directory, on a /run of the
 * server's own too) and /proc mounted for the PID namespace, so that what
 * runs there (the server's daemons, its sshd and every ssh session) sees
 * the server's processes only.  The init holds the namespaces while no
 * daemon runs, and reaps what is left to it; it is recorded ("init HOST PID
 * START") and goes with the server's other processes at a power cut and
 * at `lab down`.  0, or -1 with err. */
int lab_server_boot(struct lab_host *h, int (*setup)(void *ctx), void *ctx, int fd, char *err,
                    size_t errlen);

/* Whether server h's init runs (its namespaces can be joined). */
bool lab_server_up(const struct lab_host *h);

/* Where a process of server h runs: its init's namespaces (proc.h). */
void lab_server_place(const struct lab_host *h, struct proc_place *at);

/* `faultline lab init`: PID 1 of a lab server's PID namespace.  Reaps
 * whatever is left to it and never exits (a SIGKILL from outside the
 * namespace ends it, and the server with it).  Refuses to run as anything
 * but PID 1.  The exit status. */
int lab_init_main(void);

/* In a server's setup, in its mount namespace (lab_server_boot): image
 * `img` (a file system image) mounted on `dir` with mount(8), which sets
 * up the loop device (autoclear: it is freed with the last user of the
 * namespace, so the server's disk goes with its last process, as at a
 * power cut).  0 or errno. */
int lab_mount_image(const char *img, const char *dir);

/* A live process of host h's network namespace named `comm` (0: none;
 * lab_live_in gives any live one when none is so named).  Its start
 * time goes to *start. */
pid_t lab_named_in(const struct lab_host *h, const char *comm, uint64_t *start);

/* Sleeps ms milliseconds: the kinds' bounded polling loops. */

#endif
