/*
 * devuse — is a block device in use by the system?
 *
 * A test that writes to a mounted device destroys a filesystem, so the
 * blockdev backend (and, later, the corrupt fault) refuse such a device.
 * The device counts as in use when it, or one of its partitions, appears in
 * /proc/self/mountinfo, or when another driver holds it (a non-empty
 * /sys/dev/block/M:m/holders, e.g. LVM or RAID).  Swap and other exclusive
 * users are caught afterwards by opening the device with O_EXCL.
 */
#ifndef FL_DEVUSE_H
#define FL_DEVUSE_H

#include <stddef.h>
#include <sys/types.h>

/* 1 when the device rdev is in use (why names the mount point or holder),
 * 0 when it is free, -1 when that cannot be told (why says what failed). */
int blockdev_in_use(dev_t rdev, char *why, size_t n);

#endif
