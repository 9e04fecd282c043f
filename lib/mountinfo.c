/* mountinfo — see mountinfo.h. */
#include "mountinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "fsutil.h"

/* mountinfo escapes blanks, tabs, newlines and backslashes as \ooo. */
static void unescape(char *s)
{
    char *o = s;
    for (char *p = s; *p; p++) {
        if (p[0] == '\\' && p[1] >= '0' && p[1] <= '7' && p[2] >= '0' && p[2] <= '7' &&
            p[3] >= '0' && p[3] <= '7') {
            *o++ = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
            p += 3;
        } else {
            *o++ = *p;
        }
    }
    *o = '\0';
}

/* Whether mount point mp holds path (both real names). */
static size_t holds(const char *mp, const char *path)
{
    size_t l = strlen(mp);
    if (strcmp(mp, "/") == 0)
        return 1;
    return strncmp(mp, path, l) == 0 && (path[l] == '/' || path[l] == '\0') ? l : 0;
}

/* One line of mountinfo, its fields in place (line is changed). */
struct mount_line {
    unsigned major, minor;
    char *mount_point, *options, *type, *source, *super;
};

/* The next whole line of f into ml (names unescaped); false at the end. */
static bool next_mount(FILE *f, char **line, size_t *cap, struct mount_line *ml)
{
    while (getline(line, cap, f) > 0) {
        /* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER */
        char *save = NULL, *field[6];
        int n = 0;
        for (char *t = strtok_r(*line, " \n", &save); t;
             t = n < 6 ? strtok_r(NULL, " \n", &save) : NULL)
            field[n++] = t;
        if (n < 6 || sscanf(field[2], "%u:%u", &ml->major, &ml->minor) != 2)
            continue;
        char *t;
        while ((t = strtok_r(NULL, " \n", &save)) && strcmp(t, "-") != 0)
            ; /* optional fields */
        ml->type = t ? strtok_r(NULL, " \n", &save) : NULL;
        ml->source = ml->type ? strtok_r(NULL, " \n", &save) : NULL;
        ml->super = ml->source ? strtok_r(NULL, " \n", &save) : NULL;
        if (!ml->super)
            continue;
        unescape(field[4]);
        unescape(ml->source);
        ml->mount_point = field[4];
        ml->options = field[5];
        return true;
    }
    return false;
}

int mount_of_path(const char *path, struct mount_info *m, char *err, size_t errlen)
{
    char real[PATH_MAX];
    if (!realpath(path, real)) {
        /* not there (yet): its directory */
        char copy[PATH_MAX];
        snprintf(copy, sizeof copy, "%s", path);
        if (!realpath(dirname(copy), real)) {
            snprintf(err, errlen, "cannot resolve %s: %s", path, strerror(errno));
            return -1;
        }
    }
    FILE *f = fopen("/proc/self/mountinfo", "r");
    if (!f) {
        snprintf(err, errlen, "cannot open /proc/self/mountinfo: %s", strerror(errno));
        return -1;
    }
    size_t best = 0;
    char *line = NULL;
    size_t cap = 0;
    struct mount_line ml;
    memset(m, 0, sizeof *m);
    while (next_mount(f, &line, &cap, &ml)) {
        size_t l = holds(ml.mount_point, real);
        if (!l || l < best)
            continue;
        best = l;
        snprintf(m->mount_point, sizeof m->mount_point, "%s", ml.mount_point);
        snprintf(m->options, sizeof m->options, "%s", ml.options);
        snprintf(m->fs_type, sizeof m->fs_type, "%s", ml.type);
        snprintf(m->source, sizeof m->source, "%s", ml.source);
        snprintf(m->super_options, sizeof m->super_options, "%s", ml.super);
    }
    free(line);
    fclose(f);
    if (!best) {
        snprintf(err, errlen, "no mount in /proc/self/mountinfo holds %s", real);
        return -1;
    }
    return 0;
}

#define FUSECTL "/sys/fs/fuse/connections"

int fuse_abort_at(const char *mount_point, char *err, size_t errlen)
{
    FILE *f = fopen("/proc/self/mountinfo", "r");
    if (!f) {
        snprintf(err, errlen, "cannot open /proc/self/mountinfo: %s", strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    struct mount_line ml;
    bool fuse = false, fusectl = false;
    unsigned long conn = 0;
    while (next_mount(f, &line, &cap, &ml)) { /* the last one there is the one seen */
        if (strcmp(ml.mount_point, mount_point) == 0) {
            fuse = strcmp(ml.type, "fuse") == 0 || strncmp(ml.type, "fuse.", 5) == 0;
            /* fusectl names a connection by its superblock's dev_t, as the
             * kernel encodes it (major above 20 bits of minor) */
            conn = ((unsigned long)ml.major << 20) | ml.minor;
        }
        fusectl |= strcmp(ml.mount_point, FUSECTL) == 0 && strcmp(ml.type, "fusectl") == 0;
    }
    free(line);
    fclose(f);
    if (!fuse)
        return 0;
    char abort_path[96];
    snprintf(abort_path, sizeof abort_path, FUSECTL "/%lu/abort", conn);
    /* mounted once, as systemd does at boot (a second mount would stack),
     * on the real, root-only directory of sysfs */
    char why[1024];
    if (!fusectl && root_only_dir(FUSECTL, 0, why, sizeof why) != 0) {
        snprintf(err, errlen, "cannot mount fusectl to abort the FUSE connection of %s: %s",
                 mount_point, why);
        return -1;
    }
    if (!fusectl && mount("fusectl", FUSECTL, "fusectl", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                          NULL) != 0) {
        snprintf(err, errlen, "cannot mount fusectl on " FUSECTL " to abort the FUSE connection "
                 "of %s: %s", mount_point, strerror(errno));
        return -1;
    }
    int fd = open(abort_path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return 0; /* gone meanwhile: its daemon ended it */
        snprintf(err, errlen, "cannot open %s: %s", abort_path, strerror(errno));
        return -1;
    }
    ssize_t w = write(fd, "1", 1);
    int e = errno;
    close(fd);
    if (w != 1) {
        snprintf(err, errlen, "cannot abort the FUSE connection of %s (%s): %s", mount_point,
                 abort_path, strerror(e));
        return -1;
    }
    return 1;
}
