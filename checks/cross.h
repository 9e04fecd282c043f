/*
 * cross — reads of a block that another client owns (cross_reads), and how
 * they are judged.
 *
 * In a run over several clients (MPI ranks), client r owns the blocks b
 * with b % ranks == r and is the only one to write them.  A cross read is a
 * read by another client: does it see what the owner's storage promised?
 * The reader cannot know while it reads (clients exchange nothing during
 * the workload), so it only describes the read at once (cross_scan): the
 * generations its sectors carry, sectors of nothing (zero, another run),
 * damaged or misplaced sectors, and when it began and ended in its clock.
 * At the end the owner's history for that span (journal_history, widened
 * by the clocks' uncertainty) decides (cross_judge):
 *
 *   rule "acknowledged" (a device, a file, a LUN): a read that began after
 *   the owner's write was acknowledged must return that generation or a
 *   newer one; rule "close-to-open" (a file tree): the same once the
 *   owner's flush (fsync, then close) covered the write, the reader opening
 *   the file anew.  Older is `stale-read`; newer than anything the owner
 *   planned is `corrupt`; sectors of two generations are `torn` unless a
 *   write of the owner overlapped the read; damaged sectors are `corrupt`
 *   unless a write overlapped (a read racing a write may see half of it);
 *   a sector of another block is `misdirected`.  A write that failed lets
 *   the older durable generation back, as for the owner's own reads.
 */
#ifndef FL_CROSS_H
#define FL_CROSS_H

#include <stdbool.h>
#include <stdint.h>

#include "block.h"
#include "classify.h"
#include "gen.h"

enum {
    CROSS_NOTHING = 1,     /* a sector held nothing of this run (zero, another run) */
    CROSS_DAMAGED = 2,     /* a sector's checksum or magic was wrong */
    CROSS_MISDIRECTED = 4, /* a sector of this run named another block or writer */
};

/* One cross read, as the reader saw it (40 bytes, kept in memory and in
 * the reader's DIR/.../cross.bin). */
struct cross_read {
    uint64_t block;           /* global number */
    uint64_t t_start, t_end;  /* ns since time zero, in the reader's clock */
    gen_t lo, hi;             /* oldest and newest generation among its sectors (0: nothing) */
    uint8_t flags;            /* CROSS_* */
    uint8_t pad;
    uint16_t sector;          /* first damaged, misdirected or differing sector */
    uint32_t reader;          /* the reader's writer id (its global worker) */
    uint32_t other;           /* CROSS_MISDIRECTED: the block its stamp named (low 32 bits) */
};
_Static_assert(sizeof(struct cross_read) == 40, "cross read layout");

/* Scratch space for scanning blocks of one size. */
struct cross_scanner {
    uint64_t run_id;
    uint32_t target_id, block_size, nsect;
    uint32_t writers;         /* writer ids of the run: the owner of b is b % writers */
    enum sector_state *state;
    struct stamp *stamp;
};

int cross_scanner_init(struct cross_scanner *s, const struct block_fmt *fmt, uint32_t writers);
void cross_scanner_free(struct cross_scanner *s);

/* Describes the bytes a cross read of `block` returned into r (block and
 * times are the caller's). */
void cross_scan(struct cross_scanner *s, const void *buf, uint64_t block, struct cross_read *r);

/* What the owner's history says of the read's span (journal_history's
 * answer, restated here so that checks/ needs no journal). */
struct cross_history {
    gen_t acked, durable, planned;
    bool uncertain, known;
};

/* The class of a cross read under `close_to_open` or not, with the
 * generation it had to return at least (*expected) and a line for people.
 * CLS_OK when the storage kept its promise. */
enum fl_class cross_judge(const struct cross_read *r, const struct cross_history *h,
                          bool close_to_open, gen_t *expected, char *detail, size_t n);

#endif
