/*
 * journal_internal — what the journal's files share and nobody else uses:
 * the on-disk forms of state.bin and of a journal segment, and the few
 * functions one part of the journal offers the others.  The public side is
 * journal.h; the journal's files, one job each:
 *
 *   journal_format.c      header checksums, and what a damaged file says
 *   journal_segment.c     reading a segment back, one batch at a time
 *   journal_checkpoint.c  state.bin: written straight from the map, read
 *                         back in pieces
 *   journal_commit.c      the records, batches and the committer thread
 *   journal_replay.c      the state of a run rebuilt: checkpoint + replay
 *   journal_history.c     the past from the segments: when a write
 *                         completed, what a read of another client could see
 *   journal_acks.c        acks.bin: the completions a killed run had not
 *                         yet sealed into journal.bin, and their recovery
 */
#ifndef FL_JOURNAL_INTERNAL_H
#define FL_JOURNAL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../lib/batchlog.h"
#include "journal.h"

enum { J_INTENT = 1, J_DONE = 2, J_DONE_DURABLE = 3, J_FAIL = 4, J_FLUSH = 5, J_POWER = 6 };

struct jrec {
    uint64_t block; /* J_FLUSH: completions covered; J_POWER: the loss's tag */
    uint64_t t_ns;
    uint32_t gen;
    uint16_t type;
    uint16_t zero;
};
_Static_assert(sizeof(struct jrec) == 24, "journal record layout");

/* 3: the header and every batch header carry a crc, batches are numbered
 * per segment.  "FLJRNL1", "FLJRNL2": older faultlines. */
#define JHEAD_MAGIC "FLJRNL3"
#define JHEAD_FAMILY "FLJRNL" /* the magic of every version, without its digit */
struct jhead {
    char magic[8];
    struct run_meta meta;
    uint64_t segment;
    uint32_t crc; /* over the header with this field zero (journal_jhead_seal) */
    uint32_t zero;
    uint64_t reserved[2];
};

#define STATE_MAGIC "FLSTATE"
/* 2: run_meta names the client (rank, ranks); 3: power losses; 4: a crc over
 * the header too.  Older versions are refused (state_format_check). */
#define STATE_VERSION 4
enum {
    STATE_FINAL = 1,     /* the run ended cleanly */
    /* bits 8..15: a power cut under way at the checkpoint (its tag, statemap.loss_open) */
    STATE_JOURNALED = 2, /* a journal continues this checkpoint */
};
struct shead {
    char magic[8];
    uint32_t version;
    uint32_t flags;
    struct run_meta meta;
    uint64_t segment; /* journal segment that continues this checkpoint */
    uint64_t npending;
    uint64_t nacked;
    uint64_t ack_total;
    uint32_t crc;  /* over everything after the header */
    uint32_t hcrc; /* over the header before this field (journal_shead_seal) */
};

/* On-disk forms of pending entries and queued completions. */
struct spend {
    uint64_t block;
    uint16_t planned, issued, acked, at_loss;
    uint8_t flags, loss, zero[6];
};
struct sack {
    uint64_t block;
    uint16_t gen, zero[3];
};

/* Files are read in pieces of this size, never whole: a state.bin is 2
 * bytes a block and a journal segment up to 4 times that. */
#define READ_CHUNK (1u << 20)

/* How a segment file ends.  A crash (SIGKILL in mid-append, a power cut
 * before the batch's fdatasync) leaves at most its last batch short, or
 * garbage with no whole batch header after it: a torn tail, whose writes
 * were never issued (intents are synced before they are).  Anything else is
 * damage: a whole batch whose records fail their crc, a bad batch with
 * whole ones after it, a gap in the batch numbers. */
enum seg_end {
    SEG_WHOLE,   /* every batch whole */
    SEG_TORN,    /* the last batch incomplete or bad, nothing whole after it */
    SEG_DAMAGED, /* a bad batch with whole ones after it, or batches missing in between */
};
struct seg_result {
    enum seg_end end;
    uint64_t off;     /* not SEG_WHOLE: byte offset of the bad batch (of a failed record) */
    uint64_t batch;   /* its number in the segment, 1 = the first */
    uint64_t records; /* in the whole batches before it */
    char why[160];
};


/* One journal segment file, read one batch at a time. */
struct seg {
    int fd;
    uint64_t len;   /* its size when opened */
    bool have_head; /* long enough for a header (journal_jhead_check checks it) */
    unsigned char raw[sizeof(struct jhead)]; /* its first rawlen bytes, for journal_jhead_check */
    size_t rawlen;
    unsigned char *buf; /* READ_CHUNK bytes */
};

/* A record handed over by journal_seg_scan: 0 to go on, else the record is refused. */
typedef int (*rec_fn)(void *ctx, const struct jrec *r);

/* --- journal_format.c --- */

/* dir/name into out (n bytes). */
void journal_path_in(char *out, size_t n, const char *dir, const char *name);

/* Seals a header just before it is written: its crc over itself. */
void journal_shead_seal(struct shead *h);
void journal_jhead_seal(struct jhead *h);

/* That state.bin's header (at path) is one, of this format, undamaged.  0,
 * or -1 with err. */
int journal_shead_check(const struct shead *h, const char *path, char *err, size_t n);

