/* crew_prepare — a run's or a verify's workers made ready (see crew.h):
 * backends opened, each worker's share of the blocks, state map, verifier,
 * journal and engine, and the memory they need checked first. */
#include "crew.h"
#include "crew_parts.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../checks/memlimit.h"
#include "../../lib/clock.h"
#include "../../lib/fsutil.h"
#include "../../lib/ini.h"
#include "../../lib/rng.h"

unsigned crew_size(const struct scenario *sc)
{
    if (sc->target.engine == ENGINE_SYNC)
        return sc->workload.depth;
    unsigned n = sc->workers ? (unsigned)sc->workers : 1;
    return n < sc->workload.depth ? n : sc->workload.depth;
}

unsigned crew_ranks_of(const struct crew *c)
{
    return c->ranks > 1 ? c->ranks : 1;
}

void crew_client_dir(const char *dir, unsigned ranks, unsigned r, char *out, size_t n)
{
    if (ranks > 1)
        snprintf(out, n, "%s/client-%u", dir, r);
    else
        snprintf(out, n, "%s", dir);
}

void crew_worker_dir(const char *dir, unsigned ranks, unsigned g, char *out, size_t n)
{
    char client[PATH_MAX + 32];
    crew_client_dir(dir, ranks, ranks > 1 ? g % ranks : 0, client, sizeof client);
    snprintf(out, n, "%s/worker-%u", client, ranks > 1 ? g / ranks : g);
}

int crew_run_ranks(const char *dir, unsigned *ranks, char *err, size_t errlen)
{
    char w0[PATH_MAX + 64];
    struct run_meta m;
    snprintf(w0, sizeof w0, "%s/worker-0", dir);
    if (access(w0, F_OK) != 0)
        snprintf(w0, sizeof w0, "%s/client-0/worker-0", dir);
    if (access(w0, F_OK) != 0) {
        snprintf(err, errlen,
                 "%s/worker-0 is missing (nor is there %s/client-0/worker-0): worker "
                 "0 of the run kept its state there; copy it back to verify",
                 dir, dir);
        return -1;
    }
    if (state_read_meta(w0, &m, err, errlen) != 0)
        return -1;
    *ranks = m.ranks > 1 ? m.ranks : 1;
    return 0;
}

/* Long work in the first open (a file tree of thousands of files on a
 * parallel filesystem takes a minute): a line every 2 s, and at the end. */
static void show_progress(void *ctx, const char *what, uint64_t done, uint64_t total)
{
    struct crew *c = ctx;
    uint64_t now = mono_ns();
    if (!c->progress_since)
        c->progress_since = now;
    if (done == total) {
        fprintf(stderr, "faultline: made the target: %" PRIu64 " %s in %.1f s\n", total, what,
                (double)(now - c->progress_since) / 1e9);
        c->progress_since = 0;
    } else if (now >= c->progress_since + 2000000000ull && now >= c->progress_next) {
        fprintf(stderr, "faultline: making the target: %" PRIu64 " of %" PRIu64 " %s (%.0f%%)\n",
                done, total, what, 100.0 * (double)done / (double)total);
        c->progress_next = now + 2000000000ull;
    }
}

static int open_backend(struct crew *c, struct worker *w, unsigned depth, char *err, size_t n)
{
    const struct scenario *sc = c->sc;
    const struct backend_ops *ops = sc->backend;
    memset(&w->be, 0, sizeof w->be);
    w->be.ops = ops;
    w->be.again = w->index > 0; /* worker 0 opens first and holds any claim */
    w->be.shared = c->rank > 0; /* rank 0 made the target, and may hold the claim */
    w->be.existing = c->verifying;
    w->be.worker = w->index;
    w->events = (struct event_source){.log = c->events, .worker = w->index};
    if (c->events) {
        w->be.on_event = events_from_backend;
        w->be.event_ctx = &w->events;
    }
    if (!c->quiet && w->index == 0) {
        w->be.on_progress = show_progress;
        w->be.progress_ctx = c;
    }
    if (ops->open(&w->be, &sc->target, depth, err, n) != 0)
        return -1;
    w->be_open = true;
    if (sc->workload.block_size % w->be.align != 0) {
        snprintf(err, n, "block %u bytes is not a multiple of %u, the alignment %s needs",
                 sc->workload.block_size, w->be.align, w->be.desc);
        return -1;
    }
    return 0;
}

static unsigned share(unsigned total, unsigned n, unsigned i)
{
    return total / n + (i < total % n);
}

