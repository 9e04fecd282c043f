/*
 * backend_files — a tree of many files on any mounted filesystem (kind =
 * files): a parallel filesystem's FUSE or kernel mount, NFS, or a local
 * directory.
 *
 * The tree (tree.h) lives in PATH/faultline-NAME and numbers the run's
 * blocks across its files, so the engine, state map and verifier see one
 * address space and never know files exist; this file turns a block into
 * (file, offset).  I/O is the sync engine (pread/pwrite, one worker thread
 * per stream): that is how applications drive a parallel filesystem.
 *
 * All workers share one table of file descriptors (pread and pwrite are
 * safe on a shared descriptor), opened on first use.  The tree may hold
 * more files than a process may open; past the limit a file is opened for
 * the one I/O and closed after it (close is also what a small-file
 * application does, and what makes a FUSE client send its cached writes).
 *
 * Flush: fsync of every file this worker wrote since its last flush, so
 * every write that completed before the flush is durable when it returns.
 * Reads drop the pages they read from our page cache first
 * (POSIX_FADV_DONTNEED), so that they ask the filesystem; not on tmpfs,
 * where the page cache is the storage.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/resource.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend_files.h"
#include "../checks/block.h"
#include "../lib/clock.h"
#include "engine.h"
#include "identify.h"
#include "tree.h"

/* One tree shared by the workers of a run.  With several clients (ranks)
 * every rank has a subtree of its own, laid out alike: t is the layout
 * (its root that of rank 0, or the one tree), roots[r] each subtree's. */
struct shared_tree {
    struct tree t;
    unsigned ranks;
    char **roots;
    _Atomic int *fds;       /* per rank and file: descriptor, or -1 when not open (yet) */
    _Atomic unsigned opened;
    unsigned fd_budget;     /* descriptors the table may keep */
    unsigned refs;
};

static pthread_mutex_t shared_mu = PTHREAD_MUTEX_INITIALIZER;
static struct shared_tree *shared;

struct files_priv {
    struct shared_tree *st;
    bool durable;              /* O_DSYNC */
    bool drop_cache;           /* reads drop their pages first (not on tmpfs: the
                                  pages are the storage there) */
    uint32_t *dirty;           /* files written since the last flush */
    size_t ndirty, dirty_cap;
    uint8_t *is_dirty;         /* bitmap over files (of every rank) */
    bool publish;              /* another client reads ours: a flush also closes
                                  (close-to-open) */
    struct io **done;          /* completed, not yet reaped */
    unsigned ndone, cap;
};

static const struct files_cfg *cfg_of(const struct target_cfg *t)
{
    return BACKEND_OPTS(t, const struct files_cfg);
}

/* The tree's root directory, PATH/faultline-NAME. */
static void files_root(const struct target_cfg *t, char *out, size_t n)
{
    if ((size_t)snprintf(out, n, "%s/faultline-%s", t->path, cfg_of(t)->tree_name) >= n)
        out[0] = 0; /* too long: open refuses it */
}

static unsigned ranks_of(const struct target_cfg *t)
{
    return t->ranks > 1 ? t->ranks : 1;
}

/* The root of rank r's subtree: PATH/faultline-NAME/client-R with several
 * clients, the tree's root alone. */
static void rank_root(const struct target_cfg *t, unsigned r, char *out, size_t n)
{
    char root[PATH_MAX + 160];
    files_root(t, root, sizeof root);
    if (ranks_of(t) == 1 || !root[0])
        snprintf(out, n, "%s", root);
    else if ((size_t)snprintf(out, n, "%s/client-%u", root, r) >= n)
        out[0] = 0;
}

/* Each rank's share of the budget. */
static uint64_t rank_budget(const struct target_cfg *t)
{
    return t->size / ranks_of(t);
}

/* How many descriptors the table may hold: raise the soft limit to the
 * hard one and leave room for everything else the run opens. */
static unsigned fd_budget(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 256;
    if (rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
        getrlimit(RLIMIT_NOFILE, &rl);
    }
    return rl.rlim_cur > 2048 ? (unsigned)(rl.rlim_cur - 1024) : 256;
}

