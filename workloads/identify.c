/* identify — see identify.h. */
#include "identify.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "../lib/mountinfo.h"

void identify_path(const struct backend *be, const struct target_cfg *t, struct kv_list *out)
{
    (void)be;
    struct mount_info m;
    char err[PATH_MAX + 128];
    if (mount_of_path(t->path, &m, err, sizeof err) != 0) {
        kv_add(out, "error", "%s", err);
        return;
    }
    kv_add(out, "fs_type", "%s", m.fs_type);
    kv_add(out, "mount_point", "%s", m.mount_point);
    kv_add(out, "mount_source", "%s", m.source);
    kv_add(out, "mount_options", "%s", m.options);
    kv_add(out, "super_options", "%s", m.super_options);
}

/* The first line of a small text file, or "" (absent, unreadable). */
static void read_line(const char *path, char *out, size_t n)
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    if (!fgets(out, (int)n, f))
        out[0] = '\0';
    fclose(f);
    out[strcspn(out, "\n")] = '\0';
}

/* sysfs attribute `name` of the device directory dir as key. */
static void sys_attr(struct kv_list *out, const char *dir, const char *name, const char *key)
{
    char path[PATH_MAX + 64], v[KV_VALUE];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    read_line(path, v, sizeof v);
    if (!kv_get(out, key))
        kv_add(out, key, "%s", v);
}

/* udev's properties of the device (/run/udev/data/bMAJ:MIN, "E:KEY=VALUE"
 * lines): model and serial where sysfs has none (NVMe, USB, virtio). */
static void udev_props(struct kv_list *out, dev_t dev)
{
    char path[96];
    snprintf(path, sizeof path, "/run/udev/data/b%u:%u", major(dev), minor(dev));
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    static const char *const keys[][2] = {{"E:ID_MODEL=", "model"},
                                          {"E:ID_SERIAL_SHORT=", "serial"},
                                          {"E:ID_VENDOR=", "vendor"},
                                          {"E:ID_WWN=", "wwid"}};
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
            if (strncmp(line, keys[i][0], strlen(keys[i][0])) == 0 && !kv_get(out, keys[i][1]))
                kv_add(out, keys[i][1], "%s", line + strlen(keys[i][0]));
    }
    fclose(f);
}

void identify_blockdev(const struct backend *be, const struct target_cfg *t, struct kv_list *out)
{
    (void)be;
    struct stat st;
    if (stat(t->path, &st) != 0) {
        kv_add(out, "error", "cannot stat %s: %s", t->path, strerror(errno));
        return;
    }
    if (!S_ISBLK(st.st_mode)) {
        kv_add(out, "error", "%s is not a block device", t->path);
        return;
    }
    char link[96], dir[PATH_MAX], probe[PATH_MAX + 16];
    snprintf(link, sizeof link, "/sys/dev/block/%u:%u", major(st.st_rdev), minor(st.st_rdev));
    if (!realpath(link, dir)) {
        kv_add(out, "error", "%s: %s", link, strerror(errno));
        return;
    }
    kv_add(out, "device", "%s", strrchr(dir, '/') + 1);
    /* a partition: model and serial are its disk's (the directory above) */
    snprintf(probe, sizeof probe, "%s/partition", dir);
    struct stat ps;
    if (stat(probe, &ps) == 0) {
        *strrchr(dir, '/') = '\0';
        kv_add(out, "disk", "%s", strrchr(dir, '/') + 1);
    }
    sys_attr(out, dir, "device/vendor", "vendor");
    sys_attr(out, dir, "device/model", "model");
    sys_attr(out, dir, "device/serial", "serial");
    sys_attr(out, dir, "serial", "serial");
    sys_attr(out, dir, "device/wwid", "wwid");
    sys_attr(out, dir, "wwid", "wwid");
    sys_attr(out, dir, "loop/backing_file", "backing_file");
    udev_props(out, st.st_rdev);
}
