/*
 * meta — metadata streams of a file tree, checked against a model.
 *
 * A stream owns the directory meta-S under the tree root and a small name
 * space in it: directories d0..d3, each with file slots f000..f063.  It runs
 * a mix of operations until the workload ends:
 *
 *   mkdir 3%  create 30% (O_EXCL, 0..8 KiB, close)  rename 15%  unlink 12%
 *   stat 25% (existence and size)  readdir 15% (the whole directory)
 *
 * (another mix: meta_set_mix).  Operations are drawn a batch ahead, on the
 * model as it will be if they succeed; a batch whose operation failed or
 * found something else is dropped and drawn again from the model as it is.
 *
 * The model says what every slot must be: absent, present with a size, or
 * doubtful.  An operation that returns success changes the model as POSIX
 * says it must; one that fails (a fault in the middle of it) makes every
 * name it touches doubtful — both outcomes are allowed — until a stat or
 * readdir shows which happened, and the model takes what it sees.  What
 * stat and readdir see that the model does not allow is a finding with the
 * path and the operation that should have made the expected state:
 * missing-file, unexpected-file, wrong-size.  A failed operation itself is
 * an io-error.  After the sweep every slot is checked once more, and the
 * model is saved (DIR/meta-S.model) for `faultline verify`.
 *
 * So that verify after a crash (of faultline, or a power cut of the
 * storage) can check the names too, a stream journals its model
 * (DIR/meta-S.journal, a jlog, see journal.h) the way block writes are
 * journaled:
 *   intent   before a create, rename, unlink or mkdir, the state each name
 *            it touches will have; synced before the operation is issued,
 *            so the storage never holds a change the journal does not know.
 *            The intents of a whole batch (up to META_PLAN_CHANGES such
 *            operations) are synced at once, with the durability point
 *            before them: one sync per batch, not one per operation
 *   set      a slot's new state in the model, after the operation (or a
 *            stat or readdir that resolved a doubt); not synced: losing it
 *            leaves the intent, which allows either outcome
 *   point    a durability point: every 16 changes the stream fsyncs the
 *            files it changed and its directories, then journals (synced)
 *            that everything before is on stable storage
 *   closed   the model file was saved after a last durability point
 * Verify uses meta-S.model when the journal is closed; else it rebuilds the
 * model from the journal: a name touched after the last durability point
 * may hold its state at that point or any the later intents allow (a power
 * cut may take it back, a file may be shorter), counted as reverted or
 * short; a name untouched since then is durable and must be exact.
 */
#ifndef FL_META_H
#define FL_META_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "../checks/findings.h"
#include "../lib/rng.h"

#define META_DIRS 4
#define META_SLOTS 64 /* files per directory */

enum meta_op { MOP_MKDIR, MOP_CREATE, MOP_RENAME, MOP_UNLINK, MOP_STAT, MOP_READDIR, MOP_COUNT };

/* "mkdir", "create", ... */
const char *meta_op_name(enum meta_op op);

enum slot_state { SLOT_ABSENT, SLOT_PRESENT, SLOT_DOUBT };

/* The weights of the operations, by enum meta_op: 3, 30, 15, 12, 25, 15. */
extern const unsigned meta_mix_default[MOP_COUNT];

/* Parses "create:50, unlink:50" (an operation's name and its weight, 0 to
 * 1000; those not named get 0) into mix.  0, or -1 with err. */
int meta_mix_parse(const char *text, unsigned mix[MOP_COUNT], char *err, size_t errlen);

struct meta_slot {
    uint8_t state;     /* enum slot_state */
    uint8_t op;        /* enum meta_op that made the expected state */
    uint32_t size;     /* PRESENT: its size; DOUBT: the size if it is there */
    uint64_t op_ns;    /* when that operation completed (ns since run start) */
};

struct jlog;

/* An operation drawn ahead of its turn: the names it works on (f, f2 -1:
 * the directory itself), the size a create writes or a rename carries,
 * and the directory and slot states it was drawn on ([0] d, [1] d/f,
 * [2] d2, [3] d2/f2), which the model must still hold when it is issued. */
struct meta_planned {
    uint8_t op, d, d2;
    int16_t f, f2;
    uint32_t size;
    struct meta_slot pre[4];
};
#define META_PLAN 64          /* operations drawn ahead at most */
#define META_PLAN_CHANGES 16  /* of them changing names: intents synced at once */

/* A metadata stall: no operation of the stream completed from from_ns to
 * to_ns (ns since the run's start; from_ns the completion before, or the
 * start). */
