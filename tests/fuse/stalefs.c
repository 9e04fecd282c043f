/* stalefs — a FUSE passthrough of a backing directory that can play a client whose cache serves
 * stale data.
 *
 * faultline's cross-client read checks must catch a client that keeps answering from its own
 * cache after another client changed the file (an NFS client with close-to-open caching broken,
 * a cache that is never revalidated).  Real clients only do that under rare races, so the tests
 * need one that does it every time:
 *
 *   stalefs [--stale] [--page SIZE] BACKING_DIR MOUNTPOINT [-f] [-o fuse-options]
 *
 * Without --stale it is a plain, coherent passthrough of BACKING_DIR.  With --stale the daemon
 * caches file contents per (backing file, page index): once a page has been read, reads of it are
 * answered from memory and never go back to the backing file, so what other clients write there
 * is not seen.  What this mount writes itself updates the cache, so it reads its own writes back.
 * SIGUSR1 drops the whole cache.
 *
 * Every file is opened with direct_io, so the kernel's page cache never answers a read in place
 * of the daemon; O_DIRECT reads of the client are served from the daemon's cache all the same.
 *
 * Limits.  Only regular files and directories (no symlinks, device nodes, xattrs, locks, chown).
 * MAP_SHARED mmap fails with ENODEV (direct_io, and libfuse 3.14 cannot ask the kernel to allow
 * it); MAP_PRIVATE goes through the kernel's page cache, filled from the daemon, so it is as
 * stale.  A file unlinked while open can be read and written but not stat'ed (hard_remove).  The
 * page at end of file is cached as short as it was: a read that reaches it stops there even when
 * another client made the file longer.  Past 256 MiB of cached pages, pages not cached yet are
 * read through.
 */
#define FUSE_USE_VERSION 31

#include <fuse.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define CACHE_LIMIT ((size_t)256 << 20)
#define PAGE_MIN 512
#define PAGE_MAX ((size_t)1 << 20)
#define FILE_BUCKETS 4096

static int backing_fd = -1;
static bool stale;
static size_t page_size = 4096;

/* ---- the cache ---------------------------------------------------------------------------- */

/* A backing file as the cache knows it.  The birth time tells a file from an earlier one that had
 * the same inode number: serving a deleted file's pages for its successor would be another fault
 * than the one this file system is meant to show. */
struct key {
    uint64_t dev, ino;
    int64_t btime_sec;
    uint32_t btime_nsec;
};

struct page {
    struct page *hnext;         /* hash chain */
    struct page *fprev, *fnext; /* the pages of the same file */
    struct file *file;
    uint64_t idx;
    size_t len; /* bytes held; fewer than page_size only for the page at end of file */
    unsigned char data[];
};

struct file {
    struct file *hnext;
    struct key key;
    struct page *pages;
    /* The one cached page that ends short of page_size.  It marks end of file, so it must go
     * when this mount makes the file longer; keeping at most one per file makes that cheap. */
    struct page *tail;
};

static struct {
    pthread_mutex_t lock;
    struct file *files[FILE_BUCKETS];
    struct page **pages;
    size_t npage_buckets;
    size_t bytes;
    /* Bumped by every change this mount makes to a backing file, and by dropping the cache: a
     * page read from the backing file while the number moved may predate that and is not
     * cached. */
    uint64_t gen;
    bool told_full;
} cache = {.lock = PTHREAD_MUTEX_INITIALIZER};

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

static bool key_eq(const struct key *a, const struct key *b)
{
    return a->dev == b->dev && a->ino == b->ino && a->btime_sec == b->btime_sec &&
           a->btime_nsec == b->btime_nsec;
}

static int stat_key(int dirfd, const char *path, int flags, struct statx *stx, struct key *k)
{
    if (statx(dirfd, path, flags, STATX_TYPE | STATX_INO | STATX_NLINK | STATX_BTIME, stx) != 0)
        return -1;
    *k = (struct key){.dev = makedev(stx->stx_dev_major, stx->stx_dev_minor), .ino = stx->stx_ino};
    if (stx->stx_mask & STATX_BTIME) {
        k->btime_sec = stx->stx_btime.tv_sec;
        k->btime_nsec = stx->stx_btime.tv_nsec;
    }
    return 0;
}

