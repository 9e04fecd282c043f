/*
 * faultline-wcache — one storage controller's volatile write cache, for the
 * iSCSI lab's `[lab] write_cache = on` (a program of its own: tgtd reads
 * and writes its LUN through it).
 *
 *   faultline-wcache --backing FILE --mount DIR [--name NAME] [--listen SOCK]
 *                    [--peer SOCK] [--flush ignore] [--pidfile F]
 *
 * It exposes one file, DIR/NAME (default `lun`), as large as FILE.  A write
 * is kept in this process's memory and acknowledged at once; a read sees
 * that dirty data over FILE.  fsync or fdatasync of DIR/NAME (what tgtd
 * does for SYNCHRONIZE CACHE) writes the dirty data to FILE and syncs FILE.
 * So, as in an array whose cache has no battery:
 *   - SIGKILL of this process is a power cut of the cache: whatever was not
 *     flushed is gone (the mount is dead until it is mounted again);
 *   - SIGUSR1 drops the unflushed data and goes on serving: the same loss
 *     with the controller still up (for tests that need the file to stay);
 *   - SIGUSR2 prints how much is dirty to stderr.
 *
 * --listen SOCK  where the peer's mirrored writes arrive; there, a message
 *              of type 'C' asks how many pages are not on FILE (the lab
 *              asks before a power cut, to say what the cut cost).
 * --peer SOCK  mirrors each write into the other controller's cache (its
 *              --listen SOCK) before acknowledging it, as dual-controller
 *              arrays do; the peer keeps it as dirty data of its own, so
 *              that a failover to it loses nothing.  A flush here tells the
 *              peer to forget the copies it covered (FILE has them now).
 *              While the peer cannot be reached, writes go through to FILE
 *              (and are synced) before they are acknowledged: a mirrored
 *              cache without its partner must not hold data alone.
 * --flush ignore  acknowledges fsync without writing anything: a
 *              write-back cache that lies about its flushes (the scenario
 *              that must fail).  It still destages on its own schedule, as
 *              write-back caches do: once a second, the pages dirty since
 *              the tick before go to FILE.  So a power cut finds older data
 *              on FILE for some blocks (lost writes) and none for others.
 *
 * The cache works in pages of 4 KiB; a write of part of a page fills the
 * rest from the cache or FILE first.  Every file is opened with direct_io,
 * so the kernel's page cache never keeps a page this process has not seen.
 */
#define FUSE_USE_VERSION 31

#include <fuse.h>

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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096u
#define MSG_WRITE 'W' /* a mirrored page: its index, sequence and data */
#define MSG_FORGET 'F' /* the sender flushed: forget its copies up to a sequence */
#define MSG_COUNT 'C'  /* how many pages are not on FILE: answered as decimal text */

/* A dirty page.  origin: 0 this cache's own write, 1 a copy mirrored from
 * the peer; seq orders the writes of its origin. */
struct page {
    uint64_t index;
    uint64_t seq;
    uint8_t origin;
    bool used;
    unsigned char *data; /* PAGE bytes */
};

struct mirror_msg {
    char type;
    uint64_t index, seq;
    unsigned char data[PAGE];
};

static struct {
    int backing;
    uint64_t size;
    char name[64];
    bool flush_ignore;
    const char *peer_path, *listen_path;
    pthread_mutex_t mu;
    struct page *tab; /* open addressing on index */
    size_t cap, used;
    uint64_t seq;     /* of this cache's own writes */
    int peer;         /* connected socket to the peer's listener, -1 none */
    volatile sig_atomic_t drop, report;
} C = {.backing = -1, .name = "lun", .peer = -1, .mu = PTHREAD_MUTEX_INITIALIZER};

static size_t slot(uint64_t index)
{
    return (size_t)((index * 0x9e3779b97f4a7c15ull) >> 20) & (C.cap - 1);
}

