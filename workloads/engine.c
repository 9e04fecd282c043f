/* engine — see engine.h for the life of one block. */
#include "engine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/clock.h"
#include "../lib/rng.h"
#include "iopool.h"

#define BATCH_MIN 1024
#define BATCH_MAX 16384
#define PLAN_CAP (2 * BATCH_MAX) /* power of two */
#define FLUSH_SLOTS 2
#define SEGMENT_MIN (64ull << 20)

struct planned {
    uint64_t block; /* local; global for a cross read */
    gen_t gen;      /* GEN_NONE for a read */
    bool cross;     /* a read of a block another client owns */
};

struct run {
    struct engine *e;
    struct iopool pool;     /* one buffer per read or write in flight */
    unsigned data_inflight; /* reads and writes at the storage */
    struct io flush_io[FLUSH_SLOTS];
    bool flush_busy[FLUSH_SLOTS];
    unsigned flushes_inflight;

    struct planned *plan; /* ring of PLAN_CAP */
    uint64_t head;        /* next op to issue */
    uint64_t committed;   /* ops before this index have durable intents */
    uint64_t tail;        /* end of planned ops */
    bool commit_pending;
    uint64_t commit_ticket, commit_end;
    size_t batch;

    struct rng rng; /* the op sequence, reproducible from the scenario seed */
    uint64_t cursor; /* sequential pattern */
    unsigned writes_since_flush;
    bool need_flush;
    uint64_t segment_limit;
    uint64_t stalled_on; /* commit ticket of the last journal stall counted */
    bool prefill;        /* every block once, in order, writes only */
    struct cross_scanner xscan; /* cross reads: what their sectors hold */
    bool xscan_ready;
    /* The last writes planned (reread): a ring, recent_n of them filled. */
    uint64_t recent[ENGINE_REREAD_RECENT];
    unsigned recent_n, recent_next;
    uint64_t reaped_at; /* now_rel() of the last reap that returned I/Os, 0: none since */
};


/* ns since the workload started; 0 before it (prefill). */
static uint64_t now_rel(const struct engine *e)
{
    uint64_t now = mono_ns();
    return now > e->t0 ? now - e->t0 : 0;
}

/* A random block of another client: rank r' != ours, then one of its
 * blocks b = r' + ranks * j.  UINT64_MAX when that client has none. */
static uint64_t cross_block(struct run *r)
{
    const struct engine *e = r->e;
    uint64_t k = rng_below(&r->rng, e->ranks - 1);
    uint64_t other = k < e->rank ? k : k + 1;
    if (other >= e->total_blocks)
        return UINT64_MAX;
    uint64_t owned = (e->total_blocks - other + e->ranks - 1) / e->ranks;
    return other + e->ranks * rng_below(&r->rng, owned);
}

/* Plans up to n ops and appends the intents of their writes to the journal. */
static int plan_ops(struct run *r, size_t n)
{
    struct engine *e = r->e;
    const struct workload_cfg *c = e->cfg;
    uint64_t nb = e->map->nblocks; /* local numbering */
    uint64_t t = now_rel(e);
    for (size_t i = 0; i < n && r->tail - r->head < PLAN_CAP; i++) {
        if (r->prefill && r->cursor >= nb)
            break; /* every block is planned once */
        bool write = r->prefill || rng_below(&r->rng, 100) >= c->read_pct;
        if (!write && r->xscan_ready && rng_below(&r->rng, 100) < c->cross_pct) {
            uint64_t foreign = cross_block(r);
            if (foreign != UINT64_MAX) {
                r->plan[r->tail % PLAN_CAP] = (struct planned){.block = foreign, .cross = true};
                r->tail++;
                continue;
            }
        }
        uint64_t b;
        /* A reread draws only when asked for, so that a scenario without
         * it keeps the op sequence its seed always gave. */
        if (!write && c->reread_pct && r->recent_n && rng_below(&r->rng, 100) < c->reread_pct)
            b = r->recent[rng_below(&r->rng, r->recent_n)];
        else if (c->pattern == PATTERN_RANDOM && !r->prefill)
            b = rng_below(&r->rng, nb);
        else
            b = r->cursor++ % nb;
        gen_t g = GEN_NONE;
        if (write) {
            errno = 0;
            g = statemap_plan(e->map, b);
            if (g == GEN_NONE) {
                if (errno == ENOMEM) {
                    snprintf(e->err, sizeof e->err, "out of memory for the state map");
                    return -1;
                }
                /* The block ran too far ahead of its durable generation:
                 * read it instead and flush soon. */
                r->need_flush = true;
            } else {
                if (e->journal)
                    journal_intent(e->journal, b, g, t);
                r->recent[r->recent_next] = b;
                r->recent_next = (r->recent_next + 1) % ENGINE_REREAD_RECENT;
                if (r->recent_n < ENGINE_REREAD_RECENT)
                    r->recent_n++;
            }
        }
        r->plan[r->tail % PLAN_CAP] = (struct planned){.block = b, .gen = g};
        r->tail++;
    }
    if (r->tail - r->head > e->batch_max)
        e->batch_max = r->tail - r->head;
    return 0;
}

