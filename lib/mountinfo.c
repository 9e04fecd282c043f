/* mountinfo — see mountinfo.h. */
#include "mountinfo.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    memset(m, 0, sizeof *m);
    while (getline(&line, &cap, f) > 0) {
        /* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER */
        char *save = NULL, *field[6];
        int n = 0;
        for (char *t = strtok_r(line, " \n", &save); t; t = n < 6 ? strtok_r(NULL, " \n", &save) : NULL)
            field[n++] = t;
        if (n < 6)
            continue;
        char *t;
        while ((t = strtok_r(NULL, " \n", &save)) && strcmp(t, "-") != 0)
            ; /* optional fields */
        char *type = t ? strtok_r(NULL, " \n", &save) : NULL;
        char *source = type ? strtok_r(NULL, " \n", &save) : NULL;
        char *super = source ? strtok_r(NULL, " \n", &save) : NULL;
        if (!super)
            continue;
        unescape(field[4]);
        size_t l = holds(field[4], real);
        if (!l || l < best)
            continue;
        best = l;
        snprintf(m->mount_point, sizeof m->mount_point, "%s", field[4]);
        snprintf(m->options, sizeof m->options, "%s", field[5]);
        snprintf(m->fs_type, sizeof m->fs_type, "%s", type);
        unescape(source);
        snprintf(m->source, sizeof m->source, "%s", source);
        snprintf(m->super_options, sizeof m->super_options, "%s", super);
    }
    free(line);
    fclose(f);
    if (!best) {
        snprintf(err, errlen, "no mount in /proc/self/mountinfo holds %s", real);
        return -1;
    }
    return 0;
}
