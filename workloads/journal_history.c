/*
 * journal_history — what the retained segments (journal.old, journal.bin)
 * say of the past: when a write completed (journal_lookup_done), and what
 * a read of a block by another client could have seen (journal_history).
 */
#include "journal_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The wanted (block, gen) pairs, sorted by block for binary search. */
struct lookup {
    size_t n;
    size_t *order; /* indices sorted by block */
    const uint64_t *block;
    const gen_t *gen;
    uint64_t *t;
};

static const uint64_t *sort_blocks;
static int by_block(const void *a, const void *b)
{
    uint64_t x = sort_blocks[*(const size_t *)a], y = sort_blocks[*(const size_t *)b];
    return x < y ? -1 : x > y;
}

static int lookup_one(void *ctx, const struct jrec *r)
{
    struct lookup *l = ctx;
    if (r->type != J_DONE && r->type != J_DONE_DURABLE)
        return 0;
    size_t lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (l->block[l->order[mid]] < r->block)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < l->n && l->block[l->order[lo]] == r->block; lo++)
        if (l->gen[l->order[lo]] == r->gen)
            l->t[l->order[lo]] = r->t_ns; /* later records win: the newest write */
    return 0;
}

int journal_lookup_done(const char *dir, size_t n, const uint64_t *block, const gen_t *gen,
                        uint64_t *t_ns)
{
    for (size_t i = 0; i < n; i++)
        t_ns[i] = UINT64_MAX;
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    if (!order)
        return -1;
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    sort_blocks = block;
    qsort(order, n, sizeof *order, by_block);
    struct lookup l = {.n = n, .order = order, .block = block, .gen = gen, .t = t_ns};
    const char *names[] = {"journal.old", "journal.bin"};
    int read_any = 0;
    for (int k = 0; k < 2; k++) {
        char path[PATH_MAX + 16];
        journal_path_in(path, sizeof path, dir, names[k]);
        int eno;
        struct seg sg;
        if (journal_seg_open(&sg, path, &eno) != 0)
            continue;
        struct seg_result sc;
        if (sg.have_head)
            journal_seg_scan(&sg, &l, lookup_one, &sc);
        journal_seg_close(&sg);
        read_any = 1;
    }
    free(order);
    return read_any ? 0 : -1;
}

/* --- history, for reads by other clients --- */

/* One instant a query needs the state at: the start of its read (lo) or
 * its end (hi). */
struct hpoint {
    uint64_t t;
    size_t q;
    bool hi;
};

/* The replay keeps a state map of only the blocks asked about, numbered
 * densely (their index in `blocks`), plus one more, the sink, that stands
 * for every other block: their completions still count in the ack queue
 * (a flush covers completions by number), and nothing is ever asked of
 * the sink.  Memory goes with the queries, not with the target. */
struct hreplay {
    struct statemap m;    /* nblk + 1 entries */
    const struct history_query *q;
    struct history_answer *a;
    struct hpoint *pts;
    size_t npts, next;
    uint64_t *blocks;     /* the blocks asked about, sorted, each once */
    size_t nblk;
    uint64_t nblocks;     /* of the worker: a record beyond is damage */
    uint8_t *intent_seen; /* per index: an intent of the block was replayed */
    bool base_known;      /* replay starts from the run's empty start */
    bool flushes_known;   /* the completion count of the first segment is known */
};

static int by_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The dense index of block b: its place in h->blocks, or the sink. */
static size_t hindex(const struct hreplay *h, uint64_t b)
{
    size_t lo = 0, hi = h->nblk;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (h->blocks[mid] < b)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < h->nblk && h->blocks[lo] == b ? lo : h->nblk;
}

static int by_point_time(const void *a, const void *b)
{
    const struct hpoint *x = a, *y = b;
    return x->t < y->t ? -1 : x->t > y->t;
}

static void hsnap(struct hreplay *h, const struct hpoint *p)
{
    size_t b = hindex(h, h->q[p->q].block);
    struct history_answer *a = &h->a[p->q];
    const struct pending *e = statemap_find(&h->m, b);
    gen_t durable = h->m.durable[b];
    if (e && (e->flags & (PEND_UNCERTAIN | PEND_REVERTIBLE)))
        a->uncertain = true; /* a failed write, or a power loss: an older one may be back */
    if (p->hi) {
        a->planned = e ? gen_newest(durable, e->planned) : durable;
        a->known = h->base_known || h->intent_seen[b];
    } else {
        a->acked = e ? gen_newest(durable, e->acked) : durable;
        a->durable = durable;
    }
}

