/*
 * backend_file — regular files and block devices.
 *
 * Two I/O engines behind the same submit/reap:
 *   io_uring  one ring per worker keeps `depth` I/Os in flight from one
 *             thread; the engine for O_DIRECT, where the kernel does the
 *             I/O without helper threads.
 *   sync      pread/pwrite/fdatasync done inside submit(); depth comes from
 *             running one worker thread per I/O in flight.  The engine for
 *             buffered files: io_uring hands every buffered read and write
 *             of a page-cache file to kernel helper threads, and measured
 *             here (tmpfs, 4 KiB random 50/50) fio got 415k IOPS from
 *             io_uring at depth 8 against 903k from psync with one thread
 *             and 1.6M with two.
 *
 * `file` and `blockdev` differ only in how the target is opened.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <liburing.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../checks/block.h"
#include "../lib/devuse.h"
#include "../lib/units.h"
#include "backend.h"
#include "identify.h"

struct file_priv {
    int fd;
    bool sync;
    unsigned depth;
    /* io_uring: created by the first thread that submits (a SINGLE_ISSUER
     * ring belongs to its creator, and a worker thread, not the opener,
     * drives it). */
    bool ring_ready;
    struct io_uring ring;
    /* sync: completed requests not yet reaped */
    struct io **done;
    unsigned ndone, cap;
};

static int priv_setup(struct backend *be, int fd, const struct target_cfg *t, unsigned depth,
                      char *err, size_t n)
{
    struct file_priv *p = calloc(1, sizeof *p);
    if (p)
        p->cap = depth + 8;
    if (p && !(p->done = calloc(p->cap, sizeof *p->done))) {
        free(p);
        p = NULL;
    }
    if (!p) {
        snprintf(err, n, "out of memory");
        return -1;
    }
    p->fd = fd;
    p->sync = t->engine == ENGINE_SYNC;
    p->depth = depth;
    be->priv = p;
    return 0;
}

static int ring_setup(struct file_priv *p)
{
    /* Room for every data I/O plus a few flushes, with margin.  One thread
     * submits and reaps, so completions can wait until it asks for them
     * (DEFER_TASKRUN): no interruptions of the loop, and about twice the
     * IOPS on tmpfs.  Older kernels refuse the flags: then plain setup. */
    unsigned entries = p->depth * 2 + 8;
    int rc = io_uring_queue_init(entries, &p->ring,
                                 IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN);
    if (rc == -EINVAL)
        rc = io_uring_queue_init(entries, &p->ring, 0);
    if (rc < 0)
        return rc;
    rc = io_uring_register_files(&p->ring, &p->fd, 1);
    if (rc < 0) {
        io_uring_queue_exit(&p->ring);
        return rc;
    }
    p->ring_ready = true;
    return 0;
}

/* Inside the tested range a short transfer is a failure, not end of file. */
static void set_result(struct io *io, ssize_t res)
{
    if (res < 0) {
        io->result = res;
        snprintf(io->err, sizeof io->err, "%s", strerror((int)-res));
    } else if (io->op != IO_FLUSH && (size_t)res != io->len) {
        io->result = -EIO;
        snprintf(io->err, sizeof io->err, "short %s: %zd of %u bytes",
                 io->op == IO_READ ? "read" : "write", res, io->len);
    } else {
        io->result = res;
    }
}

/* The sync engine does the I/O right here; reap() hands it back.  The
 * system calls themselves, not glibc's: those are cancellation points and
 * mark the thread cancellable around each call, a cost per I/O as large as
 * a small block's checksum; no thread of faultline is ever cancelled. */
static int sync_submit(struct file_priv *p, struct io *io)
{
    if (p->ndone == p->cap)
        return -EBUSY;
    ssize_t r;
    switch (io->op) {
    case IO_READ:
        do
            r = syscall(SYS_pread64, p->fd, io->buf, (size_t)io->len, (off_t)io->offset);
        while (r < 0 && errno == EINTR);
        break;
    case IO_WRITE:
        do
            r = syscall(SYS_pwrite64, p->fd, io->buf, (size_t)io->len, (off_t)io->offset);
        while (r < 0 && errno == EINTR);
        break;
    default:
        r = syscall(SYS_fdatasync, p->fd);
        break;
    }
    set_result(io, r < 0 ? -errno : r);
    p->done[p->ndone++] = io;
    return 0;
}

