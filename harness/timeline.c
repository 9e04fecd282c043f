/* timeline — see timeline.h for the life of a fault. */
#include "timeline.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../lib/clock.h"

#define UNDO_AHEAD_NS 20000000ull /* undo records go to disk this long before inject */
#define SPIN_NS 200000ull         /* sleep until this close, then spin */

static void add_host(struct fault_env *env, const char *name, const char *netns,
                     const char *ifname, const char *port, const char *addr, bool lab)
{
    if (env->nhosts == FL_MAX_HOSTS)
        return;
    struct fault_host *h = &env->hosts[env->nhosts++];
    memset(h, 0, sizeof *h);
    snprintf(h->name, sizeof h->name, "%s", name);
    snprintf(h->netns, sizeof h->netns, "%s", netns);
    snprintf(h->ifname, sizeof h->ifname, "%s", ifname);
    snprintf(h->port, sizeof h->port, "%s", port);
    snprintf(h->addr, sizeof h->addr, "%s", addr);
    h->lab = lab;
}

static int by_time(const void *a, const void *b)
{
    const struct step *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    if (x->inject != y->inject)
        return x->inject ? 1 : -1; /* at the same time: clear first */
    return x->fault < y->fault ? -1 : x->fault > y->fault;
}

int timeline_plan(const struct fault *faults, unsigned n, struct step **out, unsigned *nout)
{
    unsigned cap = 0;
    for (unsigned i = 0; i < n; i++)
        cap += faults[i].schedule.shape == FAULT_STEPPED ? 2 * (unsigned)faults[i].schedule.steps
                                                          : 2;
    struct step *steps = calloc(cap ? cap : 1, sizeof *steps);
    if (!steps)
        return -1;
    unsigned k = 0;
    for (unsigned i = 0; i < n; i++) {
        const struct fault_schedule *s = &faults[i].schedule;
        uint64_t at = faults[i].spec.at_ns;
        switch (s->shape) {
        case FAULT_STEPPED:
            for (uint64_t j = 0; j < s->steps; j++) {
                uint64_t t = at + j * s->period_ns;
                steps[k++] = (struct step){t, i, true};
                steps[k++] = (struct step){t + s->period_ns / 2, i, false};
            }
            break;
        case FAULT_LASTING:
            steps[k++] = (struct step){at, i, true};
            if (s->clear_after_ns)
                steps[k++] = (struct step){at + s->clear_after_ns, i, false};
            break;
        case FAULT_INSTANT:
            steps[k++] = (struct step){at, i, true};
            break;
        }
    }
    qsort(steps, k, sizeof *steps, by_time);
    *out = steps;
    *nout = k;
    return 0;
}

static int build_steps(struct timeline *tl, char *err, size_t errlen)
{
    if (timeline_plan(tl->faults, tl->n, &tl->steps, &tl->nsteps) != 0 ||
        !(tl->delays = calloc(tl->nsteps ? tl->nsteps : 1, sizeof *tl->delays))) {
        snprintf(err, errlen, "out of memory for the fault schedule");
        return -1;
    }
    return 0;
}

/* Every host the scenario knows: the lab's, `local`, its [host] sections. */
static void gather_hosts(struct timeline *tl, const struct scenario *sc, const struct lab *lab)
{
    struct fault_env *env = &tl->env;
    if (lab) {
        tl->lab = *lab;
        lab_fault_lab(&tl->lab, &tl->fault_lab);
        env->lab = &tl->fault_lab;
        snprintf(env->bridge, sizeof env->bridge, "%s", lab->bridge);
        for (unsigned i = 0; i < lab->nhosts; i++) {
            const struct lab_host *h = &lab->hosts[i];
            add_host(env, h->name, h->netns, h->ifname, h->port, h->addr, true);
        }
    }
    add_host(env, "local", "", "", "", "", false);
    for (unsigned i = 0; i < sc->nhosts; i++) {
        const struct host_spec *h = &sc->hosts[i];
        add_host(env, h->name, h->netns, h->interface, h->port, h->address, false);
    }
}

/* One fault: where it acts, how it lasts, and its family's preparation. */
static int prepare_fault(struct timeline *tl, const struct scenario *sc, unsigned i, char *err,
                         size_t errlen)
{
    struct fault *f = &tl->faults[i];
    f->index = i;
    f->spec = sc->faults[i];
    f->env = &tl->env;
    f->ops = f->spec.ops;
    fault_schedule_of(&f->spec, &f->schedule);
    const struct fault_host *h = fault_find_host(&tl->env, f->spec.host);
    if (!h) {
        snprintf(err, errlen, "%s:%d: [fault %s] host '%s' is not known", sc->file, f->spec.line,
                 f->spec.name, f->spec.host);
        return -1;
    }
    f->host = *h;
    if (f->spec.interface[0])
        snprintf(f->host.ifname, sizeof f->host.ifname, "%s", f->spec.interface);
    if (f->spec.switch_port[0])
        snprintf(f->host.port, sizeof f->host.port, "%s", f->spec.switch_port);
    char e[1024];
    if (f->ops->prepare && f->ops->prepare(f, e, sizeof e) != 0) {
        snprintf(err, errlen, "%s:%d: [fault %s] %s: %s", sc->file, f->spec.line, f->spec.name,
                 f->ops->action, e);
        return -1;
    }
    return 0;
}