/* With several clients the tree's root holds only their subtrees: rank 0
 * makes it, emptying an earlier tree of one client (it carries the marker)
 * and the subtrees of ranks this run does not have. */
static int prepare_parent(const struct target_cfg *t, char *err, size_t n)
{
    char root[PATH_MAX + 160];
    files_root(t, root, sizeof root);
    if (mkdir(root, 0755) != 0 && errno != EEXIST) {
        snprintf(err, n, "cannot create %s: %s", root, strerror(errno));
        return -1;
    }
    char marker[PATH_MAX + 200];
    snprintf(marker, sizeof marker, "%s/%s", root, TREE_MARKER);
    if (access(marker, F_OK) == 0 && tree_empty(root, err, n) != 0)
        return -1;
    for (unsigned r = ranks_of(t);; r++) {
        char sub[PATH_MAX + 200];
        snprintf(sub, sizeof sub, "%s/client-%u", root, r);
        if (access(sub, F_OK) != 0)
            return 0;
        if (tree_empty(sub, err, n) != 0)
            return -1;
        if (rmdir(sub) != 0) {
            snprintf(err, n, "cannot remove %s: %s", sub, strerror(errno));
            return -1;
        }
    }
}

/* The tree's subtrees: made (this client's) or found (every one it uses). */
/* The tree's files being made, passed on as the backend's progress. */
static void tree_progress(void *ctx, uint64_t done, uint64_t total)
{
    const struct backend *be = ctx;
    be->on_progress(be->progress_ctx, "files", done, total);
}

static int subtrees(struct shared_tree *s, const struct target_cfg *t, bool create,
                    const struct backend *be, char *err, size_t n)
{
    unsigned first = t->rank >= 0 ? (unsigned)t->rank : 0;
    unsigned last = t->rank >= 0 ? (unsigned)t->rank : s->ranks - 1;
    if (create && s->ranks > 1 && t->rank == 0 && prepare_parent(t, err, n) != 0)
        return -1;
    for (unsigned r = first; r <= last; r++) {
        snprintf(s->t.root, sizeof s->t.root, "%s", s->roots[r]);
        if (create && tree_create(&s->t, be->on_progress ? tree_progress : NULL, (void *)be, err,
                                  n) != 0)
            return -1;
        if (!create) {
            struct stat st;
            char marker[PATH_MAX + 32];
            snprintf(marker, sizeof marker, "%s/%s", s->roots[r], TREE_MARKER);
            if (stat(marker, &st) != 0) {
                snprintf(err, n, "%s: %s; is the filesystem mounted?", marker, strerror(errno));
                return -1;
            }
        }
    }
    snprintf(s->t.root, sizeof s->t.root, "%s", s->roots[0]);
    return 0;
}

static void free_shared(struct shared_tree *s)
{
    for (unsigned r = 0; s->roots && r < s->ranks; r++)
        free(s->roots[r]);
    free(s->roots);
    free(s->fds);
    tree_free(&s->t);
    free(s);
}

