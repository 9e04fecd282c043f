/*
 * proc_call_at_shared: a function run in a child at a place, sharing our
 * memory and descriptors (what evidence.c uses to read a brick's copy
 * inside its server's mount namespace while the workers' I/O goes on).
 *
 *   - what the child writes into its context is ours when it returns, and
 *     it ran as a process of its own;
 *   - its failure comes back with its words;
 *   - it shares our descriptor table: a descriptor it closes is closed for
 *     us (a forked child would close only its copy, and the copies of open
 *     FUSE files each cost a FLUSH);
 *   - it enters the mount namespace of the process it joins: it sees a
 *     file mounted only there, which we do not (root only);
 *   - a process that is gone is refused before anything runs.
 *
 * proc_start_init and joining a PID namespace (a lab server's, root only):
 *   - the init is PID 1 of a namespace of its own, with /proc mounted for
 *     it in its mount namespace;
 *   - a program run there (proc_run_at) and a function called there
 *     (proc_call_at_shared) live in that namespace: they see its PID 1 and
 *     have small PIDs of their own;
 *   - a process started there (proc_spawn_at) is named by the PID our
 *     namespace sees, with a second PID in the server's (NSpid), and is
 *     the child of the namespace's init, not ours;
 *   - killing the init from outside ends the namespace and everything in it.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../lib/proc.h"
#include "../../lib/spawner.h"

struct probe {
    pid_t pid;
    int value;
    int fd;           /* to close, or -1 */
    const char *path; /* to look for, or NULL */
    int seen;         /* 1: path exists where the child is */
};

static int probe_fn(void *ctx, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    struct probe *p = ctx;
    p->pid = getpid();
    p->value = 42;
    if (p->fd >= 0)
        close(p->fd);
    if (p->path) {
        struct stat st;
        p->seen = stat(p->path, &st) == 0;
    }
    return 0;
}

static int failing_fn(void *ctx, char *err, size_t errlen)
{
    (void)ctx;
    snprintf(err, errlen, "nothing to read at %s", "the brick");
    return -1;
}

static void test_writes_reach_us(void **state)
{
    (void)state;
    struct proc_place here = {0};
    struct probe p = {.fd = -1};
    char err[256] = "";
    assert_int_equal(proc_call_at_shared(&here, probe_fn, &p, err, sizeof err), 0);
    assert_int_equal(p.value, 42);
    assert_true(p.pid > 0);
    assert_int_not_equal(p.pid, getpid());
}

static void test_failure_says_why(void **state)
{
    (void)state;
    struct proc_place here = {0};
    char err[256] = "";
    assert_int_equal(proc_call_at_shared(&here, failing_fn, NULL, err, sizeof err), -1);
    assert_string_equal(err, "nothing to read at the brick");
}

static void test_descriptors_are_shared(void **state)
{
    (void)state;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    struct proc_place here = {0};
    struct probe p = {.fd = fds[1]};
    char err[256] = "";
    assert_int_equal(proc_call_at_shared(&here, probe_fn, &p, err, sizeof err), 0);
    errno = 0;
    assert_int_equal(fcntl(fds[1], F_GETFD), -1); /* closed for us too */
    assert_int_equal(errno, EBADF);
    close(fds[0]);
}

/* A process in a mount namespace of its own, where a tmpfs on dir holds
 * dir/marker; it waits to be killed.  Its PID, or -1. */
static pid_t private_mount(const char *dir)
{
    int ready[2];
    if (pipe(ready) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        char path[256];
        snprintf(path, sizeof path, "%s/marker", dir);
        int ok = unshare(CLONE_NEWNS) == 0 &&
                 mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 &&
                 mount("tmpfs", dir, "tmpfs", 0, "size=1m") == 0 &&
                 close(open(path, O_CREAT | O_WRONLY, 0644)) == 0;
        if (write(ready[1], ok ? "y" : "n", 1) != 1)
            _exit(1);
        pause();
        _exit(0);
    }
    char c = 'n';
    close(ready[1]);
    if (pid < 0 || read(ready[0], &c, 1) != 1 || c != 'y') {
        if (pid > 0) {
            kill(pid, SIGKILL);
            waitpid(pid, NULL, 0);
        }
        pid = -1;
    }
    close(ready[0]);
    return pid;
}

