/* devuse — see devuse.h. */
#include "devuse.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>

/* Mount point of device maj:min in mountinfo, or 0 when it is not mounted. */
static int mounted_at(unsigned maj, unsigned min, char *where, size_t n)
{
    FILE *f = fopen("/proc/self/mountinfo", "r");
    if (!f)
        return -1;
    char line[4096];
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        unsigned ma, mi;
        char mnt[2048];
        /* id parent maj:min root mountpoint ... */
        if (sscanf(line, "%*u %*u %u:%u %*s %2047s", &ma, &mi, mnt) == 3 && ma == maj &&
            mi == min) {
            snprintf(where, n, "%s", mnt);
            found = 1;
        }
    }
    fclose(f);
    return found;
}

/* Reads "maj:min" from a sysfs dev file. */
static int read_devno(const char *path, unsigned *maj, unsigned *min)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int ok = fscanf(f, "%u:%u", maj, min) == 2;
    fclose(f);
    return ok ? 0 : -1;
}

int blockdev_in_use(dev_t rdev, char *why, size_t n)
{
    unsigned maj = major(rdev), min = minor(rdev);
    char where[2048];
    int m = mounted_at(maj, min, where, sizeof where);
    if (m < 0) {
        snprintf(why, n, "cannot read /proc/self/mountinfo: %s", strerror(errno));
        return -1;
    }
    if (m) {
        snprintf(why, n, "it is mounted on %s", where);
        return 1;
    }

    char dir[128];
    snprintf(dir, sizeof dir, "/sys/dev/block/%u:%u", maj, min);
    DIR *d = opendir(dir);
    if (!d)
        return 0; /* no sysfs entry: nothing more to learn */
    struct dirent *e;
    int busy = 0;
    while (!busy && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        /* A partition is a subdirectory with its own "partition" file. */
        char p[512];
        unsigned pma, pmi;
        snprintf(p, sizeof p, "%s/%s/partition", dir, e->d_name);
        FILE *pf = fopen(p, "r");
        if (!pf)
            continue;
        fclose(pf);
        snprintf(p, sizeof p, "%s/%s/dev", dir, e->d_name);
        if (read_devno(p, &pma, &pmi) == 0 && mounted_at(pma, pmi, where, sizeof where) == 1) {
            snprintf(why, n, "its partition %s is mounted on %s", e->d_name, where);
            busy = 1;
        }
    }
    closedir(d);
    if (busy)
        return 1;

    snprintf(dir + strlen(dir), sizeof dir - strlen(dir), "/holders");
    d = opendir(dir);
    if (!d)
        return 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(why, n, "it is held by %s (see %s)", e->d_name, dir);
        busy = 1;
        break;
    }
    closedir(d);
    return busy;
}