static struct shared_tree *attach(const struct target_cfg *t, bool create,
                                  const struct backend *be, char *err, size_t n)
{
    pthread_mutex_lock(&shared_mu);
    char root[PATH_MAX + 160];
    rank_root(t, 0, root, sizeof root);
    if (!root[0] || strlen(root) >= sizeof shared->t.root) {
        snprintf(err, n, "%s: path too long for the tree", t->path);
        pthread_mutex_unlock(&shared_mu);
        return NULL;
    }
    if (shared && strcmp(shared->t.root, root) == 0) {
        shared->refs++;
        pthread_mutex_unlock(&shared_mu);
        return shared;
    }
    struct shared_tree *s = NULL;
    if (shared) {
        snprintf(err, n, "another file tree (%s) is open in this process", shared->t.root);
        goto out;
    }
    s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, n, "out of memory");
        goto out;
    }
    if (tree_layout(&s->t, (enum tree_class)cfg_of(t)->tree_class, rank_budget(t),
                    cfg_of(t)->block_size, root, err, n) != 0) {
        free(s);
        s = NULL;
        goto out;
    }
    s->ranks = ranks_of(t);
    size_t nfds = s->t.nfiles * s->ranks;
    if (!(s->roots = calloc(s->ranks, sizeof *s->roots)) ||
        !(s->fds = malloc((nfds ? nfds : 1) * sizeof *s->fds))) {
        snprintf(err, n, "out of memory for %zu file descriptors", nfds);
        goto fail;
    }
    for (unsigned r = 0; r < s->ranks; r++) {
        char sub[PATH_MAX + 200];
        rank_root(t, r, sub, sizeof sub);
        if (!(s->roots[r] = strdup(sub))) {
            snprintf(err, n, "out of memory");
            goto fail;
        }
    }
    for (size_t i = 0; i < nfds; i++)
        atomic_init(&s->fds[i], -1);
    /* A new tree is laid out for this run's workers; one found is read as
     * its marker says it was laid out. */
    unsigned workers = cfg_of(t)->workers;
    if (!create && tree_marker_workers(s->roots[t->rank >= 0 ? (unsigned)t->rank : 0],
                                       &workers, err, n) != 0)
        goto fail;
    tree_set_workers(&s->t, workers);
    if (subtrees(s, t, create, be, err, n) != 0)
        goto fail;
    s->fd_budget = fd_budget();
    s->refs = 1;
    shared = s;
    goto out;
fail:
    free_shared(s);
    s = NULL;
out:
    pthread_mutex_unlock(&shared_mu);
    return s;
}

static void detach(struct shared_tree *s)
{
    pthread_mutex_lock(&shared_mu);
    if (--s->refs == 0) {
        for (size_t i = 0; i < s->t.nfiles * s->ranks; i++) {
            int fd = atomic_load(&s->fds[i]);
            if (fd >= 0)
                close(fd);
        }
        free_shared(s);
        shared = NULL;
    }
    pthread_mutex_unlock(&shared_mu);
}

/* Where file i of rank r's subtree is: full path, or relative to the tree. */
static void file_path(const struct shared_tree *s, unsigned r, size_t i, bool full, char *out,
                      size_t n)
{
    char rel[700];
    tree_relpath(&s->t, &s->t.files[i], rel, sizeof rel);
    if (full)
        snprintf(out, n, "%s/%s", s->roots[r], rel);
    else if (s->ranks > 1)
        snprintf(out, n, "client-%u/%s", r, rel);
    else
        snprintf(out, n, "%s", rel);
}

/* Opens without access times: a read of the workload must not make the
 * filesystem write (an inode's atime on every read after a write, on a
 * network filesystem a metadata update at the server).  O_NOATIME is
 * refused (EPERM) on a file of another owner without CAP_FOWNER: then as
 * asked. */
static int open_noatime(const char *path, int flags)
{
    int fd = open(path, flags | O_NOATIME);
    return fd < 0 && errno == EPERM ? open(path, flags) : fd;
}

/* The descriptor of file fi (rank * nfiles + file); *temp when it must be
 * closed after the I/O. */
static int file_fd(struct files_priv *p, size_t fi, bool *temp, char *err, size_t n)
{
    struct shared_tree *s = p->st;
    *temp = false;
    int fd = atomic_load(&s->fds[fi]);
    if (fd >= 0)
        return fd;
    unsigned r = (unsigned)(fi / s->t.nfiles);
    size_t i = fi % s->t.nfiles;
    char path[PATH_MAX + 800];
    file_path(s, r, i, true, path, sizeof path);
    fd = open_noatime(path, O_RDWR | O_CLOEXEC | (p->durable ? O_DSYNC : 0));
    if (fd < 0) {
        int e = errno;
        file_path(s, r, i, false, path, sizeof path);
        snprintf(err, n, "open %.80s: %s", path, strerror(e));
        return -e;
    }
    if (atomic_load(&s->opened) >= s->fd_budget) {
        *temp = true;
        return fd;
    }
    int none = -1;
    if (atomic_compare_exchange_strong(&s->fds[fi], &none, fd)) {
        atomic_fetch_add(&s->opened, 1);
        return fd;
    }
    close(fd); /* another worker opened it first */
    return none;
}

