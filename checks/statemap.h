/*
 * statemap — what every block of a target must contain.
 *
 * At rest the map is one 16-bit generation per block: the newest generation
 * known to be *durable* (its write completed and a later flush completed, or
 * it was written with O_DSYNC/FUA).  That is 2 bytes per tracked block.
 *
 * Blocks with anything not yet durable also have a `pending` entry in a small
 * hash table: the newest generation handed to a write (planned, and journaled
 * as an intent), the newest sent to storage (issued), the newest whose write
 * completed (acked), and flags.  The table only holds blocks touched since
 * the last flush plus those with I/O in flight; an entry is dropped as soon
 * as its block is fully durable again.
 *
 * Completed writes wait in the ack queue until a flush covers them.  A flush
 * covers every write that completed before the flush was submitted: the
 * engine notes statemap_acked_total() at submission and passes it to
 * statemap_flushed() at completion.
 *
 * The same transitions are driven by the running engine and by the journal
 * replay after a crash, so both reach the same state from the same events.
 *
 * The storage contract this encodes: after a crash or a fault, a block may
 * hold its durable generation or any newer pending one; while nothing went
 * wrong, a read must return exactly the newest acknowledged generation.
 *
 * A power loss (a fault with `loses = unflushed`, statemap_power_loss) is
 * the one event that may take acknowledged writes back: every block with a
 * write issued but not durable at that moment becomes *revertible*.  It may
 * hold its durable generation or any generation issued up to then; finding
 * one older than the acknowledged one is `reverted`, not a finding.  Those
 * writes never become durable (the flush that would have covered them
 * covered storage that had lost them), and a write issued after the loss
 * starts a clean history: once acknowledged, it must be read back.
 *
 * Pointers returned by statemap_find stay valid only until the next call
 * that changes the map.
 */
#ifndef FL_STATEMAP_H
#define FL_STATEMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gen.h"

enum {
    PEND_INFLIGHT = 1,  /* a read or write of this block is in flight */
    PEND_UNCERTAIN = 2, /* a write failed or timed out: it may or may not be on the media */
    PEND_REVERTIBLE = 4, /* a power loss may have taken its acknowledged writes back */
};

struct pending {
    uint64_t block;
    gen_t planned; /* newest generation given to a write (intent journaled) */
    gen_t issued;  /* newest generation sent to the storage */
    gen_t acked;   /* newest generation whose write completed */
    gen_t at_loss; /* revertible: the newest generation issued before the loss */
    uint8_t flags;
    uint8_t used;
    uint8_t loss;  /* revertible: which power loss (statemap_power_loss's tag) */
};

/* A completed write waiting for a flush. */
struct acked_write {
    uint64_t block;
    gen_t gen;
};

/* What a read of one block may return. */
struct expectation {
    gen_t lo;    /* durable: anything older is a lost write */
    gen_t hi;    /* the newest generation that may be on the media */
    gen_t acked; /* the newest acknowledged generation */
    bool strict; /* nothing allows an older one: a read must return `acked` */
    bool revertible; /* [lo, acked) is `reverted`: a power loss (or, after a
                      * crash, the crash) may have taken those writes back */
    uint8_t loss;    /* which power loss; 0 for a crash */
};

struct statemap {
    uint64_t nblocks;
    gen_t *durable;      /* nblocks entries */
    struct pending *tab; /* open addressing, linear probing, power-of-two size */
    size_t cap, count, peak;
    struct acked_write *ackq; /* ring of completed, not yet flushed writes */
    size_t ack_cap, ack_head, ack_len;
    uint64_t ack_total; /* completions ever queued: index of the next one */
    uint8_t loss_open;  /* a power cut is under way (its tag): see statemap_power_loss */
    uint64_t loss_blocks; /* blocks the latest power loss made revertible */
};

/* Power losses a run keeps apart (tags 1..POWER_LOSSES_MAX). */
#define POWER_LOSSES_MAX 16

/* Generations a block may run ahead of its durable one before the engine
 * must flush (keeps serial-number comparison unambiguous, see gen.h). */
#define STATEMAP_MAX_AHEAD 16384