/* Keeps one batch being committed while the previous one is issued. */
static int refill(struct run *r, bool stopping)
{
    struct engine *e = r->e;
    if (!e->journal) {
        if (!stopping && r->tail - r->head < r->batch) {
            if (plan_ops(r, r->batch) != 0)
                return -1;
            r->committed = r->tail;
        }
        return 0;
    }
    if (r->commit_pending && journal_committed(e->journal, r->commit_ticket)) {
        r->committed = r->commit_end;
        r->commit_pending = false;
    }
    if (!r->commit_pending && !stopping && r->tail - r->head < r->batch) {
        if (plan_ops(r, r->batch) != 0)
            return -1;
        r->commit_ticket = journal_seal(e->journal);
        r->commit_end = r->tail;
        r->commit_pending = true;
        if (journal_segment_bytes(e->journal) > r->segment_limit) {
            if (journal_checkpoint(e->journal, e->map) != 0) {
                snprintf(e->err, sizeof e->err, "out of memory writing a state checkpoint");
                return -1;
            }
            e->checkpoints++;
        }
    }
    return journal_status(e->journal, e->err, sizeof e->err);
}

/* The watchdog's view: how many I/Os are out and since when the oldest. */
static void pulse_start(struct run *r, struct io *io)
{
    struct io_pulse *p = r->e->pulse;
    io->inflight = true;
    if (!p)
        return;
    if (atomic_load(&p->inflight) == 0)
        atomic_store(&p->oldest, io->t_submit);
    atomic_fetch_add(&p->inflight, 1);
}

static void pulse_end(struct run *r, struct io *io)
{
    struct io_pulse *p = r->e->pulse;
    io->inflight = false;
    if (!p)
        return;
    atomic_fetch_sub(&p->inflight, 1);
    atomic_fetch_add(&p->completions, 1);
    if (io->t_submit > atomic_load(&p->oldest))
        return; /* the oldest is still out: nothing to look up */
    uint64_t oldest = UINT64_MAX;
    for (unsigned i = 0; i < r->pool.n; i++)
        if (r->pool.ios[i].inflight && r->pool.ios[i].t_submit < oldest)
            oldest = r->pool.ios[i].t_submit;
    for (int i = 0; i < FLUSH_SLOTS; i++)
        if (r->flush_io[i].inflight && r->flush_io[i].t_submit < oldest)
            oldest = r->flush_io[i].t_submit;
    atomic_store(&p->oldest, oldest);
}

static int issue_flush(struct run *r)
{
    struct engine *e = r->e;
    for (int i = 0; i < FLUSH_SLOTS; i++) {
        if (r->flush_busy[i])
            continue;
        struct io *io = &r->flush_io[i];
        memset(io, 0, sizeof *io);
        io->op = IO_FLUSH;
        io->cover = statemap_acked_total(e->map);
        io->t_submit = now_rel(e);
        pulse_start(r, io);
        int rc = e->be->ops->submit(e->be, io);
        if (rc < 0) {
            snprintf(e->err, sizeof e->err, "cannot submit a flush: %s", strerror(-rc));
            pulse_end(r, io);
            return -1;
        }
        r->flush_busy[i] = true;
        r->flushes_inflight++;
        r->writes_since_flush = 0;
        r->need_flush = false;
        return 0;
    }
    return 0; /* both flush slots busy: the next one goes out later */
}