static int file_submit(struct backend *be, struct io *io)
{
    struct file_priv *p = be->priv;
    io->err[0] = '\0';
    if (p->sync)
        return sync_submit(p, io);
    if (!p->ring_ready) {
        int rc = ring_setup(p);
        if (rc < 0)
            return rc;
    }
    struct io_uring_sqe *sqe = io_uring_get_sqe(&p->ring);
    if (!sqe) {
        io_uring_submit(&p->ring);
        sqe = io_uring_get_sqe(&p->ring);
        if (!sqe)
            return -EBUSY;
    }
    switch (io->op) {
    case IO_READ:
        io_uring_prep_read(sqe, 0, io->buf, io->len, io->offset);
        break;
    case IO_WRITE:
        io_uring_prep_write(sqe, 0, io->buf, io->len, io->offset);
        break;
    case IO_FLUSH:
        io_uring_prep_fsync(sqe, 0, IORING_FSYNC_DATASYNC);
        break;
    }
    sqe->flags |= IOSQE_FIXED_FILE;
    io_uring_sqe_set_data(sqe, io);
    return 0;
}

static int file_reap(struct backend *be, struct io **done, int max, int wait_ms)
{
    struct file_priv *p = be->priv;
    if (p->sync) {
        int n = (int)p->ndone < max ? (int)p->ndone : max;
        memcpy(done, p->done, (size_t)n * sizeof *done);
        memmove(p->done, p->done + n, (p->ndone - (unsigned)n) * sizeof *done);
        p->ndone -= (unsigned)n;
        return n;
    }
    if (!p->ring_ready)
        return 0; /* nothing was ever submitted */
    struct io_uring_cqe *cqe;
    int rc;
    if (wait_ms > 0) {
        struct __kernel_timespec ts = {.tv_sec = wait_ms / 1000,
                                       .tv_nsec = (long long)(wait_ms % 1000) * 1000000};
        rc = io_uring_submit_and_wait_timeout(&p->ring, &cqe, 1, &ts, NULL);
        if (rc < 0 && rc != -ETIME && rc != -EINTR)
            return rc;
    } else {
        rc = io_uring_submit_and_get_events(&p->ring);
        if (rc < 0 && rc != -EINTR)
            return rc;
    }
    struct io_uring_cqe *cqes[64];
    int got = 0;
    while (got < max) {
        unsigned want = (unsigned)(max - got) < 64 ? (unsigned)(max - got) : 64;
        unsigned k = io_uring_peek_batch_cqe(&p->ring, cqes, want);
        if (k == 0)
            break;
        for (unsigned i = 0; i < k; i++) {
            struct io *io = io_uring_cqe_get_data(cqes[i]);
            set_result(io, cqes[i]->res);
            done[got++] = io;
        }
        io_uring_cq_advance(&p->ring, k);
    }
    return got;
}

static void file_close(struct backend *be)
{
    struct file_priv *p = be->priv;
    if (!p)
        return;
    if (p->ring_ready) {
        /* Unregistering waits for the ring to let go of the file; tearing
         * the ring down alone releases it later, in a kernel worker, and a
         * block device would stay claimed (O_EXCL) after we exit. */
        io_uring_unregister_files(&p->ring);
        io_uring_queue_exit(&p->ring);
    }
    close(p->fd);
    free(p->done);
    free(p);
    be->priv = NULL;
}

static const char *engine_name(const struct target_cfg *t)
{
    return t->engine == ENGINE_SYNC ? "sync" : "io_uring";
}

/* O_DIRECT alignment of a file: the logical block size of the device under
 * its filesystem, or 4096 when that cannot be told (tmpfs, network). */
static uint32_t direct_align(dev_t dev)
{
    char path[96];
    snprintf(path, sizeof path, "/sys/dev/block/%u:%u/queue/logical_block_size", major(dev),
             minor(dev));
    FILE *f = fopen(path, "r");
    unsigned v = 0;
    if (f) {
        if (fscanf(f, "%u", &v) != 1)
            v = 0;
        fclose(f);
    }
    return v >= FL_SECTOR && v <= 65536 && (v & (v - 1)) == 0 ? v : 4096;
}

/* Whether the filesystem of fd has room for `need` more bytes; -1 with
 * err naming what is needed and what is free. */
