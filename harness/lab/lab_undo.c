/* lab_undo — taking a lab down: everything its state file names is
 * undone, newest first and in an order that lets each step succeed
 * (mounts, processes, links, namespaces, files).  See lab_undo.h. */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../lib/fsutil.h"
#include "../../lib/mountinfo.h"
#include "../../lib/net.h"
#include "../../lib/proc.h"
#include "lab_record.h"
#include "lab_server.h"
#include "lab_undo.h"

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path) == 0 || errno == ENOENT ? 0 : -1;
}

/* Whether dir is a lab's own directory, P-KIND right under home. */
static bool lab_dir_under(const char *dir, const char *home)
{
    size_t len = strlen(home);
    return strncmp(dir, home, len) == 0 && dir[len] == '/' && dir[len + 1] &&
           !strchr(dir + len + 1, '/') && !strstr(dir, "..");
}

/* A lab's own directory and everything its servers wrote into it; never
 * anything outside LAB_DATA_DIR (or LAB_OLD_DATA_DIR, for a lab an older
 * faultline brought up), and only while nobody but root can move things
 * under it as it goes. */
static int remove_tree(const char *dir, char *err, size_t errlen)
{
    struct stat st;
    bool old = lab_dir_under(dir, LAB_OLD_DATA_DIR);
    if (!old && !lab_dir_under(dir, LAB_DATA_DIR)) {
        snprintf(err, errlen, "refusing to remove %.900s: not a lab directory", dir);
        return -1;
    }
    if (lstat(dir, &st) != 0)
        return 0;
    char why[1536];
    if (!old && root_only_dir(LAB_DATA_DIR, 0, why, sizeof why) != 0) {
        snprintf(err, errlen, "refusing to remove %.200s: %.780s", dir, why);
        return -1;
    }
    struct stat home;
    if (old && (lstat(LAB_OLD_DATA_DIR, &home) != 0 || !S_ISDIR(home.st_mode) ||
                home.st_uid != 0 || (home.st_mode & 022) || st.st_uid != 0)) {
        snprintf(err, errlen, "refusing to remove %.200s: it, or %s, is not root's alone (made "
                 "by another user before an older faultline used it); look at what it holds, "
                 "and remove it yourself", dir, LAB_OLD_DATA_DIR);
        return -1;
    }
    if (nftw(dir, remove_one, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) != 0) {
        snprintf(err, errlen, "cannot remove %.900s: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}

/* Undoes the records of one kind, newest first; the first failure is
 * kept in err, the rest still tried. */
static void undo_records(const struct record *r, size_t n, const char *key,
                         int (*undo)(const struct record *r, void *ctx, char *e, size_t el),
                         void *ctx, int *rc, char *err, size_t errlen)
{
    for (size_t i = n; i-- > 0;) {
        char e[1024];
        if (strcmp(r[i].key, key) == 0 && undo(&r[i], ctx, e, sizeof e) != 0 && *rc == 0) {
            snprintf(err, errlen, "%s", e);
            *rc = -1;
        }
    }
}

/* A FUSE client's connection is aborted first: workers a run left behind
 * on it, and whatever its daemon started, are answered (an error) rather
 * than left waiting on a detached mount for ever. */
static int undo_mount(const struct record *r, void *ctx, char *e, size_t el)
{
    (void)ctx;
    char why[512];
    int aborted = fuse_abort_at(r->a, why, sizeof why); /* unmounted even when it fails */
    if (umount2(r->a, MNT_DETACH) != 0 && errno != EINVAL && errno != ENOENT) {
        snprintf(e, el, "cannot unmount %s: %s", r->a, strerror(errno));
        return -1;
    }
    if (aborted < 0) {
        snprintf(e, el, "%s", why);
        return -1;
    }
    return 0;
}

/* A disk layer's mount (lab_disk.h), once its servers are gone: the loop
 * devices over its file are let go (bounded: they are freed with the last
 * user of a server's mount namespace, a moment after it), then its
 * connection aborted (the layer exits: also one a crash left unrecorded)
 * and the mount detached. */
static int undo_disk_mount(const struct record *r, void *ctx, char *e, size_t el)
{
    char file[PATH_MAX + 8], why[512];
    snprintf(file, sizeof file, "%.*s/disk", PATH_MAX - 1, r->a);
    if (lab_image_let_go(file, why, sizeof why) != 0)
        fprintf(stderr, "faultline: %s; its disk layer is stopped all the same\n", why);
    return undo_mount(r, ctx, e, el);
}

static int undo_pid(const struct record *r, void *ctx, char *e, size_t el)
{
    (void)ctx;
    return proc_kill((pid_t)r->n1, r->n2, SIGKILL, e, el);
}

static int undo_nsprocs(const struct record *r, void *ctx, char *e, size_t el)
{
    (void)ctx;
    return lab_kill_all_in(r->a, e, el); /* what a lab server started */
}

/* Every process running an executable from inside the lab directory: the
 * agents faults over ssh copied there (lab_ssh.c), wherever they run. */
static int undo_agents(const struct record *r, void *ctx, char *e, size_t el)
{
    (void)ctx;
    size_t len = strlen(r->a);
    DIR *d = opendir("/proc");
    struct dirent *de;
    int rc = 0;
    while (d && (de = readdir(d))) {
        char *end;
        long pid = strtol(de->d_name, &end, 10);
        if (*end || pid <= 0 || pid == getpid())
            continue;
        char link[64], exe[PATH_MAX];
        snprintf(link, sizeof link, "/proc/%ld/exe", pid);
        ssize_t n = readlink(link, exe, sizeof exe - 1);
        if (n <= 0)
            continue;
        exe[n] = '\0';
        if (strncmp(exe, r->a, len) != 0 || exe[len] != '/')
            continue;
        uint64_t start = proc_starttime((pid_t)pid);
        if (start && proc_kill((pid_t)pid, start, SIGKILL, e, el) != 0)
            rc = -1;
    }
    if (d)
        closedir(d);
    return rc;
}

static int undo_link(const struct record *r, void *ctx, char *e, size_t el)
{
    return ctx ? net_link_delete(ctx, r->a, e, el) : 0;
}

static int undo_netns(const struct record *r, void *ctx, char *e, size_t el)
{
    (void)ctx;
    return netns_delete(r->a, e, el);
}

static int undo_file(const struct record *r, void *ctx, char *e, size_t el)
{
    (void)ctx;
    if (unlink(r->a) != 0 && errno != ENOENT) {
        snprintf(e, el, "cannot remove %s: %s", r->a, strerror(errno));
        return -1;
    }
    return 0;
}

static int undo_dir(const struct record *r, void *ctx, char *e, size_t el)
{
    (void)ctx;
    if (rmdir(r->a) != 0 && errno != ENOENT) {
        snprintf(e, el, "cannot remove %s: %s", r->a, strerror(errno));
        return -1;
    }
    return 0;
}

static int undo_tree(const struct record *r, void *ctx, char *e, size_t el)
{
    (void)ctx;
    return remove_tree(r->a, e, el);
}

/* lab_down with its state file locked (or being made) by the caller. */
int lab_down_locked(const char *path, char *err, size_t errlen)
{
    struct record *r;
    size_t n;
    if (lab_records_read(path, &r, &n, err, errlen) != 0)
        return -1;
    int rc = 0;
    /* A FUSE mount first: nothing may hang on it once its servers go.
     * Then processes (they hold the namespaces and the backing files),
     * links, namespaces, files. */
    undo_records(r, n, "mount", undo_mount, NULL, &rc, err, errlen);
    undo_records(r, n, "pid", undo_pid, NULL, &rc, err, errlen);
    undo_records(r, n, "sshd", undo_pid, NULL, &rc, err, errlen);
    undo_records(r, n, "tree", undo_agents, NULL, &rc, err, errlen);
    undo_records(r, n, "nsprocs", undo_nsprocs, NULL, &rc, err, errlen);
    /* a server's init after the rest of it (lab_kill_all_in says why) */
    undo_records(r, n, "init", undo_pid, NULL, &rc, err, errlen);
    /* the disk layers under the servers' disks once the servers are gone */
    undo_records(r, n, "diskmount", undo_disk_mount, NULL, &rc, err, errlen);
    undo_records(r, n, "disk", undo_pid, NULL, &rc, err, errlen);
    char e[1024];
    struct nl_sock *sk = net_open(NULL, e, sizeof e);
    if (!sk && rc == 0) {
        snprintf(err, errlen, "%s", e);
        rc = -1;
    }
    undo_records(r, n, "link", undo_link, sk, &rc, err, errlen);
    net_close(sk);
    undo_records(r, n, "netns", undo_netns, NULL, &rc, err, errlen);
    undo_records(r, n, "socket", undo_file, NULL, &rc, err, errlen);
    undo_records(r, n, "file", undo_file, NULL, &rc, err, errlen);
    undo_records(r, n, "dir", undo_dir, NULL, &rc, err, errlen);
    undo_records(r, n, "tree", undo_tree, NULL, &rc, err, errlen);
    free(r);
    /* Keep the state while something could not be removed: down can retry. */
    if (rc == 0 && unlink(path) != 0 && errno != ENOENT) {
        snprintf(err, errlen, "cannot remove %s: %s", path, strerror(errno));
        rc = -1;
    }
    return rc;
}