int timeline_prepare(struct timeline *tl, const struct scenario *sc, const struct lab *lab,
                     const char *dir, struct event_log *events, const char *target_path,
                     uint64_t target_bytes, uint64_t run_id, char *err, size_t errlen)
{
    memset(tl, 0, sizeof *tl);
    pthread_mutex_init(&tl->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&tl->cv, &ca);
    pthread_condattr_destroy(&ca);
    tl->events = events;
    tl->end_ns = sc->duration_ns;
    if (!sc->nfaults)
        return 0;
    struct fault_env *env = &tl->env;
    env->dir = dir;
    env->undo = &tl->undo;
    env->target_path = target_path;
    env->target_bytes = target_bytes;
    env->block_size = sc->workload.block_size;
    env->allow_destructive = sc->allow_destructive;
    env->allow_paths = sc->allow_paths;
    env->replica_labs = lab_kinds_with_replicas();
    snprintf(env->tag, sizeof env->tag, "fl%06llx", (unsigned long long)(run_id & 0xffffff));
    gather_hosts(tl, sc, lab);
    tl->faults = calloc(sc->nfaults, sizeof *tl->faults);
    if (!tl->faults) {
        snprintf(err, errlen, "out of memory for %u faults", sc->nfaults);
        return -1;
    }
    tl->n = sc->nfaults;
    for (unsigned i = 0; i < tl->n; i++)
        if (prepare_fault(tl, sc, i, err, errlen) != 0)
            return -1;
    if (build_steps(tl, err, errlen) != 0)
        return -1;
    if (undo_open(&tl->undo, dir, err, errlen) != 0)
        return -1;
    tl->undo_open = true;
    return 0;
}

static uint64_t now_rel(const struct timeline *tl)
{
    return mono_ns() - tl->t0;
}

/* Sleeps until t (ns since the workload start) unless stopped first.
 * Returns false when stopped. */
static bool wait_until(struct timeline *tl, uint64_t t)
{
    uint64_t abs = tl->t0 + t;
    pthread_mutex_lock(&tl->mu);
    while (!tl->stop) {
        uint64_t now = mono_ns();
        if (now + SPIN_NS >= abs)
            break;
        uint64_t wake = abs - SPIN_NS;
        struct timespec ts = {.tv_sec = (time_t)(wake / 1000000000ull),
                              .tv_nsec = (long)(wake % 1000000000ull)};
        pthread_cond_timedwait(&tl->cv, &tl->mu, &ts);
    }
    bool stopped = tl->stop;
    pthread_mutex_unlock(&tl->mu);
    while (!stopped && mono_ns() < abs)
        ; /* the last 200 µs: a spin is far more exact than a timed wake-up */
    return !stopped;
}

static void emit(struct timeline *tl, const char *event, const struct fault *f, const char *extra)
{
    char detail[2048];
    char what[1024] = "";
    if (f->ops->describe)
        f->ops->describe(f, what, sizeof what);
    snprintf(detail, sizeof detail, "[fault %s] %s: %s%s%s", f->spec.name, f->ops->action, what,
             extra && *extra ? "; " : "", extra ? extra : "");
    events_emit(tl->events, 0, event, NULL, detail);
}

static void do_clear(struct timeline *tl, struct fault *f, const char *why)
{
    char err[1024] = "";
    int rc = f->ops->clear ? f->ops->clear(f, err, sizeof err) : fault_undo_all(f, err, sizeof err);
    f->cleared_ns = now_rel(tl);
    if (f->active)
        atomic_fetch_sub(&tl->active, 1);
    f->active = false;
    if (rc != 0 && !f->error[0])
        snprintf(f->error, sizeof f->error, "clear failed: %s", err);
    emit(tl, rc == 0 ? "fault-clear" : "fault-clear-failed", f, rc == 0 ? why : err);
}