struct meta_gap {
    uint64_t from_ns, to_ns;
};
#define META_GAPS 32                 /* the longest ones kept */
#define META_GAP_MIN_NS 200000000ull /* shorter ones are the operations' own pace */

struct meta_stream {
    unsigned index;
    char dir[4200];        /* ROOT/meta-S */
    char rel[16];          /* meta-S */
    unsigned client;       /* whose subtree it works in (several clients: the rank) */
    struct rng rng;        /* which operation and name comes next */
    unsigned mix[MOP_COUNT];                /* the operations' weights */
    struct meta_planned planned[META_PLAN]; /* the batch drawn ahead */
    unsigned nplanned, next_planned;
    struct meta_slot dirs[META_DIRS];
    struct meta_slot files[META_DIRS][META_SLOTS];
    struct findings findings;
    uint64_t ops[MOP_COUNT], errors;
    char err[4800];        /* why the stream could not run at all */

    /* Its stalls (run only): the longest gaps between completed operations,
     * each at least META_GAP_MIN_NS; the metadata server's outages show
     * here while data I/O to open files may go on. */
    struct meta_gap gaps[META_GAPS];
    unsigned ngaps;
    uint64_t last_done_ns; /* the last operation's completion */

    /* The journal (run only); see the top of this file. */
    struct jlog *log;
    bool log_failed;       /* a journal write failed: the stream stopped (err) */
    struct meta_slot logged_dirs[META_DIRS], logged_files[META_DIRS][META_SLOTS];
    /* changed since the last durability point ([d][0]: the directory, [d][f + 1]:
     * file f); in a rebuilt model: may be reverted */
    uint8_t unsynced[META_DIRS][META_SLOTS + 1];
    unsigned changes;      /* slot changes since the last durability point */

    /* Verify: the model as the journal left it, and what was found. */
    struct meta_slot latest[META_DIRS][META_SLOTS + 1];
    bool rebuilt;          /* from the journal (no final model) */
    bool journal_torn;     /* the journal ends in a cut batch */
    uint64_t journal_records, durability_points;
    uint64_t names_checked, names_reverted, sizes_short;
};

/* The longest gap of streams[0..n) that overlaps [from_ns, to_ns] (all of
 * the run: 0, UINT64_MAX), its length in ns into *gap (may be NULL); 0 when
 * none is as long as META_GAP_MIN_NS. */
uint64_t meta_longest_gap(const struct meta_stream *streams, unsigned n, uint64_t from_ns,
                          uint64_t to_ns, struct meta_gap *gap);

/* Prepares stream index under root (creating meta-S unless `existing`).
 * 0, or -1 with s->err. */
int meta_init(struct meta_stream *s, const char *root, unsigned index, uint64_t seed,
              size_t findings_limit, bool existing);
void meta_free(struct meta_stream *s);

/* Another mix of operations than meta_mix_default (before meta_run). */
void meta_set_mix(struct meta_stream *s, const unsigned mix[MOP_COUNT]);

/* Runs operations until *stop or duration_ns after t0 (mono_ns()). */
void meta_run(struct meta_stream *s, uint64_t t0, uint64_t duration_ns,
              volatile sig_atomic_t *stop);

/* Checks every slot against the model (phase "sweep" or "verify"); findings
 * go to s->findings. */
void meta_check_all(struct meta_stream *s, const char *phase, uint64_t now_ns);

/* Saves / loads the model (DIR/meta-S.model).  0, or -1 with s->err. */
int meta_save(struct meta_stream *s, const char *rundir);
int meta_load(struct meta_stream *s, const char *rundir);

/* Starts the stream's journal DIR/meta-S.journal (before meta_run).  0, or
 * -1 with s->err. */
int meta_journal_open(struct meta_stream *s, const char *rundir, uint64_t run_id);

/* After meta_save: a last durability point, and the journal marked closed
 * (the model file is the truth from then on), and closed.  0, or -1 with
 * s->err (the model file is then ignored by verify: the journal stays). */
int meta_journal_close(struct meta_stream *s);

/* Verify: the model from DIR/meta-S.model when the journal says it is
 * final (or there is no journal: an older run), else rebuilt from the
 * journal, with names changed after the last durability point doubtful.
 * run_id: the run's, which the journal must carry.  0, or -1 with s->err. */
int meta_recover(struct meta_stream *s, const char *rundir, uint64_t run_id);

#endif