static int fd_key(int fd, struct key *k)
{
    struct statx stx;
    return stat_key(fd, "", AT_EMPTY_PATH, &stx, k);
}

static struct file **file_bucket(const struct key *k)
{
    uint64_t h = mix(k->dev ^ mix(k->ino ^ mix((uint64_t)k->btime_sec ^ k->btime_nsec)));
    return &cache.files[h & (FILE_BUCKETS - 1)];
}

static struct page **page_bucket(const struct file *f, uint64_t idx)
{
    return &cache.pages[mix((uintptr_t)f ^ mix(idx)) & (cache.npage_buckets - 1)];
}

static struct file *file_find(const struct key *k, bool create)
{
    struct file **b = file_bucket(k);
    for (struct file *f = *b; f; f = f->hnext)
        if (key_eq(&f->key, k))
            return f;
    struct file *f = create ? calloc(1, sizeof *f) : NULL;
    if (f) {
        f->key = *k;
        f->hnext = *b;
        *b = f;
    }
    return f;
}

/* A file without pages is forgotten, so that files come and go without the table growing. */
static void file_release_if_empty(struct file *f)
{
    if (f->pages)
        return;
    struct file **b = file_bucket(&f->key);
    while (*b != f)
        b = &(*b)->hnext;
    *b = f->hnext;
    free(f);
}

static struct page *page_find(const struct file *f, uint64_t idx)
{
    for (struct page *p = *page_bucket(f, idx); p; p = p->hnext)
        if (p->file == f && p->idx == idx)
            return p;
    return NULL;
}

static void page_drop(struct page *p)
{
    struct file *f = p->file;
    struct page **b = page_bucket(f, p->idx);
    while (*b != p)
        b = &(*b)->hnext;
    *b = p->hnext;
    if (p->fprev)
        p->fprev->fnext = p->fnext;
    else
        f->pages = p->fnext;
    if (p->fnext)
        p->fnext->fprev = p->fprev;
    if (f->tail == p)
        f->tail = NULL;
    cache.bytes -= page_size;
    free(p);
}

static void page_insert(struct file *f, struct page *p)
{
    if (p->len < page_size && f->tail)
        page_drop(f->tail); /* two ends of file: the older one is the wrong one */
    p->file = f;
    struct page **b = page_bucket(f, p->idx);
    p->hnext = *b;
    *b = p;
    p->fprev = NULL;
    p->fnext = f->pages;
    if (f->pages)
        f->pages->fprev = p;
    f->pages = p;
    if (p->len < page_size)
        f->tail = p;
    cache.bytes += page_size;
}

static size_t file_drop(struct file *f)
{
    size_t n = 0;
    for (; f->pages; n++)
        page_drop(f->pages);
    file_release_if_empty(f);
    return n;
}

static size_t cache_drop_all_locked(void)
{
    size_t n = 0;
    cache.gen++;
    for (size_t i = 0; i < FILE_BUCKETS; i++)
        while (cache.files[i])
            n += file_drop(cache.files[i]);
    cache.told_full = false;
    return n;
}

static bool cache_has_room_locked(void)
{
    if (cache.bytes + page_size <= CACHE_LIMIT)
        return true;
    if (!cache.told_full)
        fprintf(stderr, "stalefs: cache full (%zu MiB): pages not cached yet are read through\n",
                CACHE_LIMIT >> 20);
    cache.told_full = true;
    return false;
}

/* Up to len bytes from offset in of a cached page; fewer at end of file. */
static size_t page_copy(const struct page *p, size_t in, char *buf, size_t len)
{
    size_t n = p->len > in ? p->len - in : 0;
    n = n < len ? n : len;
    memcpy(buf, p->data + in, n);
    return n;
}

