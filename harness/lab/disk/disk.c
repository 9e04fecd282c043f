/*
 * faultline-disk — the FUSE layer under a lab server's disk (a gluster
 * brick's or a ceph server's XFS image, the iSCSI LUN file), which fails
 * that disk on command (a program of its own, as faultline-wcache is).
 *
 *   faultline-disk --backing FILE --mount DIR --control SOCK [--name NAME]
 *                  [--pidfile F]
 *   faultline-disk --ask SOCK LINE
 *
 * It exposes one file, DIR/NAME (default `disk`), as large as FILE, which
 * the loop device (or tgtd) opens instead of FILE.  Every read, write,
 * fsync and fallocate (loop's discard: PUNCH_HOLE) goes through to FILE,
 * unless the fault set over the control socket says otherwise.  SOCK is a
 * Unix stream socket (mode 0600, in a directory no one else may write to)
 * that takes one line of lib/diskctl.h's language per connection and
 * answers one line:
 *
 *   set fail       reads, writes, syncs and fallocates answer EIO (getattr
 *                  and open still work: the disk is there, it does not work)
 *   set errors ... reads and/or writes (a fallocate is a write) that touch a
 *                  range answer EIO, each with probability percent, drawn
 *                  from the seed; syncs go through
 *   set slow ...   every I/O first sleeps latency_us plus 0..jitter_us, in
 *                  the thread that serves it (the others go on)
 *   set full       a write or an allocating fallocate that touches a hole of
 *                  FILE (lseek SEEK_HOLE) answers ENOSPC; writes over
 *                  allocated bytes and every read go through
 *   clear [replace]  back to working; replace first punches out all of FILE
 *                  (reads give zeros: a new, empty disk)
 *   status         the mode and the counts (struct disk_counts)
 *
 * --ask SOCK LINE asks a running layer LINE (lib/diskctl.c, diskctl_ask,
 * as the disk faults do) and prints its answer: for people and tests.
 *
 * Speed: the lab's disks run through this, so the I/O path takes no lock
 * while the disk works (the mode is an atomic, checked first), a read lock
 * on the fault's parameters while one is set, and a mutex only for an
 * errors draw; the counts are atomics.  The loop is multithreaded, each
 * thread with its own /dev/fuse descriptor, and the kernel is asked for
 * 1 MiB requests.  Every file is opened with direct_io: the page cache
 * above the loop device already caches; this layer must see every I/O.
 * SIGTERM and SIGINT unmount DIR, remove SOCK and exit 0.
 */
#define FUSE_USE_VERSION 31

#include <fuse.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "../../../lib/diskctl.h"
#include "../../../lib/rng.h"

#define BIG_REQUEST (1u << 20) /* asked of the kernel: 1 MiB reads and writes */
#define ASK_TIMEOUT_MS 5000
#define PEER_TIMEOUT_S 2 /* a control client that sends no line in time is dropped */

enum io_kind { IO_READ, IO_WRITE, IO_SYNC };

static struct {
    int backing;
    uint64_t size;
    char name[64];
    const char *backing_path, *control_path;
    atomic_int mode;        /* enum disk_mode: the I/O path's first (and, ok, only) look */
    pthread_rwlock_t lock;  /* cmd: taken for reading by I/O, for writing by `set` */
    struct disk_cmd cmd;
    pthread_mutex_t draw_mu; /* rng: errors' percent and slow's jitter */
    struct rng rng;
    atomic_uint_fast64_t reads, writes, syncs, failed_reads, failed_writes, failed_syncs,
        nospace, slowed;
} D = {.backing = -1, .name = "disk", .lock = PTHREAD_RWLOCK_INITIALIZER,
       .draw_mu = PTHREAD_MUTEX_INITIALIZER};

static void count(atomic_uint_fast64_t *c)
{
    atomic_fetch_add_explicit(c, 1, memory_order_relaxed);
}

static struct disk_counts counts_now(void)
{
    struct disk_counts c = {
        .reads = atomic_load(&D.reads),
        .writes = atomic_load(&D.writes),
        .syncs = atomic_load(&D.syncs),
        .failed_reads = atomic_load(&D.failed_reads),
        .failed_writes = atomic_load(&D.failed_writes),
        .failed_syncs = atomic_load(&D.failed_syncs),
        .nospace = atomic_load(&D.nospace),
        .slowed = atomic_load(&D.slowed),
    };
    return c;
}

/* --- the fault, as one I/O meets it ---------------------------------------- */

