/*
 * backend — where blocks are read and written.
 *
 * A backend is one file that fills a `struct backend_ops`: open, submit,
 * reap, close.  The engine never knows which backend runs.  I/O is
 * asynchronous: submit() queues a request, reap() hands back completed ones
 * (waiting at most wait_ms for the first).  A backend may batch submissions
 * until the next reap().
 *
 *   kind       file                 regular file: io_uring or sync, optional O_DIRECT
 *   kind       blockdev             block device, always O_DIRECT, refuses a
 *                                   device that is mounted or held
 *   kind       iscsi                a LUN through libiscsi, several portals
 *                                   with failover (backend_iscsi.c)
 *   kind       files                a tree of many files in a directory of any
 *                                   mounted filesystem (backend_files.c, tree.h)
 *
 * Flush means "make every write that completed before this flush was
 * submitted durable": fdatasync for files and devices.
 */
#ifndef FL_BACKEND_H
#define FL_BACKEND_H

#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../checks/gen.h"
#include "../lib/errbuf.h"

enum io_op { IO_READ, IO_WRITE, IO_FLUSH };

struct io {
    enum io_op op;
    uint64_t block;    /* READ/WRITE: block number */
    gen_t gen;         /* WRITE: generation carried */
    void *buf;         /* READ/WRITE: block_size bytes, 4 KiB aligned */
    uint32_t len;      /* bytes */
    uint64_t offset;   /* byte offset on the target */
    int64_t result;    /* bytes transferred, or -errno */
    uint64_t t_submit; /* ns since run start */
    uint64_t t_done;
    uint64_t cover;    /* FLUSH: write completions it makes durable */
    bool inflight;     /* submitted, not yet completed (for the watchdog) */
    bool doubtful;     /* WRITE: it completed, but only after being reissued on another
                          path (or its first attempt timed out): the media may hold
                          either generation until a read shows which */
    void *backend;     /* the backend's own bookkeeping for this I/O */
    char err[128];     /* backend's words for a failure, "" if none */
};

/* What one phase (workload, sweep, verify) did. */
struct io_stats {
    uint64_t reads, writes, flushes;
    uint64_t bytes_read, bytes_written;
    uint64_t errors;     /* failed reads, writes and flushes */
    uint64_t ns;         /* how long the phase ran */
    uint64_t lat_max_ns; /* slowest completion */
};

/* Accounts one completed I/O. */
void io_stats_add(struct io_stats *s, const struct io *io);

/* What a worker publishes for the main thread's watchdog, as it goes. */
struct io_pulse {
    _Atomic unsigned inflight;
    _Atomic uint64_t oldest;      /* submit time of the oldest I/O in flight; UINT64_MAX: none */
    _Atomic uint64_t completions; /* ever */
};

enum io_engine {
    ENGINE_URING, /* io_uring: one thread keeps `depth` I/Os in flight */
    ENGINE_SYNC,  /* pread/pwrite in submit(): one I/O per worker thread */
};

#define FL_MAX_PORTALS 8
#define FL_URL_MAX 512

/* [target] keys of kind = iscsi. */
struct iscsi_cfg {
    char portals[FL_MAX_PORTALS][FL_URL_MAX]; /* iscsi://HOST[:PORT]/IQN/LUN */
    unsigned nportals;
    bool fua;                     /* every write with FUA: durable at completion */
    unsigned command_timeout_s;   /* a command unanswered this long: the path is dead */
    unsigned tcp_user_timeout_ms; /* unacknowledged data this long: the connection is dead */
    unsigned nop_interval_ms;     /* NOP-Out on every path this often */
    unsigned nop_missed;          /* NOPs unanswered before the path is dead */
    uint64_t io_timeout_ns;       /* an I/O finds no path for this long: it fails */
    uint64_t login_timeout_ns;    /* connecting and logging in at the start */
    uint64_t retry_interval_ns;   /* a dead path is tried again this often */
};

/* [target] kind = files: which tree, and its blocks. */
struct files_cfg {
    int tree_class;      /* enum tree_class */
    uint32_t block_size; /* the workload's: files are whole blocks */
    char tree_name[128]; /* the tree is PATH/faultline-NAME (the scenario name) */
};

/* What [target] says. */
struct target_cfg {
    enum io_engine engine;
    struct iscsi_cfg iscsi;
    struct files_cfg files;
    char kind[16];
    char path[PATH_MAX];
    uint64_t size; /* bytes to test; 0 = the whole device or existing file */
    bool direct;   /* O_DIRECT (always on for blockdev) */
    bool sync;     /* O_DSYNC: every write is durable when it completes */
};

struct backend;

struct backend_ops {
    const char *kind;
    /* Opens the target, sets be->capacity, be->align, be->durable_writes and
     * be->desc.  0, or -1 with err filled. */
    int (*open)(struct backend *be, const struct target_cfg *t, unsigned depth, char *err,
                size_t errlen);
    /* Queues one request.  0, or -errno when the queue is full or broken. */
    int (*submit)(struct backend *be, struct io *io);
    /* Sends queued requests, then returns up to max completed ones in done[]
     * (waits at most wait_ms for the first; 0 = do not wait).  Count, or
     * -errno. */
    int (*reap)(struct backend *be, struct io **done, int max, int wait_ms);
    void (*close)(struct backend *be);
};

/* A path event (connect, login, loss, switch, unit-attention...) as it
 * happens: portal is the iscsi:// URL, detail one line for people. */
typedef void (*backend_event_fn)(void *ctx, const char *event, const char *portal,
                                 const char *detail);

struct backend {
    const struct backend_ops *ops;
    backend_event_fn on_event; /* set before open(); may be NULL */
    void *event_ctx;
    unsigned worker;           /* set before open(): which worker (initiator names) */
    bool again;          /* set before open(): another worker of this run has the
                            target open already (no exclusive claim, no creation) */
    bool existing;       /* set before open(): verifying a finished run: open what
                            the run made, create and reset nothing */
    uint64_t capacity;   /* bytes that may be tested */
    uint32_t align;      /* required alignment of offsets and lengths */
    bool durable_writes; /* writes are durable at completion (O_DSYNC) */
    char desc[PATH_MAX + 64];
    void *priv;
};

/* The backend for a [target] kind, or NULL. */
const struct backend_ops *backend_find(const char *kind);

/* Comma-separated list of known kinds, for error messages. */
const char *backend_kinds(void);

/* kind = files: the tree's root directory, PATH/faultline-NAME. */
void files_root(const struct target_cfg *t, char *out, size_t n);

#endif
