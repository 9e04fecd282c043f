/* lab_ceph_faults — what faults reach in the ceph lab: a server's daemons
 * or the client's mount started again, a server's power, its processes by
 * name, its OSD store as a replica.  See lab_ceph.h. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>

#include "../../lib/clock.h"
#include "../../lib/proc.h"
#include "lab_ceph.h"
#include "lab_names.h"
#include "lab_server.h"

/* --- running it --- */

int ceph_restart(struct lab *lab, struct lab_host *h, int fd, char *err, size_t errlen)
{
    if (!h->netns[0]) { /* the client: ceph-fuse mounted again */
        const char *mnt = priv(lab)->mount;
        if (umount2(mnt, MNT_DETACH) != 0 && errno != EINVAL) {
            snprintf(err, errlen, "cannot unmount %s: %s", mnt, strerror(errno));
            return -1;
        }
        return ceph_mount_client(lab, fd, err, errlen);
    }
    return ceph_run_missing(lab, h, fd, err, errlen);
}

/* power-off: every daemon of the server frozen, its disk's XFS shut down
 * without log flush, all killed; the disk's mount goes with the server's
 * mount namespace.  The disk is opened through /proc/HOLDER/root, a daemon
 * of that namespace.  power-on: once the loop device has let the image go,
 * every daemon of the server starts again, the first one mounting the
 * disk (XFS replays its log), the monitor first. */
int ceph_power(struct lab *lab, struct lab_host *h, bool on, int fd, char *what,
                      size_t whatlen, char *err, size_t errlen)
{
    if (!h->netns[0] || lab_is_client_host(h)) {
        snprintf(err, errlen, "%s is not a server of the ceph lab (cs1, cs2, cs3)", h->name);
        return -1;
    }
    uint64_t t0 = mono_ns();
    if (!on) {
        uint64_t start = 0;
        pid_t holder = ceph_live_daemon(h, NULL, &start); /* before the freeze */
        unsigned frozen = lab_freeze_all_in(h->netns);
        char path[PATH_MAX], shut[160] = "nothing of it ran: no disk to shut down";
        if (holder) {
            snprintf(path, sizeof path, "/proc/%d/root%s", (int)holder, h->home);
            bool gone = proc_starttime(holder) != start;
            if (gone)
                snprintf(err, errlen, "%s: the daemon that held the disk is gone", path);
            if (gone || lab_xfs_power_cut(path, err, errlen) != 0) {
                char e[256];
                lab_kill_all_in(h->netns, e, sizeof e);
                return -1;
            }
            snprintf(shut, sizeof shut, "its disk's xfs (every store of its daemons) shut down "
                     "without log flush after %.3f s", (double)(mono_ns() - t0) / 1e9);
        }
        if (lab_kill_all_in(h->netns, err, errlen) != 0)
            return -1;
        snprintf(what, whatlen, "%u processes frozen, %s, all killed after %.3f s", frozen, shut,
                 (double)(mono_ns() - t0) / 1e9);
        return 0;
    }
    if (ceph_disk_let_go(lab, h, err, errlen) != 0)
        return -1;
    uint64_t t1 = mono_ns();
    if (ceph_run_missing(lab, h, fd, err, errlen) != 0)
        return -1;
    snprintf(what, whatlen, "disk image free after %.3f s, mounted again (xfs log replayed) and "
             "the daemons started after %.3f s more", (double)(t1 - t0) / 1e9,
             (double)(mono_ns() - t1) / 1e9);
    return 0;
}

/* mon (the default), mgr, osd and mds by the servers that run them; the
 * client's ceph-fuse. */
int ceph_process(const struct lab *lab, const char *host, const char *process,
                        struct lab_process *p, char *err, size_t errlen)
{
    const struct lab_host *h = lab_host(lab, host);
    if (!h || lab_is_client_host(h))
        return 1;
    *p = (struct lab_process){.restartable = true};
    if (!h->netns[0]) {
        if (process[0] && strcmp(process, "ceph-fuse") != 0)
            return 1;
        snprintf(p->name, sizeof p->name, "ceph-fuse");
        p->pid = h->pid;
        p->start = h->start;
        return 0;
    }
    if (!process[0] || strcmp(process, "ceph-mon") == 0) {
        snprintf(p->name, sizeof p->name, "mon");
        p->pid = h->pid;
        p->start = h->start;
        return 0;
    }
    for (size_t i = 0; i < NDAEMONS; i++) {
        if (strcmp(process, ceph_daemons[i].type) != 0)
            continue;
        if (!ceph_runs(&ceph_daemons[i], h)) {
            size_t used = (size_t)snprintf(err, errlen, "%s runs no %s (it runs on", host,
                                           process);
            for (unsigned k = 1; k <= NSERVERS && used < errlen; k++)
                if (ceph_daemons[i].on >> k & 1)
                    used += (size_t)snprintf(err + used, errlen - used, " %s",
                                             lab->hosts[k].name);
            if (used < errlen)
                snprintf(err + used, errlen - used, ")");
            return -1;
        }
        snprintf(p->name, sizeof p->name, "%s", ceph_daemons[i].type);
        snprintf(p->comm, sizeof p->comm, "%s", ceph_daemons[i].comm);
        return 0;
    }
    return 1;
}

/* A server's replica is what its OSD keeps: objects in a bluestore whose
 * "block" file holds their bytes (found there by the corrupt fault), in
 * allocation units of 4 KiB (bluestore_min_alloc_size in Pacific).  After
 * a change under it, the OSD drops its caches, so that the next read or
 * scrub reads the block file and meets its checksums; the scrub is a deep
 * scrub of the data pool's placement groups, each of which has a copy on
 * every OSD (size 3 on three). */
int ceph_replica(const struct lab *lab, const char *name, struct lab_replica *r,
                        char *err, size_t errlen)
{
    const struct lab_host *h = lab_host(lab, name);
    if (!h || !h->netns[0] || lab_is_client_host(h)) {
        snprintf(err, errlen, "not a server of the ceph lab (cs1, cs2, cs3)");
        return -1;
    }
    const struct ceph_lab *c = priv(lab);
    memset(r, 0, sizeof *r);
    snprintf(r->mount, sizeof r->mount, "%s", c->mount);
    snprintf(r->store, sizeof r->store, "%s/osd/block", h->home);
    r->align = 4096;
    char id[16];
    ceph_daemon_id(ceph_daemon_of("osd"), h, id, sizeof id);
    snprintf(r->reread, sizeof r->reread, "ceph -c %s --connect-timeout 15 tell osd.%s cache "
             "drop", c->conf, id);
    snprintf(r->scrub, sizeof r->scrub, "ceph -c %s --connect-timeout 15 osd pool deep-scrub "
             "%s", c->conf, c->data);
    if (!(r->at.join = ceph_live_daemon(h, "ceph-osd", &r->at.join_start))) {
        snprintf(err, errlen, "no OSD runs on %s", name);
        return -1;
    }
    return 0;
}