static struct page *find(uint64_t index)
{
    for (size_t i = slot(index);; i = (i + 1) & (C.cap - 1)) {
        if (!C.tab[i].used)
            return NULL;
        if (C.tab[i].index == index)
            return &C.tab[i];
    }
}

/* Puts page p (a copy) into the table, which has room. */
static void place(const struct page *p)
{
    size_t j = slot(p->index);
    while (C.tab[j].used)
        j = (j + 1) & (C.cap - 1);
    C.tab[j] = *p;
    C.used++;
}

/* A new table of cap slots with the pages of the old one that drop() does
 * not say to forget (drop NULL: all of them); the others' data is freed.
 * When memory is short, the old table stays as it was. */
static int retable(size_t cap, bool (*drop)(const struct page *p, uint64_t arg), uint64_t arg)
{
    struct page *tab = calloc(cap, sizeof *tab);
    if (!tab)
        return -ENOMEM;
    struct page *old = C.tab;
    size_t oldcap = C.cap;
    C.tab = tab;
    C.cap = cap;
    C.used = 0;
    for (size_t i = 0; i < oldcap; i++) {
        if (!old[i].used)
            continue;
        if (drop && drop(&old[i], arg))
            free(old[i].data);
        else
            place(&old[i]);
    }
    free(old);
    return 0;
}

static int grow(void)
{
    return retable(C.cap ? C.cap * 2 : 1024, NULL, 0);
}

/* The dirty page of index, created (filled from FILE) when absent. */
static struct page *page_for(uint64_t index, int *err)
{
    struct page *p = find(index);
    if (p)
        return p;
    if ((C.used + 1) * 2 > C.cap && (*err = grow()) != 0)
        return NULL;
    size_t j = slot(index);
    while (C.tab[j].used)
        j = (j + 1) & (C.cap - 1);
    p = &C.tab[j];
    memset(p, 0, sizeof *p);
    p->data = calloc(1, PAGE);
    if (!p->data) {
        *err = -ENOMEM;
        return NULL;
    }
    ssize_t n = pread(C.backing, p->data, PAGE, (off_t)(index * PAGE));
    if (n < 0) {
        *err = -errno;
        free(p->data);
        p->data = NULL;
        return NULL;
    }
    p->index = index;
    p->used = true;
    C.used++;
    return p;
}

/* Rebuilds the table without the pages drop() says to forget (at the
 * same size: what stays fits). */
static int rebuild(bool (*drop)(const struct page *p, uint64_t arg), uint64_t arg)
{
    return retable(C.cap ? C.cap : 1024, drop, arg);
}

static bool every_page(const struct page *p, uint64_t arg)
{
    (void)p;
    (void)arg;
    return true;
}

static bool peer_copy_covered(const struct page *p, uint64_t upto)
{
    return p->origin == 1 && p->seq <= upto;
}

/* Called with C.mu held, by every operation: a signal asked for it. */
static void take_signals(void)
{
    if (C.drop) {
        C.drop = 0;
        size_t n = C.used;
        rebuild(every_page, 0);
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        fprintf(stderr, "faultline-wcache: dropped %zu unflushed pages (SIGUSR1) at %lld.%06ld\n",
                n, (long long)ts.tv_sec, ts.tv_nsec / 1000);
    }
    if (C.report) {
        C.report = 0;
        fprintf(stderr, "faultline-wcache: %zu dirty pages\n", C.used);
    }
}

/* --- the mirror ------------------------------------------------------------ */

static int peer_connect(void)
{
    if (C.peer >= 0 || !C.peer_path)
        return C.peer;
    int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (s < 0)
        return -1;
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", C.peer_path);
    if (connect(s, (struct sockaddr *)&a, sizeof a) != 0) {
        close(s);
        return -1;
    }
    struct timeval tv = {.tv_sec = 2};
    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    C.peer = s;
    return s;
}

/* Sends one message and waits for the peer's one-byte answer.  0, or -1
 * when the peer is gone (the socket is closed then). */