/* pread until len bytes or end of file: a page must be whole or end where the file ends. */
static ssize_t pread_all(int fd, void *buf, size_t len, uint64_t off)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        if (n == 0)
            break;
        done += (size_t)n;
    }
    return (ssize_t)done;
}

/* Reads len bytes at pos, all inside one page, through the cache; returns the bytes read (fewer
 * than len at end of file) or -errno. */
static ssize_t read_page(int fd, const struct key *k, char *buf, size_t len, uint64_t pos)
{
    uint64_t idx = pos / page_size;
    size_t in = pos % page_size;
    pthread_mutex_lock(&cache.lock);
    struct file *f = file_find(k, false);
    struct page *p = f ? page_find(f, idx) : NULL;
    if (p) {
        size_t n = page_copy(p, in, buf, len);
        pthread_mutex_unlock(&cache.lock);
        return (ssize_t)n;
    }
    uint64_t gen = cache.gen;
    bool room = cache_has_room_locked();
    pthread_mutex_unlock(&cache.lock);

    /* The backing file is read without the lock held: a slow read must not stall the hits. */
    p = room ? malloc(sizeof *p + page_size) : NULL;
    if (!p)
        return pread_all(fd, buf, len, pos);
    ssize_t got = pread_all(fd, p->data, page_size, idx * page_size);
    if (got < 0) {
        free(p);
        return got;
    }
    p->idx = idx;
    p->len = (size_t)got;
    size_t n = page_copy(p, in, buf, len);

    pthread_mutex_lock(&cache.lock);
    if (got > 0 && cache.gen == gen && cache_has_room_locked() && (f = file_find(k, true)) &&
        !page_find(f, idx)) {
        page_insert(f, p);
        p = NULL;
    }
    pthread_mutex_unlock(&cache.lock);
    free(p);
    return (ssize_t)n;
}

static int stale_read(int fd, char *buf, size_t size, off_t off)
{
    struct key k;
    if (fd_key(fd, &k) != 0)
        return -errno;
    size_t done = 0;
    while (done < size) {
        uint64_t pos = (uint64_t)off + done;
        size_t len = page_size - pos % page_size;
        len = len < size - done ? len : size - done;
        ssize_t n = read_page(fd, &k, buf + done, len, pos);
        if (n < 0)
            return done ? (int)done : (int)n;
        done += (size_t)n;
        if ((size_t)n < len)
            break; /* end of file */
    }
    return (int)done;
}

/* Puts this mount's own write of [off, end) into the cached page idx, if it is cached. */
static void page_patch(struct file *f, uint64_t idx, const char *buf, uint64_t off, uint64_t end)
{
    struct page *p = page_find(f, idx);
    if (!p)
        return;
    uint64_t start = idx * page_size;
    size_t a = (size_t)((off > start ? off : start) - start);
    size_t b = (size_t)((end < start + page_size ? end : start + page_size) - start);
    if (a > p->len) {
        page_drop(p); /* the gap before the write is not known here */
        return;
    }
    memcpy(p->data + a, buf + (start + a - off), b - a);
    if (b > p->len)
        p->len = b;
    if (p->len == page_size && f->tail == p)
        f->tail = NULL;
}

/* The file now reaches at least end: a cached end of file before that is no longer one. */
static void file_grew(struct file *f, uint64_t end)
{
    if (f->tail && f->tail->idx * page_size + f->tail->len < end)
        page_drop(f->tail);
}

/* Runs fn on the cached file behind fd with the lock held and the generation bumped; drops
 * everything when the file cannot be told, as keeping a page that may be wrong is not an option
 * for this mount's own writes. */
static void cache_change(int fd, void (*fn)(struct file *, const void *), const void *arg)
{
    struct key k;
    bool known = fd_key(fd, &k) == 0;
    pthread_mutex_lock(&cache.lock);
    cache.gen++;
    struct file *f;
    if (!known)
        cache_drop_all_locked();
    else if ((f = file_find(&k, false))) {
        fn(f, arg);
        file_release_if_empty(f);
    }
    pthread_mutex_unlock(&cache.lock);
}