/* Issues committed ops in plan order until depth is reached. */
static int issue(struct run *r)
{
    struct engine *e = r->e;
    const struct workload_cfg *c = e->cfg;
    while (r->head < r->committed) {
        if ((e->flush_every && r->writes_since_flush >= e->flush_every) || r->need_flush) {
            if (r->flushes_inflight < FLUSH_SLOTS && issue_flush(r) != 0)
                return -1;
        }
        const struct planned *p = &r->plan[r->head % PLAN_CAP];
        if (r->data_inflight >= e->depth)
            break;
        if (!p->cross && statemap_busy(e->map, p->block))
            break; /* keep plan order: wait for the I/O on this block */
        struct io *io = iopool_get(&r->pool);
        if (!io)
            break;
        bool write = p->gen != GEN_NONE;
        io->op = write ? IO_WRITE : IO_READ;
        io->cross = p->cross; /* its owner may be writing it: no busy check */
        io->block = p->cross ? p->block : p->block * e->workers + e->worker; /* global */
        io->gen = p->gen;
        io->offset = io->block * c->block_size;
        io->t_submit = now_rel(e);
        if (write)
            block_fill(io->buf, &e->fmt, io->block, p->gen, io->t_submit);
        if (!p->cross && statemap_issue(e->map, p->block, write, p->gen) != 0) {
            snprintf(e->err, sizeof e->err, "out of memory for the state map");
            iopool_put(&r->pool, io);
            return -1;
        }
        pulse_start(r, io); /* before submit: the sync engine does the I/O inside it */
        int rc = e->be->ops->submit(e->be, io);
        if (rc < 0) {
            snprintf(e->err, sizeof e->err, "cannot submit %s of block %llu: %s",
                     write ? "a write" : "a read", (unsigned long long)io->block, strerror(-rc));
            pulse_end(r, io);
            iopool_put(&r->pool, io);
            return -1;
        }
        r->head++;
        r->data_inflight++;
        if (write)
            r->writes_since_flush++;
    }
    return 0;
}

/* A cross read: a failure is this client's I/O error at once; what it
 * returned is described and logged for its owner's history to judge. */
static void cross_done(struct run *r, struct io *io)
{
    struct engine *e = r->e;
    if (io->result < 0) {
        verify_failed_io(e->ver, io, "workload");
        return;
    }
    struct cross_read x = {.block = io->block, .t_start = io->t_submit, .t_end = io->t_done,
                           .reader = e->worker};
    cross_scan(&r->xscan, io->buf, io->block, &x);
    cross_log_add(e->cross, &x);
}

/* Takes the power losses announced since we last looked (struct
 * power_signal): from here on the map knows those writes may be gone. */
static void power_take(struct run *r)
{
    struct engine *e = r->e;
    if (!e->power || r->prefill)
        return;
    unsigned ended = atomic_load_explicit(&e->power->ended, memory_order_acquire);
    unsigned begun = atomic_load_explicit(&e->power->begun, memory_order_acquire);
    for (;;) {
        bool end = e->power_ended < e->power_begun; /* the open one first */
        unsigned k = end ? e->power_ended : e->power_begun;
        if (k >= POWER_LOSSES_MAX || k >= (end ? ended : begun))
            break;
        e->at_risk[k] = statemap_power_loss(e->map, (uint8_t)(k + 1), end);
        if (e->journal)
            journal_power_loss(e->journal, (uint8_t)(k + 1), end, now_rel(e));
        if (end)
            e->power_ended++;
        else
            e->power_begun++;
    }
}