static int peer_send(const struct mirror_msg *m, size_t len)
{
    if (peer_connect() < 0)
        return -1;
    char ack;
    if (send(C.peer, m, len, MSG_NOSIGNAL) != (ssize_t)len || recv(C.peer, &ack, 1, 0) != 1) {
        close(C.peer);
        C.peer = -1;
        return -1;
    }
    return 0;
}

/* A connection from the peer: its mirrored writes and forgets. */
static void *mirror_conn(void *arg)
{
    int s = (int)(intptr_t)arg;
    struct mirror_msg m;
    for (;;) {
        ssize_t n = recv(s, &m, sizeof m, 0);
        if (n <= 0)
            break;
        pthread_mutex_lock(&C.mu);
        int err = 0;
        if (m.type == MSG_WRITE && n == (ssize_t)sizeof m && m.index * PAGE < C.size) {
            struct page *p = page_for(m.index, &err);
            if (p) {
                memcpy(p->data, m.data, PAGE);
                p->origin = 1;
                p->seq = m.seq;
            }
        } else if (m.type == MSG_FORGET) {
            err = rebuild(peer_copy_covered, m.seq);
        } else if (m.type == MSG_COUNT) {
            char text[32];
            int len = snprintf(text, sizeof text, "%zu", C.used);
            pthread_mutex_unlock(&C.mu);
            if (send(s, text, (size_t)len, MSG_NOSIGNAL) != len)
                break;
            continue;
        }
        pthread_mutex_unlock(&C.mu);
        char ack = err ? 'E' : 'A';
        if (send(s, &ack, 1, MSG_NOSIGNAL) != 1)
            break;
    }
    close(s);
    return NULL;
}

static void *mirror_listen(void *arg)
{
    int l = (int)(intptr_t)arg;
    for (;;) {
        int s = accept4(l, NULL, NULL, SOCK_CLOEXEC);
        if (s < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            break;
        }
        pthread_t t;
        if (pthread_create(&t, NULL, mirror_conn, (void *)(intptr_t)s) != 0)
            close(s);
        else
            pthread_detach(t);
    }
    return NULL;
}

/* --- the file ------------------------------------------------------------- */

static bool is_lun(const char *path)
{
    return path[0] == '/' && strcmp(path + 1, C.name) == 0;
}

static int wc_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
    (void)fi;
    memset(st, 0, sizeof *st);
    if (strcmp(path, "/") == 0) {
        st->st_mode = S_IFDIR | 0755;
        st->st_nlink = 2;
        return 0;
    }
    if (!is_lun(path))
        return -ENOENT;
    st->st_mode = S_IFREG | 0644;
    st->st_nlink = 1;
    st->st_size = (off_t)C.size;
    st->st_blksize = PAGE;
    st->st_blocks = (blkcnt_t)(C.size / 512);
    return 0;
}

static int wc_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
                      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
    (void)off;
    (void)fi;
    (void)flags;
    if (strcmp(path, "/") != 0)
        return -ENOENT;
    fill(buf, ".", NULL, 0, 0);
    fill(buf, "..", NULL, 0, 0);
    fill(buf, C.name, NULL, 0, 0);
    return 0;
}

static int wc_open(const char *path, struct fuse_file_info *fi)
{
    if (!is_lun(path))
        return -ENOENT;
    fi->direct_io = 1;
    fi->keep_cache = 0;
    return 0;
}

static int wc_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
    (void)path;
    (void)fi;
    if ((uint64_t)off >= C.size)
        return 0;
    if ((uint64_t)off + size > C.size)
        size = (size_t)(C.size - (uint64_t)off);
    pthread_mutex_lock(&C.mu);
    take_signals();
    size_t done = 0;
    int err = 0;
    while (done < size) {
        uint64_t at = (uint64_t)off + done;
        uint64_t index = at / PAGE;
        size_t in = (size_t)(at % PAGE), n = PAGE - in;
        if (n > size - done)
            n = size - done;
        const struct page *p = find(index);
        if (p) {
            memcpy(buf + done, p->data + in, n);
        } else {
            ssize_t r = pread(C.backing, buf + done, n, (off_t)at);
            if (r < 0) {
                err = -errno;
                break;
            }
            if ((size_t)r < n)
                memset(buf + done + r, 0, n - (size_t)r);
        }
        done += n;
    }
    pthread_mutex_unlock(&C.mu);
    return err ? err : (int)done;
}

