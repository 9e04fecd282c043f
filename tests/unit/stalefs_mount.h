/*
 * The tests' stalefs (build/stalefs, or $STALEFS) mounted over a fresh
 * directory, for unit tests that need a real FUSE daemon they can stop
 * (SIGSTOP) to play one that no longer answers: test_mountinfo,
 * test_spawner.  Needs root and /dev/fuse: without them the setup leaves
 * *state NULL and each test skips.
 */
#ifndef FL_TEST_STALEFS_MOUNT_H
#define FL_TEST_STALEFS_MOUNT_H

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../lib/proc.h"

struct fusefs {
    char dir[64], back[96], mnt[96];
    pid_t daemon;
};

static inline void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Whether a FUSE filesystem is mounted at mnt, from mountinfo by name
 * (a stat of a mount whose connection is aborted fails). */
static inline int mounted(const char *mnt)
{
    FILE *f = fopen("/proc/self/mountinfo", "r");
    char line[4096], field[128];
    snprintf(field, sizeof field, " %s ", mnt);
    int found = 0;
    while (f && fgets(line, sizeof line, f))
        found |= strstr(line, field) && strstr(line, " - fuse");
    if (f)
        fclose(f);
    return found;
}

/* Whether every thread of pid is stopped: kill(SIGSTOP) returns before
 * they are, and one still running could answer. */
static inline bool all_stopped(pid_t pid)
{
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%d/task", (int)pid);
    DIR *d = opendir(dir);
    if (!d)
        return false;
    bool all = true;
    struct dirent *e;
    while (all && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        pid_t tid = (pid_t)atoi(e->d_name); /* /proc/TID/stat: the thread's own state */
        all = proc_state(tid, proc_starttime(tid)) == PROC_STOPPED;
    }
    closedir(d);
    return all;
}

/* A cmocka setup's work: stalefs over /tmp/fl-NAME-XXXXXX/back, mounted
 * on .../mnt (10 s at most).  0, or -1 (what there is stays in *state for
 * stalefs_unmount). */
static inline int stalefs_mount(void **state, const char *name)
{
    *state = NULL;
    if (geteuid() != 0 || access("/dev/fuse", R_OK | W_OK) != 0)
        return 0; /* each test skips */
    const char *bin = getenv("STALEFS") ? getenv("STALEFS") : "build/stalefs";
    if (access(bin, X_OK) != 0) {
        fprintf(stderr, "%s: %s (make build/stalefs)\n", bin, strerror(errno));
        return -1;
    }
    struct fusefs *fs = calloc(1, sizeof *fs);
    if (!fs)
        return -1;
    *state = fs;
    snprintf(fs->dir, sizeof fs->dir, "/tmp/fl-%s-XXXXXX", name);
    if (!mkdtemp(fs->dir)) {
        fs->dir[0] = '\0';
        return -1;
    }
    snprintf(fs->back, sizeof fs->back, "%s/back", fs->dir);
    snprintf(fs->mnt, sizeof fs->mnt, "%s/mnt", fs->dir);
    if (mkdir(fs->back, 0700) != 0 || mkdir(fs->mnt, 0700) != 0)
        return -1;
    fs->daemon = fork();
    if (fs->daemon == 0) {
        execl(bin, bin, fs->back, fs->mnt, "-f", (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 1000 && !mounted(fs->mnt); i++)
        sleep_ms(10);
    return mounted(fs->mnt) ? 0 : -1;
}

/* A cmocka teardown's work: the daemon killed, the mount and the
 * directory removed. */
static inline int stalefs_unmount(void **state)
{
    struct fusefs *fs = *state;
    if (!fs)
        return 0;
    if (fs->daemon > 0) {
        kill(fs->daemon, SIGCONT);
        kill(fs->daemon, SIGKILL);
        waitpid(fs->daemon, NULL, 0);
    }
    umount2(fs->mnt, MNT_DETACH);
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf %s", fs->dir);
    if (fs->dir[0] && system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", fs->dir);
    free(fs);
    return 0;
}

#endif
