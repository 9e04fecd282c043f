/* lab_cache — a server's volatile write cache; see lab_cache.h. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "../../lib/clock.h"
#include "../../lib/fsutil.h"
#include "../../lib/proc.h"
#include "lab_cache.h"
#include "lab_disk.h"
#include "lab_record.h"

void lab_cache_path(const struct lab *lab, const struct lab_host *h, const char *suffix,
                       char *out, size_t n)
{
    snprintf(out, n, "%.127s/cache-%s%s", lab->dir, h->name + strlen(h->name) - 1, suffix);
}


/* The cache of h as its pid file says ("PID START"); 0 when none runs. */
pid_t lab_cache_pid(const struct lab *lab, const struct lab_host *h, uint64_t *start)
{
    char path[200];
    lab_cache_path(lab, h, ".pid", path, sizeof path);
    FILE *f = fopen(path, "r");
    long pid = 0;
    unsigned long long st = 0;
    if (!f)
        return 0;
    if (fscanf(f, "%ld %llu", &pid, &st) != 2)
        pid = 0;
    fclose(f);
    *start = st;
    return pid > 0 && proc_state((pid_t)pid, st) == PROC_RUNNING ? (pid_t)pid : 0;
}

/* Waits (bounded: 10 s) until the cache of h serves its file. */
static int wait_cache(const struct lab *lab, const struct lab_host *h, pid_t pid,
                      uint64_t start, const char *log, char *err, size_t errlen)
{
    char lun[200];
    lab_cache_path(lab, h, "/lun", lun, sizeof lun);
    uint64_t until = mono_ns() + 10000000000ull;
    for (;;) {
        struct stat st;
        if (stat(lun, &st) == 0 && (uint64_t)st.st_size == lab->opts.size)
            return 0;
        enum proc_state ps = proc_state(pid, start);
        if (ps == PROC_GONE || ps == PROC_ZOMBIE || mono_ns() > until) {
            snprintf(err, errlen, "the write cache of %s %s; see %s", h->name,
                     ps == PROC_GONE || ps == PROC_ZOMBIE ? "exited at start"
                                                          : "does not serve its file in 10 s",
                     log);
            return -1;
        }
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

/* Starts h's cache (empty, as after a power-up), recording its mount and
 * process first. */
int lab_cache_start(const struct lab *lab, const struct lab_host *h, const char *backing,
                    const struct lab_host *peer, bool flush_ignore, int fd, char *err,
                    size_t errlen)
{
    char mnt[200], sock[200], psock[200], pidf[200], log[200], prog[PATH_MAX + 32];
    lab_cache_path(lab, h, "", mnt, sizeof mnt);
    lab_cache_path(lab, h, ".sock", sock, sizeof sock);
    lab_cache_path(lab, h, ".pid", pidf, sizeof pidf);
    lab_cache_path(lab, h, ".log", log, sizeof log);
    if (peer)
        lab_cache_path(lab, peer, ".sock", psock, sizeof psock);
    lab_program("faultline-wcache", prog, sizeof prog);
    if (lab_rec(fd, err, errlen, "dir %s", mnt) != 0 ||
        lab_rec(fd, err, errlen, "file %s", log) != 0 ||
        lab_rec(fd, err, errlen, "file %s", pidf) != 0 ||
        lab_rec(fd, err, errlen, "socket %s", sock) != 0 ||
        lab_rec(fd, err, errlen, "mount %s", mnt) != 0)
        return -1;
    if (mkdir(mnt, 0700) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", mnt, strerror(errno));
        return -1;
    }
    char *argv[16];
    int n = 0;
    argv[n++] = prog;
    argv[n++] = "--backing";
    argv[n++] = (char *)backing;
    argv[n++] = "--mount";
    argv[n++] = mnt;
    argv[n++] = "--listen";
    argv[n++] = sock;
    if (peer) {
        argv[n++] = "--peer";
        argv[n++] = psock;
    }
    if (flush_ignore) {
        argv[n++] = "--flush";
        argv[n++] = "ignore";
    }
    argv[n] = NULL;
    pid_t pid;
    uint64_t start;
    char rec[64];
    if (proc_spawn(NULL, argv, log, &pid, &start, err, errlen) != 0)
        return -1;
    snprintf(rec, sizeof rec, "%d %llu\n", (int)pid, (unsigned long long)start);
    if (lab_rec(fd, err, errlen, "pid cache-%s %d %llu", h->name, (int)pid,
                (unsigned long long)start) != 0 ||
        write_text(pidf, rec, err, errlen) != 0)
        return -1;
    return wait_cache(lab, h, pid, start, log, err, errlen);
}

/* How many pages h's cache holds that are not on the LUN (asked on its
 * socket, answered once any flush under way is done).  -1: no answer. */
long lab_cache_dirty(const struct lab *lab, const struct lab_host *h)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    char path[200];
    lab_cache_path(lab, h, ".sock", path, sizeof path);
    if (strlen(path) >= sizeof a.sun_path)
        return -1;
    memcpy(a.sun_path, path, strlen(path) + 1);
    int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    struct timeval tv = {.tv_sec = 2};
    char q[1 + 2 * sizeof(uint64_t)] = {'C'}, text[32];
    ssize_t n = -1;
    if (s >= 0 && setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) == 0 &&
        connect(s, (struct sockaddr *)&a, sizeof a) == 0 &&
        send(s, q, sizeof q, MSG_NOSIGNAL) == (ssize_t)sizeof q)
        n = recv(s, text, sizeof text - 1, 0);
    if (s >= 0)
        close(s);
    if (n <= 0)
        return -1;
    text[n] = '\0';
    return strtol(text, NULL, 10);
}

/* Kills h's cache (what it held unflushed is gone) and detaches its dead
 * mount. */
int lab_cache_stop(const struct lab *lab, const struct lab_host *h, char *err, size_t errlen)
{
    uint64_t start = 0;
    pid_t pid = lab_cache_pid(lab, h, &start);
    if (pid && proc_kill(pid, start, SIGKILL, err, errlen) != 0)
        return -1;
    char mnt[200];
    lab_cache_path(lab, h, "", mnt, sizeof mnt);
    if (umount2(mnt, MNT_DETACH) != 0 && errno != EINVAL && errno != ENOENT) {
        snprintf(err, errlen, "cannot unmount %s: %s", mnt, strerror(errno));
        return -1;
    }
    return 0;
}
