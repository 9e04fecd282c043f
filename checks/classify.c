/* classify — see classify.h. */
#include "classify.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[CLS_COUNT] = {
    [CLS_OK] = "ok",
    [CLS_UNWRITTEN] = "unwritten",
    [CLS_LOST_WRITE] = "lost-write",
    [CLS_STALE_READ] = "stale-read",
    [CLS_TORN] = "torn",
    [CLS_MISDIRECTED] = "misdirected",
    [CLS_CORRUPT] = "corrupt",
    [CLS_ZEROED] = "zeroed",
    [CLS_IO_ERROR] = "io-error",
    [CLS_MISSING_FILE] = "missing-file",
    [CLS_UNEXPECTED_FILE] = "unexpected-file",
    [CLS_WRONG_SIZE] = "wrong-size",
    [CLS_REVERTED] = "reverted",
};

const char *class_name(enum fl_class c)
{
    return (unsigned)c < CLS_COUNT ? names[c] : "?";
}

bool class_is_finding(enum fl_class c)
{
    return c != CLS_OK && c != CLS_UNWRITTEN && c != CLS_REVERTED;
}

int classifier_init(struct classifier *c, const struct block_fmt *fmt)
{
    memset(c, 0, sizeof *c);
    c->fmt = *fmt;
    c->nsect = fmt->block_size / FL_SECTOR;
    c->state = calloc(c->nsect, sizeof *c->state);
    c->stamp = calloc(c->nsect, sizeof *c->stamp);
    if (!c->state || !c->stamp) {
        classifier_free(c);
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

void classifier_free(struct classifier *c)
{
    free(c->state);
    free(c->stamp);
    c->state = NULL;
    c->stamp = NULL;
}

static enum fl_class conclude(struct classification *v, enum fl_class cls, uint32_t sector,
                              const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* The class of the read, with its first bad sector and a line for people. */
static enum fl_class conclude(struct classification *v, enum fl_class cls, uint32_t sector,
                              const char *fmt, ...)
{
    v->cls = cls;
    v->sector = sector;
    if (!class_is_finding(cls))
        return cls; /* ok reads are the hot path: no text for them */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->detail, sizeof v->detail, fmt, ap);
    va_end(ap);
    return cls;
}

/* True when the sector is ours and names exactly this block and position. */
static bool stamp_fits(const struct classifier *c, const struct stamp *st, uint64_t block,
                       uint32_t s)
{
    return st->target_id == c->fmt.target_id && st->writer_id == c->fmt.writer_id &&
           st->block == block && st->sector == s && st->sectors == c->nsect;
}

/* The id of the run whose intact write of this block the whole buffer holds
 * (every sector valid, of one run that is not ours, stamped for this block
 * and block size); 0 when it is not that. */
static uint64_t other_run(const struct classifier *c, uint64_t block)
{
    uint64_t run = c->stamp[0].run_id;
    for (uint32_t s = 0; s < c->nsect; s++) {
        const struct stamp *st = &c->stamp[s];
        if (c->state[s] != SECTOR_VALID || st->run_id != run || st->block != block ||
            st->sector != s || st->sectors != c->nsect)
            return 0;
    }
    return run != c->fmt.run_id ? run : 0;
}

/* Where sector s, whose checksum fails, differs from what its write put
 * there: the write is built again from the sector's own stamp (or from an
 * intact sector's, when the damage hit the stamp: one write stamps every
 * sector with the same generation and time) and compared byte by byte.
 * "" when no stamp of this run tells what was written. */
static void damage_of(const struct classifier *c, const unsigned char *buf, uint64_t block,
                      uint32_t s, char *out, size_t n)
{
    out[0] = '\0';
    struct stamp st;
    stamp_read(buf + (size_t)s * FL_SECTOR, &st);
    bool own = st.run_id == c->fmt.run_id && st.block == block && st.sector == s &&
               st.sectors == c->nsect;
    for (uint32_t k = 0; !own && k < c->nsect; k++)
        if (c->state[k] == SECTOR_VALID && c->stamp[k].run_id == c->fmt.run_id &&
            c->stamp[k].block == block) {
            st = c->stamp[k];
            own = true;
        }
    unsigned char *want = own ? malloc(c->fmt.block_size) : NULL; /* rare: a finding */
    if (!want)
        return;
    struct block_fmt fmt = c->fmt;
    fmt.writer_id = st.writer_id;
    block_fill(want, &fmt, block, st.gen, st.written_ns);
    const unsigned char *got = buf + (size_t)s * FL_SECTOR, *exp = want + (size_t)s * FL_SECTOR;
    unsigned differ = 0, first = 0;
    for (unsigned i = 0; i < FL_SECTOR; i++)
        if (got[i] != exp[i] && !differ++)
            first = i;
    if (differ)
        snprintf(out, n, "%u of its bytes differ from what generation %u wrote, the first at "
                 "byte %u of the block (0x%02x read, 0x%02x written)", differ, st.gen,
                 s * FL_SECTOR + first, got[first], exp[first]);
    free(want);
}

/* The three steps of classify_block below each either conclude (the
 * class, with v filled) or leave the read to the next step: CLS_COUNT. */
#define GO_ON CLS_COUNT

/* 1. Damaged sectors.  On a block we never wrote (never), anything goes.
 *    The finding names the generation the intact sectors still show. */
static enum fl_class damaged_sectors(const struct classifier *c, const void *buf, uint64_t block,
                                     bool never, uint32_t stored, uint32_t computed,
                                     struct classification *v)
{
    uint32_t bad = c->nsect;
    for (uint32_t s = 0; !never && s < c->nsect && bad == c->nsect; s++)
        if (c->state[s] == SECTOR_BAD_CRC || c->state[s] == SECTOR_BAD_MAGIC)
            bad = s;
    if (bad == c->nsect)
        return GO_ON;
    for (uint32_t s = 0; s < c->nsect; s++)
        if (c->state[s] == SECTOR_VALID && c->stamp[s].run_id == c->fmt.run_id) {
            v->found_gen = (gen_t)c->stamp[s].gen;
            v->found_known = true;
            v->found_written_ns = c->stamp[s].written_ns;
            break;
        }
    if (c->state[bad] == SECTOR_BAD_CRC) {
        char where[160];
        damage_of(c, buf, block, bad, where, sizeof where);
        if (where[0])
            return conclude(v, CLS_CORRUPT, bad, "sector %u damaged: %s", bad, where);
        return conclude(v, CLS_CORRUPT, bad,
                        "sector %u: crc32c mismatch (stored 0x%08x, computed 0x%08x)", bad,
                        stored, computed);
    }
    return conclude(v, CLS_CORRUPT, bad, "sector %u: not a faultline sector (bad magic)", bad);
}

/* 2. Identity of every valid sector of this run; generation per sector.
 *    Zero, foreign and (never-written) garbage sectors are generation 0.
 *    When every sector is of one generation: *g0, and *all_zero. */
static enum fl_class sector_generations(const struct classifier *c, uint64_t block,
                                        struct classification *v, gen_t *g0, bool *all_zero)
{
    *all_zero = true;
    *g0 = GEN_NONE;
    uint32_t torn_at = 0;
    bool torn = false;
    for (uint32_t s = 0; s < c->nsect; s++) {
        gen_t g = GEN_NONE;
        if (c->state[s] != SECTOR_ZERO)
            *all_zero = false;
        if (c->state[s] == SECTOR_VALID && c->stamp[s].run_id == c->fmt.run_id) {
            const struct stamp *st = &c->stamp[s];
            if (!stamp_fits(c, st, block, s)) {
                v->found_gen = (gen_t)st->gen;
                v->found_known = true;
                v->found_written_ns = st->written_ns;
                return conclude(v, CLS_MISDIRECTED, s,
                                "sector %u holds sector %u of block %llu (target %u, writer "
                                "%u, gen %u)",
                                s, st->sector, (unsigned long long)st->block, st->target_id,
                                st->writer_id, st->gen);
            }
            g = (gen_t)st->gen;
        }
        if (s == 0) {
            *g0 = g;
            if (g != GEN_NONE) {
                v->found_gen = g;
                v->found_known = true;
                v->found_written_ns = c->stamp[0].written_ns;
            }
        } else if (g != *g0 && !torn) {
            torn = true;
            torn_at = s;
        }
    }
    if (torn) {
        gen_t gt = c->state[torn_at] == SECTOR_VALID ? (gen_t)c->stamp[torn_at].gen : GEN_NONE;
        if (c->state[torn_at] == SECTOR_VALID && c->stamp[torn_at].run_id != c->fmt.run_id)
            gt = GEN_NONE;
        return conclude(v, CLS_TORN, torn_at,
                        "sector 0 has generation %u, sector %u has generation %u",
                        *g0, torn_at, gt);
    }
    return GO_ON;
}

/* 3. One generation (g0) for the whole block: compare with the
 *    expectation.  Always concludes. */
static enum fl_class against_expectation(const struct classifier *c, uint64_t block,
                                         const struct expectation *e, bool never, gen_t g0,
                                         bool all_zero, struct classification *v)
{
    if (g0 == GEN_NONE) {
        if (never)
            return conclude(v, CLS_UNWRITTEN, 0, "never written in this run");
        v->other_run = other_run(c, block);
        if (e->lo != GEN_NONE) {
            if (all_zero)
                return conclude(v, CLS_ZEROED, 0, "all zero; generation %u was durable", e->lo);
            return conclude(v, CLS_LOST_WRITE, 0,
                            "holds data from before this run; generation %u was durable", e->lo);
        }
        if (e->revertible && e->acked != GEN_NONE)
            return conclude(v, CLS_REVERTED, 0, "%s; generation %u was acknowledged, not flushed",
                            all_zero ? "all zero" : "old data", e->acked);
        if (e->strict && e->acked != GEN_NONE)
            return conclude(v, CLS_STALE_READ, 0, "%s; generation %u was acknowledged",
                            all_zero ? "all zero" : "old data", e->acked);
        return conclude(v, CLS_OK, 0, "first write not durable, not on the media");
    }
    if (gen_cmp(g0, e->lo) < 0)
        return conclude(v, CLS_LOST_WRITE, 0, "generation %u found; generation %u was durable", g0,
                        e->lo);
    v->beyond = gen_cmp(g0, e->hi) > 0;
    if (v->beyond)
        return conclude(v, CLS_CORRUPT, 0,
                        "generation %u found, newer than any write issued (newest %u)", g0, e->hi);
    if (e->revertible && gen_cmp(g0, e->acked) < 0)
        return conclude(v, CLS_REVERTED, 0,
                        "generation %u found; generation %u was acknowledged, not flushed", g0,
                        e->acked);
    if (e->strict && g0 != e->acked)
        return conclude(v, CLS_STALE_READ, 0,
                        "generation %u found; generation %u was acknowledged", g0, e->acked);
    return conclude(v, CLS_OK, 0, "generation %u", g0);
}

enum fl_class classify_block(struct classifier *c, const void *buf, uint64_t block,
                             const struct expectation *e, struct classification *v)
{
    uint32_t stored = 0, computed = 0;
    memset(v, 0, sizeof *v);
    block_decode(buf, c->nsect, c->state, c->stamp, &stored, &computed);
    bool never = e->lo == GEN_NONE && e->hi == GEN_NONE;
    enum fl_class cls = damaged_sectors(c, buf, block, never, stored, computed, v);
    if (cls != GO_ON)
        return cls;
    gen_t g0;
    bool all_zero;
    cls = sector_generations(c, block, v, &g0, &all_zero);
    if (cls != GO_ON)
        return cls;
    return against_expectation(c, block, e, never, g0, all_zero, v);
}