unsigned crew_verify_depth(const struct crew *c, unsigned i)
{
    unsigned d = share(c->sc->workload.depth * (c->ranks > 1 ? c->ranks : 1), c->n, i);
    return d ? d : 1;
}

static int alloc_workers(struct crew *c, unsigned n, char *err, size_t errlen)
{
    pthread_mutex_init(&c->gate_mu, NULL);
    pthread_cond_init(&c->gate_cv, NULL);
    c->n = n;
    c->w = calloc(n, sizeof *c->w);
    if (!c->w) {
        snprintf(err, errlen, "out of memory for %u workers", n);
        return -1;
    }
    for (unsigned i = 0; i < n; i++) {
        struct worker *w = &c->w[i];
        w->index = i;
        w->global = c->rank < 0 ? i : (unsigned)c->rank + crew_ranks_of(c) * i;
        crew_worker_dir(c->dir, crew_ranks_of(c), w->global, w->dir, sizeof w->dir);
        cross_log_init(&w->cross);
    }
    return 0;
}

unsigned crew_first_rank(const struct crew *c)
{
    return c->rank < 0 ? 0 : (unsigned)c->rank;
}

unsigned crew_last_rank(const struct crew *c)
{
    return c->rank < 0 ? crew_ranks_of(c) - 1 : (unsigned)c->rank;
}

struct target_cfg *crew_target_of(const struct crew *c, unsigned r)
{
    static struct target_cfg t; /* large; used by the main thread only */
    t = c->sc->target;
    t.rank = (int)r;
    t.ranks = crew_ranks_of(c);
    return &t;
}

/* The metadata streams a target kind runs beside its data (a file tree's),
 * each in its own directory of its (client's) root, made by the first
 * backend open; a verify pass loads their models, every client's. */
static int prepare_meta(struct crew *c, bool existing, char *err, size_t errlen)
{
    const struct scenario *sc = c->sc;
    char root[PATH_MAX + 160];
    unsigned streams =
        sc->backend->streams ? sc->backend->streams(&sc->target, root, sizeof root) : 0;
    if (!streams)
        return 0;
    unsigned clients = crew_last_rank(c) - crew_first_rank(c) + 1;
    if (!(c->meta = calloc((size_t)streams * clients, sizeof *c->meta))) {
        snprintf(err, errlen, "out of memory for the metadata streams");
        return -1;
    }
    for (unsigned r = crew_first_rank(c); r <= crew_last_rank(c); r++) {
        sc->backend->streams(crew_target_of(c, r), root, sizeof root);
        char client[PATH_MAX + 32];
        crew_client_dir(c->dir, crew_ranks_of(c), r, client, sizeof client);
        for (unsigned i = 0; i < streams; i++) {
            struct meta_stream *m = &c->meta[c->nmeta++];
            /* each client's streams do other operations */
            uint64_t seed = sc->workload.seed + RNG_GOLDEN * (i + 1 + 17 * r);
            /* a run journals the stream's changes (journal = no: neither the
             * blocks nor the names); verify takes its model from the journal
             * when the run did not end cleanly */
            uint64_t run_id = c->w[0].meta.run_id;
            if (meta_init(m, root, i, seed, sc->findings_limit, existing) != 0 ||
                (existing      ? meta_recover(m, client, run_id)
                 : sc->journal ? meta_journal_open(m, client, run_id)
                               : 0) != 0) {
                if (crew_ranks_of(c) > 1)
                    snprintf(err, errlen, "metadata stream %u of client %u: %s", i, r, m->err);
                else
                    snprintf(err, errlen, "metadata stream %u: %s", i, m->err);
                return -1;
            }
            m->client = r;
        }
    }
    return 0;
}

/* Refuses a run whose state maps (those of this client's workers: its
 * share of the target's `total` blocks) would not fit in the memory it may
 * use: memory_limit, by default half of MemAvailable (checks/memlimit.h).
 * 0, or -1 with the numbers in err. */
static int map_fits(const struct crew *c, uint64_t total, char *err, size_t errlen)
{
    unsigned ranks = crew_ranks_of(c);
    uint64_t mine = total;
    if (c->rank >= 0 && ranks > 1)
        mine = total > (uint64_t)c->rank ? (total - (uint64_t)c->rank + ranks - 1) / ranks : 0;
    uint64_t avail = 0;
    char why[256];
    char *text = ini_read_file("/proc/meminfo", why, sizeof why);
    if (text) {
        if (memlimit_parse_meminfo(text, &avail) != 0)
            avail = 0; /* unknown: only an explicit memory_limit applies */
        free(text);
    }
    return memlimit_check(mine, c->sc->memory_limit, avail, err, errlen);
}