struct write_arg {
    const char *buf;
    uint64_t off, end;
    bool append;
};

static void wrote(struct file *f, const void *arg)
{
    const struct write_arg *w = arg;
    if (w->append) {
        /* O_APPEND put the data at the backing file's end, wherever that is now */
        while (f->pages)
            page_drop(f->pages);
        return;
    }
    for (uint64_t idx = w->off / page_size; idx * page_size < w->end; idx++)
        page_patch(f, idx, w->buf, w->off, w->end);
    file_grew(f, w->end);
}

static void truncated(struct file *f, const void *arg)
{
    uint64_t size = *(const uint64_t *)arg;
    /* Only whole pages inside the new size stay; the others change length or vanish. */
    for (struct page *p = f->pages, *next; p; p = next) {
        next = p->fnext;
        if (p->len < page_size || (p->idx + 1) * page_size > size)
            page_drop(p);
    }
}

static void grew(struct file *f, const void *arg)
{
    file_grew(f, *(const uint64_t *)arg);
}

/* Patches land in the order of the writes to the backing file as long as the kernel sends a
 * file's writes one at a time, which it does for direct_io files unless the daemon asks for
 * parallel direct writes (this one does not). */
static void cache_wrote(int fd, const char *buf, size_t len, off_t off)
{
    int fl = fcntl(fd, F_GETFL);
    struct write_arg w = {buf, (uint64_t)off, (uint64_t)off + len, fl < 0 || (fl & O_APPEND)};
    cache_change(fd, wrote, &w);
}

static void cache_truncated(int fd, off_t size)
{
    uint64_t s = (uint64_t)size;
    cache_change(fd, truncated, &s);
}

static void cache_grew(int fd, off_t end)
{
    uint64_t e = (uint64_t)end;
    cache_change(fd, grew, &e);
}

static void cache_forget(const struct key *k)
{
    pthread_mutex_lock(&cache.lock);
    struct file *f = file_find(k, false);
    if (f)
        file_drop(f);
    pthread_mutex_unlock(&cache.lock);
}

/* ---- SIGUSR1 ------------------------------------------------------------------------------ */

/* A thread of its own waits for the signal, so that dropping the cache can take the lock (a
 * handler could not) and the log line appears only once it is done: a test waits for it. */
static pthread_t signal_thread;
static bool signal_thread_running;

static void *signal_loop(void *unused)
{
    (void)unused;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    /* cancelled only while waiting, never while holding the cache lock or stderr */
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
    for (;;) {
        int sig;
        pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
        int err = sigwait(&set, &sig);
        pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
        if (err != 0)
            continue;
        if (!stale) {
            fprintf(stderr, "stalefs: SIGUSR1: no cache to drop (mounted without --stale)\n");
            continue;
        }
        pthread_mutex_lock(&cache.lock);
        size_t n = cache_drop_all_locked();
        pthread_mutex_unlock(&cache.lock);
        fprintf(stderr, "stalefs: SIGUSR1: cache dropped (%zu pages)\n", n);
    }
    return NULL;
}

static void signal_thread_start(void)
{
    int err = pthread_create(&signal_thread, NULL, signal_loop, NULL);
    if (err != 0)
        fprintf(stderr, "stalefs: cannot start the SIGUSR1 thread (%s): SIGUSR1 does nothing\n",
                strerror(err));
    signal_thread_running = err == 0;
}

static void signal_thread_stop(void)
{
    if (!signal_thread_running)
        return;
    pthread_cancel(signal_thread);
    pthread_join(signal_thread, NULL);
    signal_thread_running = false;
}

/* ---- file system operations --------------------------------------------------------------- */

/* libfuse passes paths from the mount's root; *at() calls on the backing directory want them
 * relative, which also keeps the daemon independent of its working directory. */