static int mark_dirty(struct files_priv *p, uint32_t f)
{
    if (p->is_dirty[f / 8] & (1u << (f % 8)))
        return 0;
    if (p->ndirty == p->dirty_cap) {
        size_t cap = p->dirty_cap ? p->dirty_cap * 2 : 64;
        uint32_t *d = realloc(p->dirty, cap * sizeof *d);
        if (!d)
            return -ENOMEM;
        p->dirty = d;
        p->dirty_cap = cap;
    }
    p->dirty[p->ndirty++] = f;
    p->is_dirty[f / 8] |= (uint8_t)(1u << (f % 8));
    return 0;
}

/* A failed flush keeps every file it did not sync dirty, the one that
 * failed too: the engine counts none of their writes durable, and the next
 * flush must sync them again before it may. */
static int64_t do_flush(struct files_priv *p, struct io *io)
{
    int64_t res = 0;
    size_t keep = 0;
    for (size_t k = 0; k < p->ndirty; k++) {
        uint32_t f = p->dirty[k];
        if (res < 0) {
            p->dirty[keep++] = f; /* the flush failed already: not tried, stays dirty */
            continue;
        }
        bool temp;
        int fd = file_fd(p, f, &temp, io->err, sizeof io->err);
        if (fd < 0) {
            res = fd;
            p->dirty[keep++] = f;
            continue;
        }
        if (syscall(SYS_fsync, fd) != 0) { /* not glibc's: see do_rw */
            res = -errno;
            char path[800];
            file_path(p->st, f / (uint32_t)p->st->t.nfiles, f % p->st->t.nfiles, false, path,
                      sizeof path);
            snprintf(io->err, sizeof io->err, "fsync %.80s: %s", path, strerror(-(int)res));
        }
        /* Close-to-open: what the owner flushed is published by a close (NFS
         * and FUSE flush on every close, also of a duplicate).  The shared
         * descriptor stays for the other workers. */
        int dup_fd = res == 0 && p->publish && !temp ? dup(fd) : -1;
        if (dup_fd >= 0 && close(dup_fd) != 0)
            res = -errno;
        if (temp && close(fd) != 0 && res == 0)
            res = -errno;
        if (res < 0)
            p->dirty[keep++] = f;
        else
            p->is_dirty[f / 8] &= (uint8_t)~(1u << (f % 8));
    }
    p->ndirty = keep;
    return res;
}

/* A read of a file another client owns: opened anew for it, as an
 * application on another node would, so that close-to-open applies. */
static int cross_fd(struct files_priv *p, size_t fi, char *err, size_t n)
{
    const struct shared_tree *s = p->st;
    char path[PATH_MAX + 800];
    file_path(s, (unsigned)(fi / s->t.nfiles), fi % s->t.nfiles, true, path, sizeof path);
    int fd = open_noatime(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        file_path(s, (unsigned)(fi / s->t.nfiles), fi % s->t.nfiles, false, path, sizeof path);
        snprintf(err, n, "open %.80s: %s", path, strerror(e));
        return -e;
    }
    return fd;
}