static void do_inject(struct timeline *tl, struct fault *f, const struct step *st)
{
    char err[1024] = "";
    uint64_t begin = mono_ns();
    int rc = f->ops->inject(f, err, sizeof err);
    uint64_t end = mono_ns();
    if (rc == 0)
        tl->delays[tl->ndelays++] = end - tl->t0 > st->t ? end - tl->t0 - st->t : 0;
    if (!f->injected_ns) { /* a flap keeps its first time */
        f->scheduled_ns = st->t;
        f->injected_ns = end - tl->t0;
        f->apply_ns = end - begin;
        if (f->ops->describe)
            f->ops->describe(f, f->detail, sizeof f->detail);
    }
    f->steps_done++;
    if (rc != 0) {
        snprintf(f->error, sizeof f->error, "inject failed: %s", err);
        emit(tl, "fault-failed", f, err);
        /* Whatever part of it happened is undone at once. */
        char e2[256];
        fault_undo_all(f, e2, sizeof e2);
        return;
    }
    if (!f->active)
        atomic_fetch_add(&tl->active, 1);
    f->active = true;
    f->applied = true;
    char late[64];
    snprintf(late, sizeof late, "%.3f ms after its time", (double)(end - tl->t0 - st->t) / 1e6);
    emit(tl, "fault-inject", f, late);
    if (f->schedule.shape == FAULT_INSTANT) {
        atomic_fetch_sub(&tl->active, 1);
        f->active = false;
        f->cleared_ns = f->injected_ns;
    }
}

static void *run_schedule(void *arg)
{
    struct timeline *tl = arg;
    /* Real-time priority when allowed (root): the workload's threads keep
     * both cores busy, and a fault should not wait for a time slice.  The
     * thread sleeps almost all the time, so it costs them nothing. */
    struct sched_param sp = {.sched_priority = 10};
    pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
    for (unsigned i = 0; i < tl->nsteps; i++) {
        const struct step *st = &tl->steps[i];
        struct fault *f = &tl->faults[st->fault];
        if (st->t >= tl->end_ns)
            break; /* nothing starts after the workload; finish() clears */
        if (st->inject && f->nundo < f->nplanned) {
            uint64_t ahead = st->t > UNDO_AHEAD_NS ? st->t - UNDO_AHEAD_NS : 0;
            if (!wait_until(tl, ahead))
                break;
            char err[512];
            if (fault_write_undo(f, err, sizeof err) != 0) {
                snprintf(f->error, sizeof f->error, "not injected: %s", err);
                emit(tl, "fault-failed", f, err);
                continue; /* never apply what could not be recorded */
            }
        }
        if (!wait_until(tl, st->t))
            break;
        if (st->inject) {
            if (!f->error[0])
                do_inject(tl, f, st);
        } else if (f->active) {
            do_clear(tl, f, NULL);
        }
    }
    return NULL;
}

int timeline_start(struct timeline *tl, uint64_t t0, char *err, size_t errlen)
{
    tl->t0 = t0;
    if (!tl->n)
        return 0;
    int rc = pthread_create(&tl->thread, NULL, run_schedule, tl);
    if (rc != 0) {
        snprintf(err, errlen, "cannot start the fault timeline: %s", strerror(rc));
        return -1;
    }
    tl->running = true;
    return 0;
}

void timeline_finish(struct timeline *tl)
{
    if (tl->running) {
        pthread_mutex_lock(&tl->mu);
        tl->stop = true;
        pthread_cond_broadcast(&tl->cv);
        pthread_mutex_unlock(&tl->mu);
        pthread_join(tl->thread, NULL);
        tl->running = false;
    }
    bool all_clear = true;
    for (unsigned i = 0; i < tl->n; i++) {
        struct fault *f = &tl->faults[i];
        if (f->active)
            do_clear(tl, f, "at the end of the workload");
        if (f->nundo || f->undo_failed)
            all_clear = false; /* an undo that failed: cleanup will retry */
    }
    if (tl->undo_open) {
        undo_close(&tl->undo, all_clear);
        tl->undo_open = false;
    }
}

static int by_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

unsigned timeline_delays(const struct timeline *tl, double *p50, double *p99, double *max)
{
    *p50 = *p99 = *max = 0;
    if (!tl->ndelays)
        return 0;
    uint64_t *d = malloc(tl->ndelays * sizeof *d);
    if (!d)
        return 0;
    memcpy(d, tl->delays, tl->ndelays * sizeof *d);
    qsort(d, tl->ndelays, sizeof *d, by_u64);
    unsigned n = tl->ndelays;
    *p50 = (double)d[(n - 1) / 2] / 1e6;
    *p99 = (double)d[(unsigned)((n - 1) * 0.99)] / 1e6;
    *max = (double)d[n - 1] / 1e6;
    free(d);
    return n;
}

void timeline_free(struct timeline *tl)
{
    timeline_finish(tl);
    for (unsigned i = 0; tl->faults && i < tl->n; i++)
        fault_release(&tl->faults[i]);
    free(tl->faults);
    free(tl->steps);
    free(tl->delays);
    tl->delays = NULL;
    tl->faults = NULL;
    tl->steps = NULL;
    pthread_mutex_destroy(&tl->mu);
    pthread_cond_destroy(&tl->cv);
}