/* The state at every point before time t is what the records so far made. */
static void hsnap_until(struct hreplay *h, uint64_t t)
{
    while (h->next < h->npts && h->pts[h->next].t < t)
        hsnap(h, &h->pts[h->next++]);
}

static int hreplay_one(void *ctx, const struct jrec *r)
{
    struct hreplay *h = ctx;
    hsnap_until(h, r->t_ns); /* a record at t still counts for a point at t */
    struct jrec d = *r;
    if (r->type != J_FLUSH && r->type != J_POWER) {
        if (r->block >= h->nblocks)
            return -1;
        d.block = hindex(h, r->block);
    }
    if (d.type == J_INTENT)
        h->intent_seen[d.block] = 1;
    if (d.type == J_FLUSH && !h->flushes_known)
        return 0; /* cannot tell which completions it covered: durable stays low */
    int rc = journal_replay_one(&h->m, &d);
    if (!h->flushes_known) {
        /* No flush will cover what is queued: drop it rather than keep
         * every completion of the segments (16 bytes each). */
        h->m.ack_head = (h->m.ack_head + h->m.ack_len) % h->m.ack_cap;
        h->m.ack_len = 0;
    }
    return rc;
}

/* The segment number in a journal file's header, 0 when unreadable. */
static uint64_t segment_of(const struct seg *s, uint64_t run_id)
{
    struct jhead jh;
    char err[PATH_MAX + 256];
    if (s->fd < 0 ||
        journal_jhead_check(s->raw, s->rawlen, "journal", run_id, &jh, err, sizeof err) != 0)
        return 0;
    return jh.segment;
}

static int count_one_done(void *ctx, const struct jrec *r)
{
    *(uint64_t *)ctx += r->type == J_DONE;
    return 0;
}

/* Completions a segment queued for flushes (as far as replay reads it). */
static uint64_t count_done(struct seg *s)
{
    uint64_t n = 0;
    struct seg_result sc;
    if (s->have_head)
        journal_seg_scan(s, &n, count_one_done, &sc);
    return n;
}

/* Reads the header of dir/state.bin into *sh: the run's identity and its
 * counts are all the history needs of it.  0, or -1 with err. */
static int history_state_head(const char *dir, struct shead *sh, char *err, size_t errlen)
{
    char path[PATH_MAX + 16];
    journal_path_in(path, sizeof path, dir, "state.bin");
    int sfd = open(path, O_RDONLY | O_CLOEXEC);
    if (sfd < 0 || journal_read_at(sfd, sh, sizeof *sh, 0) != 0) {
        int eno = errno;
        snprintf(err, errlen, "cannot read %s: %s", path,
                 sfd >= 0 && eno == EIO ? "truncated" : strerror(eno));
        if (sfd >= 0)
            close(sfd);
        return -1;
    }
    close(sfd);
    return journal_shead_check(sh, path, err, errlen);
}

/* Completion numbers continue over segments: the first replayed one's
 * base is state.bin's count minus what the segments before it added.
 * Sets h->flushes_known when that can be told (always from the run's
 * start); the base, 0 when it cannot. */
static uint64_t history_ack_base(struct hreplay *h, const struct shead *sh, struct seg *seg,
                                 const uint64_t *segno, int first)
{
    uint64_t base = 0;
    h->flushes_known = h->base_known;
    if (!h->base_known && sh->segment >= segno[first] && sh->segment <= segno[1] + 1) {
        uint64_t added = 0;
        for (int k = first; k < 2; k++)
            if (segno[k] < sh->segment)
                added += count_done(&seg[k]);
        if (added <= sh->ack_total) {
            base = sh->ack_total - added;
            h->flushes_known = true;
        }
    }
    return base;
}

/* The replay's memory, which goes with the n queries: their points in
 * time, the blocks asked about (sorted, each once) and a state map of
 * those.  0, or -1 with err (nothing left allocated). */