static int64_t do_rw(struct files_priv *p, struct io *io)
{
    const struct shared_tree *s = p->st;
    const struct tree *t = &s->t;
    /* Block b lives in rank b % ranks's subtree, as its block b / ranks. */
    uint64_t local = io->block / s->ranks, index;
    const struct tree_file *f = tree_file_of(t, local, &index);
    if (!f)
        return -EINVAL;
    size_t fi = (size_t)(io->block % s->ranks) * t->nfiles + (size_t)(f - t->files);
    uint64_t off = index * t->block_size;
    bool temp = io->cross;
    int fd = io->cross ? cross_fd(p, fi, io->err, sizeof io->err)
                       : file_fd(p, fi, &temp, io->err, sizeof io->err);
    if (fd < 0)
        return fd;
    /* A read asks the filesystem, not our own page cache: on a network
     * filesystem the cache would hide what the servers now hold. */
    if (io->op == IO_READ && p->drop_cache) {
        /* only whole pages are dropped: round out to them */
        uint64_t from = off & ~(uint64_t)4095, to = (off + io->len + 4095) & ~(uint64_t)4095;
        posix_fadvise(fd, (off_t)from, (off_t)(to - from), POSIX_FADV_DONTNEED);
    }
    /* The system calls themselves: glibc's pread and pwrite are cancellation
     * points, and mark the thread cancellable around each call, which costs
     * as much as a small I/O's checksum; no thread of faultline is ever
     * cancelled. */
    ssize_t r = syscall(io->op == IO_READ ? SYS_pread64 : SYS_pwrite64, fd, io->buf,
                        (size_t)io->len, (off_t)off);
    int64_t res = r < 0 ? -errno : r;
    if (io->op == IO_WRITE && res >= 0) {
        int rc = mark_dirty(p, (uint32_t)fi);
        if (rc < 0)
            res = rc;
    }
    if (temp && close(fd) != 0 && res >= 0)
        res = -errno; /* a network filesystem may report a failed write only here */
    return res;
}

static int files_submit(struct backend *be, struct io *io)
{
    struct files_priv *p = be->priv;
    if (p->ndone == p->cap)
        return -EAGAIN;
    io->err[0] = 0;
    int64_t res = io->op == IO_FLUSH ? do_flush(p, io) : do_rw(p, io);
    if (res >= 0 && io->op != IO_FLUSH && (uint64_t)res < io->len)
        res = -EIO; /* short: the file is shorter than the tree says */
    io->result = res;
    p->done[p->ndone++] = io;
    return 0;
}

static int files_reap(struct backend *be, struct io **done, int max, int wait_ms)
{
    (void)wait_ms;
    struct files_priv *p = be->priv;
    int got = 0;
    while (got < max && p->ndone)
        done[got++] = p->done[--p->ndone];
    return got;
}

static void files_close(struct backend *be)
{
    struct files_priv *p = be->priv;
    if (!p)
        return;
    if (p->st)
        detach(p->st);
    free(p->dirty);
    free(p->is_dirty);
    free(p->done);
    free(p);
    be->priv = NULL;
}

static int files_open(struct backend *be, const struct target_cfg *t, unsigned depth, char *err,
                      size_t n)
{
    struct stat st;
    if (stat(t->path, &st) != 0) {
        snprintf(err, n, "%s: %s (kind = files needs a directory)", t->path, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, n, "%s is not a directory (kind = files tests a tree inside one)", t->path);
        return -1;
    }
    struct files_priv *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, n, "out of memory");
        return -1;
    }
    p->durable = t->sync;
    p->publish = t->cross_reads;
    struct statfs fs;
    p->drop_cache = !(statfs(t->path, &fs) == 0 && fs.f_type == TMPFS_MAGIC);
    p->cap = depth + 8;
    p->done = calloc(p->cap, sizeof *p->done);
    p->st = p->done ? attach(t, !be->again && !be->existing, be, err, n) : NULL;
    if (!p->done && !err[0])
        snprintf(err, n, "out of memory");
    if (p->st && !(p->is_dirty = calloc(p->st->t.nfiles * p->st->ranks / 8 + 1, 1)))
        snprintf(err, n, "out of memory");
    be->priv = p;
    if (!p->st || !p->is_dirty) {
        files_close(be);
        return -1;
    }
    const struct tree *tr = &p->st->t;
    unsigned nr = p->st->ranks;
    be->capacity = tr->blocks * tr->block_size * nr;
    be->align = FL_SECTOR;
    be->durable_writes = t->sync;
    char root[PATH_MAX + 160];
    files_root(t, root, sizeof root);
    if (nr > 1)
        snprintf(be->desc, sizeof be->desc, "files %s (%u subtrees client-R of %zu files in "
                 "%zu directories, %s)", root, nr, tr->nfiles, tr->ndirs,
                 t->sync ? "O_DSYNC" : "fsync");
    else
        snprintf(be->desc, sizeof be->desc, "files %s (%zu files in %zu directories, %s)", root,
                 tr->nfiles, tr->ndirs, t->sync ? "O_DSYNC" : "fsync");
    return 0;
}