static int room_for(int fd, const char *path, uint64_t need, char *err, size_t n)
{
    struct statvfs v;
    if (!need || fstatvfs(fd, &v) != 0)
        return 0; /* nothing to add, or a filesystem that cannot tell: fallocate will */
    uint64_t avail = (uint64_t)v.f_bavail * v.f_frsize;
    if (need <= avail)
        return 0;
    char want[32], have[32];
    format_size(need, want, sizeof want);
    format_size(avail, have, sizeof have);
    snprintf(err, n, "%s needs %s more on its filesystem, which has %s free; give a smaller "
             "[target] size, or free space there", path, want, have);
    return -1;
}

static int file_open(struct backend *be, const struct target_cfg *t, unsigned depth, char *err,
                     size_t n)
{
    int flags = O_RDWR | O_CLOEXEC | (t->direct ? O_DIRECT : 0) | (t->sync ? O_DSYNC : 0);
    /* Made here, or there before: a run that cannot start removes only
     * what it made (file_discard). */
    bool creating = !be->again && !be->shared && !be->existing;
    int fd = creating ? open(t->path, flags | O_CREAT | O_EXCL, 0644) : -1;
    if (fd >= 0)
        be->created = true;
    else if (!creating || errno == EEXIST)
        fd = open(t->path, flags); /* there already (another worker's, the run's) */
    if (fd < 0) {
        if (errno == EINVAL && t->direct)
            snprintf(err, n, "cannot open %s with O_DIRECT (direct = yes): %s; the filesystem "
                     "may not support direct I/O", t->path, strerror(errno));
        else
            snprintf(err, n, "cannot open %s: %s", t->path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(err, n, "cannot stat %s: %s", t->path, strerror(errno));
        goto fail;
    }
    if (S_ISBLK(st.st_mode)) {
        snprintf(err, n, "%s is a block device; use kind = blockdev", t->path);
        goto fail;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, n, "%s is not a regular file", t->path);
        goto fail;
    }
    if (t->size) {
        if ((uint64_t)st.st_size < t->size) {
            /* Room first: every block will be written, so what the file
             * does not hold yet must fit (a sparse file's holes too). */
            uint64_t held = (uint64_t)st.st_blocks * 512;
            if (room_for(fd, t->path, t->size > held ? t->size - held : 0, err, n) != 0)
                goto fail;
            if (ftruncate(fd, (off_t)t->size) != 0) {
                snprintf(err, n, "cannot extend %s to %llu bytes: %s", t->path,
                         (unsigned long long)t->size, strerror(errno));
                goto shrink;
            }
            /* Reserve the space now so that a full disk is an error here
             * rather than an I/O error in the middle of the run. */
            int rc = posix_fallocate(fd, st.st_size, (off_t)(t->size - (uint64_t)st.st_size));
            if (rc != 0 && rc != EOPNOTSUPP && rc != EINVAL) {
                snprintf(err, n, "cannot allocate %llu bytes for %s: %s",
                         (unsigned long long)t->size, t->path, strerror(rc));
                goto shrink;
            }
        }
        be->capacity = t->size;
    } else {
        be->capacity = (uint64_t)st.st_size;
        if (be->capacity == 0) {
            snprintf(err, n, "%s is empty; say how large it should be with [target] size",
                     t->path);
            goto fail;
        }
    }
    be->align = t->direct ? direct_align(st.st_dev) : FL_SECTOR;
    be->durable_writes = t->sync;
    if (priv_setup(be, fd, t, depth, err, n) != 0)
        goto fail;
    snprintf(be->desc, sizeof be->desc, "file %s (%s, %s, %s engine)", t->path,
             t->direct ? "O_DIRECT" : "buffered", t->sync ? "O_DSYNC" : "no O_DSYNC",
             engine_name(t));
    return 0;
shrink:
    /* What a failed extension allocated goes back (a file made here goes
     * whole, below). */
    if (!be->created && ftruncate(fd, st.st_size) != 0)
        fprintf(stderr, "faultline: cannot shrink %s back to %lld bytes: %s\n", t->path,
                (long long)st.st_size, strerror(errno));
fail:
    close(fd);
    if (be->created && unlink(t->path) != 0)
        fprintf(stderr, "faultline: cannot remove %s, which this run made: %s\n", t->path,
                strerror(errno));
    be->created = false;
    return -1;
}

/* A run that cannot start removes the file its first open made. */
static void file_discard(struct backend *be, const struct target_cfg *t)
{
    if (be->created && unlink(t->path) != 0 && errno != ENOENT)
        fprintf(stderr, "faultline: cannot remove %s, which this run made: %s\n", t->path,
                strerror(errno));
    be->created = false;
}