static const char *rel(const char *path)
{
    while (*path == '/')
        path++;
    return *path ? path : ".";
}

static int status(int r)
{
    return r == 0 ? 0 : -errno;
}

static void *sf_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
    (void)conn;
    cfg->use_ino = 1;
    /* All I/O goes through fi->fh, so an unlinked open file needs no hidden name; such a name
     * would show in the backing directory, that is to every other client. */
    cfg->nullpath_ok = 1;
    cfg->hard_remove = 1;
    signal_thread_start();
    return NULL;
}

static void sf_destroy(void *private_data)
{
    (void)private_data;
    signal_thread_stop();
    pthread_mutex_lock(&cache.lock);
    cache_drop_all_locked();
    pthread_mutex_unlock(&cache.lock);
}

static int sf_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
    if (fi)
        return status(fstat((int)fi->fh, st));
    return status(fstatat(backing_fd, rel(path), st, AT_SYMLINK_NOFOLLOW));
}

static int sf_access(const char *path, int mask)
{
    return status(faccessat(backing_fd, rel(path), mask, 0));
}

static int sf_opendir(const char *path, struct fuse_file_info *fi)
{
    int fd = openat(backing_fd, rel(path), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    DIR *d = fdopendir(fd);
    if (!d) {
        int err = errno;
        close(fd);
        return -err;
    }
    fi->fh = (uint64_t)(uintptr_t)d;
    return 0;
}

static int sf_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
                      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
    (void)path; /* NULL: nullpath_ok */
    (void)off;
    (void)flags;
    DIR *d = (DIR *)(uintptr_t)fi->fh;
    /* Offset 0 for every entry: libfuse takes the whole listing at once and pages it to the
     * kernel, and asks again from the start only when the client rewinds. */
    rewinddir(d);
    struct dirent *de;
    errno = 0;
    while ((de = readdir(d)) != NULL) {
        struct stat st = {.st_ino = de->d_ino, .st_mode = (mode_t)DTTOIF(de->d_type)};
        if (fill(buf, de->d_name, &st, 0, 0) != 0)
            return 0; /* libfuse is out of memory and says so itself */
        errno = 0;
    }
    return -errno; /* 0 at the end of the directory, else why readdir failed */
}

static int sf_releasedir(const char *path, struct fuse_file_info *fi)
{
    (void)path;
    closedir((DIR *)(uintptr_t)fi->fh);
    return 0;
}

static int sf_mkdir(const char *path, mode_t mode)
{
    return status(mkdirat(backing_fd, rel(path), mode));
}

static int sf_rmdir(const char *path)
{
    return status(unlinkat(backing_fd, rel(path), AT_REMOVEDIR));
}

/* Whether removing the name path removes the regular file behind it, whose pages then go. */
static bool last_link(const char *path, struct key *k)
{
    struct statx stx;
    return stale && stat_key(backing_fd, rel(path), AT_SYMLINK_NOFOLLOW, &stx, k) == 0 &&
           S_ISREG(stx.stx_mode) && stx.stx_nlink <= 1;
}

static int sf_unlink(const char *path)
{
    struct key k;
    bool last = last_link(path, &k);
    if (unlinkat(backing_fd, rel(path), 0) != 0)
        return -errno;
    if (last)
        cache_forget(&k);
    return 0;
}

static int sf_rename(const char *from, const char *to, unsigned int flags)
{
    struct key k;
    bool last = !(flags & RENAME_EXCHANGE) && last_link(to, &k);
    if (renameat2(backing_fd, rel(from), backing_fd, rel(to), flags) != 0)
        return -errno;
    if (last)
        cache_forget(&k);
    return 0;
}

static int open_backing(const char *path, int flags, mode_t mode, struct fuse_file_info *fi)
{
    /* O_DIRECT is the client's affair: direct_io already keeps the kernel's page cache out, and
     * the buffers libfuse and the cache hand to pread/pwrite are not aligned for it. */
    int fd = openat(backing_fd, rel(path), (flags & ~O_DIRECT) | O_CLOEXEC, mode);
    if (fd < 0)
        return -errno;
    if (stale && (flags & O_TRUNC))
        cache_truncated(fd, 0);
    fi->fh = (uint64_t)fd;
    fi->direct_io = 1;
    return 0;
}