/* 0 on success, -1 (errno set) when memory is short. */
int statemap_init(struct statemap *m, uint64_t nblocks);
void statemap_free(struct statemap *m);

/* The pending entry of block b, or NULL. */
struct pending *statemap_find(const struct statemap *m, uint64_t b);

/* --- transitions (engine and journal replay) --- */

/* Gives block b its next generation and records it as planned.  Returns
 * GEN_NONE when memory is short or when b already runs STATEMAP_MAX_AHEAD
 * generations ahead of its durable one (flush first). */
gen_t statemap_plan(struct statemap *m, uint64_t b);

/* Replay of a journaled intent: generation g was planned for b. */
int statemap_plan_gen(struct statemap *m, uint64_t b, gen_t g);

/* An I/O on b was sent to the storage; for a write, g is its generation.
 * -1 when memory is short. */
int statemap_issue(struct statemap *m, uint64_t b, bool write, gen_t g);

/* A read of b completed (successfully or not). */
void statemap_read_done(struct statemap *m, uint64_t b);

/* A write of generation g to b completed.  ok=false: it failed or timed out,
 * so the media may or may not hold it.  durable_now: written with
 * O_DSYNC/FUA.  -1 when memory is short. */
int statemap_write_done(struct statemap *m, uint64_t b, gen_t g, bool ok, bool durable_now);

/* Number of write completions queued so far; what a flush submitted now covers. */
uint64_t statemap_acked_total(const struct statemap *m);

/* A flush that covered the first `cover` completions finished. */
void statemap_flushed(struct statemap *m, uint64_t cover);

/* A planned write of b was never issued (the run ended first). */
void statemap_unplan(struct statemap *m, uint64_t b);

/* The storage loses power (tag: the caller's number for that loss,
 * 1..POWER_LOSSES_MAX).  A cut is not an instant: it is known to begin
 * before the fault's inject and to be over once the inject returned.
 *
 * begin (end = false): every block with a write issued and not yet durable
 * becomes revertible, and no completion queued so far can become durable
 * by a later flush.  Until the end, every write that completes is at risk
 * as well (the cache it went to may be the one going dark).
 * end (end = true): the same once more for what was issued in between and
 * is still on its way; from here on a write starts a clean history.
 *
 * Returns how many blocks this loss has made revertible so far (the
 * writes at risk; at the end, the loss's total). */
uint64_t statemap_power_loss(struct statemap *m, uint8_t tag, bool end);

/* --- queries --- */

/* The expectation for a read of block b.  `online` is true for reads by the
 * running workload and the final sweep, which may demand exactly the
 * acknowledged generation; false after a crash, where every planned
 * generation is allowed. */
void statemap_expect(const struct statemap *m, uint64_t b, bool online, struct expectation *e);

/* True when block b was ever given a write in this run. */
bool statemap_touched(const struct statemap *m, uint64_t b);

/* The first block >= from whose durable generation is set, or nblocks:
 * the durable array scanned four blocks a word, so that a sweep passes
 * the unwritten stretches of a large target at memory speed. */
uint64_t statemap_next_durable(const struct statemap *m, uint64_t from);

/* The blocks whose pending entry has a planned generation, ascending, in a
 * new array *out (free it) of *n.  With statemap_next_durable these are
 * every touched block (statemap_touched), found without asking each block.
 * 0, or -1 when memory is short. */
int statemap_pending_blocks(const struct statemap *m, uint64_t **out, size_t *n);

/* True when an I/O on b is in flight. */
bool statemap_busy(const struct statemap *m, uint64_t b);

/* Bytes the map uses at rest (durable array only) and in total. */
size_t statemap_bytes_at_rest(const struct statemap *m);
size_t statemap_bytes_total(const struct statemap *m);

/* --- raw access for checkpoints --- */

/* Inserts an entry as saved in a checkpoint.  -1 when memory is short. */
int statemap_restore_pending(struct statemap *m, const struct pending *p);
/* Appends to the ack queue as saved in a checkpoint. */
int statemap_restore_acked(struct statemap *m, uint64_t b, gen_t g);
/* The i-th queued completion (0 = oldest). */
const struct acked_write *statemap_acked_at(const struct statemap *m, size_t i);

#endif