/* Worker i of n (of `all` over every client) on a target of `total`
 * blocks: its backend (the first is open already), its share of the
 * blocks, state map, verifier, directory, journal and engine. */
static int prepare_worker(struct crew *c, const struct scenario *sc, const struct run_meta *base,
                          unsigned i, unsigned n, unsigned all, uint64_t total, char *err,
                          size_t errlen)
{
    struct worker *w = &c->w[i];
    unsigned g = w->global;
    unsigned depth = share(sc->workload.depth, n, i);
    if (i > 0 && open_backend(c, w, depth, err, errlen) != 0)
        return -1;
    w->meta = *base;
    w->meta.total_blocks = total;
    w->meta.nblocks = (total - g + all - 1) / all;
    w->meta.worker = g;
    w->meta.workers = all;
    w->meta.rank = (uint32_t)c->rank;
    w->meta.ranks = crew_ranks_of(c);
    if (statemap_init(&w->map, w->meta.nblocks) != 0) {
        snprintf(err, errlen, "out of memory for the state map of %" PRIu64 " blocks",
                 w->meta.nblocks);
        return -1;
    }
    w->map_ready = true;
    findings_init(&w->findings, sc->findings_limit);
    struct block_fmt fmt = {.run_id = base->run_id,
                            .target_id = base->target_id,
                            .writer_id = g,
                            .block_size = base->block_size};
    if (verifier_init(&w->ver, &w->map, &w->findings, &fmt, g, all) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    w->ver_ready = true;
    findings_init(&w->reverted, sc->findings_limit);
    w->ver.reverted = &w->reverted;
    if (mkdir_p(c->own_dir, err, errlen) != 0)
        return -1;
    if (mkdir(w->dir, 0755) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", w->dir, strerror(errno));
        return -1;
    }
    if (sc->journal && !(w->journal = journal_create(w->dir, &w->meta, err, errlen)))
        return -1;
    /* Without a journal, an initial state tells a later `verify` that
     * the run started and could not be followed. */
    if (!sc->journal && state_save(w->dir, &w->meta, &w->map, false, err, errlen) != 0)
        return -1;
    uint64_t span = sc->duration_ns + sc->grace_ns + 10000000000ull;
    if (buckets_init(&w->buckets, sc->bucket_ns, span) != 0) {
        snprintf(err, errlen, "out of memory for the time buckets");
        return -1;
    }
    atomic_store(&w->pulse.oldest, UINT64_MAX);
    w->eng = (struct engine){
        .cfg = &sc->workload,
        .buckets = &w->buckets,
        .pulse = &w->pulse,
        .worker = g,
        .workers = all,
        .rank = (unsigned)c->rank,
        .ranks = crew_ranks_of(c),
        .total_blocks = total,
        .cross = crew_ranks_of(c) > 1 && sc->workload.cross_pct ? &w->cross : NULL,
        .depth = depth,
        /* Counted per worker: the crew flushes as often as one thread would. */
        .flush_every = sc->workload.flush_every,
        .fmt = fmt,
        .be = &w->be,
        .map = &w->map,
        .ver = &w->ver,
        .journal = w->journal,
        .segment_limit = sc->journal_segment,
    };
    return 0;
}

int crew_prepare_run(struct crew *c, const struct scenario *sc, const char *dir,
                     const struct run_meta *base, char *err, size_t errlen)
{
    c->sc = sc;
    c->hung_after_ns = sc->hung_after_ns;
    c->grace_ns = sc->grace_ns;
    if (buckets_init(&c->series, sc->bucket_ns, sc->duration_ns + sc->grace_ns + 10000000000ull) !=
        0) {
        snprintf(err, errlen, "out of memory for the time buckets");
        return -1;
    }
    snprintf(c->dir, sizeof c->dir, "%s", dir);
    if (c->rank < 0 || (c->ranks > 1 && (unsigned)c->rank >= c->ranks)) {
        snprintf(err, errlen, "rank %d of %u", c->rank, c->ranks);
        return -1;
    }
    crew_client_dir(dir, crew_ranks_of(c), (unsigned)c->rank, c->own_dir, sizeof c->own_dir);
    unsigned n = crew_size(sc);
    if (alloc_workers(c, n, err, errlen) != 0)
        return -1;
    /* A size given is checked before the first open creates or extends a
     * file to it; the size that open finds is checked again below. */
    if (sc->target.size && map_fits(c, sc->target.size / sc->workload.block_size, err, errlen) != 0)
        return -1;
    /* The first open creates or extends a file target; the size it finds
     * decides how many blocks there are. */
    if (open_backend(c, &c->w[0], share(sc->workload.depth, n, 0), err, errlen) != 0)
        return -1;
    c->capacity = c->w[0].be.capacity;
    snprintf(c->desc, sizeof c->desc, "%s", c->w[0].be.desc);
    /* every path gets its timeline.csv column, the ones that carry nothing too */
    c->series.npaths = c->w[0].be.npaths < BUCKET_PATHS ? c->w[0].be.npaths : BUCKET_PATHS;
    uint64_t total = c->capacity / sc->workload.block_size;
    if (total == 0) {
        snprintf(err, errlen, "%s holds less than one block of %u bytes", sc->target.path,
                 sc->workload.block_size);
        return -1;
    }
    if (map_fits(c, total, err, errlen) != 0)
        return -1;
    unsigned all = n * crew_ranks_of(c); /* the workers of every client */
    if (total < all) {
        snprintf(err, errlen,
                 "%s has %" PRIu64 " blocks, fewer than the %u workers (one per I/O "
                 "in flight with the sync engine%s); lower depth",
                 sc->target.path, total, all, crew_ranks_of(c) > 1 ? ", on every client" : "");
        return -1;
    }
    for (unsigned i = 0; i < n; i++)
        if (prepare_worker(c, sc, base, i, n, all, total, err, errlen) != 0)
            return -1;
    return prepare_meta(c, false, err, errlen);
}

/* Worker i of a verify: its state loaded and checked against the run's
 * (worker 0's meta, from w0), its backend opened, its verifier made. */
static int verify_worker(struct crew *c, const struct scenario *sc, const char *dir,
                         const char *w0, const struct run_meta *run, unsigned i, char *err,
                         size_t errlen)
{
    struct worker *w = &c->w[i];
    if (access(w->dir, F_OK) != 0) {
        snprintf(err, errlen,
                 "%s is missing: worker %u of the run (client %u) kept its "
                 "state there; copy the client's directory back to verify its share",
                 w->dir, i, crew_ranks_of(c) > 1 ? i % crew_ranks_of(c) : 0);
        return -1;
    }
    if (state_load(w->dir, &w->meta, &w->map, &w->info, err, errlen) != 0)
        return -1;
    w->map_ready = true;
    if (w->meta.run_id != run->run_id || w->meta.worker != i || w->meta.workers != c->n) {
        snprintf(err, errlen, "%s does not belong to the run in %s", w->dir, w0);
        return -1;
    }
    /* A journaled run killed before its first segment existed issued no
     * write yet: its empty state is right.  Without a journal nothing
     * after the start is known. */
    if (!w->info.final && !w->info.journaled) {
        snprintf(err, errlen,
                 "the run in %s did not end cleanly and kept no journal "
                 "(journal = no): its state is unknown, nothing can be verified",
                 dir);
        return -1;
    }
    if (!w->info.final)
        c->state_final = false;
    if (w->meta.block_size != sc->workload.block_size) {
        snprintf(err, errlen, "%s: the run used %u-byte blocks, scenario.scn says %u", dir,
                 w->meta.block_size, sc->workload.block_size);
        return -1;
    }
    if (open_backend(c, w, crew_verify_depth(c, i), err, errlen) != 0)
        return -1;
    if (sc->workload.cross_pct && crew_ranks_of(c) > 1 &&
        cross_log_load(&w->cross, w->dir, w->meta.run_id, err, errlen) != 0)
        return -1;
    if (w->be.capacity / w->meta.block_size < w->meta.total_blocks) {
        snprintf(err, errlen,
                 "%s is now smaller (%" PRIu64 " bytes) than during the run "
                 "(%" PRIu64 " blocks of %u)",
                 sc->target.path, w->be.capacity, w->meta.total_blocks, w->meta.block_size);
        return -1;
    }
    findings_init(&w->findings, sc->findings_limit);
    struct block_fmt fmt = {.run_id = w->meta.run_id,
                            .target_id = w->meta.target_id,
                            .writer_id = i,
                            .block_size = w->meta.block_size};
    /* every worker sees the target of every client */
    if (verifier_init(&w->ver, &w->map, &w->findings, &fmt, i, c->n) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    w->ver_ready = true;
    findings_init(&w->reverted, sc->findings_limit);
    w->ver.reverted = &w->reverted;
    w->ver.from_run_dir = true;
    return 0;
}

int crew_prepare_verify(struct crew *c, const struct scenario *sc, const char *dir, char *err,
                        size_t errlen)
{
    c->sc = sc;
    c->verifying = true;
    c->hung_after_ns = sc->hung_after_ns;
    c->grace_ns = sc->grace_ns;
    snprintf(c->dir, sizeof c->dir, "%s", dir);
    if (crew_run_ranks(dir, &c->ranks, err, errlen) != 0)
        return -1;
    c->rank = -1; /* every client's share */
    snprintf(c->own_dir, sizeof c->own_dir, "%s", dir);
    char w0[PATH_MAX + 64];
    crew_worker_dir(dir, c->ranks, 0, w0, sizeof w0);
    /* The run's identity from worker 0's header: its state is loaded once,
     * below (a target of 100 TiB has 50 GiB of it).  When even the header
     * is unreadable, the full load says precisely what is wrong. */
    struct run_meta meta;
    if (state_read_meta(w0, &meta, err, errlen) != 0) {
        struct statemap probe;
        struct load_info info;
        if (state_load(w0, &meta, &probe, &info, err, errlen) != 0)
            return -1;
        statemap_free(&probe);
    }
    /* Only a header that agrees with itself is held against the limit; a
     * damaged one is left to the loads below to name. */
    if (meta.workers && meta.worker < meta.workers &&
        meta.nblocks == (meta.total_blocks - meta.worker + meta.workers - 1) / meta.workers &&
        map_fits(c, meta.total_blocks, err, errlen) != 0)
        return -1;
    if (meta.workers == 0 || meta.workers > 65536 || meta.workers % crew_ranks_of(c) != 0) {
        snprintf(err, errlen, "%s: damaged state (workers = %u of %u clients)", w0, meta.workers,
                 crew_ranks_of(c));
        return -1;
    }
    if (alloc_workers(c, meta.workers, err, errlen) != 0)
        return -1;
    c->state_final = true;
    for (unsigned i = 0; i < c->n; i++)
        if (verify_worker(c, sc, dir, w0, &meta, i, err, errlen) != 0)
            return -1;
    c->capacity = c->w[0].be.capacity;
    snprintf(c->desc, sizeof c->desc, "%s", c->w[0].be.desc);
    return prepare_meta(c, true, err, errlen);
}

int crew_verify_refusal(const struct crew *c, char *err, size_t errlen)
{
    uint64_t other = 0, beyond = 0, read = 0;
    const struct verifier *vo = NULL, *vb = NULL;
    const struct worker *wb = NULL;
    for (unsigned i = 0; i < c->n; i++) {
        const struct worker *w = &c->w[i];
        if (!w->ver_ready)
            continue;
        read += w->sweep.reads;
        if (w->ver.other_reads && !other++)
            vo = &w->ver;
        if (w->ver.beyond_reads && !beyond++) {
            vb = &w->ver;
            wb = w;
        }
        other += w->ver.other_reads ? w->ver.other_reads - 1 : 0;
        beyond += w->ver.beyond_reads ? w->ver.beyond_reads - 1 : 0;
    }
    if (vo) {
        snprintf(err, errlen,
                 "the target %s holds blocks of run %016" PRIx64 ", not of this run "
                 "%016" PRIx64 " (%" PRIu64 " of the %" PRIu64 " blocks read, the first at block "
                 "%" PRIu64 ", byte offset %" PRIu64 "): another faultline run has written to it "
                 "since; verify that run's directory instead (had nothing else written there, "
                 "the storage returned an older run's data where this run's was durable)",
                 c->sc->target.path, vo->other_run, c->w[0].meta.run_id, other, read,
                 vo->other_block, vo->other_offset);
        return -1;
    }
    if (vb) {
        snprintf(err, errlen,
                 "%s/journal.bin lacks writes the target holds: block %" PRIu64
                 " (byte offset %" PRIu64 ") holds generation %u of this run, newer than any "
                 "write the run directory knows of (newest %u), and %" PRIu64 " more blocks "
                 "do: its journal or checkpoint was cut short or is older than the target; "
                 "nothing can be verified from it",
                 wb->dir, vb->beyond_block, vb->beyond_offset, vb->beyond_found, vb->beyond_newest,
                 beyond - 1);
        return -1;
    }
    return 0;
}