/* --- the kind's keys and scenario rules --- */

#define OPT(field) BACKEND_OPT(struct files_cfg, field)

static const struct key_def workload_keys[] = {
    {"class", KEY_CHOICE, "mixed", "large|medium|small|tree|mixed", OPT(tree_class), 0, 0,
     "files: the tree's shape: large (4 big files), medium (10 MiB files in 10 directories), "
     "small (3 KiB files, 100 per directory), tree (a source tree), mixed (a third each of "
     "large, medium, small)", 0},
    {"procs", KEY_COUNT, NULL, NULL, OPT(procs), 1, 256,
     "files: parallel streams, each a thread doing one I/O at a time (the same as depth; "
     "default: depth)", 0},
    {"metadata", KEY_COUNT, "1", NULL, OPT(metadata), 0, 16,
     "files: metadata streams (create, rename, unlink, mkdir, readdir, stat checked against a "
     "model of the tree), each in its own directory; 0: none", 0},
};

static int files_check(struct backend_setup *s, char *err, size_t errlen)
{
    struct target_cfg *t = s->t;
    struct files_cfg *c = files_cfg(t);
    struct workload_cfg *w = s->w;
    if (!t->path[0] && !s->lab_serves) {
        s->section = "target";
        snprintf(err, errlen, "[target] needs 'path'%s", s->lab_hint);
        return -1;
    }
    if (s->engine_choice == 1 || t->direct) {
        s->section = "workload";
        s->key = t->direct ? "direct" : "engine";
        snprintf(err, errlen, "%s: kind = files runs the sync engine, buffered (one thread per "
                 "stream, as applications use a filesystem)", s->key);
        return -1;
    }
    if (c->procs && s->given(s, "workload", "depth")) {
        s->section = "workload";
        s->key = "procs";
        snprintf(err, errlen, "procs and depth say the same for kind = files: give one");
        return -1;
    }
    if (c->procs)
        w->depth = (unsigned)c->procs;
    c->workers = w->depth; /* one per stream: the tree's layout (tree.h) */
    if (!t->size)
        t->size = 64ull << 20;
    t->engine = ENGINE_SYNC;
    t->located = t->path[0] != 0;
    c->block_size = w->block_size;
    snprintf(c->tree_name, sizeof c->tree_name, "%s", s->name);
    return 0;
}

/* The lab's mount, where the scenario named no directory. */
static int files_place(struct target_cfg *t, const char *where, char *err, size_t errlen)
{
    if (t->path[0])
        return 0;
    if (strlen(where) >= sizeof t->path) {
        snprintf(err, errlen, "%s: path too long", where);
        return -1;
    }
    snprintf(t->path, sizeof t->path, "%s", where);
    t->located = true;
    return 0;
}

/* The layout of the tree, built once: reports name the file of every block
 * finding, and a tree may hold many thousands of files.  Reports are
 * written by one thread. */
static struct tree where_tree;
static bool where_ready;

