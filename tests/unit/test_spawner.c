/*
 * spawner (lib/spawner.h): a child gets descriptors 0, 1, 2 and the ones
 * its caller names, at their numbers and with their close-on-exec flags,
 * and nothing else; so a file of a FUSE filesystem whose daemon stopped
 * answering, open in the process, does not hold a child's exec (which
 * closes it, and closing asks the daemon first: FLUSH).  Before the
 * spawner, that exec waited in the D state for as long as the daemon did.
 *
 * The daemon is a real one, the tests' stalefs (build/stalefs, or
 * $STALEFS), stopped with SIGSTOP.  Needs root and /dev/fuse (skipped
 * without).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
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
#include "../../lib/spawner.h"
#include "stalefs_mount.h"

/* --- what a child owns --- */

struct owned {
    int given_cloexec, given_inherit, not_given, out;
};

/* Exits with a bit per check that failed. */
static void check_owned(void *ctx)
{
    const struct owned *o = ctx;
    int bad = 0;
    int f = fcntl(o->given_cloexec, F_GETFD);
    if (f < 0 || !(f & FD_CLOEXEC))
        bad |= 1;
    f = fcntl(o->given_inherit, F_GETFD);
    if (f < 0 || (f & FD_CLOEXEC))
        bad |= 2;
    if (fcntl(o->not_given, F_GETFD) >= 0 || errno != EBADF)
        bad |= 4;
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0)
            bad |= 8;
    if (write(o->out, "k", 1) != 1) /* the pipe works, at its number */
        bad |= 16;
    _exit(bad);
}

static void a_child_owns_what_it_is_given_and_nothing_else(void **state)
{
    (void)state;
    int p[2], other[2];
    assert_int_equal(pipe2(p, O_CLOEXEC), 0);
    assert_int_equal(pipe2(other, O_CLOEXEC), 0);
    int inherit = dup(other[0]); /* without close-on-exec */
    assert_true(inherit >= 0);
    struct owned o = {.given_cloexec = p[1], .given_inherit = inherit, .not_given = other[1],
                      .out = p[1]};
    int keep[] = {p[1], inherit};
    pid_t child = spawner_fork(keep, 2, -1, check_owned, &o);
    assert_true(child > 0);
    int status = 0;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    if (WEXITSTATUS(status) != 0)
        fail_msg("the child's checks failed: %#x (1: a given descriptor lost close-on-exec, "
                 "2: one gained it, 4: one not given was open, 8: 0-2 missing, 16: the pipe)",
                 WEXITSTATUS(status));
    close(p[1]);
    char c = 0;
    assert_int_equal(read(p[0], &c, 1), 1);
    assert_int_equal(c, 'k');
    close(p[0]);
    close(other[0]);
    close(other[1]);
    close(inherit);
}

static void a_descriptor_not_open_is_refused(void **state)
{
    (void)state;
    int keep[] = {1000};
    errno = 0;
    assert_int_equal(spawner_fork(keep, 1, -1, check_owned, NULL), -1);
    assert_int_equal(errno, EBADF);
}

/* --- a FUSE daemon that no longer answers --- */

static int fuse_setup(void **state)
{
    return stalefs_mount(state, "spawner");
}

static int fuse_teardown(void **state)
{
    return stalefs_unmount(state);
}

struct runner {
    atomic_int done;
    int rc;
    char out[256];
};

static void *run_true(void *arg)
{
    struct runner *r = arg;
    char *argv[] = {"true", NULL};
    r->rc = proc_run(argv, r->out, sizeof r->out, 10000);
    atomic_store(&r->done, 1);
    return NULL;
}

static void a_stopped_fuse_daemon_does_not_hold_a_child(void **state)
{
    struct fusefs *fs = *state;
    if (!fs)
        skip(); /* needs root and /dev/fuse */
    char path[128];
    snprintf(path, sizeof path, "%s/f", fs->mnt);
    int fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0600); /* as a worker holds one */
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "data", 4), 4);
    assert_int_equal(kill(fs->daemon, SIGSTOP), 0);
    sleep_ms(100);

    struct runner r = {0};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, run_true, &r), 0);
    int waited = 0;
    while (!atomic_load(&r.done) && waited < 5000) {
        sleep_ms(10);
        waited += 10;
    }
    bool in_time = atomic_load(&r.done);
    kill(fs->daemon, SIGCONT); /* lets a child that waits go, so the test ends either way */
    pthread_join(t, NULL);
    close(fd);
    if (!in_time)
        fail_msg("`true` took more than 5 s while a file of a stopped FUSE daemon was open: "
                 "its exec waited for the daemon");
    assert_int_equal(r.rc, 0);
}

int main(void)
{
    char err[256];
    if (spawner_start(err, sizeof err) != 0) {
        fprintf(stderr, "spawner_start: %s\n", err);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_child_owns_what_it_is_given_and_nothing_else),
        cmocka_unit_test(a_descriptor_not_open_is_refused),
        cmocka_unit_test_setup_teardown(a_stopped_fuse_daemon_does_not_hold_a_child, fuse_setup,
                                        fuse_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
