/*
 * findings — counts per class and the list of bad reads.
 *
 * Every verified read is counted in its class; every read that is not ok or
 * unwritten (and every failed write or flush) becomes a finding that names
 * the block, the byte offset, expected and found generation, when the block
 * was written and when the bad read happened.  A block read bad again in the
 * same class adds to that finding's `repeats` (and `last_read_ns`) instead of
 * a new entry, so a handful of damaged blocks read thousands of times stay a
 * handful of findings.  A file tree's namespace check adds findings about
 * names (missing-file, unexpected-file, wrong-size) that carry their path
 * and no block.  The list keeps the first `limit` findings (counts go
 * on): a dead target can produce millions.
 */
#ifndef FL_FINDINGS_H
#define FL_FINDINGS_H

#include <stddef.h>
#include <stdint.h>

#include "../lib/clock.h"
#include "classify.h"

#define FL_NO_BLOCK UINT64_MAX /* a finding about a name (file tree), not a block */
#define FL_FINDING_PATH 256

struct finding {
    enum fl_class cls;
    const char *phase;       /* "workload", "sweep" or "verify" */
    const char *op;          /* "read", "write", "flush"; for names the operation that
                                should have made what was found ("create", "rename"...) */
    uint64_t block;          /* FL_NO_BLOCK for a name finding */
    uint64_t offset;         /* byte offset of the first offending sector */
    gen_t expected_gen;      /* the newest generation the read had to return */
    gen_t found_gen;
    int found_known;         /* 0: nothing readable was found */
    uint64_t written_ns;     /* expected generation completed, ns since run start */
    uint64_t read_ns;        /* the bad read completed, ns since run start */
    uint64_t found_written_ns; /* the found data was issued (from its stamp) */
    uint64_t repeats;        /* further bad reads of this block in this class */
    uint64_t last_read_ns;
    char detail[192];
    char path[FL_FINDING_PATH]; /* a name finding's path below the tree root; "" for blocks */
    /* A run over several clients: the client (rank) whose read found it
     * (-1: a later verify), and the client that owns the block or name. */
    int client, owner;
};

struct findings {
    uint64_t counts[CLS_COUNT];
    struct finding *list;
    size_t n, cap, limit;
    uint64_t unlisted; /* findings beyond the limit */
    size_t *index;     /* hash of (block, class) -> position in list + 1 */
    size_t index_cap;
};

void findings_init(struct findings *f, size_t limit);
void findings_free(struct findings *f);

/* Counts a read that is not a finding (ok, unwritten). */
void findings_count(struct findings *f, enum fl_class c);

/* Counts and, within the limit, keeps a finding. */
void findings_add(struct findings *f, const struct finding *x);

/* Keeps a finding that is counted already (merging worker lists). */
void findings_keep(struct findings *f, const struct finding *x);

/* Adds another list's counts and keeps its findings (workers, streams). */
void findings_merge(struct findings *to, const struct findings *from);

/* Counts and keeps a finding about a name of a file tree (missing-file,
 * unexpected-file, wrong-size, or an io-error of a metadata operation):
 * its path relative to the tree root, the operation that should have made
 * what is expected and when it did (op_ns), and a line of detail. */
void findings_add_name(struct findings *f, enum fl_class cls, const char *path, const char *op,
                       const char *phase, uint64_t op_ns, uint64_t read_ns, const char *detail);

/* Number of findings (everything but ok and unwritten). */
uint64_t findings_bad(const struct findings *f);

#endif
