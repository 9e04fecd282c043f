/*
 * classify — the class of one read of one block (the verdict is the run's:
 * verdict.h).
 *
 * Given the bytes a read returned and the expectation from the state map,
 * classify_block() says exactly one of:
 *
 *   ok           the generation the storage contract allows
 *   unwritten    a block never written in this run (whatever it holds)
 *   lost-write   older than the durable generation (or another run's data
 *                where ours was durable)
 *   stale-read   older than the newest acknowledged write while nothing (no
 *                crash, fault or failed write) allows it
 *   torn         sectors of different generations
 *   misdirected  a sector stamped for another block, sector, target or writer
 *   corrupt      a checksum or magic mismatch, or a generation newer than any
 *                write issued
 *   zeroed       all zero where data was durable
 *   io-error     the read itself failed (decided by the caller, not here)
 *   reverted     older than the acknowledged generation, not older than the
 *                durable one, on a block a power loss (or a crash of the
 *                run) may have taken back: what the contract allows, so not
 *                a finding, but counted and listed
 *
 * and for file trees (the `files` target, decided by its namespace checks):
 *
 *   missing-file     a file (or directory) the tree must hold is not there
 *   unexpected-file  a name is there that the tree must not hold
 *   wrong-size       a file is there with another size than it must have
 *
 * When several apply, the first in the order corrupt, misdirected, torn,
 * zeroed, lost-write, stale-read wins: the most specific damage is named.
 * Sectors of another run, zero sectors and (on never-written blocks) foreign
 * data all count as "generation 0", the state before our first write.
 */
#ifndef FL_CLASSIFY_H
#define FL_CLASSIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "block.h"
#include "statemap.h"

enum fl_class {
    CLS_OK,
    CLS_UNWRITTEN,
    CLS_LOST_WRITE,
    CLS_STALE_READ,
    CLS_TORN,
    CLS_MISDIRECTED,
    CLS_CORRUPT,
    CLS_ZEROED,
    CLS_IO_ERROR,
    CLS_MISSING_FILE,
    CLS_UNEXPECTED_FILE,
    CLS_WRONG_SIZE,
    CLS_REVERTED,
    CLS_COUNT
};

/* "ok", "unwritten", "lost-write", ... as used in reports. */
const char *class_name(enum fl_class c);

/* True for every class that makes a run fail (all but ok, unwritten and
 * reverted). */
bool class_is_finding(enum fl_class c);

struct classification {
    enum fl_class cls;
    gen_t found_gen;     /* generation found (of the offending sector when torn) */
    bool found_known;    /* false when nothing readable was found */
    uint32_t sector;     /* first offending sector inside the block */
    uint64_t found_written_ns; /* issue time of the found data, from its stamp */
    char detail[192];    /* one line for people */
    /* Signs that the state the read was judged by does not describe the
     * target (a verify from a run directory refuses on them, see verify.h):
     * other_run  not 0: the block holds, whole and intact, a write of this
     *            very block by another run (that run's id), where this
     *            run wrote;
     * beyond     an intact write of this run newer than any write issued. */
    uint64_t other_run;
    bool beyond;
};

/* Scratch space sized for one block size; reuse it for every block. */
struct classifier {
    struct block_fmt fmt;
    uint32_t nsect;
    enum sector_state *state;
    struct stamp *stamp;
};

int classifier_init(struct classifier *c, const struct block_fmt *fmt);
void classifier_free(struct classifier *c);

/* Classifies the bytes read from `block`.  Never returns CLS_IO_ERROR. */
enum fl_class classify_block(struct classifier *c, const void *buf, uint64_t block,
                             const struct expectation *e, struct classification *v);

#endif
