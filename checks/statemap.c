/* statemap — see statemap.h. */
#include "statemap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/rng.h"

#define MIN_CAP 64
#define MIN_ACK 256

static size_t home(const struct statemap *m, uint64_t b)
{
    return (size_t)rng_slot(b) & (m->cap - 1);
}

int statemap_init(struct statemap *m, uint64_t nblocks)
{
    memset(m, 0, sizeof *m);
    m->nblocks = nblocks;
    m->durable = calloc(nblocks ? nblocks : 1, sizeof *m->durable);
    m->cap = MIN_CAP;
    m->tab = calloc(m->cap, sizeof *m->tab);
    m->ack_cap = MIN_ACK;
    m->ackq = calloc(m->ack_cap, sizeof *m->ackq);
    if (!m->durable || !m->tab || !m->ackq) {
        statemap_free(m);
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

void statemap_free(struct statemap *m)
{
    free(m->durable);
    free(m->tab);
    free(m->ackq);
    m->durable = NULL;
    m->tab = NULL;
    m->ackq = NULL;
    m->cap = m->count = m->ack_cap = m->ack_len = 0;
}

struct pending *statemap_find(const struct statemap *m, uint64_t b)
{
    for (size_t i = home(m, b);; i = (i + 1) & (m->cap - 1)) {
        if (!m->tab[i].used)
            return NULL;
        if (m->tab[i].block == b)
            return &m->tab[i];
    }
}

static void place(struct statemap *m, const struct pending *p)
{
    size_t j = home(m, p->block);
    while (m->tab[j].used)
        j = (j + 1) & (m->cap - 1);
    m->tab[j] = *p;
}

static int grow(struct statemap *m)
{
    struct pending *old = m->tab;
    size_t oldcap = m->cap;
    struct pending *tab = calloc(oldcap * 2, sizeof *tab);
    if (!tab)
        return -1;
    m->tab = tab;
    m->cap = oldcap * 2;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].used)
            place(m, &old[i]);
    free(old);
    return 0;
}

/* The entry of b, created from the durable state when absent. */
static struct pending *pending_of(struct statemap *m, uint64_t b)
{
    struct pending *p = statemap_find(m, b);
    if (p)
        return p;
    if ((m->count + 1) * 2 > m->cap && grow(m) != 0)
        return NULL;
    gen_t d = m->durable[b];
    struct pending fresh = {.block = b, .planned = d, .issued = d, .acked = d, .used = 1};
    place(m, &fresh);
    if (++m->count > m->peak)
        m->peak = m->count;
    return statemap_find(m, b);
}

/* Backward-shift deletion keeps every probe chain unbroken without tombstones. */
static void erase(struct statemap *m, size_t i)
{
    size_t mask = m->cap - 1;
    size_t j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (!m->tab[j].used)
            break;
        size_t k = home(m, m->tab[j].block);
        bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
        if (stays)
            continue;
        m->tab[i] = m->tab[j];
        i = j;
    }
    m->tab[i].used = 0;
    m->count--;
}

/* Drops p once nothing about its block is pending any more. */
static void settle(struct statemap *m, struct pending *p)
{
    if (p && !p->flags && p->planned == m->durable[p->block])
        erase(m, (size_t)(p - m->tab));
}

static void make_durable(struct statemap *m, uint64_t b, gen_t g)
{
    if (gen_cmp(g, m->durable[b]) > 0)
        m->durable[b] = g;
}

gen_t statemap_plan(struct statemap *m, uint64_t b)
{
    struct pending *p = pending_of(m, b);
    if (!p)
        return GEN_NONE;
    gen_t g = gen_next(p->planned);
    if (gen_distance(m->durable[b], g) > STATEMAP_MAX_AHEAD) {
        settle(m, p);
        return GEN_NONE;
    }
    p->planned = g;
    return g;
}

int statemap_plan_gen(struct statemap *m, uint64_t b, gen_t g)
{
    struct pending *p = pending_of(m, b);
    if (!p)
        return -1;
    p->planned = gen_newest(p->planned, g);
    p->issued = p->planned; /* replay cannot tell; assume it reached the storage */
    return 0;
}

