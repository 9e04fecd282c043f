/*
 * The end of a FUSE mount whose daemon no longer answers: fuse_abort_at()
 * aborts its connection, and a reader stuck on it gets an error
 * (ECONNABORTED) instead of waiting for ever.  A ceph lab taken down after
 * a run whose MDS never came back left the run's workers in D state:
 * ceph-fuse had started `mount -o remount`, which held /dev/fuse, and so
 * the connection, after ceph-fuse was killed.
 *
 * The daemon here is a real one, the tests' stalefs (build/stalefs, or
 * $STALEFS), stopped with SIGSTOP.  Needs root and /dev/fuse (skipped
 * without).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../lib/mountinfo.h"
#include "../../lib/proc.h"
#include "stalefs_mount.h"

/* stalefs over a fresh directory, mounted, with one file. */
static int setup(void **state)
{
    if (stalefs_mount(state, "mountinfo") != 0)
        return -1;
    struct fusefs *fs = *state;
    if (!fs)
        return 0; /* each test skips */
    char file[128];
    snprintf(file, sizeof file, "%s/f", fs->back);
    int fd = open(file, O_CREAT | O_WRONLY, 0600);
    if (fd < 0)
        return -1;
    bool written = write(fd, "data", 4) == 4;
    close(fd);
    return written ? 0 : -1;
}

static int teardown(void **state)
{
    return stalefs_unmount(state);
}

static void nothing_to_abort_where_no_fuse_is_mounted(void **state)
{
    struct fusefs *fs = *state;
    if (!fs)
        skip(); /* needs root and /dev/fuse */
    char err[512] = "";
    assert_int_equal(fuse_abort_at(fs->back, err, sizeof err), 0); /* a plain directory */
    assert_int_equal(fuse_abort_at("/", err, sizeof err), 0);       /* not FUSE */
    char slash[128];
    snprintf(slash, sizeof slash, "%s/", fs->mnt); /* the name exactly, nothing looked up */
    assert_int_equal(fuse_abort_at(slash, err, sizeof err), 0);
    assert_true(mounted(fs->mnt));
}

static void a_reader_of_a_daemon_that_never_answers_is_answered(void **state)
{
    struct fusefs *fs = *state;
    if (!fs)
        skip(); /* needs root and /dev/fuse */
    assert_int_equal(kill(fs->daemon, SIGSTOP), 0);
    for (int i = 0; i < 500 && !all_stopped(fs->daemon); i++)
        sleep_ms(10);
    assert_true(all_stopped(fs->daemon));
    pid_t reader = fork();
    if (reader == 0) { /* exits with the errno of what failed, 0 when it read */
        char path[128], buf[8];
        snprintf(path, sizeof path, "%s/f", fs->mnt);
        int fd = open(path, O_RDONLY);
        if (fd < 0 || read(fd, buf, sizeof buf) < 0)
            _exit(errno & 0xff);
        _exit(0);
    }
    assert_true(reader > 0);
    sleep_ms(300);
    int status = 0;
    assert_int_equal(waitpid(reader, &status, WNOHANG), 0); /* stuck on the stopped daemon */

    char err[512] = "";
    int rc = fuse_abort_at(fs->mnt, err, sizeof err);
    if (rc < 0)
        fail_msg("fuse_abort_at: %s", err);
    assert_int_equal(rc, 1);
    pid_t done = 0;
    for (int i = 0; i < 500 && (done = waitpid(reader, &status, WNOHANG)) == 0; i++)
        sleep_ms(10);
    if (done == 0) {
        kill(reader, SIGKILL);
        waitpid(reader, NULL, 0);
        fail_msg("the reader still waits 5 s after the abort");
    }
    assert_true(WIFEXITED(status));
    /* what waited: ECONNABORTED; what came after the abort: ENOTCONN */
    int e = WEXITSTATUS(status);
    if (e != ECONNABORTED && e != ENOTCONN)
        fail_msg("the reader ended with %d (%s), not ECONNABORTED or ENOTCONN", e, strerror(e));
    /* the mount is still there (only its connection ended): the lab's undo
     * detaches it next */
    assert_true(mounted(fs->mnt));
    kill(fs->daemon, SIGCONT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(nothing_to_abort_where_no_fuse_is_mounted, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_reader_of_a_daemon_that_never_answers_is_answered,
                                        setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