static int blockdev_open(struct backend *be, const struct target_cfg *t, unsigned depth,
                         char *err, size_t n)
{
    struct stat st;
    if (stat(t->path, &st) != 0) {
        snprintf(err, n, "cannot stat %s: %s", t->path, strerror(errno));
        return -1;
    }
    if (!S_ISBLK(st.st_mode)) {
        snprintf(err, n, "%s is not a block device; use kind = file", t->path);
        return -1;
    }
    char why[2300];
    /* The first worker's O_EXCL open claims the device for the whole run;
     * the others would be refused by that very claim, and so would another
     * client of the run on the same node (it still checks for mounts). */
    int excl = be->again || be->shared ? 0 : O_EXCL;
    int busy = be->again ? 0 : blockdev_in_use(st.st_rdev, why, sizeof why);
    if (busy != 0) {
        if (busy > 0)
            snprintf(err, n, "refusing %s: %s, and faultline overwrites the device", t->path, why);
        else
            snprintf(err, n, "refusing %s: cannot tell whether it is in use: %s", t->path, why);
        return -1;
    }
    int flags = O_RDWR | O_DIRECT | excl | O_CLOEXEC | (t->sync ? O_DSYNC : 0);
    int fd = open(t->path, flags);
    /* A process that just ended (a previous run) may still be releasing its
     * claim: give it a moment before calling the device busy. */
    for (int tries = 0; fd < 0 && errno == EBUSY && tries < 50; tries++) {
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
        fd = open(t->path, flags);
    }
    if (fd < 0) {
        if (errno == EBUSY)
            snprintf(err, n, "refusing %s: the system holds it exclusively (swap, a filesystem "
                     "or a driver): %s", t->path, strerror(errno));
        else
            snprintf(err, n, "cannot open %s: %s", t->path, strerror(errno));
        return -1;
    }
    uint64_t bytes = 0;
    int lbs = 0;
    if (ioctl(fd, BLKGETSIZE64, &bytes) != 0 || ioctl(fd, BLKSSZGET, &lbs) != 0) {
        snprintf(err, n, "cannot read the size of %s: %s", t->path, strerror(errno));
        close(fd);
        return -1;
    }
    if (t->size > bytes) {
        snprintf(err, n, "[target] size %llu is larger than %s (%llu bytes)",
                 (unsigned long long)t->size, t->path, (unsigned long long)bytes);
        close(fd);
        return -1;
    }
    be->capacity = t->size ? t->size : bytes;
    be->align = lbs > 0 ? (uint32_t)lbs : FL_SECTOR;
    be->durable_writes = t->sync;
    if (priv_setup(be, fd, t, depth, err, n) != 0) {
        close(fd);
        return -1;
    }
    snprintf(be->desc, sizeof be->desc, "block device %s (O_DIRECT%s, %d-byte sectors, %s)",
             t->path, t->sync ? ", O_DSYNC" : "", lbs, engine_name(t));
    return 0;
}

/* --- the kinds' scenario rules --- */

static int path_check(struct backend_setup *s, char *err, size_t errlen)
{
    if (!s->t->path[0]) {
        s->section = "target";
        snprintf(err, errlen, "[target] needs 'path'%s", s->lab_hint);
        return -1;
    }
    s->t->located = true;
    return 0;
}

/* A block device is always opened with O_DIRECT: io_uring, unless the
 * scenario asks for the sync engine. */
static int blockdev_check(struct backend_setup *s, char *err, size_t errlen)
{
    s->t->direct = true;
    if (s->engine_choice == 0)
        s->t->engine = ENGINE_URING;
    return path_check(s, err, errlen);
}

static void path_where(const struct target_cfg *t, uint64_t block, uint64_t offset,
                       const char *name, char *path, size_t n, uint64_t *off)
{
    (void)block;
    (void)name;
    snprintf(path, n, "%s", t->path);
    *off = offset;
}

const struct backend_ops backend_file_ops = {
    .kind = "file",
    .check = path_check,
    .where = path_where,
    .open = file_open,
    .discard = file_discard,
    .submit = file_submit,
    .reap = file_reap,
    .close = file_close,
    .identify = identify_path,
};

const struct backend_ops backend_blockdev_ops = {
    .kind = "blockdev",
    .check = blockdev_check,
    .where = path_where,
    .open = blockdev_open,
    .submit = file_submit,
    .reap = file_reap,
    .close = file_close,
    .identify = identify_blockdev,
};