static int sf_open(const char *path, struct fuse_file_info *fi)
{
    return open_backing(path, fi->flags, 0, fi);
}

static int sf_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
    return open_backing(path, fi->flags | O_CREAT, mode, fi);
}

static int sf_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
    (void)path;
    if (stale)
        return stale_read((int)fi->fh, buf, size, off);
    ssize_t n = pread((int)fi->fh, buf, size, off);
    return n < 0 ? -errno : (int)n;
}

static int sf_write(const char *path, const char *buf, size_t size, off_t off,
                    struct fuse_file_info *fi)
{
    (void)path;
    ssize_t n = pwrite((int)fi->fh, buf, size, off);
    if (n < 0)
        return -errno;
    if (stale && n > 0)
        cache_wrote((int)fi->fh, buf, (size_t)n, off);
    return (int)n;
}

static int sf_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
    int fd = fi ? (int)fi->fh : openat(backing_fd, rel(path), O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int err = status(ftruncate(fd, size));
    if (err == 0 && stale)
        cache_truncated(fd, size);
    if (!fi)
        close(fd);
    return err;
}

static int sf_fallocate(const char *path, int mode, off_t off, off_t len, struct fuse_file_info *fi)
{
    (void)path;
    if (mode != 0)
        return -EOPNOTSUPP; /* punching holes or zeroing would need the cache to follow */
    if (!fi)
        return -EBADF;
    if (fallocate((int)fi->fh, 0, off, len) != 0)
        return -errno;
    if (stale)
        cache_grew((int)fi->fh, off + len);
    return 0;
}

static int sf_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
    (void)path;
    return status(datasync ? fdatasync((int)fi->fh) : fsync((int)fi->fh));
}

static int sf_flush(const char *path, struct fuse_file_info *fi)
{
    (void)path;
    /* A close(2) of the client: closing a duplicate reports what the backing file system only
     * reports at close (NFS does), and keeps the descriptor for the writes still to come. */
    int fd = dup((int)fi->fh);
    if (fd < 0)
        return -errno;
    return status(close(fd));
}

static int sf_release(const char *path, struct fuse_file_info *fi)
{
    (void)path;
    close((int)fi->fh); /* the cache outlives the descriptor: it is keyed by the backing file */
    return 0;
}

static int sf_statfs(const char *path, struct statvfs *st)
{
    (void)path;
    return status(fstatvfs(backing_fd, st));
}

static int sf_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
    if (fi)
        return status(futimens((int)fi->fh, tv));
    return status(utimensat(backing_fd, rel(path), tv, AT_SYMLINK_NOFOLLOW));
}

static int sf_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
    if (fi)
        return status(fchmod((int)fi->fh, mode));
    return status(fchmodat(backing_fd, rel(path), mode, 0));
}

static const struct fuse_operations ops = {
    .init = sf_init,
    .destroy = sf_destroy,
    .getattr = sf_getattr,
    .access = sf_access,
    .opendir = sf_opendir,
    .readdir = sf_readdir,
    .releasedir = sf_releasedir,
    .mkdir = sf_mkdir,
    .rmdir = sf_rmdir,
    .unlink = sf_unlink,
    .rename = sf_rename,
    .create = sf_create,
    .open = sf_open,
    .read = sf_read,
    .write = sf_write,
    .truncate = sf_truncate,
    .fallocate = sf_fallocate,
    .fsync = sf_fsync,
    .flush = sf_flush,
    .release = sf_release,
    .statfs = sf_statfs,
    .utimens = sf_utimens,
    .chmod = sf_chmod,
};

/* ---- command line ------------------------------------------------------------------------- */

struct options {
    int stale;
    char *page;
    char *backing;
    bool help;
};