/* Reads and checks the header of the journal segment in buf (len bytes, from
 * path) into *h: one of this format, undamaged, of run run_id.  0, or -1
 * with err. */
int journal_jhead_check(const unsigned char *buf, size_t len, const char *path, uint64_t run_id,
                        struct jhead *h, char *err, size_t n);

/* The error a scan's end is, for the segment at path; final: nothing may
 * follow the last whole batch (a complete segment, or a run that ended
 * cleanly).  0 when acceptable, else -1 with err. */
int journal_seg_scan_error(const struct seg_result *s, const char *path, bool final,
                           const char *whyfinal, char *err, size_t n);

/* --- journal_segment.c --- */

/* Reads exactly len bytes at off.  0, or -1 (errno; EIO for a short file). */
int journal_read_at(int fd, void *buf, size_t len, uint64_t off);

/* Opens the segment at path.  0, or -1 with *eno (ENOENT: there is none). */
int journal_seg_open(struct seg *s, const char *path, int *eno);
void journal_seg_close(struct seg *s);

/* Calls fn for every record of every whole batch of the segment (one with
 * a header, have_head), one batch at a time, and says in *r how the file
 * ends.  0; -1 when fn refused a record (r->off names it); -2 when the
 * file cannot be read (r->why says why). */
int journal_seg_scan(struct seg *s, void *ctx, rec_fn fn, struct seg_result *r);

/* --- journal_checkpoint.c --- */

/* Writes the checkpoint of m as dir/state.tmp (not yet synced: see
 * journal_state_install).  0, or -1 with err. */
int journal_state_write_tmp(const char *dir, const struct run_meta *meta, const struct statemap *m,
                            uint64_t segment, bool final, bool journaled, char *err, size_t n);

/* Syncs state.tmp, renames it to state.bin and syncs the directory. */
int journal_state_install(const char *dir, char *err, size_t n);

/* Reads and checks state.bin: its header (in *h) and the checkpoint
 * itself, into a fresh m.  0, or -1 with err (m freed). */
int journal_load_checkpoint(const char *dir, struct shead *h, struct run_meta *meta,
                            struct statemap *m, char *err, size_t errlen);

/* acks.bin (journal_acks.c, whose header comment says why and how): a
 * header, then ACKS_SLOTS records; the record numbered seq (1, 2, ... per
 * worker) is in slot seq % ACKS_SLOTS.  "FLACKS1": the first format. */
#define ACKS_MAGIC "FLACKS1"
#define ACKS_FAMILY "FLACKS"
#define ACKS_SLOTS 65536u /* over PLAN_CAP (engine.c) plus the deepest depth */
#define ACKS_STAGE 256u   /* records gathered before one write: a reap's at most */
struct ackhead {
    char magic[8];
    uint64_t run_id;
    uint32_t worker;
    uint32_t slots;    /* ACKS_SLOTS */
    uint32_t rec_size; /* sizeof(struct ackrec) */
    uint32_t crc;      /* over the header before this field */
};
_Static_assert(sizeof(struct ackhead) == 32, "acks.bin header layout");
struct ackrec {
    uint64_t seq;   /* 0: an empty slot */
    uint64_t block; /* local, as in the journal */
    uint64_t acks;  /* statemap_acked_total() before this completion */
    uint16_t gen;
    uint8_t durable; /* written with O_DSYNC/FUA: durable at once */
    uint8_t zero;
    uint32_t crc; /* over the record before this field */
};
_Static_assert(sizeof(struct ackrec) == 32, "acks.bin record layout");

/* A running journal's acks.bin: records gathered by the engine's thread,
 * written once per reap. */
struct ackring {
    int fd;
    uint64_t seq; /* the last record's number */
    struct ackrec stage[ACKS_STAGE];
    unsigned staged;
};

/* --- journal_acks.c --- */

/* Creates dir/acks.bin for the run in meta (as acks.new, synced, renamed:
 * never a half-made header).  0, or -1 with err. */
int journal_acks_open(struct ackring *a, const char *dir, const struct run_meta *meta, char *err,
                      size_t n);

/* Adds one completion to the stage; a full stage is written first.  0, or
 * -1 (errno) when that write failed. */
int journal_acks_stage(struct ackring *a, uint64_t block, gen_t gen, bool durable, uint64_t acks);

/* Writes the staged records: one pwrite, two where the ring wraps.  0, or
 * -1 (errno). */
int journal_acks_write(struct ackring *a);

/* Closes the ring's file (what is staged is dropped: write it first). */
void journal_acks_close(struct ackring *a);

/* After checkpoint and replay of a run that did not end cleanly: applies
 * to m what acks.bin knows and m does not, counting it in *applied.  No
 * acks.bin (an older faultline's run) is nothing to apply.  0, or -1 with
 * err (a damaged acks.bin, named with the byte offset; memory short). */
int journal_acks_recover(const char *dir, const struct run_meta *meta, struct statemap *m,
                         uint64_t *applied, char *err, size_t n);

/* --- journal_replay.c --- */

/* Drives the state-map transition of one record on m (a struct statemap),
 * as the engine did.  0, or -1 for a record that cannot be replayed. */
int journal_replay_one(void *ctx, const struct jrec *r);

#endif