static void test_enters_the_mount_namespace(void **state)
{
    (void)state;
    if (geteuid() != 0)
        skip();
    char dir[] = "/tmp/fl-test-proc-XXXXXX";
    assert_non_null(mkdtemp(dir));
    pid_t owner = private_mount(dir);
    assert_true(owner > 0);
    char marker[256];
    snprintf(marker, sizeof marker, "%s/marker", dir);
    struct stat st;
    assert_int_not_equal(stat(marker, &st), 0); /* not in our namespace */
    struct proc_place there = {.join = owner, .join_start = proc_starttime(owner)};
    struct probe p = {.fd = -1, .path = marker};
    char err[256] = "";
    int rc = proc_call_at_shared(&there, probe_fn, &p, err, sizeof err);
    kill(owner, SIGKILL);
    waitpid(owner, NULL, 0);
    rmdir(dir);
    assert_int_equal(rc, 0);
    assert_int_equal(p.seen, 1);
}

static void test_gone_process_refused(void **state)
{
    (void)state;
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    uint64_t start = proc_starttime(pid);
    waitpid(pid, NULL, 0);
    struct proc_place gone = {.join = pid, .join_start = start ? start : 1};
    struct probe p = {.fd = -1};
    char err[256] = "";
    assert_int_equal(proc_call_at_shared(&gone, probe_fn, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "is gone"));
    assert_int_equal(p.value, 0); /* nothing ran */
}

/* The setup of a server's mount namespace: private, so that its /proc
 * does not reach ours. */
static int own_mounts(void *ctx)
{
    (void)ctx;
    if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        return errno;
    return 0;
}

/* The second PID of /proc/PID/status's NSpid line (its PID in the
 * namespace below ours), 0 when it has none. */
static long inner_pid(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    long outer = 0, inner = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "NSpid: %ld %ld", &outer, &inner) >= 1)
            break;
    if (f)
        fclose(f);
    return inner;
}

static pid_t parent_of(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    int ppid = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "PPid: %d", &ppid) == 1)
            break;
    if (f)
        fclose(f);
    return (pid_t)ppid;
}

static void test_joins_a_pid_namespace(void **state)
{
    (void)state;
    if (geteuid() != 0)
        skip();
    struct proc_place boot = {.setup = own_mounts};
    char *init_argv[] = {"/bin/sleep", "1000", NULL};
    pid_t init;
    uint64_t init_start;
    char err[512] = "", out[256];
    assert_int_equal(proc_start_init(&boot, init_argv, &init, &init_start, err, sizeof err), 0);
    assert_int_equal(proc_state(init, init_start), PROC_RUNNING);
    assert_int_equal(inner_pid(init), 1);
    struct proc_place there = {.join = init, .join_start = init_start};
    char *look[] = {"sh", "-c", "echo $$; cat /proc/1/comm", NULL};
    assert_int_equal(proc_run_at(&there, look, out, sizeof out, 10000), 0);
    long pid_there = strtol(out, NULL, 10);
    assert_true(pid_there > 1 && pid_there < 100);
    assert_non_null(strstr(out, "\nsleep"));
    struct probe p = {.fd = -1};
    assert_int_equal(proc_call_at_shared(&there, probe_fn, &p, err, sizeof err), 0);
    assert_true(p.pid > 1 && p.pid < 100);
    char log[] = "/tmp/fl-test-proc-log-XXXXXX";
    int fd = mkstemp(log);
    assert_true(fd >= 0);
    close(fd);
    pid_t child;
    uint64_t child_start;
    char *sleeper[] = {"sleep", "1000", NULL};
    assert_int_equal(proc_spawn_at(&there, sleeper, log, &child, &child_start, err, sizeof err), 0);
    unlink(log);
    assert_int_equal(proc_state(child, child_start), PROC_RUNNING);
    long inner = inner_pid(child);
    assert_true(inner > 1 && inner < 100 && inner != child);
    /* not our child but the init's, as a daemon's parent on a real server
     * is its PID 1: nothing of ours has to reap it for the namespace to go */
    assert_int_equal(parent_of(child), init);
    /* its init killed, the namespace goes with everything in it */
    assert_int_equal(proc_kill(init, init_start, SIGKILL, err, sizeof err), 0);
    /* dead (a zombie until whoever it was left to reaps it) */
    assert_true(proc_state(init, init_start) == PROC_GONE ||
                proc_state(init, init_start) == PROC_ZOMBIE);
    assert_int_equal(proc_state(child, child_start), PROC_GONE);
}

int main(void)
{
    /* as faultline does: every child forked by the spawner (lib/spawner.h) */
    char err[256];
    if (spawner_start(err, sizeof err) != 0) {
        fprintf(stderr, "spawner_start: %s\n", err);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_writes_reach_us),
        cmocka_unit_test(test_failure_says_why),
        cmocka_unit_test(test_descriptors_are_shared),
        cmocka_unit_test(test_enters_the_mount_namespace),
        cmocka_unit_test(test_gone_process_refused),
        cmocka_unit_test(test_joins_a_pid_namespace),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