static uint64_t draw_below(uint64_t n)
{
    pthread_mutex_lock(&D.draw_mu);
    uint64_t v = rng_below(&D.rng, n);
    pthread_mutex_unlock(&D.draw_mu);
    return v;
}

/* errors: whether this I/O is one the fault fails (with cmd read-locked). */
static bool errors_hit(const struct disk_cmd *c, enum io_kind kind, uint64_t off, uint64_t len)
{
    unsigned bit = kind == IO_READ ? DISK_ON_READ : kind == IO_WRITE ? DISK_ON_WRITE : 0;
    if (!(c->on & bit))
        return false;
    bool touches = c->nranges == 0;
    for (unsigned i = 0; i < c->nranges && !touches; i++)
        touches = off < c->ranges[i][0] + c->ranges[i][1] && c->ranges[i][0] < off + len;
    if (!touches)
        return false;
    return c->percent == 0 || c->percent >= 100 || draw_below(100) < c->percent;
}

/* full: whether bytes [off, off+len) of FILE hold a hole (space a write there
 * would need).  Past the end is a hole too; an lseek that cannot tell (a
 * filesystem without SEEK_HOLE says the whole file is data) lets it through. */
static bool touches_hole(uint64_t off, uint64_t len)
{
    off_t h = lseek(D.backing, (off_t)off, SEEK_HOLE);
    if (h < 0)
        return errno == ENXIO;
    return (uint64_t)h < off + len;
}

static void sleep_us(uint64_t us)
{
    struct timespec ts = {.tv_sec = (time_t)(us / 1000000), .tv_nsec = (long)(us % 1000000) * 1000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* What the fault set now does to one I/O before it goes to FILE: 0 (go on,
 * after the sleep of a slow disk) or the negative errno to answer with.
 * allocates: a write or fallocate that full may refuse. */
static int fault_for(enum io_kind kind, uint64_t off, uint64_t len, bool allocates)
{
    if (atomic_load_explicit(&D.mode, memory_order_acquire) == DISK_OK)
        return 0;
    pthread_rwlock_rdlock(&D.lock);
    const struct disk_cmd *c = &D.cmd;
    enum disk_mode mode = c->mode;
    bool hit = mode == DISK_FAIL || (mode == DISK_ERRORS && errors_hit(c, kind, off, len));
    uint64_t wait = 0;
    if (mode == DISK_SLOW)
        wait = c->latency_us + (c->jitter_us ? draw_below(c->jitter_us + 1) : 0);
    pthread_rwlock_unlock(&D.lock);
    if (hit)
        return -EIO;
    if (mode == DISK_SLOW) { /* outside the lock: a `set` need not wait for sleepers */
        count(&D.slowed);
        sleep_us(wait);
    }
    if (mode == DISK_FULL && allocates && touches_hole(off, len)) {
        count(&D.nospace);
        return -ENOSPC;
    }
    return 0;
}

/* err, counted as a failure of its kind when it is EIO. */
static int answer(int err, enum io_kind kind)
{
    if (err == -EIO)
        count(kind == IO_READ ? &D.failed_reads : kind == IO_WRITE ? &D.failed_writes
                                                                   : &D.failed_syncs);
    return err;
}

/* --- the file -------------------------------------------------------------- */

#define FH_DISK 1 /* fi->fh of the file opened; the directory's is 0 */

/* Whether an operation is on the file: by its path, or, without one
 * (nullpath_ok), by what open put in fi. */
static bool is_disk(const char *path, const struct fuse_file_info *fi)
{
    if (!path)
        return fi && fi->fh == FH_DISK;
    return path[0] == '/' && strcmp(path + 1, D.name) == 0;
}

static int dk_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
    memset(st, 0, sizeof *st);
    if (path ? strcmp(path, "/") == 0 : !is_disk(path, fi)) {
        st->st_mode = S_IFDIR | 0755;
        st->st_nlink = 2;
        return 0;
    }
    if (!is_disk(path, fi))
        return -ENOENT;
    st->st_mode = S_IFREG | 0644;
    st->st_nlink = 1;
    st->st_size = (off_t)D.size;
    st->st_blksize = 4096;
    st->st_blocks = (blkcnt_t)(D.size / 512);
    return 0;
}

static int dk_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
                      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
    (void)off;
    (void)fi;
    (void)flags;
    if (path && strcmp(path, "/") != 0)
        return -ENOENT;
    fill(buf, ".", NULL, 0, 0);
    fill(buf, "..", NULL, 0, 0);
    fill(buf, D.name, NULL, 0, 0);
    return 0;
}