/* Writes every dirty page to FILE and syncs it; the peer forgets its copies
 * of ours.  With C.mu held. */
static int flush_all(void)
{
    for (size_t i = 0; i < C.cap; i++) {
        const struct page *p = &C.tab[i];
        if (p->used && pwrite(C.backing, p->data, PAGE, (off_t)(p->index * PAGE)) != PAGE)
            return errno ? -errno : -EIO;
    }
    if (fdatasync(C.backing) != 0)
        return -errno;
    int err = rebuild(every_page, 0);
    if (err)
        return err;
    if (C.peer_path) {
        struct mirror_msg m = {.type = MSG_FORGET, .seq = C.seq};
        peer_send(&m, offsetof(struct mirror_msg, data));
    }
    return 0;
}

static bool own_page_up_to(const struct page *p, uint64_t upto)
{
    return p->origin == 0 && p->seq <= upto;
}

/* --flush ignore: once a second, the pages written before the previous
 * tick go to FILE, never because a flush asked for it. */
static void *destage_loop(void *arg)
{
    (void)arg;
    uint64_t mark = 0;
    for (;;) {
        sleep(1);
        pthread_mutex_lock(&C.mu);
        int err = 0;
        for (size_t i = 0; i < C.cap && !err; i++) {
            const struct page *p = &C.tab[i];
            if (p->used && own_page_up_to(p, mark) &&
                pwrite(C.backing, p->data, PAGE, (off_t)(p->index * PAGE)) != PAGE)
                err = errno ? errno : EIO;
        }
        if (!err && fdatasync(C.backing) != 0)
            err = errno;
        if (!err)
            err = -rebuild(own_page_up_to, mark);
        if (err)
            fprintf(stderr, "faultline-wcache: destaging failed: %s\n", strerror(err));
        mark = C.seq;
        pthread_mutex_unlock(&C.mu);
    }
    return NULL;
}

static int wc_write(const char *path, const char *buf, size_t size, off_t off,
                    struct fuse_file_info *fi)
{
    (void)path;
    (void)fi;
    if ((uint64_t)off + size > C.size)
        return -ENOSPC; /* a LUN does not grow */
    pthread_mutex_lock(&C.mu);
    take_signals();
    /* Mirrored, but the partner is gone: through to FILE, synced. */
    bool through = C.peer_path && peer_connect() < 0;
    size_t done = 0;
    int err = 0;
    while (done < size && !err) {
        uint64_t at = (uint64_t)off + done;
        uint64_t index = at / PAGE;
        size_t in = (size_t)(at % PAGE), n = PAGE - in;
        if (n > size - done)
            n = size - done;
        struct page *p = page_for(index, &err);
        if (!p)
            break;
        memcpy(p->data + in, buf + done, n);
        p->origin = 0;
        p->seq = ++C.seq;
        if (C.peer_path && !through) {
            struct mirror_msg m = {.type = MSG_WRITE, .index = index, .seq = p->seq};
            memcpy(m.data, p->data, PAGE);
            through = peer_send(&m, sizeof m) != 0;
        }
        done += n;
    }
    if (!err && through)
        err = flush_all();
    pthread_mutex_unlock(&C.mu);
    return err ? err : (int)done;
}

static int wc_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
    (void)path;
    (void)datasync;
    (void)fi;
    if (C.flush_ignore)
        return 0; /* the lie: acknowledged, nothing written */
    pthread_mutex_lock(&C.mu);
    take_signals();
    int err = flush_all();
    pthread_mutex_unlock(&C.mu);
    return err;
}