static int complete(struct run *r, struct io *io)
{
    struct engine *e = r->e;
    power_take(r);
    io_stats_add(r->prefill ? &e->prefilled : &e->stats, io);
    pulse_end(r, io);
    if (e->buckets && !r->prefill)
        buckets_add(e->buckets, io->t_done, io->op == IO_READ, io->op == IO_WRITE,
                    io->result >= 0, io->result > 0 ? (uint64_t)io->result : 0,
                    io->t_done > io->t_submit ? io->t_done - io->t_submit : 0);
    /* who carried it: the backend knows its paths, the series only their numbers */
    if (e->buckets && !r->prefill && io->path && io->result >= 0 && io->op != IO_FLUSH)
        buckets_path(e->buckets, io->t_done, io->path - 1u);
    switch (io->op) {
    case IO_READ:
        r->data_inflight--;
        if (io->cross)
            cross_done(r, io);
        else
            verify_read(e->ver, io, true, "workload");
        iopool_put(&r->pool, io);
        return 0;
    case IO_WRITE: {
        bool ok = io->result >= 0;
        /* A write that had to be reissued completed, but an earlier attempt
         * may land or not: both generations stay allowed, as after a
         * failure, yet it is no error. */
        bool certain = ok && !io->doubtful;
        uint64_t local = io->block / e->workers;
        uint64_t acks_before = statemap_acked_total(e->map);
        if (statemap_write_done(e->map, local, io->gen, certain, e->be->durable_writes) != 0) {
            snprintf(e->err, sizeof e->err, "out of memory for the state map");
            return -1;
        }
        if (e->journal) {
            if (certain) {
                /* In the journal with the next sealed batch; in acks.bin at
                 * the end of this reap, so that a kill before that seal
                 * loses no more than this reap's completions. */
                journal_done(e->journal, local, io->gen, e->be->durable_writes, io->t_done);
                journal_ack(e->journal, local, io->gen, e->be->durable_writes, acks_before);
            } else {
                journal_fail(e->journal, local, io->gen, io->t_done);
            }
        }
        if (ok && io->doubtful)
            e->doubtful_writes++;
        if (!ok)
            verify_failed_io(e->ver, io, "workload");
        r->data_inflight--;
        iopool_put(&r->pool, io);
        return 0;
    }
    case IO_FLUSH:
        if (io->result >= 0) {
            statemap_flushed(e->map, io->cover);
            if (e->journal)
                journal_flush(e->journal, io->cover, io->t_done);
        } else {
            verify_failed_io(e->ver, io, "workload");
        }
        r->flush_busy[io - r->flush_io] = false;
        r->flushes_inflight--;
        return 0;
    }
    return 0;
}

static int reap(struct run *r, int wait_ms)
{
    struct engine *e = r->e;
    struct io *done[64];
    int n = e->be->ops->reap(e->be, done, 64, wait_ms);
    if (n < 0) {
        snprintf(e->err, sizeof e->err, "waiting for I/O failed: %s", strerror(-n));
        return -1;
    }
    uint64_t t = now_rel(e);
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        done[i]->t_done = t;
        rc = complete(r, done[i]);
    }
    if (e->journal)
        journal_ack_write(e->journal); /* this reap's completions: one write */
    if (rc != 0)
        return -1;
    r->reaped_at = n ? t : 0;
    return 0;
}

static unsigned inflight(const struct run *r)
{
    return r->data_inflight + r->flushes_inflight;
}

static void report_progress(struct run *r, uint64_t t)
{
    struct engine *e = r->e;
    if (!e->progress)
        return;
    struct engine_progress p = {
        .elapsed_ns = t,
        .duration_ns = e->cfg->duration_ns,
        .reads = e->stats.reads,
        .writes = e->stats.writes,
        .errors = e->stats.errors,
        .findings = findings_bad(e->ver->findings),
        .bytes = e->stats.bytes_read + e->stats.bytes_written,
    };
    e->progress(e->progress_ctx, &p);
}

/* The workload waits for a journal commit: count it once per commit and
 * plan bigger batches from now on, so the journal falls behind less often. */
static void journal_stall(struct run *r)
{
    if (r->stalled_on == r->commit_ticket)
        return;
    r->stalled_on = r->commit_ticket;
    r->e->journal_stalls++;
    if (r->batch < BATCH_MAX)
        r->batch *= 2;
}

/* Drains in-flight I/O; then, unless told not to, flushes whatever is not
 * durable yet and waits for that too. */
static int finish(struct run *r)
{
    struct engine *e = r->e;
    while (inflight(r) > 0)
        if (reap(r, 100) != 0)
            return -1;
    if (e->map->ack_len > 0) {
        if (issue_flush(r) != 0)
            return -1;
        while (inflight(r) > 0)
            if (reap(r, 100) != 0)
                return -1;
    }
    /* Planned writes that were never issued cannot be on the media. */
    for (uint64_t i = r->head; i < r->tail; i++) {
        const struct planned *p = &r->plan[i % PLAN_CAP];
        if (p->gen != GEN_NONE)
            statemap_unplan(e->map, p->block);
    }
    r->head = r->tail;
    return 0;
}

