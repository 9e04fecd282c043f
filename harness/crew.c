/* crew — see crew.h. */
#include "crew.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../checks/memlimit.h"
#include "../lib/clock.h"
#include "../lib/fsutil.h"
#include "../lib/ini.h"
#include "../lib/rng.h"

unsigned crew_size(const struct scenario *sc)
{
    if (sc->target.engine == ENGINE_SYNC)
        return sc->workload.depth;
    unsigned n = sc->workers ? (unsigned)sc->workers : 1;
    return n < sc->workload.depth ? n : sc->workload.depth;
}

static unsigned ranks_of(const struct crew *c)
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

/* Worker g of the whole run lives in its client's directory. */
static void worker_dir(const char *dir, unsigned ranks, unsigned g, char *out, size_t n)
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
        snprintf(err, errlen, "%s/worker-0 is missing (nor is there %s/client-0/worker-0): worker "
                 "0 of the run kept its state there; copy it back to verify", dir, dir);
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
    w->be.shared = c->rank > 0;  /* rank 0 made the target, and may hold the claim */
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

/* A verify sweeps with the depth every client had, shared by all their
 * workers, at least one I/O each. */
static unsigned verify_depth(const struct crew *c, unsigned i)
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
        w->global = c->rank < 0 ? i : (unsigned)c->rank + ranks_of(c) * i;
        worker_dir(c->dir, ranks_of(c), w->global, w->dir, sizeof w->dir);
        cross_log_init(&w->cross);
    }
    return 0;
}

/* The ranks this crew covers: its own, or every one (a verify). */
static unsigned first_rank(const struct crew *c)
{
    return c->rank < 0 ? 0 : (unsigned)c->rank;
}

static unsigned last_rank(const struct crew *c)
{
    return c->rank < 0 ? ranks_of(c) - 1 : (unsigned)c->rank;
}

/* The target as client r sees it (its subtree of a file tree). */
static struct target_cfg *target_of(const struct crew *c, unsigned r)
{
    static struct target_cfg t; /* large; used by the main thread only */
    t = c->sc->target;
    t.rank = (int)r;
    t.ranks = ranks_of(c);
    return &t;
}

/* The metadata streams a target kind runs beside its data (a file tree's),
 * each in its own directory of its (client's) root, made by the first
 * backend open; a verify pass loads their models, every client's. */
