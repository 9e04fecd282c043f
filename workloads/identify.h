/*
 * identify — what a local target is, for the manifest of a report
 * (backend_ops.identify of the kinds that have a path):
 *
 *   file, files   the mount the path lives on (lib/mountinfo.h): fs_type,
 *                 mount_point, mount_source, mount_options, super_options
 *   blockdev      the device from sysfs and udev: device, vendor, model,
 *                 serial, wwid; a loop device's backing_file; a
 *                 partition's whole disk as disk
 *
 * Whatever cannot be read is left out (a loop device has no model); a
 * failure to find anything is said as `error`.
 */
#ifndef FL_IDENTIFY_H
#define FL_IDENTIFY_H

#include "backend.h"

void identify_path(const struct backend *be, const struct target_cfg *t, struct kv_list *out);
void identify_blockdev(const struct backend *be, const struct target_cfg *t, struct kv_list *out);

#endif
