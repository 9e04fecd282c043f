/*
 * backend — where blocks are read and written.
 *
 * A backend is one file that fills a `struct backend_ops` and one line in
 * the table of backend.c.  The I/O part is open, submit, reap, close: the
 * engine never knows which backend runs.  I/O is asynchronous: submit()
 * queues a request, reap() hands back completed ones (waiting at most
 * wait_ms for the first).  A backend may batch submissions until the next
 * reap().  The rest of the table carries what is special to the kind
 * elsewhere, so that no other module branches on it: its own scenario keys
 * and rules, the place a lab gives it, where a finding is for people, the
 * metadata streams beside its data, and checks after the sweep.
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
#include "../lib/keys.h"
#include "../lib/kvlist.h"

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
    bool cross;        /* READ: of a block another client owns (cross_reads); a file
                          tree opens the file anew for it (close-to-open) */
    uint8_t path;      /* set by a backend with paths (be->path_names) at completion:
                          1 + the path it completed over; 0: none or not known */
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

/* Adds what another worker (or client) did in the same phase, side by side:
 * counts add up, the time is the longest. */
void io_stats_sum(struct io_stats *to, const struct io_stats *s);

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

#define FL_URL_MAX 512
#define BACKEND_PATHS 8 /* paths a backend names (the first BUCKET_PATHS are counted) */
#define FL_KIND_OPTS 9216 /* room for the largest kind's own keys */

/* What [target] says.  Keys every kind has are fields; a kind's own keys
 * (iscsi's portals and timeouts, a file tree's class) live in `opts`, laid
 * out as that kind's key tables say (BACKEND_OPT). */
struct target_cfg {
    enum io_engine engine;
    char kind[16];
    char path[PATH_MAX];
    uint64_t size;  /* bytes to test; 0 = the whole device or existing file */
    bool direct;    /* O_DIRECT (always on for blockdev) */
    bool sync;      /* O_DSYNC: every write is durable when it completes */
    bool located;   /* the scenario says where the target is (else a lab's place) */
    /* Set by the harness for a run over several clients (MPI ranks): this
     * client's rank, -1 for all of them (a later verify), of `ranks`.  Rank
     * r owns the blocks b with b % ranks == r; a file tree gives each rank
     * a subtree of its own.  ranks 0 or 1: one client, as alone. */
    int rank;
    unsigned ranks;
    bool cross_reads; /* another client reads this one's blocks: a file tree then
                         closes what it flushed (close-to-open) */
    _Alignas(max_align_t) unsigned char opts[FL_KIND_OPTS];
};

/* The kind's own options of a target, as its struct. */
#define BACKEND_OPTS(t, type) ((type *)(void *)(t)->opts)
/* For a kind's key tables: a field of its options struct. */
#define BACKEND_OPT(type, field)                                                               \
    offsetof(struct target_cfg, opts) + offsetof(type, field), sizeof(((type *)0)->field)

struct workload_cfg;

/* What the scenario parser hands a kind's check. */
struct backend_setup {
    struct target_cfg *t;
    struct workload_cfg *w;
    const char *name;       /* the scenario's */
    int engine_choice;      /* as written: 0 auto, 1 io_uring, 2 sync */
    bool lab_serves;        /* the scenario's lab gives this target its place */
    const char *lab_hint;   /* " (or [scenario] lab = X for Y)": how a lab could; "" */
    /* whether a key is in the file */
    bool (*given)(const struct backend_setup *s, const char *section, const char *key);
    const void *ctx;
    /* out, with a mistake: where it is (key NULL: the section's line) */
    const char *section, *key;
};

struct backend;

struct findings;