enum { KEY_HELP };

static const struct fuse_opt option_spec[] = {
    {"--stale", offsetof(struct options, stale), 1},
    {"--page %s", offsetof(struct options, page), 0},
    FUSE_OPT_KEY("-h", KEY_HELP),
    FUSE_OPT_KEY("--help", KEY_HELP),
    FUSE_OPT_END,
};

static void usage(FILE *to)
{
    fprintf(to,
            "usage: stalefs [--stale] [--page SIZE] BACKING_DIR MOUNTPOINT [-f] "
            "[-o fuse-options]\n"
            "  --stale      serve cached pages forever (SIGUSR1 drops the cache)\n"
            "  --page SIZE  cache page size in bytes, %d to %zu (default 4096)\n",
            PAGE_MIN, PAGE_MAX);
}

/* The first argument that is not an option is the backing directory; the rest go to libfuse. */
static int option_proc(void *data, const char *arg, int key, struct fuse_args *args)
{
    (void)args;
    struct options *o = data;
    if (key == KEY_HELP) {
        o->help = true;
        return 1; /* libfuse adds its own options to the help */
    }
    if (key == FUSE_OPT_KEY_NONOPT && !o->backing) {
        o->backing = strdup(arg);
        return o->backing ? 0 : -1;
    }
    return 1;
}

static int parse_page(const char *s)
{
    if (*s == '=') /* fuse_opt leaves the '=' of --page=SIZE in front */
        s++;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || *s == '-' || v < PAGE_MIN || v > PAGE_MAX) {
        fprintf(stderr, "stalefs: bad --page '%s': want a number of bytes from %d to %zu\n", s,
                PAGE_MIN, PAGE_MAX);
        return -1;
    }
    page_size = (size_t)v;
    return 0;
}

static int cache_init(void)
{
    size_t want = CACHE_LIMIT / page_size / 2; /* two pages a bucket when full */
    cache.npage_buckets = 1024;
    while (cache.npage_buckets < want)
        cache.npage_buckets *= 2;
    cache.pages = calloc(cache.npage_buckets, sizeof *cache.pages);
    if (!cache.pages) {
        fprintf(stderr, "stalefs: cannot allocate the page table (%zu buckets): %s\n",
                cache.npage_buckets, strerror(errno));
        return -1;
    }
    return 0;
}

/* Checks what libfuse does not know about; 0 to mount, 1 to stop with rc. */
static int setup(struct options *o, int *rc)
{
    *rc = 2;
    if (o->help) {
        usage(stdout);
        return 0;
    }
    if (!o->backing) {
        usage(stderr);
        return 1;
    }
    if (o->page && parse_page(o->page) != 0)
        return 1;
    stale = o->stale != 0;
    backing_fd = open(o->backing, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (backing_fd < 0) {
        fprintf(stderr, "stalefs: cannot open backing directory %s: %s\n", o->backing,
                strerror(errno));
        return 1;
    }
    if (stale && cache_init() != 0)
        return 1;
    /* The kernel has applied the client's umask to every mode it sends already. */
    umask(0);
    /* Blocked here, before libfuse starts its threads, so that only the SIGUSR1 thread gets it. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    int err = pthread_sigmask(SIG_BLOCK, &set, NULL);
    if (err != 0) {
        fprintf(stderr, "stalefs: cannot block SIGUSR1: %s\n", strerror(err));
        return 1;
    }
    return 0;
}

int main(int argc, char *argv[])
{
    struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
    struct options o = {0};
    int rc = 2;
    if (fuse_opt_parse(&args, &o, option_spec, option_proc) != 0)
        fprintf(stderr, "stalefs: cannot parse the command line\n");
    else if (setup(&o, &rc) == 0)
        rc = fuse_main(args.argc, args.argv, &ops, NULL);
    fuse_opt_free_args(&args);
    free(o.page);
    free(o.backing);
    free(cache.pages);
    if (backing_fd >= 0)
        close(backing_fd);
    return rc;
}