static int prepare_meta(struct crew *c, bool existing, char *err, size_t errlen)
{
    const struct scenario *sc = c->sc;
    char root[PATH_MAX + 160];
    unsigned streams = sc->backend->streams ? sc->backend->streams(&sc->target, root, sizeof root)
                                            : 0;
    if (!streams)
        return 0;
    unsigned clients = last_rank(c) - first_rank(c) + 1;
    if (!(c->meta = calloc((size_t)streams * clients, sizeof *c->meta))) {
        snprintf(err, errlen, "out of memory for the metadata streams");
        return -1;
    }
    for (unsigned r = first_rank(c); r <= last_rank(c); r++) {
        sc->backend->streams(target_of(c, r), root, sizeof root);
        char client[PATH_MAX + 32];
        crew_client_dir(c->dir, ranks_of(c), r, client, sizeof client);
        for (unsigned i = 0; i < streams; i++) {
            struct meta_stream *m = &c->meta[c->nmeta++];
            /* each client's streams do other operations */
            uint64_t seed = sc->workload.seed + RNG_GOLDEN * (i + 1 + 17 * r);
            /* a run journals the stream's changes (journal = no: neither the
             * blocks nor the names); verify takes its model from the journal
             * when the run did not end cleanly */
            uint64_t run_id = c->w[0].meta.run_id;
            if (meta_init(m, root, i, seed, sc->findings_limit, existing) != 0 ||
                (existing ? meta_recover(m, client, run_id)
                 : sc->journal ? meta_journal_open(m, client, run_id) : 0) != 0) {
                if (ranks_of(c) > 1)
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
    unsigned ranks = ranks_of(c);
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
    w->meta.ranks = ranks_of(c);
    if (statemap_init(&w->map, w->meta.nblocks) != 0) {
        snprintf(err, errlen, "out of memory for the state map of %" PRIu64 " blocks",
                 w->meta.nblocks);
        return -1;
    }
    w->map_ready = true;
    findings_init(&w->findings, sc->findings_limit);
    struct block_fmt fmt = {.run_id = base->run_id, .target_id = base->target_id,
                            .writer_id = g, .block_size = base->block_size};
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
        .ranks = ranks_of(c),
        .total_blocks = total,
        .cross = ranks_of(c) > 1 && sc->workload.cross_pct ? &w->cross : NULL,
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
    if (buckets_init(&c->series, sc->bucket_ns,
                     sc->duration_ns + sc->grace_ns + 10000000000ull) != 0) {
        snprintf(err, errlen, "out of memory for the time buckets");
        return -1;
    }
    snprintf(c->dir, sizeof c->dir, "%s", dir);
    if (c->rank < 0 || (c->ranks > 1 && (unsigned)c->rank >= c->ranks)) {
        snprintf(err, errlen, "rank %d of %u", c->rank, c->ranks);
        return -1;
    }
    crew_client_dir(dir, ranks_of(c), (unsigned)c->rank, c->own_dir, sizeof c->own_dir);
    unsigned n = crew_size(sc);
    if (alloc_workers(c, n, err, errlen) != 0)
        return -1;
    /* A size given is checked before the first open creates or extends a
     * file to it; the size that open finds is checked again below. */
    if (sc->target.size && map_fits(c, sc->target.size / sc->workload.block_size, err,
                                    errlen) != 0)
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
    unsigned all = n * ranks_of(c); /* the workers of every client */
    if (total < all) {
        snprintf(err, errlen, "%s has %" PRIu64 " blocks, fewer than the %u workers (one per I/O "
                 "in flight with the sync engine%s); lower depth", sc->target.path, total, all,
                 ranks_of(c) > 1 ? ", on every client" : "");
        return -1;
    }
    for (unsigned i = 0; i < n; i++)
        if (prepare_worker(c, sc, base, i, n, all, total, err, errlen) != 0)
            return -1;
    return prepare_meta(c, false, err, errlen);
}

/* --- threads --- */

static void publish(void *ctx, const struct engine_progress *p)
{
    struct worker *w = ctx;
    atomic_store(&w->p_reads, p->reads);
    atomic_store(&w->p_writes, p->writes);
    atomic_store(&w->p_errors, p->errors);
    atomic_store(&w->p_findings, p->findings);
    atomic_store(&w->p_bytes, p->bytes);
}

struct thread_arg {
    struct crew *c;
    struct worker *w;
    bool verify;
};

static void *worker_main(void *arg)
{
    struct thread_arg *a = arg;
    struct crew *c = a->c;
    struct worker *w = a->w;
    unsigned depth = w->eng.depth ? w->eng.depth : verify_depth(c, w->index);
    if (!a->verify) {
        w->eng.stop = c->stop_workload;
        w->eng.power = &c->power;
        w->eng.progress = publish;
        w->eng.progress_ctx = w;
        if (c->sc->workload.prefill) {
            w->eng.t0 = UINT64_MAX; /* prefill writes carry time 0 */
            w->rc = engine_prefill(&w->eng);
        }
        /* Everyone ready: the main thread sets time zero, then opens. */
        pthread_mutex_lock(&c->gate_mu);
        c->ready++;
        pthread_cond_broadcast(&c->gate_cv);
        while (!c->start_open)
            pthread_cond_wait(&c->gate_cv, &c->gate_mu);
        w->eng.t0 = c->t0;
        pthread_mutex_unlock(&c->gate_mu);
        if (w->rc == 0)
            w->rc = engine_run(&w->eng);
        if (w->rc != 0)
            snprintf(w->err, sizeof w->err, "worker %u: %s", w->index, w->eng.err);
        /* Wait until every worker's workload is over and the faults are
         * cleared: the sweep reads a healed system. */
        pthread_mutex_lock(&c->gate_mu);
        c->engines_done++;
        pthread_cond_broadcast(&c->gate_cv);
        while (!c->gate_open)
            pthread_cond_wait(&c->gate_cv, &c->gate_mu);
        pthread_mutex_unlock(&c->gate_mu);
        if (w->rc != 0)
            return NULL;
    }
    char err[FL_ERRLEN];
    if (sweep_run(&w->ver, &w->be, depth, a->verify ? w->info.final : true,
                  a->verify ? "verify" : "sweep", c->t0, a->verify ? c->stop_workload
                                                                   : c->stop_sweep,
                  &w->sweep, &w->pulse, err, sizeof err) != 0) {
        w->rc = -1;
        snprintf(w->err, sizeof w->err, "worker %u: %s", w->index, err);
    }
    return NULL;
}

/* Runs a worker and tells the main thread when it is back. */
static void *worker_thread(void *arg)
{
    struct thread_arg *a = arg;
    worker_main(arg);
    pthread_mutex_lock(&a->c->gate_mu);
    a->w->thread_done = true;
    pthread_cond_broadcast(&a->c->gate_cv);
    pthread_mutex_unlock(&a->c->gate_mu);
    return NULL;
}

struct monitor {
    struct crew *c;
    bool tty, show;
    uint64_t last_ios, last_bytes, last_t, next, next_plain;
};

/* "[ 12.0s/30s] 21340 IOPS, 83.4 MB/s, 0 errors, 0 findings, 1 fault active" */
static void progress_line(struct monitor *m, uint64_t t)
{
    struct crew *c = m->c;
    uint64_t r = 0, wr = 0, e = 0, f = 0, bytes = 0;
    for (unsigned i = 0; i < c->n; i++) {
        r += atomic_load(&c->w[i].p_reads);
        wr += atomic_load(&c->w[i].p_writes);
        e += atomic_load(&c->w[i].p_errors);
        f += atomic_load(&c->w[i].p_findings);
        bytes += atomic_load(&c->w[i].p_bytes);
    }
    double dt = (double)(t - m->last_t) / 1e9;
    double rate = dt > 0 ? (double)(r + wr - m->last_ios) / dt : 0;
    double mbs = dt > 0 ? (double)(bytes - m->last_bytes) / 1e6 / dt : 0;
    m->last_ios = r + wr;
    m->last_bytes = bytes;
    m->last_t = t;
    unsigned active = c->active_faults ? atomic_load(c->active_faults) : 0;
    char hung[48] = "";
    if (c->hung)
        snprintf(hung, sizeof hung, ", %" PRIu64 " hung", c->hung);
    /* with several clients rank 0 sees only its own I/O until the end */
    char whose[48] = "";
    if (c->ranks > 1)
        snprintf(whose, sizeof whose, "client 0 of %u: ", c->ranks);
    fprintf(stderr, "%s[%5.1fs/%.0fs] %s%.0f IOPS, %.1f MB/s, %" PRIu64 " errors, %" PRIu64
                    " findings, %u fault%s active%s%s",
            m->tty ? "\r" : "", (double)t / 1e9, (double)c->sc->duration_ns / 1e9, whose, rate,
            mbs, e, f, active, active == 1 ? "" : "s", hung, m->tty ? "   " : "\n");
    fflush(stderr);
}

/* Once per bucket: how many I/Os are out and how old the oldest is, into
 * the series; an I/O older than hung_after becomes a hung event. */
static void sample(struct monitor *m, uint64_t t)
{
    struct crew *c = m->c;
    unsigned inflight = 0;
    uint64_t oldest = UINT64_MAX;
    for (unsigned i = 0; i < c->n; i++) {
        struct worker *w = &c->w[i];
        unsigned n = atomic_load(&w->pulse.inflight);
        uint64_t o = atomic_load(&w->pulse.oldest);
        inflight += n;
        if (!n || o == UINT64_MAX || o > t)
            continue;
        if (o < oldest)
            oldest = o;
        if (t - o > c->hung_after_ns && o != w->hung_reported) {
            /* Counted as every I/O the worker has out: they wait behind the
             * same silence (the ones younger than hung_after by a little). */
            w->hung_reported = o;
            c->hung += n;
            char detail[200];
            snprintf(detail, sizeof detail, "worker %u: an I/O issued at %.3f s is still "
                     "outstanding after %.3f s (%u I/Os in flight)", i, (double)o / 1e9,
                     (double)(t - o) / 1e9, n);
            events_emit(c->events, i, "hung", NULL, detail);
        }
    }
    if (!c->series.b)
        return;
    size_t b = (size_t)(t / c->series.width_ns);
    if (b >= c->series.n)
        return;
    struct bucket *k = &c->series.b[b];
    if (inflight > k->inflight)
        k->inflight = inflight;
    if (oldest != UINT64_MAX && t - oldest > k->oldest_age_ns)
        k->oldest_age_ns = t - oldest;
}

/* The verifier's hook (verify.h), on a worker's thread: the finding is
 * queued for on_finding, which the main thread calls; a block already
 * queued once is not again (a bad block is often read bad many times). */
static void queue_finding(void *ctx, const struct finding *f)
{
    struct crew *c = ctx;
    pthread_mutex_lock(&c->gate_mu);
    bool known = false;
    for (unsigned i = 0; i < c->nnoticed && !known; i++)
        known = c->noticed[i].block == f->block;
    if (!known && c->nnoticed < CREW_NOTICED)
        c->noticed[c->nnoticed++] = *f;
    pthread_mutex_unlock(&c->gate_mu);
}

/* The queued findings to on_finding (called without gate_mu held). */
static void pass_findings(struct crew *c)
{
    for (;;) {
        pthread_mutex_lock(&c->gate_mu);
        bool more = c->noticed_done < c->nnoticed;
        struct finding f;
        if (more)
            f = c->noticed[c->noticed_done++];
        pthread_mutex_unlock(&c->gate_mu);
        if (!more)
            return;
        c->on_finding(c->on_finding_ctx, &f, mono_ns() - c->t0);
    }
}

/* Waits until *count reaches `started` (count NULL: every thread is back),
 * sampling and printing progress, at most until `deadline` (ns since time
 * zero); with `stuck_ends` also until every unfinished worker has had an I/O
 * out for longer than grace.  False when it gave up waiting. */
static bool monitor_until(struct monitor *m, unsigned started, unsigned *count, uint64_t deadline,
                          bool stuck_ends)
{
    struct crew *c = m->c;
    uint64_t step = c->series.width_ns < 200000000ull ? c->series.width_ns : 200000000ull;
    if (step < 1000000)
        step = 1000000;
    pthread_mutex_lock(&c->gate_mu);
    for (;;) {
        unsigned have = 0;
        for (unsigned i = 0; i < started && !count; i++)
            have += c->w[i].thread_done;
        if ((count ? *count : have) >= started)
            break;
        uint64_t t = mono_ns() - c->t0;
        if (t >= deadline) {
            pthread_mutex_unlock(&c->gate_mu);
            return false;
        }
        if (stuck_ends) {
            bool all_stuck = true;
            for (unsigned i = 0; i < started; i++) {
                uint64_t o = atomic_load(&c->w[i].pulse.oldest);
                if (!c->w[i].thread_done &&
                    (!atomic_load(&c->w[i].pulse.inflight) || o == UINT64_MAX || o > t ||
                     t - o < c->grace_ns))
                    all_stuck = false;
            }
            if (all_stuck) {
                pthread_mutex_unlock(&c->gate_mu);
                return false;
            }
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t ns = (uint64_t)ts.tv_nsec + step;
        ts.tv_sec += (time_t)(ns / 1000000000ull);
        ts.tv_nsec = (long)(ns % 1000000000ull);
        pthread_cond_timedwait(&c->gate_cv, &c->gate_mu, &ts);
        pthread_mutex_unlock(&c->gate_mu);
        if (c->on_finding)
            pass_findings(c);
        t = mono_ns() - c->t0;
        sample(m, t);
        if (m->show && count && t >= m->next && (m->tty || t >= m->next_plain)) {
            progress_line(m, t);
            if (!m->tty)
                m->next_plain = t + 10000000000ull;
        }
        if (t >= m->next)
            m->next = t + 1000000000ull;
        pthread_mutex_lock(&c->gate_mu);
    }
    pthread_mutex_unlock(&c->gate_mu);
    return true;
}

struct meta_arg {
    struct crew *c;
    struct meta_stream *m;
};

static void *meta_thread(void *arg)
{
    struct meta_arg *a = arg;
    meta_run(a->m, a->c->t0, a->c->sc->duration_ns, a->c->stop_workload);
    pthread_mutex_lock(&a->c->gate_mu);
    a->c->meta_done++;
    pthread_cond_broadcast(&a->c->gate_cv);
    pthread_mutex_unlock(&a->c->gate_mu);
    return NULL;
}

/* Starts the metadata streams (signals blocked, like the workers). */
static struct meta_arg *start_meta(struct crew *c)
{
    struct meta_arg *args = c->nmeta ? calloc(c->nmeta, sizeof *args) : NULL;
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    for (unsigned i = 0; args && i < c->nmeta; i++) {
        args[i] = (struct meta_arg){.c = c, .m = &c->meta[i]};
        pthread_t t;
        int rc = pthread_create(&t, NULL, meta_thread, &args[i]);
        if (rc != 0) {
            snprintf(c->meta[i].err, sizeof c->meta[i].err, "cannot start: %s", strerror(rc));
            break;
        }
        pthread_detach(t);
        c->meta_started++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return args;
}

/* Waits for the metadata streams until deadline (ns since t0).  True when
 * all are back. */
static bool wait_meta(struct crew *c, uint64_t deadline)
{
    struct timespec tick = {0, 10 * 1000 * 1000};
    pthread_mutex_lock(&c->gate_mu);
    while (c->meta_done < c->meta_started && mono_ns() - c->t0 < deadline) {
        pthread_mutex_unlock(&c->gate_mu);
        nanosleep(&tick, NULL);
        pthread_mutex_lock(&c->gate_mu);
    }
    bool all = c->meta_done == c->meta_started;
    pthread_mutex_unlock(&c->gate_mu);
    return all;
}

/* Starts one thread per worker with SIGINT/SIGTERM blocked (the main thread
 * takes the signals).  The number started. */
static unsigned start_workers(struct crew *c, struct thread_arg *args, bool verify)
{
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    unsigned started = 0;
    for (unsigned i = 0; args && i < c->n; i++) {
        args[i] = (struct thread_arg){.c = c, .w = &c->w[i], .verify = verify};
        if (c->on_finding) {
            c->w[i].ver.noticed = queue_finding;
            c->w[i].ver.noticed_ctx = c;
        }
        int rc = pthread_create(&c->w[i].thread, NULL, worker_thread, &args[i]);
        if (rc != 0) {
            c->w[i].rc = -1;
            snprintf(c->w[i].err, sizeof c->w[i].err, "cannot start worker %u: %s", i,
                     strerror(rc));
            *c->stop_workload = 1;
            *c->stop_sweep = 1;
            break;
        }
        started++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!args) {
        c->w[0].rc = -1;
        snprintf(c->w[0].err, sizeof c->w[0].err, "out of memory starting workers");
    }
    return started;
}

/* Once every worker is ready (prefilled): time zero, the start hook (the
 * faults), then the workloads and the metadata streams go. */
static struct meta_arg *open_start(struct crew *c, unsigned started, bool show)
{
    if (show && c->sc->workload.prefill)
        fprintf(stderr, "faultline: prefilling every block once\n");
    pthread_mutex_lock(&c->gate_mu);
    while (c->ready < started)
        pthread_cond_wait(&c->gate_cv, &c->gate_mu);
    pthread_mutex_unlock(&c->gate_mu);
    /* Time zero: the workload starts now, or when the clients agree. */
    uint64_t t0 = c->time_zero ? c->time_zero(c->time_zero_ctx) : mono_ns();
    if (!t0) {
        *c->stop_workload = 1; /* no start agreed: end at once, still report */
        t0 = mono_ns();
    }
    pthread_mutex_lock(&c->gate_mu);
    c->t0 = t0;
    pthread_mutex_unlock(&c->gate_mu);
    if (c->on_start)
        c->on_start(c->on_start_ctx, c->t0);
    pthread_mutex_lock(&c->gate_mu);
    c->start_open = true;
    pthread_cond_broadcast(&c->gate_cv);
    pthread_mutex_unlock(&c->gate_mu);
    return start_meta(c);
}

/* The workloads end at duration; past duration + grace, a worker (or
 * metadata stream) that is not back is stuck on a target that stopped
 * answering and is left behind.  Then the hook between workload and sweep
 * (every fault cleared), and the sweeps may start. */
static void end_workload(struct crew *c, struct monitor *m, unsigned started)
{
    uint64_t deadline = c->sc->duration_ns + c->grace_ns;
    bool back = monitor_until(m, started, &c->engines_done, deadline, false);
    if (!wait_meta(c, deadline)) {
        back = false;
        c->meta_left_behind = true; /* its stream and arguments stay allocated */
    }
    c->workload_end_ns = mono_ns() - c->t0;
    if (!back) {
        c->abandoned = true;
        *c->stop_sweep = 1;
        char detail[160];
        snprintf(detail, sizeof detail, "%u of %u workers and %u of %u metadata streams still "
                 "wait for I/O %.0f s after the end of the workload: left behind",
                 started - c->engines_done, started, c->meta_started - c->meta_done,
                 c->meta_started, (double)c->grace_ns / 1e9);
        events_emit(c->events, 0, "abandoned", NULL, detail);
    }
    if (c->between)
        c->between(c->between_ctx);
    pthread_mutex_lock(&c->gate_mu);
    c->gate_open = true;
    pthread_cond_broadcast(&c->gate_cv);
    pthread_mutex_unlock(&c->gate_mu);
}

/* Joins every worker that came back; the others are left behind.  True
 * when one was. */
static bool join_workers(struct crew *c, unsigned started)
{
    bool any_left = false;
    for (unsigned i = 0; i < started; i++) {
        pthread_mutex_lock(&c->gate_mu);
        bool back = c->w[i].thread_done;
        pthread_mutex_unlock(&c->gate_mu);
        if (back) {
            pthread_join(c->w[i].thread, NULL);
        } else {
            c->w[i].left_behind = true; /* parked in its target's silence; never joined */
            any_left = true;
        }
    }
    return any_left;
}

/* The workload (unless verifying) and the sweeps, with progress lines. */
static void run_threads(struct crew *c, bool verify)
{
    struct thread_arg *args = calloc(c->n, sizeof *args);
    struct meta_arg *meta_args = NULL;
    unsigned started = start_workers(c, args, verify);
    bool tty = isatty(STDERR_FILENO);
    bool show = !c->quiet && !verify;
    if (!verify)
        meta_args = open_start(c, started, show);
    struct monitor m = {.c = c, .tty = tty, .show = show, .last_t = mono_ns() - c->t0};
    m.next = m.last_t + 1000000000ull;
    m.next_plain = m.last_t + 10000000000ull;
    if (!verify)
        end_workload(c, &m, started);
    /* Sweeps (or the verify pass): no deadline for a big target, but a
     * worker with no I/O answered for `grace` is given up. */
    if (!c->abandoned && !monitor_until(&m, started, NULL, UINT64_MAX, true)) {
        c->abandoned = true;
        *c->stop_sweep = 1;
        events_emit(c->events, 0, "abandoned", NULL,
                    "the sweep got no answer for the grace period: left behind");
    }
    if (c->on_finding)
        pass_findings(c); /* the sweep's last ones */
    bool any_left = join_workers(c, started);
    if (show && tty)
        fputc('\n', stderr);
    /* A worker left behind still holds its argument and reads it if its I/O
     * ever returns; the process ends without freeing what workers use. */
    if (!any_left)
        free(args);
    if (!c->meta_left_behind)
        free(meta_args);
}


static int by_read_time(const void *a, const void *b)
{
    const struct finding *x = a, *y = b;
    return x->read_ns < y->read_ns ? -1 : x->read_ns > y->read_ns;
}

/* Fills in written_at of one worker's findings from its journal. */
static void resolve_written_at(struct worker *w)
{
    struct findings *f = &w->findings;
    size_t n = f->n;
    if (!n)
        return;
    uint64_t *blocks = calloc(n, sizeof *blocks), *t = calloc(n, sizeof *t);
    gen_t *gens = calloc(n, sizeof *gens);
    if (blocks && t && gens) {
        for (size_t i = 0; i < n; i++) {
            blocks[i] = f->list[i].block / w->meta.workers; /* journals hold local numbers */
            gens[i] = f->list[i].expected_gen;
        }
        if (journal_lookup_done(w->dir, n, blocks, gens, t) == 0)
            for (size_t i = 0; i < n; i++)
                if (f->list[i].written_ns == FL_TIME_UNKNOWN)
                    f->list[i].written_ns = t[i];
    }
    free(blocks);
    free(t);
    free(gens);
}

static void merge(struct crew *c)
{
    findings_init(&c->findings, c->sc->findings_limit);
    findings_init(&c->reverted, c->sc->findings_limit);
    memset(c->reverted_by_loss, 0, sizeof c->reverted_by_loss);
    memset(&c->io, 0, sizeof c->io);
    memset(&c->sweep, 0, sizeof c->sweep);
    memset(&c->prefilled, 0, sizeof c->prefilled);
    for (unsigned i = 0; i < c->n; i++) {
        struct worker *w = &c->w[i];
        /* Completions in time, a left-behind worker's too: it is parked
         * waiting on its target, and what it did before is the story. */
        if (c->series.b && w->buckets.b)
            buckets_merge(&c->series, &w->buckets);
        if (w->left_behind) {
            /* Its engine never returned to stamp how long it ran. */
            struct io_stats st = w->eng.stats;
            st.ns = c->workload_end_ns;
            io_stats_sum(&c->io, &st);
            continue;
        }
        io_stats_sum(&c->io, &w->eng.stats);
        resolve_written_at(w);
        for (size_t k = 0; ranks_of(c) > 1 && k < w->findings.n; k++) {
            struct finding *x = &w->findings.list[k];
            x->client = c->rank;
            x->owner = x->block == FL_NO_BLOCK ? c->rank : (int)(x->block % ranks_of(c));
        }
        io_stats_sum(&c->prefilled, &w->eng.prefilled);
        io_stats_sum(&c->sweep, &w->sweep);
        findings_merge(&c->findings, &w->findings);
        findings_merge(&c->reverted, &w->reverted);
        for (unsigned k = 0; k <= POWER_LOSSES_MAX; k++)
            c->reverted_by_loss[k] += w->ver.reverted_by_loss[k];
        c->bytes_at_rest += w->map_ready ? statemap_bytes_at_rest(&w->map) : 0;
        c->bytes_peak += w->map_ready ? statemap_bytes_total(&w->map) : 0;
        c->pending_peak += w->map.peak;
        c->journal_stalls += w->eng.journal_stalls;
        c->checkpoints += w->eng.checkpoints;
        c->doubtful_writes += w->eng.doubtful_writes;
        for (unsigned k = 0; k < POWER_LOSSES_MAX; k++)
            c->at_risk[k] += w->eng.at_risk[k];
        c->replayed += w->info.replayed;
        if (w->eng.interrupted)
            c->interrupted = true;
        if (w->rc != 0 && !c->error)
            c->error = w->err;
    }
    if (c->findings.n > 1)
        qsort(c->findings.list, c->findings.n, sizeof *c->findings.list, by_read_time);
}

/* Writes every worker's last state (final when it ended cleanly) before the
 * findings are resolved against the journals. */
static void save_states(struct crew *c)
{
    for (unsigned i = 0; i < c->n; i++) {
        struct worker *w = &c->w[i];
        char err[FL_ERRLEN];
        int rc;
        if (w->left_behind)
            continue; /* its journal stays as it is: `faultline verify` later treats the
                         run like one that crashed */
        if (w->journal) {
            rc = journal_close(w->journal, &w->map, w->rc == 0, err, sizeof err);
            w->journal = NULL;
        } else {
            rc = state_save(w->dir, &w->meta, &w->map, w->rc == 0, err, sizeof err);
        }
        if (rc != 0 && w->rc == 0) {
            w->rc = -1;
            snprintf(w->err, sizeof w->err, "worker %u: %s", i, err);
        }
    }
}

/* What the target kind checks beyond the blocks once they are swept (the
 * names of a file tree), and the metadata streams' models.  Not after an
 * abandoned run: the storage stopped answering. */
static void check_after_sweep(struct crew *c, const char *phase)
{
    const struct scenario *sc = c->sc;
    if (c->abandoned)
        return;
    uint64_t now = c->t0 ? mono_ns() - c->t0 : 0;
    for (unsigned r = first_rank(c); r <= last_rank(c); r++) {
        /* each client's subtree, its own metadata streams left out */
        const char *skip[17] = {NULL};
        unsigned k = 0;
        for (unsigned i = 0; i < c->nmeta && k < 16; i++)
            if (c->meta[i].client == r)
                skip[k++] = c->meta[i].rel;
        if (sc->backend->check_after &&
            sc->backend->check_after(target_of(c, r), skip, &c->findings, phase, now,
                                     c->names_err, sizeof c->names_err) < 0 && !c->error)
            c->error = c->names_err;
    }
    for (unsigned i = 0; i < c->nmeta; i++) {
        struct meta_stream *m = &c->meta[i];
        char client[PATH_MAX + 32];
        crew_client_dir(c->dir, ranks_of(c), m->client, client, sizeof client);
        meta_check_all(m, phase, now);
        if (!c->verifying && (m->log_failed || meta_save(m, client) != 0 ||
                              meta_journal_close(m) != 0) && !c->error) {
            snprintf(c->names_err, sizeof c->names_err, "metadata stream %u: %s", m->index,
                     m->err);
            c->error = c->names_err;
        }
        /* A stream names its paths below its client's subtree. */
        for (size_t f = 0; ranks_of(c) > 1 && f < m->findings.n; f++) {
            struct finding *x = &m->findings.list[f];
            char rel[FL_FINDING_PATH];
            snprintf(rel, sizeof rel, "client-%u/%.*s", m->client, (int)sizeof rel - 24, x->path);
            snprintf(x->path, sizeof x->path, "%s", rel);
            x->client = (int)m->client;
            x->owner = (int)m->client;
        }
        findings_merge(&c->findings, &m->findings);
    }
}

void crew_run(struct crew *c)
{
    run_threads(c, false);
    save_states(c);
    merge(c);
    check_after_sweep(c, "sweep");
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
    worker_dir(dir, c->ranks, 0, w0, sizeof w0);
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
    if (meta.workers == 0 || meta.workers > 65536 || meta.workers % ranks_of(c) != 0) {
        snprintf(err, errlen, "%s: damaged state (workers = %u of %u clients)", w0, meta.workers,
                 ranks_of(c));
        return -1;
    }
    if (alloc_workers(c, meta.workers, err, errlen) != 0)
        return -1;
    c->state_final = true;
    for (unsigned i = 0; i < c->n; i++) {
        struct worker *w = &c->w[i];
        if (access(w->dir, F_OK) != 0) {
            snprintf(err, errlen, "%s is missing: worker %u of the run (client %u) kept its "
                     "state there; copy the client's directory back to verify its share", w->dir,
                     i, ranks_of(c) > 1 ? i % ranks_of(c) : 0);
            return -1;
        }
        if (state_load(w->dir, &w->meta, &w->map, &w->info, err, errlen) != 0)
            return -1;
        w->map_ready = true;
        if (w->meta.run_id != meta.run_id || w->meta.worker != i || w->meta.workers != c->n) {
            snprintf(err, errlen, "%s does not belong to the run in %s", w->dir, w0);
            return -1;
        }
        /* A journaled run killed before its first segment existed issued no
         * write yet: its empty state is right.  Without a journal nothing
         * after the start is known. */
        if (!w->info.final && !w->info.journaled) {
            snprintf(err, errlen, "the run in %s did not end cleanly and kept no journal "
                     "(journal = no): its state is unknown, nothing can be verified", dir);
            return -1;
        }
        if (!w->info.final)
            c->state_final = false;
        if (w->meta.block_size != sc->workload.block_size) {
            snprintf(err, errlen, "%s: the run used %u-byte blocks, scenario.scn says %u", dir,
                     w->meta.block_size, sc->workload.block_size);
            return -1;
        }
        if (open_backend(c, w, verify_depth(c, i), err, errlen) != 0)
            return -1;
        if (sc->workload.cross_pct && ranks_of(c) > 1 &&
            cross_log_load(&w->cross, w->dir, w->meta.run_id, err, errlen) != 0)
            return -1;
        if (w->be.capacity / w->meta.block_size < w->meta.total_blocks) {
            snprintf(err, errlen, "%s is now smaller (%" PRIu64 " bytes) than during the run "
                     "(%" PRIu64 " blocks of %u)", sc->target.path, w->be.capacity,
                     w->meta.total_blocks, w->meta.block_size);
            return -1;
        }
        findings_init(&w->findings, sc->findings_limit);
        struct block_fmt fmt = {.run_id = w->meta.run_id, .target_id = w->meta.target_id,
                                .writer_id = i, .block_size = w->meta.block_size};
        /* every worker sees the target of every client */
        if (verifier_init(&w->ver, &w->map, &w->findings, &fmt, i, c->n) != 0) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        w->ver_ready = true;
        findings_init(&w->reverted, sc->findings_limit);
        w->ver.reverted = &w->reverted;
        w->ver.from_run_dir = true;
    }
    c->capacity = c->w[0].be.capacity;
    snprintf(c->desc, sizeof c->desc, "%s", c->w[0].be.desc);
    return prepare_meta(c, true, err, errlen);
}

void crew_verify(struct crew *c)
{
    run_threads(c, true);
    merge(c);
    check_after_sweep(c, "verify");
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
        snprintf(err, errlen, "the target %s holds blocks of run %016" PRIx64 ", not of this run "
                 "%016" PRIx64 " (%" PRIu64 " of the %" PRIu64 " blocks read, the first at block "
                 "%" PRIu64 ", byte offset %" PRIu64 "): another faultline run has written to it "
                 "since; verify that run's directory instead (had nothing else written there, "
                 "the storage returned an older run's data where this run's was durable)",
                 c->sc->target.path, vo->other_run, c->w[0].meta.run_id, other, read,
                 vo->other_block, vo->other_offset);
        return -1;
    }
    if (vb) {
        snprintf(err, errlen, "%s/journal.bin lacks writes the target holds: block %" PRIu64
                 " (byte offset %" PRIu64 ") holds generation %u of this run, newer than any "
                 "write the run directory knows of (newest %u), and %" PRIu64 " more blocks "
                 "do: its journal or checkpoint was cut short or is older than the target; "
                 "nothing can be verified from it", wb->dir, vb->beyond_block, vb->beyond_offset,
                 vb->beyond_found, vb->beyond_newest, beyond - 1);
        return -1;
    }
    return 0;
}

bool crew_block_written(void *ctx, uint64_t b)
{
    struct crew *c = ctx;
    if (!c->n)
        return false;
    /* worker g of the run owns it; it is ours when its rank is */
    unsigned all = c->rank < 0 ? c->n : c->n * ranks_of(c);
    unsigned g = (unsigned)(b % all);
    if (c->rank >= 0 && g % ranks_of(c) != (unsigned)c->rank)
        return false;
    struct worker *w = &c->w[c->rank < 0 ? g : g / ranks_of(c)];
    uint64_t local = b / all;
    if (!w->map_ready || w->left_behind || local >= w->map.nblocks)
        return false;
    return statemap_touched(&w->map, local);
}

void crew_discard(struct crew *c)
{
    if (!c->w || !c->n || !c->sc)
        return;
    struct backend *be = &c->w[0].be;
    if (be->created && be->ops && be->ops->discard)
        be->ops->discard(be, &c->sc->target);
}

void crew_close(struct crew *c)
{
    for (unsigned i = 0; c->w && i < c->n; i++) {
        struct worker *w = &c->w[i];
        if (w->left_behind)
            continue; /* its thread still uses all of it; the process exits soon */
        if (w->journal) {
            /* Only when preparation failed half-way: nothing ran. */
            char err[FL_ERRLEN];
            journal_close(w->journal, NULL, false, err, sizeof err);
            w->journal = NULL;
        }
        if (w->ver_ready)
            verifier_free(&w->ver);
        findings_free(&w->findings);
        findings_free(&w->reverted);
        cross_log_free(&w->cross);
        if (w->map_ready)
            statemap_free(&w->map);
        if (w->be_open)
            w->be.ops->close(&w->be);
    }
    for (unsigned i = 0; !c->meta_left_behind && i < c->nmeta; i++)
        meta_free(&c->meta[i]);
    if (!c->meta_left_behind) {
        free(c->meta);
        c->meta = NULL;
    }
    if (c->abandoned)
        return; /* left-behind threads still hold the gate and their worker */
    for (unsigned i = 0; c->w && i < c->n; i++)
        buckets_free(&c->w[i].buckets);
    if (c->w) {
        pthread_mutex_destroy(&c->gate_mu);
        pthread_cond_destroy(&c->gate_cv);
    }
    free(c->w);
    c->w = NULL;
}

int crew_save_cross(struct crew *c, char *err, size_t errlen)
{
    for (unsigned i = 0; i < c->n; i++) {
        struct worker *w = &c->w[i];
        if (!w->left_behind && w->eng.cross &&
            cross_log_save(&w->cross, w->dir, w->meta.run_id, err, errlen) != 0)
            return -1;
    }
    return 0;
}

void crew_free(struct crew *c)
{
    findings_free(&c->findings);
    findings_free(&c->reverted);
    buckets_free(&c->series);
}
