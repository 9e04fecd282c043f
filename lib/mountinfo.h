/*
 * mountinfo — the mount a path lives on, from /proc/self/mountinfo: its
 * filesystem type, source and options (for the manifest of a file or file
 * tree target).  The mount is the one with the longest mount point that
 * holds the path's real name, the last of those when mounts are stacked
 * (the one that is visible).
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

#endif