static void files_where(const struct target_cfg *t, uint64_t block, uint64_t offset,
                        const char *name, char *path, size_t n, uint64_t *off)
{
    char root[PATH_MAX + 160];
    files_root(t, root, sizeof root);
    *off = offset;
    if (block == FL_NO_BLOCK) {
        snprintf(path, n, "%s/%s", root, name);
        return;
    }
    char err[256];
    unsigned nr = ranks_of(t);
    if (!where_ready && tree_layout(&where_tree, (enum tree_class)cfg_of(t)->tree_class,
                                    rank_budget(t), cfg_of(t)->block_size, root, err,
                                    sizeof err) == 0) {
        /* laid out as the tree on disk says; as this run's when it cannot be read */
        char sub[PATH_MAX + 200];
        unsigned workers = cfg_of(t)->workers;
        rank_root(t, (unsigned)(block % nr), sub, sizeof sub);
        if (tree_marker_workers(sub, &workers, err, sizeof err) != 0)
            workers = cfg_of(t)->workers;
        tree_set_workers(&where_tree, workers);
        where_ready = true;
    }
    uint64_t local = block / nr, index = 0;
    const struct tree_file *tf = where_ready ? tree_file_of(&where_tree, local, &index) : NULL;
    if (!tf) {
        snprintf(path, n, "%s", root);
        return;
    }
    char rel[700];
    tree_relpath(&where_tree, tf, rel, sizeof rel);
    if (nr > 1)
        snprintf(path, n, "%s/client-%u/%s", root, (unsigned)(block % nr), rel);
    else
        snprintf(path, n, "%s/%s", root, rel);
    /* the offset in the file: the block's place in it, and where in the block */
    *off = index * where_tree.block_size + offset % where_tree.block_size;
}

static unsigned files_streams(const struct target_cfg *t, char *root, size_t n)
{
    rank_root(t, t->rank >= 0 ? (unsigned)t->rank : 0, root, n);
    return (unsigned)cfg_of(t)->metadata;
}

/* What the namespace check found, as findings with their path. */
struct damage_ctx {
    struct findings *f;
    const char *phase;
    uint64_t read_ns;
    const char *prefix; /* "client-R/": the subtree, below the tree's root */
};

static void damage(void *arg, enum tree_damage what, const char *sub, uint64_t want,
                   uint64_t found)
{
    struct damage_ctx *c = arg;
    char rel[FL_FINDING_PATH];
    snprintf(rel, sizeof rel, "%s%s", c->prefix, sub);
    char detail[192];
    switch (what) {
    case TREE_MISSING:
        snprintf(detail, sizeof detail, "made when the tree was created, gone now");
        findings_add_name(c->f, CLS_MISSING_FILE, rel, "create", c->phase, 0, c->read_ns, detail);
        break;
    case TREE_UNEXPECTED:
        snprintf(detail, sizeof detail, "%llu bytes; no operation of the run made it",
                 (unsigned long long)found);
        findings_add_name(c->f, CLS_UNEXPECTED_FILE, rel, "none", c->phase, FL_TIME_UNKNOWN,
                          c->read_ns, detail);
        break;
    case TREE_WRONG_SIZE:
        snprintf(detail, sizeof detail, "%llu bytes, must be %llu", (unsigned long long)found,
                 (unsigned long long)want);
        findings_add_name(c->f, CLS_WRONG_SIZE, rel, "create", c->phase, 0, c->read_ns, detail);
        break;
    }
}

/* The names of the tree: every directory and file of the layout there at
 * its size, and nothing else. */
static long files_check_after(const struct target_cfg *t, const char *const *skip,
                              struct findings *f, const char *phase, uint64_t now, char *err,
                              size_t errlen)
{
    char root[PATH_MAX + 160];
    rank_root(t, t->rank >= 0 ? (unsigned)t->rank : 0, root, sizeof root);
    struct tree tr;
    if (tree_layout(&tr, (enum tree_class)cfg_of(t)->tree_class, rank_budget(t),
                    cfg_of(t)->block_size, root, err, errlen) != 0)
        return -1;
    char prefix[32] = "";
    if (ranks_of(t) > 1)
        snprintf(prefix, sizeof prefix, "client-%d/", t->rank >= 0 ? t->rank : 0);
    struct damage_ctx c = {.f = f, .phase = phase, .read_ns = now, .prefix = prefix};
    long n = tree_check(&tr, skip, damage, &c, err, errlen);
    tree_free(&tr);
    return n;
}

const struct backend_ops backend_files_ops = {
    .kind = "files",
    .cross_rule = "close-to-open",
    .workload_keys = KEY_TABLE(workload_keys),
    .check = files_check,
    .place = files_place,
    .where = files_where,
    .streams = files_streams,
    .check_after = files_check_after,
    .open = files_open,
    .submit = files_submit,
    .reap = files_reap,
    .close = files_close,
    .identify = identify_path,
};
