/* crew_threads — the workload while it runs (see crew.h): one thread per
 * worker, the metadata streams' threads, and the monitor that prints
 * progress, samples the buckets, passes findings on and watches for hung
 * I/O. */
#include "crew.h"
#include "crew_parts.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../lib/clock.h"

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
    unsigned depth = w->eng.depth ? w->eng.depth : crew_verify_depth(c, w->index);
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
                  a->verify ? "verify" : "sweep", c->t0,
                  a->verify ? c->stop_workload : c->stop_sweep, &w->sweep, &w->pulse, err,
                  sizeof err) != 0) {
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
    char more[256] = "";
    if (c->fault_progress)
        c->fault_progress(c->fault_progress_ctx, more, sizeof more);
    fprintf(stderr,
            "%s[%5.1fs/%.0fs] %s%.0f IOPS, %.1f MB/s, %" PRIu64 " errors, %" PRIu64
            " findings, %u fault%s active%s%s%s",
            m->tty ? "\r" : "", (double)t / 1e9, (double)c->sc->duration_ns / 1e9, whose, rate, mbs,
            e, f, active, active == 1 ? "" : "s", hung, more, m->tty ? "   " : "\n");
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
            snprintf(detail, sizeof detail,
                     "worker %u: an I/O issued at %.3f s is still "
                     "outstanding after %.3f s (%u I/Os in flight)",
                     i, (double)o / 1e9, (double)(t - o) / 1e9, n);
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
                if (!c->w[i].thread_done && (!atomic_load(&c->w[i].pulse.inflight) ||
                                             o == UINT64_MAX || o > t || t - o < c->grace_ns))
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
        snprintf(detail, sizeof detail,
                 "%u of %u workers and %u of %u metadata streams still "
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

void crew_run_threads(struct crew *c, bool verify)
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