static int run_phase(struct engine *e, bool prefill)
{
    struct run r = {.e = e, .batch = BATCH_MIN, .prefill = prefill};
    if (e->depth * 8 > r.batch)
        r.batch = e->depth * 8 < BATCH_MAX ? e->depth * 8 : BATCH_MAX;
    r.segment_limit = 4 * statemap_bytes_at_rest(e->map);
    if (r.segment_limit < SEGMENT_MIN)
        r.segment_limit = SEGMENT_MIN;
    if (e->segment_limit)
        r.segment_limit = e->segment_limit;
    rng_seed(&r.rng, e->cfg->seed);
    if (!prefill && e->cross && e->ranks > 1 && e->cfg->cross_pct) {
        if (cross_scanner_init(&r.xscan, &e->fmt, e->workers) != 0) {
            snprintf(e->err, sizeof e->err, "out of memory for cross reads");
            return -1;
        }
        r.xscan_ready = true;
    }
    r.plan = calloc(PLAN_CAP, sizeof *r.plan);
    if (!r.plan || iopool_init(&r.pool, e->depth, e->cfg->block_size) != 0) {
        free(r.plan);
        if (r.xscan_ready)
            cross_scanner_free(&r.xscan);
        snprintf(e->err, sizeof e->err, "out of memory for %u buffers of %u bytes", e->depth,
                 e->cfg->block_size);
        return -1;
    }
    struct io_stats *stats = prefill ? &e->prefilled : &e->stats;
    memset(stats, 0, sizeof *stats);
    int rc = 0;
    uint64_t start = now_rel(e), end = prefill ? UINT64_MAX : start + e->cfg->duration_ns;
    uint64_t began = mono_ns();
    uint64_t next_progress = start + 1000000000ull;
    bool stopping = false;

    for (;;) {
        power_take(&r);
        /* the time the last reap took: it came back just now (a clock read
         * per I/O fewer for the sync engine, whose submit does the I/O) */
        uint64_t t = r.reaped_at ? r.reaped_at : now_rel(e);
        r.reaped_at = 0;
        if (!stopping && (t >= end || *e->stop)) {
            stopping = true;
            e->interrupted = t < end;
        }
        if (prefill && !stopping && r.cursor >= e->map->nblocks && r.head == r.tail &&
            r.head == r.committed)
            stopping = true; /* every block written once */
        if (t >= next_progress && !prefill) {
            report_progress(&r, t);
            next_progress = t + 1000000000ull;
        }
        if ((rc = refill(&r, stopping)) != 0)
            break;
        if (!stopping && (rc = issue(&r)) != 0)
            break;
        if (inflight(&r) == 0) {
            if (stopping)
                break;
            if (r.head < r.committed)
                continue;
            if (e->journal && r.commit_pending) {
                /* Nothing to do until the intents are on disk. */
                journal_stall(&r);
                if ((rc = journal_wait(e->journal, r.commit_ticket, e->err, sizeof e->err)) != 0)
                    break;
            }
            continue;
        }
        int wait_ms = 100;
        if (!stopping) {
            if (r.head == r.committed && r.commit_pending) {
                /* Waiting for the journal with I/O in flight: poll it often. */
                wait_ms = 1;
                journal_stall(&r);
            } else {
                uint64_t left_ms = (end - t) / 1000000 + 1;
                if (left_ms < (uint64_t)wait_ms)
                    wait_ms = (int)left_ms;
            }
        }
        if ((rc = reap(&r, wait_ms)) != 0)
            break;
    }

    if (rc == 0)
        rc = finish(&r);
    else
        finish(&r); /* best effort: do not free buffers under the kernel */
    stats->ns = mono_ns() - began;
    if (!prefill)
        report_progress(&r, now_rel(e));
    iopool_free(&r.pool);
    free(r.plan);
    if (r.xscan_ready)
        cross_scanner_free(&r.xscan);
    return rc;
}

int engine_run(struct engine *e)
{
    return run_phase(e, false);
}

int engine_prefill(struct engine *e)
{
    return run_phase(e, true);
}
