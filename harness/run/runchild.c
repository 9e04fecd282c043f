/* runchild — see runchild.h. */
#include "runchild.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../lib/clock.h"
#include "../../lib/proc.h"
#include "../../lib/spawner.h"

struct run_job {
    const struct run_child *c;
    const char *self;
    char **argv;
};

static void run_main(void *ctx)
{
    const struct run_job *j = ctx;
    setpgid(0, 0);
    proc_child_signals();
    if (j->c->repetition)
        setenv(REPEAT_ENV, j->c->repetition, 1);
    else
        unsetenv(REPEAT_ENV);
    if (j->c->no_stdout) {
        int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (null >= 0)
            dup2(null, 1);
    }
    execv(j->self, j->argv);
    fprintf(stderr, "faultline: cannot run %s: %s\n", j->self, strerror(errno));
    _exit(127);
}

pid_t run_child_start(const struct run_child *c, char *err, size_t errlen)
{
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len < 0) {
        snprintf(err, errlen, "cannot find our own binary (/proc/self/exe): %s", strerror(errno));
        return -1;
    }
    self[len] = '\0';
    char *argv[10];
    int a = 0;
    argv[a++] = self;
    argv[a++] = "run";
    argv[a++] = (char *)c->scenario;
    argv[a++] = "--out";
    argv[a++] = (char *)c->out;
    if (c->keep_lab)
        argv[a++] = "--keep-lab";
    if (c->quiet)
        argv[a++] = "--quiet";
    argv[a] = NULL;
    struct run_job job = {.c = c, .self = self, .argv = argv};
    pid_t pid = spawner_fork(NULL, 0, -1, run_main, &job);
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        return -1;
    }
    setpgid(pid, pid); /* as the child does: whichever runs first */
    return pid;
}

/* Whether process pid has ended while some of its threads have not: its
 * leader a zombie that cannot be reaped yet. */
static bool ended_but_held(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* the state follows the command name */
    return p && p[1] == ' ' && p[2] == 'Z';
}

#define HELD_BEFORE_LETGO_NS (3 * 1000000000ull)
#define HELD_AFTER_LETGO_NS (60 * 1000000000ull)

int run_child_wait(pid_t pid, int *status, void (*held)(void *ctx), void *ctx)
{
    uint64_t held_since = 0, let_go_at = 0;
    for (;;) {
        pid_t r = waitpid(pid, status, WNOHANG);
        if (r == pid)
            return 0;
        if (r < 0 && errno != EINTR)
            return -1;
        uint64_t now = mono_ns();
        if (!ended_but_held(pid)) {
            held_since = 0;
        } else if (!held_since) {
            held_since = now;
        } else if (!let_go_at && now - held_since > HELD_BEFORE_LETGO_NS) {
            held(ctx);
            let_go_at = now;
        } else if (let_go_at && now - let_go_at > HELD_AFTER_LETGO_NS) {
            return -1;
        }
        struct timespec ts = {0, 100 * 1000000L};
        nanosleep(&ts, NULL);
    }
}
