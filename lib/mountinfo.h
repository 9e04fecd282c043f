/*
 * mountinfo — the mount a path lives on, from /proc/self/mountinfo: its
 * filesystem type, source and options (for the manifest of a file or file
 * tree target).  The mount is the one with the longest mount point that
 * holds the path's real name, the last of those when mounts are stacked
 * (the one that is visible).
 *
 * And the end of a FUSE mount whose daemon is gone or no longer answers:
 * its connection aborted, so that nothing waits on it for ever.
 */
#ifndef FL_MOUNTINFO_H
#define FL_MOUNTINFO_H

#include <limits.h>
#include <stddef.h>

struct mount_info {
    char mount_point[PATH_MAX];
    char fs_type[64];        /* "ext4", "fuse.glusterfs" */
    char source[256];        /* the device or server:volume */
    char options[512];       /* the mount's own (rw,relatime) */
    char super_options[1024]; /* the filesystem's (errors=remount-ro, ...) */
};

/* The mount of path (which must exist, or its directory).  0, or -1 with
 * err saying why (strerror). */
int mount_of_path(const char *path, struct mount_info *m, char *err, size_t errlen);

/* The FUSE mount at exactly mount_point, as mountinfo spells it (nothing
 * is looked up: a FUSE daemon that no longer answers cannot hang this):
 * its connection aborted (fusectl's abort, the filesystem mounted on
 * /sys/fs/fuse/connections first when it is not).  Every request waiting
 * on it then fails (ECONNABORTED; a later one ENOTCONN), including those
 * of a process its daemon started that holds /dev/fuse and so keeps the
 * connection alive (ceph-fuse's `mount -o remount`, stuck on the mount
 * while no MDS answers).  1: aborted, 0: no FUSE mount there, -1 with err. */
int fuse_abort_at(const char *mount_point, char *err, size_t errlen);

#endif