static int dk_open(const char *path, struct fuse_file_info *fi)
{
    if (!is_disk(path, NULL))
        return -ENOENT;
    fi->fh = FH_DISK;
    fi->direct_io = 1;
    fi->keep_cache = 0;
    return 0;
}

/* Reads and writes move the data between /dev/fuse and FILE with splice
 * where the kernel allows (libfuse falls back to copies where not): one
 * copy of the bytes fewer each way than pread/pwrite into a buffer of ours.
 * A read's data is read from FILE by libfuse after this returns: a failure
 * of FILE itself is answered by libfuse (and not in the counts). */
static int dk_read_buf(const char *path, struct fuse_bufvec **bufp, size_t size, off_t off,
                       struct fuse_file_info *fi)
{
    (void)path;
    (void)fi;
    count(&D.reads);
    if ((uint64_t)off >= D.size)
        size = 0;
    else if ((uint64_t)off + size > D.size)
        size = (size_t)(D.size - (uint64_t)off);
    int err = size ? fault_for(IO_READ, (uint64_t)off, size, false) : 0;
    if (err)
        return answer(err, IO_READ);
    struct fuse_bufvec *src = malloc(sizeof *src);
    if (!src)
        return -ENOMEM;
    *src = (struct fuse_bufvec)FUSE_BUFVEC_INIT(size);
    src->buf[0].flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK | FUSE_BUF_FD_RETRY;
    src->buf[0].fd = D.backing;
    src->buf[0].pos = off;
    *bufp = src;
    return 0;
}

static int dk_write_buf(const char *path, struct fuse_bufvec *buf, off_t off,
                        struct fuse_file_info *fi)
{
    (void)path;
    (void)fi;
    count(&D.writes);
    size_t size = fuse_buf_size(buf);
    if ((uint64_t)off + size > D.size)
        return -ENOSPC; /* a disk does not grow */
    int err = fault_for(IO_WRITE, (uint64_t)off, size, true);
    if (err)
        return answer(err, IO_WRITE);
    struct fuse_bufvec dst = FUSE_BUFVEC_INIT(size);
    dst.buf[0].flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK | FUSE_BUF_FD_RETRY;
    dst.buf[0].fd = D.backing;
    dst.buf[0].pos = off;
    ssize_t n = fuse_buf_copy(&dst, buf, 0);
    if (n >= 0 && (size_t)n != size)
        n = -EIO; /* FILE took part of it: a disk does not write half a request */
    return n < 0 ? answer((int)n, IO_WRITE) : (int)n;
}

/* fsync and fdatasync alike: what a disk's cache flush is, FILE's data on
 * its own disk (its metadata is the size, which never changes). */
static int dk_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
    (void)path;
    (void)datasync;
    (void)fi;
    count(&D.syncs);
    int err = fault_for(IO_SYNC, 0, 0, false);
    if (!err && fdatasync(D.backing) != 0)
        err = -errno;
    return answer(err, IO_SYNC);
}

static int dk_fallocate(const char *path, int mode, off_t off, off_t len, struct fuse_file_info *fi)
{
    (void)path;
    (void)fi;
    count(&D.writes);
    if ((uint64_t)off + (uint64_t)len > D.size && !(mode & FALLOC_FL_KEEP_SIZE))
        return -ENOSPC;
    bool allocates = !(mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE));
    int err = fault_for(IO_WRITE, (uint64_t)off, (uint64_t)len, allocates);
    if (!err && fallocate(D.backing, mode, off, len) != 0)
        err = -errno;
    return answer(err, IO_WRITE);
}

static int dk_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
    if (!is_disk(path, fi))
        return -ENOENT;
    return (uint64_t)size == D.size ? 0 : -EPERM; /* O_TRUNC of an open with no change */
}

/* The kernel is asked for 1 MiB writes (libfuse 3.14 then asks for
 * max_pages to match, and reads follow max_pages) and for more requests in
 * flight than its default 12 (the loop device's aio). */
static void *dk_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
    conn->max_write = BIG_REQUEST;
    conn->want |= conn->capable & (FUSE_CAP_SPLICE_READ | FUSE_CAP_SPLICE_WRITE |
                                   FUSE_CAP_SPLICE_MOVE);
    conn->max_background = 64;
    conn->congestion_threshold = 48;
    cfg->direct_io = 1;
    cfg->nullpath_ok = 1; /* read/write/fsync without a path: no lookup, no tree lock */
    cfg->attr_timeout = 3600; /* the one file's attributes never change */
    cfg->entry_timeout = 3600;
    return NULL;
}