int statemap_issue(struct statemap *m, uint64_t b, bool write, gen_t g)
{
    struct pending *p = pending_of(m, b);
    if (!p)
        return -1;
    p->flags |= PEND_INFLIGHT;
    if (write)
        p->issued = g;
    return 0;
}

void statemap_read_done(struct statemap *m, uint64_t b)
{
    struct pending *p = statemap_find(m, b);
    if (!p)
        return;
    p->flags &= (uint8_t)~PEND_INFLIGHT;
    settle(m, p);
}

static int ack_push(struct statemap *m, uint64_t b, gen_t g)
{
    if (m->ack_len == m->ack_cap) {
        struct acked_write *q = malloc(m->ack_cap * 2 * sizeof *q);
        if (!q)
            return -1;
        for (size_t i = 0; i < m->ack_len; i++)
            q[i] = m->ackq[(m->ack_head + i) % m->ack_cap];
        free(m->ackq);
        m->ackq = q;
        m->ack_head = 0;
        m->ack_cap *= 2;
    }
    m->ackq[(m->ack_head + m->ack_len) % m->ack_cap] = (struct acked_write){.block = b, .gen = g};
    m->ack_len++;
    m->ack_total++;
    return 0;
}

/* Block p may lose what was issued up to generation g in power loss tag. */
static void mark_revertible(struct statemap *m, struct pending *p, uint8_t tag, gen_t g)
{
    if (!(p->flags & PEND_REVERTIBLE) || p->loss != tag)
        m->loss_blocks++;
    p->flags |= PEND_REVERTIBLE;
    p->at_loss = gen_newest(p->at_loss, g);
    p->loss = tag;
}

int statemap_write_done(struct statemap *m, uint64_t b, gen_t g, bool ok, bool durable_now)
{
    struct pending *p = pending_of(m, b);
    if (!p)
        return -1;
    p->flags &= (uint8_t)~PEND_INFLIGHT;
    if (!ok) {
        p->flags |= PEND_UNCERTAIN;
        return 0;
    }
    /* A whole-block write that completed replaces whatever a failed one left. */
    p->flags &= (uint8_t)~PEND_UNCERTAIN;
    p->acked = gen_newest(p->acked, g);
    if (m->loss_open) /* completed while the power is being cut: at risk like the rest */
        mark_revertible(m, p, m->loss_open, g);
    if (p->flags & PEND_REVERTIBLE) {
        /* One that was on its way when the power went may have been
         * acknowledged by the cache that died: still at risk, and no flush
         * makes it durable (statemap_flushed skips it; it is queued all the
         * same, so that completion counts stay those of the journal).  One
         * issued after the loss starts over. */
        if (gen_cmp(g, p->at_loss) <= 0)
            return durable_now ? 0 : ack_push(m, b, g);
        p->flags &= (uint8_t)~PEND_REVERTIBLE;
        p->loss = 0;
    }
    if (durable_now) {
        make_durable(m, b, g);
        settle(m, p);
        return 0;
    }
    return ack_push(m, b, g);
}

uint64_t statemap_acked_total(const struct statemap *m)
{
    return m->ack_total;
}

void statemap_flushed(struct statemap *m, uint64_t cover)
{
    while (m->ack_len > 0 && m->ack_total - m->ack_len < cover) {
        struct acked_write w = m->ackq[m->ack_head];
        m->ack_head = (m->ack_head + 1) % m->ack_cap;
        m->ack_len--;
        struct pending *p = statemap_find(m, w.block);
        if (p && gen_cmp(w.gen, p->at_loss) <= 0)
            continue; /* issued before a power loss (at_loss is 0 for others) */
        make_durable(m, w.block, w.gen);
        settle(m, p);
    }
}

void statemap_unplan(struct statemap *m, uint64_t b)
{
    struct pending *p = statemap_find(m, b);
    if (!p)
        return;
    p->planned = p->issued;
    settle(m, p);
}

uint64_t statemap_power_loss(struct statemap *m, uint8_t tag, bool end)
{
    if (!end)
        m->loss_blocks = 0;
    m->loss_open = end ? 0 : tag;
    for (size_t i = 0; i < m->cap; i++) {
        struct pending *p = &m->tab[i];
        if (p->used && p->issued != m->durable[p->block])
            mark_revertible(m, p, tag, p->issued);
    }
    /* Completions not yet flushed stay acknowledged, never durable: drop
     * them from the queue as if covered, without promoting them. */
    m->ack_head = (m->ack_head + m->ack_len) % m->ack_cap;
    m->ack_len = 0;
    return m->loss_blocks;
}

