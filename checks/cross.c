/* cross — see cross.h. */
#include "cross.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cross_scanner_init(struct cross_scanner *s, const struct block_fmt *fmt, uint32_t writers)
{
    memset(s, 0, sizeof *s);
    s->run_id = fmt->run_id;
    s->target_id = fmt->target_id;
    s->block_size = fmt->block_size;
    s->nsect = fmt->block_size / FL_SECTOR;
    s->writers = writers ? writers : 1;
    s->state = calloc(s->nsect, sizeof *s->state);
    s->stamp = calloc(s->nsect, sizeof *s->stamp);
    if (!s->state || !s->stamp) {
        cross_scanner_free(s);
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

void cross_scanner_free(struct cross_scanner *s)
{
    free(s->state);
    free(s->stamp);
    s->state = NULL;
    s->stamp = NULL;
}

/* Notes sector `sec` as the first one that differs, unless one did already. */
static void first_odd(struct cross_read *r, bool *have, uint32_t sec)
{
    if (!*have) {
        r->sector = (uint16_t)sec;
        *have = true;
    }
}

void cross_scan(struct cross_scanner *s, const void *buf, uint64_t block, struct cross_read *r)
{
    block_decode(buf, s->nsect, s->state, s->stamp, NULL, NULL);
    r->lo = r->hi = GEN_NONE;
    r->flags = 0;
    r->sector = 0;
    r->other = 0;
    bool any = false, odd = false;
    uint32_t owner = (uint32_t)(block % s->writers);
    for (uint32_t i = 0; i < s->nsect; i++) {
        const struct stamp *st = &s->stamp[i];
        gen_t g = GEN_NONE;
        if (s->state[i] == SECTOR_BAD_CRC || s->state[i] == SECTOR_BAD_MAGIC) {
            r->flags |= CROSS_DAMAGED;
            first_odd(r, &odd, i);
            continue;
        }
        if (s->state[i] == SECTOR_VALID && st->run_id == s->run_id) {
            if (st->block != block || st->sector != i || st->sectors != s->nsect ||
                st->target_id != s->target_id || st->writer_id != owner) {
                r->flags |= CROSS_MISDIRECTED;
                r->other = (uint32_t)st->block;
                first_odd(r, &odd, i);
                continue;
            }
            g = (gen_t)st->gen;
        } else {
            r->flags |= CROSS_NOTHING; /* zero, or a sector of another run */
        }
        if (!any) {
            r->lo = r->hi = g;
            any = true;
            continue;
        }
        if (g != r->lo || g != r->hi)
            first_odd(r, &odd, i);
        if (gen_cmp(g, r->lo) < 0)
            r->lo = g;
        if (gen_cmp(g, r->hi) > 0)
            r->hi = g;
    }
}

enum fl_class cross_judge(const struct cross_read *r, const struct cross_history *h,
                          bool close_to_open, gen_t *expected, char *detail, size_t n)
{
    /* What the read had to return at least: the owner's acknowledged (or,
     * close-to-open, published) generation when it began; after a failed
     * write only the durable one is certain. */
    gen_t need = close_to_open || h->uncertain ? h->durable : h->acked;
    /* A write of the owner overlapped the read when one was planned by its
     * end that was not acknowledged by its start. */
    bool overlap = !h->known || gen_cmp(h->planned, h->acked) > 0;
    bool never = h->known && h->planned == GEN_NONE;
    *expected = need;
    if (r->flags & CROSS_MISDIRECTED) {
        snprintf(detail, n, "sector %u holds data of block %u", r->sector, r->other);
        return CLS_MISDIRECTED;
    }
    if ((r->flags & CROSS_DAMAGED) && !overlap && !never) {
        snprintf(detail, n, "sector %u: checksum or magic wrong, and no write of the owner "
                 "overlapped the read", r->sector);
        return CLS_CORRUPT;
    }
    if (r->lo == GEN_NONE && r->hi == GEN_NONE && (r->flags & CROSS_DAMAGED))
        return CLS_OK; /* nothing intact to judge: half a racing write, or never written */
    if (gen_cmp(r->lo, need) < 0) {
        snprintf(detail, n, "generation %u found; generation %u was %s before the read began",
                 r->lo, need, close_to_open ? "flushed and closed" : "acknowledged");
        return CLS_STALE_READ;
    }
    if (h->known && gen_cmp(r->hi, h->planned) > 0) {
        snprintf(detail, n, "generation %u found, newer than any write the owner planned "
                 "(newest %u)", r->hi, h->planned);
        return CLS_CORRUPT;
    }
    if (r->lo != r->hi && !overlap) {
        snprintf(detail, n, "sectors of generations %u and %u, and no write of the owner "
                 "overlapped the read", r->lo, r->hi);
        return CLS_TORN;
    }
    return CLS_OK;
}