static int wc_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
    (void)fi;
    if (!is_lun(path))
        return -ENOENT;
    return (uint64_t)size == C.size ? 0 : -EPERM; /* O_TRUNC of an open with no change */
}

static void on_signal(int sig)
{
    if (sig == SIGUSR1)
        C.drop = 1;
    else
        C.report = 1;
}

static const struct fuse_operations ops = {
    .getattr = wc_getattr,
    .readdir = wc_readdir,
    .open = wc_open,
    .read = wc_read,
    .write = wc_write,
    .fsync = wc_fsync,
    .truncate = wc_truncate,
};

static int usage(const char *why)
{
    fprintf(stderr, "faultline-wcache: %s\nusage: faultline-wcache --backing FILE --mount DIR "
            "[--name NAME] [--listen SOCK] [--peer SOCK] [--flush ignore] [--pidfile F]\n"
            "(it stays in the foreground; SIGUSR1 drops what is not flushed)\n",
            why);
    return 2;
}

int main(int argc, char **argv)
{
    const char *backing = NULL, *mount = NULL, *pidfile = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            return usage("an option without its value");
        i++;
        if (strcmp(a, "--backing") == 0)
            backing = v;
        else if (strcmp(a, "--mount") == 0)
            mount = v;
        else if (strcmp(a, "--name") == 0)
            snprintf(C.name, sizeof C.name, "%s", v);
        else if (strcmp(a, "--listen") == 0)
            C.listen_path = v;
        else if (strcmp(a, "--peer") == 0)
            C.peer_path = v;
        else if (strcmp(a, "--pidfile") == 0)
            pidfile = v;
        else if (strcmp(a, "--flush") == 0 && strcmp(v, "ignore") == 0)
            C.flush_ignore = true;
        else
            return usage("unknown option");
    }
    if (!backing || !mount)
        return usage("--backing and --mount are needed");
    C.backing = open(backing, O_RDWR | O_CLOEXEC);
    struct stat st;
    if (C.backing < 0 || fstat(C.backing, &st) != 0) {
        fprintf(stderr, "faultline-wcache: cannot open %s: %s\n", backing, strerror(errno));
        return 1;
    }
    C.size = (uint64_t)st.st_size;
    if (grow() != 0) {
        fprintf(stderr, "faultline-wcache: out of memory\n");
        return 1;
    }
    if (C.listen_path) {
        int l = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
        struct sockaddr_un a = {.sun_family = AF_UNIX};
        snprintf(a.sun_path, sizeof a.sun_path, "%s", C.listen_path);
        unlink(C.listen_path);
        pthread_t t;
        if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 4) != 0 ||
            pthread_create(&t, NULL, mirror_listen, (void *)(intptr_t)l) != 0) {
            fprintf(stderr, "faultline-wcache: cannot listen on %s: %s\n", C.listen_path,
                    strerror(errno));
            return 1;
        }
        pthread_detach(t);
    }
    if (C.flush_ignore) {
        pthread_t t;
        if (pthread_create(&t, NULL, destage_loop, NULL) != 0) {
            fprintf(stderr, "faultline-wcache: cannot start destaging\n");
            return 1;
        }
        pthread_detach(t);
    }
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGUSR1, &sa, NULL);
    sigaction(SIGUSR2, &sa, NULL);
    if (pidfile) {
        int pfd = open(pidfile, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
        FILE *f = pfd >= 0 ? fdopen(pfd, "w") : NULL;
        if (!f || fprintf(f, "%ld\n", (long)getpid()) < 0 || fclose(f) != 0) {
            fprintf(stderr, "faultline-wcache: cannot write %s: %s\n", pidfile, strerror(errno));
            return 1;
        }
    }
    /* In the foreground always: whoever started it keeps its PID. */
    char *fargv[] = {argv[0], (char *)mount, "-f", NULL};
    return fuse_main(3, fargv, &ops, NULL);
}