struct backend_ops {
    const char *kind;
    /* Its own keys of [target] and [workload] (values in target_cfg.opts);
     * given for another kind they are a mistake. */
    struct key_table target_keys, workload_keys;
    /* The kind's scenario rules: checks its keys together, sets what
     * follows from them (engine, direct, t->located, defaults).  0, or -1
     * with err, s->section and s->key saying where. */
    int (*check)(struct backend_setup *s, char *err, size_t errlen);
    /* Takes the place a lab gives it (a mount, portals) where the scenario
     * named none.  NULL: no lab serves this kind.  0, or -1 with err. */
    int (*place)(struct target_cfg *t, const char *where, char *err, size_t errlen);
    /* Where a finding is: the file or device holding block (at which byte
     * of it), or for a name finding (block FL_NO_BLOCK) the path of name. */
    void (*where)(const struct target_cfg *t, uint64_t block, uint64_t offset, const char *name,
                  char *path, size_t n, uint64_t *off);
    /* Metadata streams beside the data streams, and the root they work in.
     * NULL or 0: none. */
    unsigned (*streams)(const struct target_cfg *t, char *root, size_t n);
    /* The promise a read by another client relies on (cross_reads): NULL
     * for "acknowledged" (a read that began after the owner's write was
     * acknowledged returns it or newer); "close-to-open" for a file tree
     * (after the owner's flush, which fsyncs and closes, and a fresh open). */
    const char *cross_rule;
    /* Checks beyond the blocks, once they are swept (the names of a file
     * tree); skip: names (relative) that are not the layout's.  Findings
     * carry phase and now.  Their number, or -1 with err.  NULL: none. */
    long (*check_after)(const struct target_cfg *t, const char *const *skip, struct findings *f,
                        const char *phase, uint64_t now, char *err, size_t errlen);
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
    /* A run that could not start: removes what open() created (be->created:
     * the file it made).  NULL: it creates nothing. */
    void (*discard)(struct backend *be, const struct target_cfg *t);
    /* What the target is, for the report's manifest: a device's model and
     * serial, a LUN's INQUIRY data, a filesystem's type and mount options
     * (keys of its own choice, snake_case).  be: the target as opened (NULL
     * when it could not be).  NULL: the kind says nothing. */
    void (*identify)(const struct backend *be, const struct target_cfg *t, struct kv_list *out);
};

/* A path event (connect, login, loss, switch, unit-attention...) as it
 * happens: portal is the iscsi:// URL, detail one line for people. */
typedef void (*backend_event_fn)(void *ctx, const char *event, const char *portal,
                                 const char *detail);

/* How far long work in open() is (making a file tree): `done` of `total`
 * of `what` ("files"). */
typedef void (*backend_progress_fn)(void *ctx, const char *what, uint64_t done, uint64_t total);

struct backend {
    const struct backend_ops *ops;
    backend_event_fn on_event; /* set before open(); may be NULL */
    void *event_ctx;
    backend_progress_fn on_progress; /* set before open(); may be NULL */
    void *progress_ctx;
    unsigned worker;           /* set before open(): which worker (initiator names) */
    bool again;          /* set before open(): another worker of this run has the
                            target open already (no exclusive claim, no creation) */
    bool shared;         /* set before open(): another client of the run (rank 0, maybe
                            on this node) made the target and may hold its claim: no
                            exclusive claim, no creation, but still refuse one in use */
    bool existing;       /* set before open(): verifying a finished run: open what
                            the run made, create and reset nothing */
    bool created;        /* out: open() made the target (ops->discard removes it) */
    uint64_t capacity;   /* bytes that may be tested */
    uint32_t align;      /* required alignment of offsets and lengths */
    bool durable_writes; /* writes are durable at completion (O_DSYNC) */
    char desc[PATH_MAX + 64];
    /* A backend with several paths to the target (iSCSI portals) names them
     * at open(), in the order of io->path; npaths 0: one way in. */
    char path_names[BACKEND_PATHS][FL_URL_MAX];
    unsigned npaths;
    void *priv;
};

/* The backend for a [target] kind, or NULL. */
const struct backend_ops *backend_find(const char *kind);

/* Comma-separated list of known kinds, for error messages. */
const char *backend_kinds(void);

/* The kinds, in the order of the reference. */
unsigned backend_all(const struct backend_ops *const **out);

#endif