static int hreplay_alloc(struct hreplay *h, const char *dir, size_t n,
                         const struct history_query *q, char *err, size_t errlen)
{
    h->npts = 2 * n;
    h->pts = malloc((h->npts ? h->npts : 1) * sizeof *h->pts);
    h->blocks = malloc((n ? n : 1) * sizeof *h->blocks);
    h->intent_seen = calloc(n + 1, 1);
    if (h->blocks) {
        for (size_t i = 0; i < n; i++)
            h->blocks[i] = q[i].block;
        qsort(h->blocks, n, sizeof *h->blocks, by_u64);
        for (size_t i = 0; i < n; i++)
            if (h->nblk == 0 || h->blocks[h->nblk - 1] != h->blocks[i])
                h->blocks[h->nblk++] = h->blocks[i];
    }
    if (!h->pts || !h->blocks || !h->intent_seen || statemap_init(&h->m, h->nblk + 1) != 0) {
        snprintf(err, errlen, "out of memory for the history of %s", dir);
        free(h->pts);
        free(h->blocks);
        free(h->intent_seen);
        return -1;
    }
    return 0;
}

static void hreplay_free(struct hreplay *h)
{
    statemap_free(&h->m);
    free(h->pts);
    free(h->blocks);
    free(h->intent_seen);
}

/* Replays the retained segments seg[first..1] (files names[k] of dir) in
 * order, taking each query's state at its points as the records pass
 * them.  0, or -1 with err. */
static int hreplay_segments(struct hreplay *h, const char *dir, const char *const *names,
                            struct seg *seg, int first, char *err, size_t errlen)
{
    int rc = 0;
    qsort(h->pts, h->npts, sizeof *h->pts, by_point_time);
    for (int k = first; k < 2 && rc == 0; k++) {
        struct seg_result sc;
        int sr =
            seg[k].fd >= 0 && seg[k].have_head ? journal_seg_scan(&seg[k], h, hreplay_one, &sc) : 0;
        if (sr == -2) {
            snprintf(err, errlen, "%s/%s, byte offset %llu: %s", dir, names[k],
                     (unsigned long long)sc.off, sc.why);
            rc = -1;
        } else if (sr != 0) {
            snprintf(err, errlen, "%s/%s: a record names a block outside the target, or "
                     "memory is short", dir, names[k]);
            rc = -1;
        }
    }
    while (h->next < h->npts) /* points after the last record */
        hsnap(h, &h->pts[h->next++]);
    return rc;
}

int journal_history(const char *dir, size_t n, const struct history_query *q,
                    struct history_answer *a, char *err, size_t errlen)
{
    memset(a, 0, n * sizeof *a);
    struct shead sh;
    if (history_state_head(dir, &sh, err, errlen) != 0)
        return -1;
    /* The retained segments, oldest first, as long as they follow each other. */
    const char *const names[2] = {"journal.old", "journal.bin"};
    char path[PATH_MAX + 16];
    int eno = 0;
    struct seg seg[2];
    uint64_t segno[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        journal_path_in(path, sizeof path, dir, names[k]);
        if (journal_seg_open(&seg[k], path, &eno) != 0)
            seg[k].fd = -1; /* missing or unreadable: segno 0 */
        segno[k] = segment_of(&seg[k], sh.meta.run_id);
    }
    int first = segno[0] && segno[1] == segno[0] + 1 ? 0 : 1;
    int rc = 0;
    struct hreplay h = {.q = q, .a = a, .nblocks = sh.meta.nblocks};
    if (!segno[first]) {
        snprintf(err, errlen, "%s/journal.bin does not belong to this run", dir);
        rc = -1;
        goto out;
    }
    h.base_known = segno[first] == 1; /* the first segment starts from nothing written */
    uint64_t base = history_ack_base(&h, &sh, seg, segno, first);
    if (hreplay_alloc(&h, dir, n, q, err, errlen) != 0) {
        rc = -1;
        goto out;
    }
    h.m.ack_total = base;
    for (size_t i = 0; i < n; i++) {
        if (q[i].block >= sh.meta.nblocks) {
            snprintf(err, errlen, "%s: block %llu is not one of its %llu", dir,
                     (unsigned long long)q[i].block, (unsigned long long)sh.meta.nblocks);
            rc = -1;
        }
        h.pts[2 * i] = (struct hpoint){.t = q[i].t_lo, .q = i, .hi = false};
        h.pts[2 * i + 1] = (struct hpoint){.t = q[i].t_hi, .q = i, .hi = true};
    }
    if (rc == 0)
        rc = hreplay_segments(&h, dir, names, seg, first, err, errlen);
    hreplay_free(&h);
out:
    journal_seg_close(&seg[0]);
    journal_seg_close(&seg[1]);
    return rc;
}
