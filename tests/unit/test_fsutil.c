/*
 * Where faultline keeps, as root, what it later runs or trusts (the labs'
 * files, the run registry): root_only_dir makes the missing levels with the
 * mode asked for and refuses every level another user could change (owned
 * by someone else, writable by group or others, a symbolic link, not a
 * directory); file_create never writes through a link and, for a file
 * that must be new, never into one that is there.  Works in a directory of
 * its own under /run (root's, mode 755): needs root, skipped without.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../lib/fsutil.h"

static char base[64];

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static int setup(void **state)
{
    (void)state;
    if (geteuid() != 0)
        return 0;
    snprintf(base, sizeof base, "/run/fl-fsutil-XXXXXX");
    return mkdtemp(base) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    if (base[0])
        nftw(base, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    return 0;
}

#define NEED_ROOT()                                                                            \
    do {                                                                                       \
        if (geteuid() != 0)                                                                    \
            skip();                                                                            \
    } while (0)

static void path_of(char *out, size_t n, const char *rest)
{
    snprintf(out, n, "%s/%s", base, rest);
}

static unsigned mode_of(const char *path)
{
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    return st.st_mode & 07777;
}

/* Missing levels are made with the mode asked for, whatever the umask. */
static void test_makes_levels_with_mode(void **state)
{
    (void)state;
    NEED_ROOT();
    char dir[128], mid[128], err[2048] = "";
    path_of(dir, sizeof dir, "made/labs");
    path_of(mid, sizeof mid, "made");
    mode_t old = umask(077);
    int rc = root_only_dir(dir, 0755, err, sizeof err);
    umask(old);
    assert_int_equal(rc, 0);
    assert_int_equal(mode_of(mid), 0755);
    assert_int_equal(mode_of(dir), 0755);
    /* again: found as it is, checked, not changed */
    assert_int_equal(root_only_dir(dir, 0700, err, sizeof err), 0);
    assert_int_equal(mode_of(dir), 0755);
    /* with mode 0 nothing is made */
    path_of(dir, sizeof dir, "made/absent");
    assert_int_equal(root_only_dir(dir, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "No such file or directory"));
    struct stat st;
    assert_int_not_equal(lstat(dir, &st), 0);
}

/* A level writable by group or others, or another user's, is refused with
 * its owner, mode and the fix; nothing below it is made. */
static void test_refuses_what_others_can_change(void **state)
{
    (void)state;
    NEED_ROOT();
    char dir[128], open_level[128], err[2048] = "", want[512];
    path_of(open_level, sizeof open_level, "open");
    assert_int_equal(mkdir(open_level, 0700), 0);
    assert_int_equal(chmod(open_level, 0775), 0);
    path_of(dir, sizeof dir, "open/labs");
    assert_int_equal(root_only_dir(dir, 0700, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s is owned by root (uid 0) with mode 775", open_level);
    assert_non_null(strstr(err, want));
    snprintf(want, sizeof want, "chown root:root %s; chmod go-w %s", open_level, open_level);
    assert_non_null(strstr(err, want));
    struct stat st;
    assert_int_not_equal(lstat(dir, &st), 0);

    assert_int_equal(chmod(open_level, 0755), 0);
    assert_int_equal(chown(open_level, 65534, 65534), 0);
    assert_int_equal(root_only_dir(dir, 0700, err, sizeof err), -1);
    assert_non_null(strstr(err, "(uid 65534) with mode 755"));
    assert_int_not_equal(lstat(dir, &st), 0);
    /* sticky and root's, like /tmp, is still writable by others: refused */
    assert_int_equal(chown(open_level, 0, 0), 0);
    assert_int_equal(chmod(open_level, 01777), 0);
    assert_int_equal(root_only_dir(dir, 0700, err, sizeof err), -1);
    assert_non_null(strstr(err, "with mode 1777"));
}

/* A link on the way is refused, and nothing is made where it points. */
static void test_refuses_links_and_files(void **state)
{
    (void)state;
    NEED_ROOT();
    char real[128], link[128], dir[128], err[2048] = "", want[512];
    path_of(real, sizeof real, "real");
    path_of(link, sizeof link, "link");
    assert_int_equal(mkdir(real, 0700), 0);
    assert_int_equal(symlink(real, link), 0);
    path_of(dir, sizeof dir, "link/labs");
    assert_int_equal(root_only_dir(dir, 0700, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s is a symbolic link (to %s)", link, real);
    assert_non_null(strstr(err, want));
    path_of(dir, sizeof dir, "real/labs");
    struct stat st;
    assert_int_not_equal(lstat(dir, &st), 0);
    /* the link itself as the last level */
    assert_int_equal(root_only_dir(link, 0700, err, sizeof err), -1);
    assert_non_null(strstr(err, "is a symbolic link"));

    char file[128];
    path_of(file, sizeof file, "file");
    assert_int_equal(write_text(file, "x", err, sizeof err), 0);
    assert_int_equal(root_only_dir(file, 0700, err, sizeof err), -1);
    assert_non_null(strstr(err, "is not a directory"));

    path_of(dir, sizeof dir, "real/../real");
    assert_int_equal(root_only_dir(dir, 0700, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a plain path"));
    assert_int_equal(root_only_dir("run/x", 0700, err, sizeof err), -1);
    assert_non_null(strstr(err, "not an absolute path"));
}

/* file_create: never through a link; a fresh file never over one. */
static void test_file_create(void **state)
{
    (void)state;
    NEED_ROOT();
    char target[128], link[128], path[128], err[2048] = "", got[16] = "";
    path_of(target, sizeof target, "target");
    path_of(link, sizeof link, "where");
    assert_int_equal(write_text(target, "kept", err, sizeof err), 0);
    assert_int_equal(symlink(target, link), 0);
    assert_null(file_create(link, 0600, false, err, sizeof err));
    assert_non_null(strstr(err, "a symbolic link is there: refused"));
    assert_null(file_create(link, 0600, true, err, sizeof err));
    assert_int_not_equal(write_text(link, "changed", err, sizeof err), 0);
    FILE *f = fopen(target, "r");
    assert_non_null(f);
    assert_non_null(fgets(got, sizeof got, f));
    fclose(f);
    assert_string_equal(got, "kept");

    assert_null(file_create(target, 0600, true, err, sizeof err));
    assert_non_null(strstr(err, "(it must be new)"));
    path_of(path, sizeof path, "new");
    umask(022);
    f = file_create(path, 0640, true, err, sizeof err);
    assert_non_null(f);
    fputs("new", f);
    assert_int_equal(fclose(f), 0);
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0640);
    /* not fresh: emptied and written again */
    f = file_create(path, 0600, false, err, sizeof err);
    assert_non_null(f);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(lstat(path, &st), 0);
    assert_int_equal(st.st_size, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_makes_levels_with_mode),
        cmocka_unit_test(test_refuses_what_others_can_change),
        cmocka_unit_test(test_refuses_links_and_files),
        cmocka_unit_test(test_file_create),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