static const struct fuse_operations ops = {
    .init = dk_init,
    .getattr = dk_getattr,
    .readdir = dk_readdir,
    .open = dk_open,
    .read_buf = dk_read_buf,
    .write_buf = dk_write_buf,
    .fsync = dk_fsync,
    .fallocate = dk_fallocate,
    .truncate = dk_truncate,
};

/* --- the control socket ---------------------------------------------------- */

/* clear replace: every byte of FILE punched out (or, where punching is not
 * supported, FILE cut to nothing and grown back): reads give zeros. */
static int replace_disk(char *why, size_t n)
{
    if (fallocate(D.backing, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, (off_t)D.size) == 0)
        return 0;
    if (errno == EOPNOTSUPP && ftruncate(D.backing, 0) == 0 &&
        ftruncate(D.backing, (off_t)D.size) == 0)
        return 0;
    snprintf(why, n, "cannot empty %s: %s", D.backing_path, strerror(errno));
    return -1;
}

/* Applies a parsed `set`/`clear`: the parameters first, then the mode, so
 * that an I/O that sees the new mode finds its parameters. */
static int apply(const struct disk_cmd *cmd, char *why, size_t n)
{
    pthread_rwlock_wrlock(&D.lock);
    D.cmd = *cmd;
    if (cmd->mode == DISK_ERRORS) {
        pthread_mutex_lock(&D.draw_mu);
        rng_seed(&D.rng, cmd->seed);
        pthread_mutex_unlock(&D.draw_mu);
    }
    atomic_store_explicit(&D.mode, (int)cmd->mode, memory_order_release);
    pthread_rwlock_unlock(&D.lock);
    if (cmd->mode == DISK_OK && cmd->replace)
        return replace_disk(why, n);
    return 0;
}

/* One command line into its one answer line (with its newline). */
static void handle(char *line, char *out, size_t n)
{
    line[strcspn(line, "\r\n")] = '\0';
    char why[512] = "";
    if (strcmp(line, "status") != 0) {
        struct disk_cmd cmd;
        if (diskctl_parse(line, &cmd, why, sizeof why) != 0 || apply(&cmd, why, sizeof why) != 0) {
            snprintf(out, n, "error %s\n", why);
            fprintf(stderr, "faultline-disk: refused \"%s\": %s\n", line, why);
            return;
        }
        fprintf(stderr, "faultline-disk: %s\n", line);
    }
    char counts[512];
    struct disk_counts c = counts_now();
    if (diskctl_counts_format(&c, counts, sizeof counts) != 0)
        snprintf(counts, sizeof counts, "reads=%llu", (unsigned long long)c.reads);
    snprintf(out, n, "ok %s %s\n", disk_mode_name((enum disk_mode)atomic_load(&D.mode)), counts);
}

/* One connection: one line (up to its newline or the peer's end), one answer. */
static void serve_one(int s)
{
    static char line[DISKCTL_LINE_MAX + 1];
    struct timeval tv = {.tv_sec = PEER_TIMEOUT_S};
    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    size_t len = 0;
    while (len < DISKCTL_LINE_MAX && !memchr(line, '\n', len)) {
        ssize_t r = recv(s, line + len, DISKCTL_LINE_MAX - len, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        len += (size_t)r;
    }
    line[len] = '\0';
    char out[DISKCTL_LINE_MAX + 600];
    if (len == 0)
        return; /* nothing asked (or too late): nothing to answer */
    if (len == DISKCTL_LINE_MAX && !memchr(line, '\n', len))
        snprintf(out, sizeof out, "error a command is one line of at most %d bytes\n",
                 DISKCTL_LINE_MAX);
    else
        handle(line, out, sizeof out);
    size_t m = strlen(out);
    if (send(s, out, m, MSG_NOSIGNAL) != (ssize_t)m)
        fprintf(stderr, "faultline-disk: an answer was not taken: %s\n", strerror(errno));
}

/* One connection at a time: commands are rare, and each is done at once. */
static void *control_loop(void *arg)
{
    int l = (int)(intptr_t)arg;
    for (;;) {
        int s = accept4(l, NULL, NULL, SOCK_CLOEXEC);
        if (s < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            fprintf(stderr, "faultline-disk: the control socket failed: %s\n", strerror(errno));
            return NULL;
        }
        serve_one(s);
        close(s);
    }
}

/* Nothing we put on a host opens a socket in a directory another user can
 * write to (they could swap it for theirs): its owner must be root or us,
 * and neither group nor others may write there. */
static int check_dir(const char *sock, char *why, size_t n)
{
    char copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", sock);
    const char *dir = dirname(copy);
    struct stat st;
    if (stat(dir, &st) != 0) {
        snprintf(why, n, "%s: %s", dir, strerror(errno));
        return -1;
    }
    if (st.st_uid != 0 && st.st_uid != geteuid()) {
        snprintf(why, n, "%s belongs to uid %u, neither root nor us", dir, (unsigned)st.st_uid);
        return -1;
    }
    if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        snprintf(why, n, "%s is writable by others (mode %03o): put SOCK in a private directory",
                 dir, (unsigned)(st.st_mode & 07777));
        return -1;
    }
    return 0;
}

