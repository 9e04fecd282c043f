/* verify — see verify.h. */
#include "verify.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/clock.h"
#include "iopool.h"

int verifier_init(struct verifier *v, struct statemap *map, struct findings *f,
                  const struct block_fmt *fmt, unsigned worker, unsigned workers)
{
    memset(v, 0, sizeof *v);
    v->map = map;
    v->findings = f;
    v->block_size = fmt->block_size;
    v->worker = worker;
    v->workers = workers;
    return classifier_init(&v->cls, fmt);
}

void verifier_free(struct verifier *v)
{
    classifier_free(&v->cls);
}

static const char *op_name(enum io_op op)
{
    return op == IO_READ ? "read" : op == IO_WRITE ? "write" : "flush";
}

/* What the read found, as the classification says, into its finding. */
static void found(struct finding *f, const struct classification *vd)
{
    f->found_gen = vd->found_gen;
    f->found_known = vd->found_known;
    if (vd->found_known)
        f->found_written_ns = vd->found_written_ns;
    snprintf(f->detail, sizeof f->detail, "%s", vd->detail);
}

void verify_read(struct verifier *v, const struct io *io, bool online, const char *phase)
{
    uint64_t local = io->block / v->workers;
    struct expectation e;
    statemap_expect(v->map, local, online, &e);
    struct finding f = {
        .phase = phase,
        .op = "read",
        .block = io->block,
        .offset = io->offset,
        .expected_gen = e.strict ? e.acked : e.hi,
        .written_ns = FL_TIME_UNKNOWN,
        .read_ns = io->t_done,
        .found_written_ns = FL_TIME_UNKNOWN,
    };
    if (io->result < 0) {
        f.cls = CLS_IO_ERROR;
        snprintf(f.detail, sizeof f.detail, "read failed: %s",
                 io->err[0] ? io->err : strerror((int)-io->result));
        findings_add(v->findings, &f);
        statemap_read_done(v->map, local);
        return;
    }
    struct classification vd;
    enum fl_class c = classify_block(&v->cls, io->buf, io->block, &e, &vd);
    /* Another run's data where this run's may be (reverted, not yet
     * durable) tells nothing; where it must be, it tells the target moved on. */
    if (v->from_run_dir && ((vd.other_run && class_is_finding(c)) || vd.beyond)) {
        if (vd.other_run) {
            if (!v->other_reads++) {
                v->other_run = vd.other_run;
                v->other_block = io->block;
                v->other_offset = io->offset;
            }
        } else if (!v->beyond_reads++) {
            v->beyond_block = io->block;
            v->beyond_offset = io->offset;
            v->beyond_found = vd.found_gen;
            v->beyond_newest = e.hi;
        }
        statemap_read_done(v->map, local);
        return;
    }
    if (c == CLS_REVERTED) {
        findings_count(v->findings, c);
        v->reverted_by_loss[e.loss <= POWER_LOSSES_MAX ? e.loss : 0]++;
        if (v->reverted) {
            f.cls = c;
            f.expected_gen = e.acked;
            found(&f, &vd);
            findings_add(v->reverted, &f);
        }
    } else if (!class_is_finding(c)) {
        findings_count(v->findings, c);
    } else {
        f.cls = c;
        f.offset = io->offset + (uint64_t)vd.sector * FL_SECTOR;
        if (c == CLS_LOST_WRITE || c == CLS_ZEROED)
            f.expected_gen = e.lo;
        found(&f, &vd);
        findings_add(v->findings, &f);
        if (v->noticed)
            v->noticed(v->noticed_ctx, &f);
    }
    statemap_read_done(v->map, local);
}

void verify_failed_io(struct verifier *v, const struct io *io, const char *phase)
{
    struct finding f = {
        .cls = CLS_IO_ERROR,
        .phase = phase,
        .op = op_name(io->op),
        .block = io->block,
        .offset = io->offset,
        .expected_gen = io->gen,
        .written_ns = FL_TIME_UNKNOWN,
        .read_ns = io->t_done,
        .found_written_ns = FL_TIME_UNKNOWN,
    };
    snprintf(f.detail, sizeof f.detail, "%s failed: %s", op_name(io->op),
             io->err[0] ? io->err : strerror((int)-io->result));
    findings_add(v->findings, &f);
}