void statemap_expect(const struct statemap *m, uint64_t b, bool online, struct expectation *e)
{
    const struct pending *p = statemap_find(m, b);
    e->lo = m->durable[b];
    e->revertible = false;
    e->loss = 0;
    if (!p) {
        e->hi = e->acked = e->lo;
        e->strict = true;
        return;
    }
    e->acked = p->acked;
    if (p->flags & PEND_REVERTIBLE) {
        e->hi = online ? p->issued : p->planned;
        e->strict = false;
        e->revertible = true;
        e->loss = p->loss;
        return;
    }
    if (!online) {
        /* After a crash of the run itself, what was acknowledged but not
         * flushed may be missing too: say so rather than pass it silently. */
        e->revertible = gen_cmp(p->acked, e->lo) > 0;
    }
    if (online && !(p->flags & PEND_UNCERTAIN)) {
        /* Reads and writes of one block never overlap, so nothing is in
         * flight here: the storage must return the newest acknowledged write. */
        e->hi = p->acked;
        e->strict = true;
    } else {
        /* A failed write may or may not have reached the media; after a crash
         * any planned write may have. */
        e->hi = online ? p->issued : p->planned;
        e->strict = false;
    }
}

bool statemap_touched(const struct statemap *m, uint64_t b)
{
    if (m->durable[b] != GEN_NONE)
        return true;
    const struct pending *p = statemap_find(m, b);
    return p && p->planned != GEN_NONE;
}

uint64_t statemap_next_durable(const struct statemap *m, uint64_t from)
{
    uint64_t b = from;
    for (; b < m->nblocks && b % 4; b++)
        if (m->durable[b] != GEN_NONE)
            return b;
    for (; b + 4 <= m->nblocks; b += 4) {
        uint64_t w;
        memcpy(&w, &m->durable[b], sizeof w);
        if (w)
            break;
    }
    for (; b < m->nblocks; b++)
        if (m->durable[b] != GEN_NONE)
            return b;
    return m->nblocks;
}

static int by_block(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int statemap_pending_blocks(const struct statemap *m, uint64_t **out, size_t *n)
{
    *n = 0;
    *out = malloc((m->count ? m->count : 1) * sizeof **out);
    if (!*out)
        return -1;
    for (size_t i = 0; i < m->cap; i++)
        if (m->tab[i].used && m->tab[i].planned != GEN_NONE)
            (*out)[(*n)++] = m->tab[i].block;
    qsort(*out, *n, sizeof **out, by_block);
    return 0;
}

bool statemap_busy(const struct statemap *m, uint64_t b)
{
    const struct pending *p = statemap_find(m, b);
    return p && (p->flags & PEND_INFLIGHT);
}

size_t statemap_bytes_at_rest(const struct statemap *m)
{
    return (size_t)m->nblocks * sizeof *m->durable;
}

size_t statemap_bytes_total(const struct statemap *m)
{
    return statemap_bytes_at_rest(m) + m->cap * sizeof *m->tab + m->ack_cap * sizeof *m->ackq;
}

int statemap_restore_pending(struct statemap *m, const struct pending *saved)
{
    struct pending *p = pending_of(m, saved->block);
    if (!p)
        return -1;
    p->planned = saved->planned;
    p->issued = saved->issued;
    p->acked = saved->acked;
    /* Nothing is in flight after a restart; a power cut's claim on the
     * block stays (else a verify would call what the cut took back a
     * stale read, where the run itself allowed it). */
    p->flags = saved->flags & (PEND_UNCERTAIN | PEND_REVERTIBLE);
    if (p->flags & PEND_REVERTIBLE) {
        p->at_loss = saved->at_loss;
        p->loss = saved->loss;
    }
    return 0;
}

int statemap_restore_acked(struct statemap *m, uint64_t b, gen_t g)
{
    return ack_push(m, b, g);
}

const struct acked_write *statemap_acked_at(const struct statemap *m, size_t i)
{
    if (i >= m->ack_len)
        return NULL;
    return &m->ackq[(m->ack_head + i) % m->ack_cap];
}