/* SOCK bound (mode 0600 from the start, through the umask) and its thread
 * started.  A socket file left by a layer that is gone is replaced; one a
 * live layer answers on, or a file that is no socket, is not. */
static int control_start(const char *sock, char *why, size_t n)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (strlen(sock) >= sizeof a.sun_path) {
        snprintf(why, n, "the path is longer than %zu bytes", sizeof a.sun_path - 1);
        return -1;
    }
    if (check_dir(sock, why, n) != 0)
        return -1;
    snprintf(a.sun_path, sizeof a.sun_path, "%s", sock);
    int l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (l < 0) {
        snprintf(why, n, "socket: %s", strerror(errno));
        return -1;
    }
    struct stat st;
    if (lstat(sock, &st) == 0) {
        if (!S_ISSOCK(st.st_mode) || connect(l, (struct sockaddr *)&a, sizeof a) == 0) {
            snprintf(why, n, "%s", S_ISSOCK(st.st_mode) ? "a layer already answers there"
                                                        : "a file that is no socket is there");
            close(l);
            return -1;
        }
        close(l); /* a failed connect leaves the socket unusable for bind */
        unlink(sock);
        l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    }
    mode_t old = umask(0177);
    int rc = l < 0 ? -1 : bind(l, (struct sockaddr *)&a, sizeof a);
    umask(old);
    /* The thread takes no signal: SIGTERM must reach the FUSE loop's thread
     * (libfuse's own threads block them all), or the loop would not end. */
    sigset_t all, was;
    sigfillset(&all);
    pthread_t t;
    if (rc == 0 && listen(l, 8) == 0) {
        pthread_sigmask(SIG_BLOCK, &all, &was);
        rc = errno = pthread_create(&t, NULL, control_loop, (void *)(intptr_t)l);
        pthread_sigmask(SIG_SETMASK, &was, NULL);
    } else {
        rc = -1;
    }
    if (rc != 0) {
        snprintf(why, n, "%s", strerror(errno));
        if (l >= 0)
            close(l);
        return -1;
    }
    pthread_detach(t);
    return 0;
}

/* --- the program ------------------------------------------------------------ */

/* The usage on to; 0, or 2 when why says what was wrong. */
static int usage(FILE *to, const char *why)
{
    if (why)
        fprintf(to, "faultline-disk: %s\n", why);
    fprintf(to,
            "usage: faultline-disk --backing FILE --mount DIR --control SOCK [--name NAME]\n"
            "                      [--pidfile F]\n"
            "       faultline-disk --ask SOCK LINE\n"
            "Exposes DIR/NAME (default disk), as large as FILE, read and written through to\n"
            "FILE, and fails it as SOCK is told (lib/diskctl.h: set fail | set errors\n"
            "on=read|write|both [percent=P] [seed=S] [ranges=O+L,...] | set slow latency_us=N\n"
            "[jitter_us=J] | set full | clear [replace] | status).  It stays in the\n"
            "foreground; SIGTERM or SIGINT unmounts DIR, removes SOCK and exits 0.\n"
            "SOCK's directory must be writable by its owner alone (root or this user).\n"
            "--ask SOCK LINE asks a running layer LINE and prints its answer (exit 0: ok).\n");
    return why ? 2 : 0;
}