/* The sweep's share of the watchdog's view (see struct io_pulse), taken
 * again from the pool after each batch of completions. */
static void sweep_pulse(struct io_pulse *p, const struct iopool *pool)
{
    if (!p)
        return;
    uint64_t oldest = UINT64_MAX;
    unsigned n = 0;
    for (unsigned i = 0; i < pool->n; i++)
        if (pool->ios[i].inflight) {
            n++;
            if (pool->ios[i].t_submit < oldest)
                oldest = pool->ios[i].t_submit;
        }
    atomic_store(&p->oldest, oldest);
    atomic_store(&p->inflight, n);
}

int sweep_run(struct verifier *v, struct backend *be, unsigned depth, bool online,
              const char *phase, uint64_t t0, volatile sig_atomic_t *stop, struct io_stats *st,
              struct io_pulse *pulse, char *err, size_t errlen)
{
    struct iopool pool;
    if (iopool_init(&pool, depth, v->block_size) != 0) {
        snprintf(err, errlen, "out of memory for %u buffers of %u bytes", depth, v->block_size);
        return -1;
    }
    memset(st, 0, sizeof *st);
    uint64_t start = mono_ns();
    uint64_t l = 0; /* local block number */
    int rc = 0;
    /* Touched blocks are those with a durable generation, found a word of
     * the map at a time, and those only pending, listed before the sweep
     * (it plans no writes, so that list stays complete): no lookup per
     * block, which on a target of billions of blocks would be the sweep. */
    uint64_t *pend;
    size_t npend, pi = 0;
    if (statemap_pending_blocks(v->map, &pend, &npend) != 0) {
        iopool_free(&pool);
        snprintf(err, errlen, "out of memory for the sweep's list of pending blocks");
        return -1;
    }
    for (;;) {
        struct io *io;
        while (!*stop && l < v->map->nblocks && (io = iopool_get(&pool))) {
            uint64_t d = statemap_next_durable(v->map, l);
            while (pi < npend && pend[pi] < l)
                pi++;
            l = pi < npend && pend[pi] < d ? pend[pi] : d;
            if (l >= v->map->nblocks) {
                iopool_put(&pool, io);
                break;
            }
            io->op = IO_READ;
            io->block = l * v->workers + v->worker;
            io->offset = io->block * v->block_size;
            io->t_submit = mono_ns() - t0;
            io->inflight = true;
            if (pulse) { /* before submit: the sync engine reads inside it */
                if (atomic_load(&pulse->inflight) == 0)
                    atomic_store(&pulse->oldest, io->t_submit);
                atomic_fetch_add(&pulse->inflight, 1);
            }
            int s = be->ops->submit(be, io);
            if (s < 0) {
                snprintf(err, errlen, "cannot submit a read: %s", strerror(-s));
                io->inflight = false;
                sweep_pulse(pulse, &pool);
                iopool_put(&pool, io);
                rc = -1;
                break;
            }
            l++;
        }
        if (iopool_busy(&pool) == 0 || rc != 0)
            break;
        struct io *done[64];
        int n = be->ops->reap(be, done, 64, 100);
        if (n < 0) {
            snprintf(err, errlen, "waiting for reads failed: %s", strerror(-n));
            rc = -1;
            break;
        }
        uint64_t now = mono_ns() - t0;
        for (int i = 0; i < n; i++) {
            done[i]->t_done = now;
            done[i]->inflight = false;
            io_stats_add(st, done[i]);
            verify_read(v, done[i], online, phase);
            iopool_put(&pool, done[i]);
        }
        if (pulse && n > 0) {
            atomic_fetch_add(&pulse->completions, (uint64_t)n);
            sweep_pulse(pulse, &pool);
        }
    }
    /* On a broken backend, wait (bounded) for what is still in flight so the
     * buffers are not freed under the kernel. */
    for (int tries = 0; iopool_busy(&pool) > 0 && tries < 50; tries++) {
        struct io *done[64];
        int n = be->ops->reap(be, done, 64, 100);
        if (n < 0)
            break;
        for (int i = 0; i < n; i++)
            iopool_put(&pool, done[i]);
    }
    st->ns = mono_ns() - start;
    free(pend);
    if (iopool_busy(&pool) == 0)
        iopool_free(&pool);
    return rc;
}
