/* runchild — see runchild.h. */
#include "runchild.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/proc.h"

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
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0);
        proc_child_signals();
        if (c->repetition)
            setenv(REPEAT_ENV, c->repetition, 1);
        else
            unsetenv(REPEAT_ENV);
        if (c->no_stdout) {
            int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
            if (null >= 0)
                dup2(null, 1);
        }
        execv(self, argv);
        fprintf(stderr, "faultline: cannot run %s: %s\n", self, strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid); /* as the child does: whichever runs first */
    return pid;
}