/* --ask: one line to a running layer, its answer printed. */
static int ask(const char *sock, const char *line)
{
    enum disk_mode mode;
    struct disk_counts c;
    char why[1024], counts[512];
    if (diskctl_ask(sock, line, &mode, &c, ASK_TIMEOUT_MS, why, sizeof why) != 0) {
        printf("error %s\n", why);
        return 1;
    }
    if (diskctl_counts_format(&c, counts, sizeof counts) != 0)
        counts[0] = '\0';
    printf("ok %s %s\n", disk_mode_name(mode), counts);
    return 0;
}

static int write_pidfile(const char *pidfile)
{
    int pfd = open(pidfile, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    FILE *f = pfd >= 0 ? fdopen(pfd, "w") : NULL;
    if (!f || fprintf(f, "%ld\n", (long)getpid()) < 0 || fclose(f) != 0) {
        fprintf(stderr, "faultline-disk: cannot write %s: %s\n", pidfile, strerror(errno));
        return -1;
    }
    return 0;
}

/* Mounted on mount, served until a signal, unmounted.  0: ended by a signal. */
static int serve(const char *prog, const char *mount)
{
    char *fargv[] = {(char *)prog, "-o", "fsname=faultline-disk,subtype=faultline-disk", NULL};
    struct fuse_args args = FUSE_ARGS_INIT(3, fargv);
    struct fuse *f = fuse_new(&args, &ops, sizeof ops, NULL);
    if (!f) {
        fprintf(stderr, "faultline-disk: libfuse refused its options\n");
        return 1;
    }
    int rc = 1;
    if (fuse_mount(f, mount) != 0) {
        fprintf(stderr, "faultline-disk: cannot mount on %s (libfuse says why above)\n", mount);
    } else {
        if (fuse_set_signal_handlers(fuse_get_session(f)) != 0) {
            fprintf(stderr, "faultline-disk: cannot take SIGTERM and SIGINT\n");
        } else {
            /* clone_fd: each thread reads its own /dev/fuse descriptor */
            int res = fuse_loop_mt(f, 1);
            /* libfuse 3.14 tells a loop ended by a signal by its number */
            rc = res == 0 || res == SIGTERM || res == SIGINT || res == SIGHUP ? 0 : 1;
            if (rc)
                fprintf(stderr, "faultline-disk: the FUSE loop failed (%d)\n", res);
            fuse_remove_signal_handlers(fuse_get_session(f));
        }
        fuse_unmount(f);
    }
    fuse_destroy(f);
    return rc;
}

int main(int argc, char **argv)
{
    const char *mount = NULL, *pidfile = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
            return usage(stdout, NULL);
        if (strcmp(a, "--ask") == 0)
            return i + 3 == argc ? ask(argv[i + 1], argv[i + 2])
                                 : usage(stderr, "--ask takes SOCK and LINE, and nothing else");
        if (!v)
            return usage(stderr, "an option without its value");
        i++;
        if (strcmp(a, "--backing") == 0)
            D.backing_path = v;
        else if (strcmp(a, "--mount") == 0)
            mount = v;
        else if (strcmp(a, "--control") == 0)
            D.control_path = v;
        else if (strcmp(a, "--name") == 0 && strlen(v) < sizeof D.name && v[0] && !strchr(v, '/'))
            snprintf(D.name, sizeof D.name, "%s", v);
        else if (strcmp(a, "--pidfile") == 0)
            pidfile = v;
        else if (strcmp(a, "--name") == 0)
            return usage(stderr, "--name: a file name (no /, at most 63 bytes)");
        else {
            fprintf(stderr, "faultline-disk: unknown option %s\n", a);
            return usage(stderr, NULL) + 2;
        }
    }
    if (!D.backing_path || !mount || !D.control_path)
        return usage(stderr, "--backing, --mount and --control are needed");
    D.backing = open(D.backing_path, O_RDWR | O_CLOEXEC);
    struct stat st;
    if (D.backing < 0 || fstat(D.backing, &st) != 0) {
        fprintf(stderr, "faultline-disk: cannot open %s: %s\n", D.backing_path, strerror(errno));
        return 1;
    }
    if (!S_ISREG(st.st_mode)) {
        fprintf(stderr, "faultline-disk: %s is not a regular file\n", D.backing_path);
        return 1;
    }
    D.size = (uint64_t)st.st_size;
    char why[1024];
    if (control_start(D.control_path, why, sizeof why) != 0) {
        fprintf(stderr, "faultline-disk: cannot listen on %s: %s\n", D.control_path, why);
        return 1;
    }
    int rc = pidfile && write_pidfile(pidfile) != 0 ? 1 : serve(argv[0], mount);
    unlink(D.control_path);
    return rc;
}
